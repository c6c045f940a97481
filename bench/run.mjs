#!/usr/bin/env node
// Runs the benches (all, or those named on the command line) against the
// built dist/, prints `name  ours  reference  ratio`, each issue figure
// against its target (lib/targets.mjs) and each bench's time, ends with all
// the figures together, issue #30's table with pass/fail per row, and the
// whole run's time against its 10-minute budget, and writes bench/results/<name>.json. Targets are printed, never
// enforced.
//
//   npm run bench                 # builds first
//   node bench/run.mjs cold-start # one bench, dist/ as it is

import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { figureLine, figuresOf, issueTableLines } from './lib/targets.mjs';
import { CLI, fmtBytes, fmtMs, RESULTS } from './lib/util.mjs';
import * as piScan from './pi-scan-10k.mjs';
import * as coldStart from './cold-start.mjs';
import * as piDelete from './pi-delete-1k.mjs';
import * as tui100k from './tui-100k.mjs';
import * as claudeScan from './claude-scan-10k.mjs';
import * as backup1g from './backup-1g.mjs';
import * as opencode5k from './opencode-5k.mjs';
import * as codexScan from './codex-scan-2k.mjs';
import * as compact1g from './compact-1g.mjs';
import * as cliCodexShare from './cli-codex-share.mjs';
import * as codexDeleteScale from './codex-delete-scale.mjs';
import * as opencodeExportScale from './opencode-export-scale.mjs';
import * as opencodeGc from './opencode-gc.mjs';
import * as backupMemory from './backup-memory.mjs';
import * as fullDisk from './full-disk.mjs';
import * as cliScan100k from './cli-scan-100k.mjs';
import * as jitBudget from './jit-budget.mjs';

const BENCHES = [
  piScan,
  coldStart,
  piDelete,
  tui100k,
  claudeScan,
  backup1g,
  opencode5k,
  codexScan,
  compact1g,
  cliCodexShare,
  codexDeleteScale,
  opencodeExportScale,
  opencodeGc,
  backupMemory,
  fullDisk,
  cliScan100k,
  jitBudget,
];

// `--scale S` sizes the benches that take one (full-disk: S=1 ≈ 15 GB; default 0.1).
const argv = process.argv.slice(2);
const scaleAt = argv.indexOf('--scale');
const scale = scaleAt >= 0 ? Number(argv[scaleAt + 1]) : undefined;
if (scaleAt >= 0 && !(scale > 0)) {
  process.stderr.write('--scale needs a positive number (full-disk: 1 is about 15 GB).\n');
  process.exit(2);
}
const wanted = scaleAt >= 0 ? argv.filter((_, i) => i !== scaleAt && i !== scaleAt + 1) : argv;
const unknown = wanted.filter((w) => !BENCHES.some((b) => b.name === w));
if (unknown.length) {
  process.stderr.write(`unknown bench: ${unknown.join(', ')} (have: ${BENCHES.map((b) => b.name).join(', ')})\n`);
  process.exit(2);
}
if (!existsSync(CLI)) {
  process.stderr.write('dist/cli.js is missing: run `npm run bench` (it builds first).\n');
  process.exit(1);
}
mkdirSync(RESULTS, { recursive: true });

const log = (s) => process.stdout.write(`${s}\n`);
const row = (cells) => cells.map((c, i) => (i === 0 ? String(c).padEnd(14) : String(c).padStart(12))).join('  ');
log(row(['name', 'ours', 'reference', 'ratio']));
let failed = 0;
const t0 = Date.now();
/** Every bench's issue figures and its time, for the summary at the end. */
const summary = [];
/** This run's results by bench name, for issue #30's table. */
const results = new Map();
for (const b of BENCHES) {
  if (wanted.length && !wanted.includes(b.name)) continue;
  let res;
  const started = Date.now();
  try {
    res = await b.run({ log, ...(scale === undefined ? {} : { scale }) });
  } catch (e) {
    failed++;
    log(row([b.name, 'error', '', '']));
    log(`  ${e instanceof Error ? e.message : String(e)}`);
    summary.push({ name: b.name, seconds: (Date.now() - started) / 1000, lines: ['error (no figure)'] });
    continue;
  }
  const ratio = res.ratio === null ? 'n/a' : `${res.ratio.toFixed(2)}×`;
  const verdict = res.ratio === null || res.target === null ? '' : res.ratio <= res.target ? 'within target' : 'OVER target';
  const goal = res.target === null ? '(reported; no target)' : `(target ≤ ${res.target}× ${verdict})`;
  log(`${row([res.name, fmtMs(res.ours), fmtMs(res.reference), ratio])}   ${goal}`.trimEnd());
  if (res.extra?.duSessionsBytes !== undefined) {
    log(
      `  ${res.extra.sessions} sessions; du -sb sessions/ = ${res.extra.duSessionsBytes} (${fmtBytes(res.extra.duSessionsBytes ?? 0)}); prefixes read ${fmtBytes(res.extra.prefixBytesRead)}`,
    );
  }
  if (res.extra?.dataOnScreenMs !== undefined)
    log(`  pi data on screen (Sessions count + agent in the deck): ${Math.round(res.extra.dataOnScreenMs)} ms median`);
  if (res.extra?.note) log(`  ours: n/a (${res.extra.note})`);
  for (const l of res.extra?.lines ?? []) log(`  ${l}`);
  results.set(res.name, res);
  const issueFigures = figuresOf(res);
  const figures = issueFigures.map(figureLine);
  for (const f of figures) log(`  figure: ${f}`);
  const seconds = (Date.now() - started) / 1000;
  summary.push({ name: res.name, seconds, lines: figures });
  log(`  took ${seconds.toFixed(1)} s (store building included)`);
  log(`  runs: ours [${res.runs.ours.map((x) => x.toFixed(0)).join(', ')}] ms, reference [${res.runs.reference.map((x) => x.toFixed(0)).join(', ')}] ms`);
  const out = {
    ...res,
    figures: issueFigures,
    at: new Date().toISOString(),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    cpus: cpus().length,
  };
  writeFileSync(join(RESULTS, `${res.name}.json`), JSON.stringify(out, null, 2) + '\n');
}
const total = (Date.now() - t0) / 1000;
log('');
log("figures against their targets (issue #18), and each bench's time:");
for (const s of summary) {
  log(`  ${s.name.padEnd(16)} ${`${s.seconds.toFixed(1)} s`.padStart(8)}  ${s.lines[0] ?? '(no issue figure)'}`);
  for (const l of s.lines.slice(1)) log(`  ${''.padEnd(16)} ${''.padStart(8)}  ${l}`);
}
log('');
log("issue #30's table: this run's wall and CPU ratios, pass/fail against each target:");
for (const l of issueTableLines(results)) log(l);
log(
  `total ${total.toFixed(1)} s${wanted.length ? '' : total > 600 ? ' (OVER the 10-minute budget for a whole run)' : ' (within the 10-minute budget for a whole run)'}`,
);
process.exit(failed ? 1 : 0);
