// jit-budget: what the bin's later optimizing start (scripts/bundle.mjs,
// JIT_BUDGET) saves. The same commands, alternated, with the budget and with
// V8's default (CLEANERX_JIT_DEFAULT=1): a 1,000-session pi clean (a fresh
// store each run) and `scan --agent pi --json` of 10,000 sessions. Wall and
// CPU (user + sys of the process tree) from the same runs; the budget is
// "ours", the default the reference.

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, ROOT, isolatedEnvFor, pairedRuns, timeNodeTree } from './lib/util.mjs';

export const name = 'jit-budget';
export const target = null;
const PAIRS = Number(process.env.CLEANERX_BENCH_JIT_PAIRS) || 5;

async function piStore(projects, perProject) {
  const root = mkdtempSync(join(tmpdir(), 'cleanerx-bench-jit-'));
  const env = await isolatedEnvFor(root, { CLEANERX_PROC_ROOT: join(root, 'proc') });
  mkdirSync(env.CLEANERX_PROC_ROOT, { recursive: true });
  const { buildPiFixture } = await import(join(ROOT, 'dist', 'adapters', 'pi', 'fixture.js'));
  const m = buildPiFixture({ agentDir: env.PI_CODING_AGENT_DIR, projects, sessionsPerProject: perProject, forkRate: 0, seed: 5 });
  return { root, env, sessions: m.sessions };
}

const DEFAULT = { CLEANERX_JIT_DEFAULT: '1' };

export async function run({ log }) {
  const clean = { ours: [], reference: [] };
  const scan = { ours: [], reference: [] };
  const big = await piStore(50, 200);
  try {
    for (let i = 0; i < PAIRS; i++) {
      // Alternated, and which side goes first flips every pair.
      for (const side of i % 2 ? ['reference', 'ours'] : ['ours', 'reference']) {
        const extra = side === 'reference' ? DEFAULT : {};
        const s = await piStore(20, 60);
        const args = [CLI, 'clean', '--agent', 'pi', '--yes', ...s.sessions.slice(0, 1000).flatMap((x) => ['--id', x.id])];
        clean[side].push(await timeNodeTree(args, { env: { ...s.env, ...extra }, cwd: s.root }));
        rmSync(s.root, { recursive: true, force: true });
        scan[side].push(await timeNodeTree([CLI, 'scan', '--agent', 'pi', '--json'], { env: { ...big.env, ...extra }, cwd: big.root }));
      }
    }
  } finally {
    rmSync(big.root, { recursive: true, force: true });
  }
  const c = pairedRuns(clean.ours, clean.reference);
  const s = pairedRuns(scan.ours, scan.reference);
  const lines = [`clean of 1,000 pi sessions, budget vs V8 default: ${c.line}`, `scan of 10,000 pi sessions, budget vs V8 default: ${s.line}`];
  for (const l of lines) log(`  ${l}`);
  return {
    name,
    ours: Math.min(...clean.ours.map((x) => x.cpuMs)),
    reference: Math.min(...clean.reference.map((x) => x.cpuMs)),
    ratio: c.cpuRatio,
    target,
    runs: { ours: c.runs.ours, reference: c.runs.reference, clean: c.runs, scan: s.runs },
    figures: [
      { label: 'JIT budget, 1k clean (CPU vs V8 default)', value: c.cpuRatio, unit: '×', op: '≤', target: 1 },
      { label: 'JIT budget, 1k clean (wall vs V8 default)', value: c.wallRatio, unit: '×', op: '≤', target: 1.05 },
      { label: 'JIT budget, 10k pi scan (CPU vs V8 default)', value: s.cpuRatio, unit: '×', op: '≤', target: 1 },
      { label: 'JIT budget, 10k pi scan (wall vs V8 default)', value: s.wallRatio, unit: '×', op: '≤', target: 1.05 },
    ],
    extra: { lines },
  };
}
