// pi-scan-10k: full inventory of a ~10,000-session pi store with the built CLI
// (`cleanerx scan --agent pi --json > /dev/null`) against a plain reader that
// reads the same bounded prefixes and parses nothing. 5 alternated pairs (who
// goes first alternates too), wall and CPU (user + sys) medians; the issue's
// figure is the CPU ratio (a loaded machine disturbs it far less than wall).

import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BENCH, CLI, emptyHomeScanMs, fixedCostLine, isolatedEnvFor, median, pairedRuns, ROOT, STORES, timeNode, timeNodeTree } from './lib/util.mjs';

export const name = 'pi-scan-10k';
/** Issue #30: CPU ≤ 2.2× the plain reader's. */
export const target = 2.2;

const RUNS = 5;
/** 2: built in place, so fork parents resolve. */
const STORE_VERSION = 2;
const PARAMS = {
  projects: 100,
  sessionsPerProject: 100,
  forkRate: 0.1,
  seed: 10_000,
  now: Date.UTC(2026, 10, 29, 12, 0, 0),
  config: true,
  hostile: false,
};

/** Builds the store once into bench/.stores/pi-10k; a marker records what it was built from. */
async function ensureStore(log) {
  const fixtureJs = join(ROOT, 'dist', 'adapters', 'pi', 'fixture.js');
  const key = createHash('sha256').update(JSON.stringify({ PARAMS, STORE_VERSION })).update(readFileSync(fixtureJs)).digest('hex').slice(0, 16);
  const root = join(STORES, 'pi-10k');
  const marker = join(root, '.complete');
  if (existsSync(marker)) {
    try {
      const m = JSON.parse(readFileSync(marker, 'utf8'));
      if (m.key === key) return { root, sessions: m.sessions, reused: true };
    } catch {
      /* rebuild */
    }
  }
  log(`  building the ${PARAMS.projects}×${PARAMS.sessionsPerProject} pi store in ${root} (once)…`);
  const t0 = Date.now();
  // Built in place (the marker comes last): fork headers name their parents by absolute
  // path, so a store built elsewhere and renamed would list every fork as a root.
  rmSync(root, { recursive: true, force: true });
  const env = await isolatedEnvFor(root);
  const { buildPiFixture } = await import(pathToFileURL(fixtureJs).href);
  const manifest = buildPiFixture({ ...PARAMS, agentDir: env.PI_CODING_AGENT_DIR });
  mkdirSync(join(root, 'proc'), { recursive: true });
  const sessions = manifest.sessions.length;
  writeFileSync(marker, JSON.stringify({ key, params: PARAMS, sessions, builtAt: new Date().toISOString() }) + '\n');
  log(`  built ${sessions} sessions in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return { root, sessions, reused: false };
}

export async function run({ log }) {
  const store = await ensureStore(log);
  // The store was built under a temporary name: its env must be computed from the final root.
  const procRoot = join(store.root, 'proc');
  mkdirSync(procRoot, { recursive: true });
  const env = await isolatedEnvFor(store.root, { CLEANERX_PROC_ROOT: procRoot });
  const agentDir = env.PI_CODING_AGENT_DIR;
  const oursArgs = [CLI, 'scan', '--agent', 'pi', '--json'];
  const refArgs = [join(BENCH, 'ref', 'plain-reader.mjs'), agentDir];

  // Warm-up (page cache, and a correctness check of both sides).
  const refOut = JSON.parse((await timeNode(refArgs, { env, cwd: store.root, capture: true })).stdout);
  const report = JSON.parse((await timeNode(oursArgs, { env, cwd: store.root, capture: true })).stdout);
  const pi = report.agents.find((a) => a.agent === 'pi');
  if (!pi || pi.sessions.length !== store.sessions) {
    throw new Error(`cleanerx listed ${pi?.sessions.length ?? 0} pi sessions, the store has ${store.sessions}`);
  }
  if (refOut.files !== store.sessions) throw new Error(`plain reader read ${refOut.files} files, the store has ${store.sessions}`);

  const ours = [];
  const reference = [];
  for (let i = 0; i < RUNS; i++) {
    const sides = [
      async () => ours.push(await timeNodeTree(oursArgs, { env, cwd: store.root })),
      async () => reference.push(await timeNodeTree(refArgs, { env, cwd: store.root })),
    ];
    if (i % 2) sides.reverse();
    for (const side of sides) await side();
  }
  const paired = pairedRuns(ours, reference);
  const du = spawnSync('du', ['-sb', join(agentDir, 'sessions')], { encoding: 'utf8' });
  const duBytes = du.status === 0 ? Number(du.stdout.split(/\s/)[0]) : null;
  const o = median(paired.runs.ours);
  const r = median(paired.runs.reference);
  const empty = await emptyHomeScanMs('pi', { prepare: (e) => mkdirSync(join(e.PI_CODING_AGENT_DIR, 'sessions'), { recursive: true }) });
  return {
    name,
    ours: o,
    reference: r,
    ratio: paired.cpuRatio,
    target,
    figures: [
      { label: 'pi scan 10k vs a plain reader, CPU', value: paired.cpuRatio, unit: '×', op: '≤', target },
      { label: 'pi scan 10k vs a plain reader, wall', value: paired.wallRatio, unit: '×', op: '≤', target },
    ],
    runs: paired.runs,
    extra: {
      sessions: store.sessions,
      storeReused: store.reused,
      prefixBytesRead: refOut.bytes,
      duSessionsBytes: duBytes,
      warnings: pi.warnings.length,
      emptyHomeMs: empty,
      wallRatio: paired.wallRatio,
      cpuRatio: paired.cpuRatio,
      lines: [paired.line, fixedCostLine(o, r, empty)],
    },
  };
}
