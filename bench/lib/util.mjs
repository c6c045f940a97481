// Shared helpers for the benches: paths, timing, medians, isolated environments.

import { spawn } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BENCH = join(ROOT, 'bench');
/** Generated stores; CLEANERX_BENCH_STORES lets two checkouts (a before and an after) share one set. */
export const STORES = process.env.CLEANERX_BENCH_STORES || join(BENCH, '.stores');
export const RESULTS = join(BENCH, 'results');
export const CLI = join(ROOT, 'dist', 'cli.js');

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Every variable that moves an agent's home or cleanerx's own dirs, pointing under `root` (same as isolatedEnv). */
export async function isolatedEnvFor(root, extra = {}) {
  const { isolatedEnv } = await import(join(ROOT, 'dist', 'demo', 'demo-home.js'));
  return { ...isolatedEnv(root), PATH: '/usr/bin:/bin', LANG: 'C.UTF-8', ...extra };
}

/**
 * Runs `node <args>` to completion and returns its wall time in ms (spawn to exit).
 * stdout goes to /dev/null unless `capture` is set.
 */
export function timeNode(args, { env, cwd, capture = false, timeoutMs = 120_000 }) {
  return new Promise((resolve, reject) => {
    const devnull = capture ? null : openSync('/dev/null', 'w');
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { env, cwd, stdio: ['ignore', capture ? 'pipe' : devnull, 'pipe'] });
    const out = [];
    let err = '';
    child.stdout?.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      clearTimeout(timer);
      if (devnull !== null) closeSync(devnull);
      if (code !== 0) reject(new Error(`node ${args.join(' ')} exited ${code ?? signal}: ${err.trim().slice(0, 500)}`));
      else resolve({ ms, stdout: capture ? Buffer.concat(out).toString('utf8') : '' });
    });
  });
}

export function fmtMs(ms) {
  return ms === null || ms === undefined ? 'n/a' : `${ms.toFixed(0)} ms`;
}

export function fmtBytes(n) {
  const u = ['B', 'KiB', 'MiB', 'GiB'];
  let i = 0;
  let v = n;
  while (v >= 1024 && i < u.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(i ? 1 : 0)} ${u[i]}`;
}

/**
 * Median wall time of `cleanerx scan --agent <agent> --json` on a home with
 * nothing in it: the CLI's fixed cost (module loading, detection, the report)
 * that no inventory can go below. `prepare(env)` makes the agent's empty home;
 * `envFor(env)` may adjust the env (OpenCode's sandbox).
 */
export async function emptyHomeScanMs(agent, { runs = 3, prepare = () => {}, envFor = (e) => e } = {}) {
  const { mkdtempSync, mkdirSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const root = mkdtempSync(join(tmpdir(), `cleanerx-bench-empty-${agent}-`));
  try {
    const env = envFor(await isolatedEnvFor(root, { CLEANERX_PROC_ROOT: join(root, 'proc') }));
    mkdirSync(env.CLEANERX_PROC_ROOT, { recursive: true });
    mkdirSync(env.HOME, { recursive: true });
    prepare(env);
    const args = [CLI, 'scan', '--agent', agent, '--json'];
    await timeNode(args, { env, cwd: root });
    const ms = [];
    for (let i = 0; i < runs; i++) ms.push((await timeNode(args, { env, cwd: root })).ms);
    return median(ms);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** The line that splits a scan figure into the CLI's fixed cost and the inventory proper. */
export function fixedCostLine(ours, reference, empty) {
  const inventory = Math.max(0, ours - empty);
  return `fixed cost: the same command on an empty home takes ${empty.toFixed(0)} ms (module loading, detection, report); the inventory itself ≈ ${inventory.toFixed(0)} ms = ${(inventory / reference).toFixed(2)}× the reference`;
}

/**
 * timeNode plus the CPU time (user + sys, ms) of the whole process tree:
 * `/usr/bin/time` reports the node process with every child it waited for
 * (an agent's server included), so a route's work in the agent's own process
 * counts as well as ours.
 */
export function timeNodeTree(args, opts) {
  return timeTree(process.execPath, args, opts);
}

/** `cmd args` timed like timeNodeTree: wall from spawn to exit, CPU = user + sys of the whole process tree. */
export async function timeTree(cmd, args, { env, cwd, capture = false, timeoutMs = 900_000 }) {
  const { mkdtempSync, readFileSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const dir = mkdtempSync(join(tmpdir(), 'cleanerx-bench-time-'));
  const out = join(dir, 'time.txt');
  try {
    const r = await new Promise((resolve, reject) => {
      const devnull = capture ? null : openSync('/dev/null', 'w');
      const started = process.hrtime.bigint();
      const child = spawn('/usr/bin/time', ['-f', '%U %S', '-o', out, cmd, ...args], {
        env,
        cwd,
        stdio: ['ignore', capture ? 'pipe' : devnull, 'pipe'],
      });
      const chunks = [];
      let err = '';
      child.stdout?.on('data', (d) => chunks.push(d));
      child.stderr.on('data', (d) => (err += d));
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      child.on('error', reject);
      child.on('close', (code, signal) => {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        clearTimeout(timer);
        if (devnull !== null) closeSync(devnull);
        if (code !== 0) reject(new Error(`${cmd} ${args.join(' ').slice(0, 300)} exited ${code ?? signal}: ${err.trim().slice(0, 500)}`));
        else resolve({ ms, stdout: capture ? Buffer.concat(chunks).toString('utf8') : '' });
      });
    });
    const [user, sys] = readFileSync(out, 'utf8').trim().split('\n').pop().split(' ').map(Number);
    return { ...r, cpuMs: (user + sys) * 1000 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Two sides' timed runs (timeTree results): the ratio line and the per-run figures every paired bench reports. */
export function pairedRuns(ours, reference) {
  const ms = (xs) => xs.map((x) => `${x.ms.toFixed(0)}/${x.cpuMs.toFixed(0)}`).join(', ');
  const wallRatio = median(ours.map((x) => x.ms)) / median(reference.map((x) => x.ms));
  const cpuRatio = median(ours.map((x) => x.cpuMs)) / median(reference.map((x) => x.cpuMs));
  return {
    wallRatio,
    cpuRatio,
    line: `ratio ${wallRatio.toFixed(2)}× wall, ${cpuRatio.toFixed(2)}× CPU; runs wall/CPU ms: ours [${ms(ours)}], reference [${ms(reference)}]`,
    runs: {
      ours: ours.map((x) => x.ms),
      reference: reference.map((x) => x.ms),
      oursCpu: ours.map((x) => x.cpuMs),
      referenceCpu: reference.map((x) => x.cpuMs),
    },
  };
}
