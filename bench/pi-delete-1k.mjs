// pi-delete-1k: delete 1,000 pi sessions through the whole transaction
// (journal, revision and identity checks, no-follow removal, verification
// rescan) with `cleanerx clean --yes`, against `rm` of the same 1,000 files.
// Each run gets a fresh store (built once per run by the fixture builder).
// Wall time on a shared machine is mostly the load: the child's own CPU time
// (user + sys, from process.cpuUsage() at its exit) is reported beside it.

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, ROOT, isolatedEnvFor, median, timeNode } from './lib/util.mjs';

export const name = 'pi-delete-1k';
// The issue asks for the figure; plain `rm` is the floor, not a goal.
export const target = null;
const RUNS = 3;
const TARGET_MS = 500;

/** Preloaded into the measured process: writes its CPU time to the file named by the variable when it exits. */
const CPU_PRELOAD = `data:text/javascript,${encodeURIComponent(
  "import{writeFileSync}from'node:fs';process.on('exit',()=>{const c=process.cpuUsage();writeFileSync(process.env.CLEANERX_BENCH_CPU_FILE,String((c.user+c.system)/1000))})",
)}`;

async function freshStore() {
  const root = mkdtempSync(join(tmpdir(), 'cleanerx-bench-del-'));
  const env = await isolatedEnvFor(root, { CLEANERX_PROC_ROOT: join(root, 'proc') });
  mkdirSync(env.CLEANERX_PROC_ROOT, { recursive: true });
  const { buildPiFixture } = await import(join(ROOT, 'dist', 'adapters', 'pi', 'fixture.js'));
  const m = buildPiFixture({ agentDir: env.PI_CODING_AGENT_DIR, projects: 20, sessionsPerProject: 60, forkRate: 0, seed: 5 });
  return { root, env, sessions: m.sessions.slice(0, 1000) };
}

export async function run({ log }) {
  const ours = [];
  const cpu = [];
  const reference = [];
  for (let i = 0; i < RUNS; i++) {
    const a = await freshStore();
    const cpuFile = join(a.root, 'cpu-ms');
    const args = ['--import', CPU_PRELOAD, CLI, 'clean', '--agent', 'pi', '--yes', ...a.sessions.flatMap((s) => ['--id', s.id])];
    const t = await timeNode(args, { env: { ...a.env, CLEANERX_BENCH_CPU_FILE: cpuFile }, cwd: a.root });
    ours.push(t.ms);
    cpu.push(Number(readFileSync(cpuFile, 'utf8')));
    const left = JSON.parse(execFileSync(process.execPath, [CLI, 'scan', '--agent', 'pi', '--json'], { env: a.env, encoding: 'utf8', maxBuffer: 64 << 20 }))
      .agents[0].sessions.length;
    if (i === 0) log(`  ${a.sessions.length} sessions removed, ${left} left in the store`);
    rmSync(a.root, { recursive: true, force: true });

    const b = await freshStore();
    const files = b.sessions.map((s) => s.file);
    const started = process.hrtime.bigint();
    execFileSync('rm', ['-f', '--', ...files]);
    reference.push(Number(process.hrtime.bigint() - started) / 1e6);
    rmSync(b.root, { recursive: true, force: true });
  }
  const o = median(ours);
  const c = median(cpu);
  const r = median(reference);
  const lines = [
    `CPU time of the whole clean (user + sys): ${c.toFixed(0)} ms median (runs ${cpu.map((x) => x.toFixed(0)).join(', ')}); wall ${o.toFixed(0)} ms`,
  ];
  return {
    name,
    ours: o,
    reference: r,
    ratio: o / r,
    target,
    runs: { ours, cpu, reference },
    figures: [
      { label: 'deleting 1,000 pi sessions (wall)', value: o, unit: 'ms', op: '≤', target: TARGET_MS },
      { label: 'deleting 1,000 pi sessions (CPU, user + sys)', value: c, unit: 'ms', op: '≤', target: TARGET_MS },
    ],
    extra: { cpuMs: c, lines },
  };
}
