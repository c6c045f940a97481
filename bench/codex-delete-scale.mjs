// codex-delete-scale: `cleanerx clean --yes` of R roots (default 100) on a
// ~1,500-thread Codex store, against a bare script that starts the same
// pinned `codex app-server`, initializes and sends `thread/delete` for the
// same roots one after another. Each run gets a freshly generated store
// (an indexed store is never copied), indexed once by an App Server start as
// a user's store would be; the two sides alternate. Wall and CPU (user + sys
// of the whole process tree, the App Server included) are reported.
// cleanerx's side is the whole transaction: its scan, the route's one listing
// and fork check, the deletes with a bounded proof after each, the verifying
// rescan. CLEANERX_BENCH_ROOTS and CLEANERX_BENCH_RUNS change R and n.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, isolatedEnvFor, median, ROOT, timeNodeTree, pairedRuns } from './lib/util.mjs';

export const name = 'codex-delete-scale';
export const target = 1.5;
const RUNS = Number(process.env.CLEANERX_BENCH_RUNS ?? 3);
const ROOTS = Number(process.env.CLEANERX_BENCH_ROOTS ?? 100);
/** Roots generated; with 10% subagents and their children the store holds ~1,500 threads. */
const THREADS = 1180;
const DIST = join(ROOT, 'dist');
const BIN = join(ROOT, 'node_modules', '@openai', 'codex-linux-x64', 'vendor', 'x86_64-unknown-linux-musl', 'bin', 'codex');

/** The bare reference: one App Server, initialize, thread/delete per root, in order. */
const BARE = `
const { JsonRpcClient } = await import(${JSON.stringify(join(DIST, 'adapters', 'codex', 'rpc-client.js'))});
const { stdioChannel } = await import(${JSON.stringify(join(DIST, 'adapters', 'codex', 'stdio-transport.js'))});
const roots = JSON.parse(process.env.BENCH_ROOTS);
const env = { HOME: process.env.HOME, PATH: process.env.PATH, CODEX_HOME: process.env.CODEX_HOME, LANG: 'C.UTF-8', RUST_LOG: 'error' };
const c = new JsonRpcClient(stdioChannel(${JSON.stringify(BIN)}, env), 120000);
await c.request('initialize', { clientInfo: { name: 'bench', title: null, version: '0' }, capabilities: { experimentalApi: true } }, 300000);
c.notify('initialized');
for (const threadId of roots) await c.request('thread/delete', { threadId }, 120000);
await c.close();
`;

/** The listing that indexes a fresh store (Codex's first start), and counts it. */
const INDEX = `
const { JsonRpcClient } = await import(${JSON.stringify(join(DIST, 'adapters', 'codex', 'rpc-client.js'))});
const { stdioChannel } = await import(${JSON.stringify(join(DIST, 'adapters', 'codex', 'stdio-transport.js'))});
const { listAllThreads } = await import(${JSON.stringify(join(DIST, 'adapters', 'codex', 'thread-list.js'))});
const env = { HOME: process.env.HOME, PATH: process.env.PATH, CODEX_HOME: process.env.CODEX_HOME, LANG: 'C.UTF-8', RUST_LOG: 'error' };
const c = new JsonRpcClient(stdioChannel(${JSON.stringify(BIN)}, env), 300000);
await c.request('initialize', { clientInfo: { name: 'bench', title: null, version: '0' }, capabilities: { experimentalApi: true } }, 300000);
c.notify('initialized');
const l = await listAllThreads(c, 300000);
process.stdout.write(String(l.threads.length));
await c.close();
`;

async function freshStore() {
  const { buildCodexFixture } = await import(join(DIST, 'adapters', 'codex', 'fixture.js'));
  const root = mkdtempSync(join(tmpdir(), 'cleanerx-bench-codex-del-'));
  const env = await isolatedEnvFor(root, { CLEANERX_PROC_ROOT: join(root, 'proc'), PATH: `${join(BIN, '..')}:/usr/bin:/bin` });
  mkdirSync(env.CLEANERX_PROC_ROOT, { recursive: true });
  mkdirSync(env.CODEX_HOME, { recursive: true });
  const m = buildCodexFixture({
    codexHome: env.CODEX_HOME,
    workRoot: join(root, 'work'),
    userHome: env.HOME,
    threads: THREADS,
    seed: 42,
    subagentRate: 0.1,
    archivedRate: 0.1,
  });
  writeFileSync(join(root, 'index.mjs'), INDEX);
  const indexed = await timeNodeTree([join(root, 'index.mjs')], { env, cwd: root, capture: true });
  const listed = Number(indexed.stdout);
  if (listed !== m.threads.length) throw new Error(`Codex indexed ${listed} of ${m.threads.length} threads`);
  // Roots with subagents first: their scopes are what the route must prove gone.
  const roots = m.threads
    .filter((t) => t.depth === 0)
    .sort((a, b) => Number(m.threads.some((c) => c.parentId === b.id)) - Number(m.threads.some((c) => c.parentId === a.id)))
    .slice(0, ROOTS)
    .map((t) => t.id);
  return { root, env, roots, threads: m.threads.length };
}

export async function run({ log }) {
  const ours = [];
  const reference = [];
  let threads = 0;
  for (let i = 0; i < RUNS; i++) {
    // Alternate which side goes first: the machine's load moves between runs.
    for (const side of i % 2 ? ['reference', 'ours'] : ['ours', 'reference']) {
      const s = await freshStore();
      threads = s.threads;
      try {
        if (side === 'ours') {
          const r = await timeNodeTree([CLI, 'clean', '--agent', 'codex', '--yes', ...s.roots.flatMap((id) => ['--id', id])], {
            env: s.env,
            cwd: s.root,
            capture: true,
          });
          if (!/complete:/.test(r.stdout)) throw new Error(`cleanerx clean did not complete: ${r.stdout.slice(-400)}`);
          ours.push(r);
        } else {
          writeFileSync(join(s.root, 'bare.mjs'), BARE);
          reference.push(await timeNodeTree([join(s.root, 'bare.mjs')], { env: { ...s.env, BENCH_ROOTS: JSON.stringify(s.roots) }, cwd: s.root }));
        }
      } finally {
        rmSync(s.root, { recursive: true, force: true });
      }
    }
  }
  const wall = (xs) => median(xs.map((x) => x.ms));
  const cpu = (xs) => median(xs.map((x) => x.cpuMs));
  const paired = pairedRuns(ours, reference);
  const { wallRatio, cpuRatio } = paired;
  log(`  ${threads} threads; ${ROOTS} roots deleted per run; ${RUNS} runs per side, alternating`);
  const lines = [
    `cleanerx clean (scan, one listing, deletes with a bounded proof each, verifying rescan): ${(wall(ours) / 1000).toFixed(1)} s wall, ${(cpu(ours) / 1000).toFixed(1)} s CPU`,
    `bare thread/delete loop through the same App Server: ${(wall(reference) / 1000).toFixed(1)} s wall, ${(cpu(reference) / 1000).toFixed(1)} s CPU (${(wall(reference) / ROOTS).toFixed(0)} ms/root)`,
    paired.line,
  ];
  return {
    name,
    ours: wall(ours),
    reference: wall(reference),
    ratio: wallRatio,
    target,
    runs: paired.runs,
    figures: [
      {
        label: `Codex delete of ${ROOTS} roots on a ${threads}-thread store vs a bare thread/delete loop (wall)`,
        value: wallRatio,
        unit: '×',
        op: '≤',
        target,
      },
      { label: 'the same, CPU time (process tree)', value: cpuRatio, unit: '×', op: '≤', target },
    ],
    extra: { lines },
  };
}
