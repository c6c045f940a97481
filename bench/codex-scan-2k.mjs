// codex-scan-2k: the whole `cleanerx scan --agent codex --json` (process
// start to exit: a running App Server's listing when one answers on its
// socket, else Codex's state DB read through a private view — a scan starts
// no App Server, since Codex prunes its log database as it starts — then
// session_index, config.toml, every rollout sized, the records, the report) on ~2,300
// threads (2,000 roots plus subagents, some archived), against a bare App
// Server pager as its own process (bench/ref/codex-pager.mjs) on the same
// store, both on the pinned codex; ≥ 5 alternated pairs, wall and CPU
// (user + sys of the process tree). The store is generated fresh each run
// (an indexed store is never copied); its first, cold scan (Codex indexing
// every rollout) is reported apart.

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { BENCH, CLI, isolatedEnvFor, median, pairedRuns, ROOT, timeTree } from './lib/util.mjs';

export const name = 'codex-scan-2k';
export const target = 1.2;
const RUNS = 5;
const DIST = process.env.CLEANERX_BENCH_DIST ?? join(ROOT, 'dist');
const BIN = join(ROOT, 'node_modules', '@openai', 'codex-linux-x64', 'vendor', 'x86_64-unknown-linux-musl', 'bin', 'codex');

export async function run({ log }) {
  const { buildCodexFixture } = await import(join(DIST, 'adapters', 'codex', 'fixture.js'));
  const root = mkdtempSync(join(tmpdir(), 'cleanerx-bench-codex-'));
  try {
    const home = join(root, 'home');
    const env = await isolatedEnvFor(root, { CLEANERX_PROC_ROOT: join(root, 'proc') });
    mkdirSync(env.CLEANERX_PROC_ROOT, { recursive: true });
    // The pinned codex on PATH for cleanerx (as a user has it); the reference is handed the same binary.
    env.PATH = `${dirname(BIN)}:/usr/bin:/bin`;
    const g0 = Date.now();
    const m = buildCodexFixture({
      codexHome: env.CODEX_HOME,
      workRoot: join(root, 'work'),
      userHome: env.HOME ?? home,
      threads: 2000,
      seed: 42,
      subagentRate: 0.1,
      archivedRate: 0.1,
      memories: true,
    });
    const genMs = Date.now() - g0;
    const scan = [CLI, 'scan', '--agent', 'codex', '--json'];
    const pager = [join(BENCH, 'ref', 'codex-pager.mjs'), BIN];
    // The first scan is Codex indexing every rollout: reported apart, never paired.
    const cold = await timeTree(process.execPath, scan, { env, cwd: root, capture: true });
    const listed = JSON.parse(cold.stdout).agents[0].sessions.length;
    if (listed !== m.threads.length) throw new Error(`listed ${listed} of ${m.threads.length} threads`);
    const ours = [];
    const reference = [];
    for (let i = 0; i < RUNS; i++) {
      // Alternated, so the load of the moment falls on both sides alike.
      const r = await timeTree(process.execPath, pager, { env, cwd: root, capture: i === 0 });
      if (i === 0 && JSON.parse(r.stdout).length !== m.threads.length) throw new Error('the pager did not list every thread');
      reference.push(r);
      ours.push(await timeTree(process.execPath, scan, { env, cwd: root }));
    }
    const paired = pairedRuns(ours, reference);
    log(
      `  ${m.threads.length} threads (${m.threads.filter((t) => t.depth > 0).length} subagents, ${m.threads.filter((t) => t.archived).length} archived); generated in ${genMs} ms`,
    );
    log(`  the whole \`scan --agent codex --json\` against a bare App Server pager process (bench/ref/codex-pager.mjs), ${RUNS} alternated pairs`);
    log(`  first scan with Codex indexing every rollout (cold): ${Math.round(cold.ms)} ms wall, ${Math.round(cold.cpuMs)} ms CPU`);
    log(`  ${paired.line}`);
    const o = median(ours.map((x) => x.ms));
    const ref = median(reference.map((x) => x.ms));
    return {
      name,
      ours: o,
      reference: ref,
      ratio: paired.wallRatio,
      target,
      runs: paired.runs,
      figures: [
        { label: 'Codex: whole scan --json vs a bare App Server pager (wall)', value: paired.wallRatio, unit: '×', op: '≤', target },
        { label: 'Codex: whole scan --json vs a bare App Server pager (CPU)', value: paired.cpuRatio, unit: '×', op: '≤', target: 1.5 },
      ],
      extra: { cpuRatio: paired.cpuRatio, coldMs: cold.ms },
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
