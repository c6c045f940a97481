// tui-100k: the app on a 100,000-session pi store in a pseudo-terminal, timed
// from inside (CLEANERX_PERF_LOG): keys answered while the scan runs, first
// data rows on screen (from a provisional snapshot while the scan runs),
// keypress → the first frame showing the key's result while scrolling and
// expanding the 100k tree (p95; frames with placeholders or a stale page do
// not count), and the process's peak RSS (VmHWM: the UI thread and the engine
// worker are one process). The reference is a minimal blessed app answering
// the same keys in the same run. The load average is printed because other
// processes on a 2-core machine stretch every wall-clock figure.

import pty from '@lydell/node-pty';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCH, CLI, ROOT, STORES, isolatedEnvFor } from './lib/util.mjs';

export const name = 'tui-100k';
export const target = null;
/** Issue #18: the app's peak RSS with 100k sessions inventoried, every run. */
export const RSS_TARGET_BYTES = 200_000_000;
const PARAMS = { projects: 200, sessionsPerProject: 500, forkRate: 0.05, seed: 9, bodyBytes: 300 };

/** The 100k-session pi store (built once under bench/.stores); also cli-scan-100k's. */
export async function store(log) {
  const root = join(STORES, 'pi-100k');
  const marker = join(root, '.complete');
  // builtInPlace: fork parents resolve (an older store built under another name is rebuilt).
  const key = JSON.stringify({ ...PARAMS, builtInPlace: true });
  if (existsSync(marker) && readFileSync(marker, 'utf8') === key) return root;
  log(`  building the 100k-session pi store in ${root} (once)…`);
  // Built in place (the marker comes last): fork headers name their parents by absolute
  // path, so a store built elsewhere and renamed would list every fork as a root.
  rmSync(root, { recursive: true, force: true });
  const env = await isolatedEnvFor(root);
  const { buildPiFixture } = await import(join(ROOT, 'dist', 'adapters', 'pi', 'fixture.js'));
  buildPiFixture({ ...PARAMS, agentDir: env.PI_CODING_AGENT_DIR });
  writeFileSync(marker, key);
  return root;
}

const rssText = (b) => (b ? `${(b / 1e6).toFixed(0)} MB (${(b / 1048576).toFixed(0)} MiB)` : 'n/a');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const p95 = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(s.length * 0.95))] : null;
};

async function drive(file, args, env, logFile, { keysDuringScan, keysAfter, waitScanDone }) {
  const p = pty.spawn(file, args, { name: 'xterm-256color', cols: 100, rows: 30, env: { ...env, TERM: 'xterm-256color', CLEANERX_PERF_LOG: logFile } });
  let out = '';
  p.onData((d) => (out += d));
  const events = () =>
    existsSync(logFile)
      ? readFileSync(logFile, 'utf8')
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l))
      : [];
  await sleep(300);
  for (let i = 0; i < keysDuringScan; i++) {
    p.write(i % 2 ? 'k' : 'j');
    await sleep(60);
    if (waitScanDone && events().some((e) => e.e === 'scanDone')) break;
  }
  if (waitScanDone) for (let t = 0; t < 600 && !events().some((e) => e.e === 'scanDone'); t++) await sleep(100);
  await sleep(300);
  const keys = ['j', 'j', 'j', '\x1b[6~', 'j', '\r', 'j', '\r', '\x1b[6~', 'k', 'G', 'g', 'j', '\r', '\r'];
  for (let i = 0; i < keysAfter; i++) {
    p.write(keys[i % keys.length]);
    await sleep(40);
  }
  await sleep(300);
  let rss = null;
  try {
    const status = readFileSync(`/proc/${p.pid}/status`, 'utf8');
    rss = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]) * 1024;
  } catch {}
  p.write('q');
  await sleep(300);
  try {
    p.kill('SIGKILL');
  } catch {}
  return { events: events(), rss };
}

export async function run({ log }) {
  const root = await store(log);
  const procRoot = join(root, 'proc');
  mkdirSync(procRoot, { recursive: true });
  const env = await isolatedEnvFor(root, { CLEANERX_PROC_ROOT: procRoot });
  mkdirSync(env.CLEANERX_CONFIG_DIR, { recursive: true });
  writeFileSync(join(env.CLEANERX_CONFIG_DIR, 'config.json'), JSON.stringify({ version: 1, targetAgent: 'pi', homeOverrides: {} }));
  // The perf logs are private to this run: two runs sharing the store would append to one file.
  const logs = mkdtempSync(join(tmpdir(), 'cleanerx-tui-100k-'));
  const logA = join(logs, 'perf-ours.log');
  const ours = await drive(process.execPath, [CLI], env, logA, { keysDuringScan: 200, keysAfter: 300, waitScanDone: true });
  const during = ours.events.filter((e) => e.e === 'key' && e.scanning).map((e) => e.ms);
  const after = ours.events.filter((e) => e.e === 'key' && !e.scanning).map((e) => e.ms);
  const firstEv = ours.events.find((e) => e.e === 'firstRows');
  const first = firstEv?.ms ?? null;
  const scanStart = ours.events.find((e) => e.e === 'scanStart')?.ms ?? null;
  const firstFromScan = first !== null && scanStart !== null ? first - scanStart : null;
  const done = ours.events.find((e) => e.e === 'scanDone')?.ms ?? null;
  const paints = ours.events.filter((e) => e.e === 'key' && !e.scanning && e.paint !== undefined).map((e) => e.paint);
  const load = loadavg()[0];
  const logB = join(logs, 'perf-ref.log');
  const ref = await drive(process.execPath, [join(BENCH, 'ref', 'blessed-list.mjs')], env, logB, { keysDuringScan: 0, keysAfter: 300, waitScanDone: false });
  const refKeys = ref.events.filter((e) => e.e === 'key').map((e) => e.ms);
  if (process.env.CLEANERX_BENCH_KEEP_LOGS) log(`  perf logs kept in ${logs}`);
  else rmSync(logs, { recursive: true, force: true });
  // Keys answered before the tree was whole measure a half-built tree: no figure is printed from them.
  const finished = done !== null;
  const worst = (xs) => (xs.length ? Math.max(...xs) : null);
  const lines = finished
    ? [
        `  keys while scanning: ${during.length} answered, p95 ${p95(during)?.toFixed(1) ?? 'n/a'} ms, worst ${worst(during)?.toFixed(1) ?? 'n/a'} ms (target ≤ 50 ms)`,
        `  first rows on screen ${firstFromScan?.toFixed(0) ?? 'n/a'} ms after the scan started (target ≤ 300 ms); ${first?.toFixed(0) ?? 'n/a'} ms after the app started, ${firstEv?.sinceProcess?.toFixed(0) ?? 'n/a'} ms after the process started; scan done at ${done.toFixed(0)} ms`,
        `  keypress → frame on the 100k tree: p95 ${p95(after)?.toFixed(1) ?? 'n/a'} ms, worst ${worst(after)?.toFixed(1) ?? 'n/a'} ms over ${after.length} keys (target ≤ 16 ms); the paint itself p95 ${p95(paints)?.toFixed(1) ?? 'n/a'} ms; minimal blessed list p95 ${p95(refKeys)?.toFixed(1) ?? 'n/a'} ms`,
        `  peak RSS ${rssText(ours.rss)} (target ≤ ${RSS_TARGET_BYTES / 1e6} MB: ${ours.rss === null ? 'n/a' : ours.rss <= RSS_TARGET_BYTES ? 'within target' : 'OVER target'}); minimal blessed list ${rssText(ref.rss)}`,
      ]
    : [
        `  the scan did not finish within the run (${during.length} keys answered meanwhile): no key or memory figure is given, they would measure a half-built tree`,
      ];
  lines.push(`  load average ${load.toFixed(1)} on this machine during the run`);
  for (const l of lines) log(l);
  const o = p95(after);
  const r = p95(refKeys);
  return {
    name,
    ours: finished ? o : null,
    reference: r,
    ratio: finished && o !== null && r ? o / r : null,
    target,
    runs: finished ? { ours: after, reference: refKeys, during } : { ours: [], reference: refKeys, during: [] },
    figures: [
      {
        label: 'peak RSS, 100k sessions in the app',
        value: finished && ours.rss !== null ? ours.rss / 1e6 : null,
        unit: 'MB',
        op: '≤',
        target: RSS_TARGET_BYTES / 1e6,
      },
      { label: 'worst key while a 100k scan runs', value: finished ? worst(during) : null, unit: 'ms', op: '≤', target: 50 },
      { label: 'worst key after the 100k scan', value: finished ? worst(after) : null, unit: 'ms', op: '≤', target: 50 },
    ],
    extra: {
      firstRowsMs: firstFromScan,
      firstRowsFromAppMs: first,
      firstRowsFromProcessMs: firstEv?.sinceProcess ?? null,
      scanDoneMs: done,
      paintP95Ms: p95(paints),
      loadAverage: load,
      peakRssBytes: ours.rss,
      // The figure against its target, for run.mjs and the notes (VmHWM of the whole process; the reference app's beside it).
      peakRss: { ours: ours.rss, reference: ref.rss, target: RSS_TARGET_BYTES, within: ours.rss !== null && ours.rss <= RSS_TARGET_BYTES },
    },
  };
}
