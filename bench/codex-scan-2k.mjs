// codex-scan-2k: cleanerx's Codex inventory of ~2,300 threads (2,000 roots
// plus subagents, some archived) against the App Server's own paging of the
// same store in the same run. Both sides start a private `codex app-server`
// (the pinned devDependency), initialize, and page every thread (live and
// archived, every source kind and provider); cleanerx also reads the state
// DB, session_index, config.toml, sizes every rollout and builds its records.
// The store is generated fresh each run (an indexed store is never copied);
// its first, cold start (Codex indexing every rollout) is reported apart.

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, ROOT } from './lib/util.mjs';

export const name = 'codex-scan-2k';
export const target = 1.5;
const RUNS = 3;
const DIST = process.env.CLEANERX_BENCH_DIST ?? join(ROOT, 'dist');
const BIN = join(ROOT, 'node_modules', '@openai', 'codex-linux-x64', 'vendor', 'x86_64-unknown-linux-musl', 'bin', 'codex');
const KINDS = ['cli', 'vscode', 'exec', 'appServer', 'subAgent', 'subAgentReview', 'subAgentCompact', 'subAgentThreadSpawn', 'subAgentOther', 'unknown'];

async function appServerListing(env) {
  const { JsonRpcClient } = await import(join(DIST, 'adapters', 'codex', 'rpc-client.js'));
  const { stdioChannel } = await import(join(DIST, 'adapters', 'codex', 'stdio-transport.js'));
  const started = process.hrtime.bigint();
  const c = new JsonRpcClient(stdioChannel(BIN, { HOME: env.HOME, PATH: env.PATH, CODEX_HOME: env.CODEX_HOME, LANG: 'C.UTF-8', RUST_LOG: 'error' }), 120_000);
  let n = 0;
  let pages = 0;
  try {
    await c.request('initialize', { clientInfo: { name: 'bench', title: null, version: '0' }, capabilities: { experimentalApi: true } }, 300_000);
    c.notify('initialized');
    for (const archived of [false, true]) {
      let cursor = null;
      do {
        const res = await c.request('thread/list', { limit: 100, archived, modelProviders: [], sourceKinds: KINDS, ...(cursor ? { cursor } : {}) });
        n += res.data.length;
        pages++;
        cursor = res.nextCursor;
      } while (cursor);
    }
  } finally {
    await c.close();
  }
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, n, pages };
}

export async function run({ log }) {
  const { buildCodexFixture } = await import(join(DIST, 'demo', 'fixtures', 'codex.js'));
  const { codexAdapter } = await import(join(DIST, 'adapters', 'codex', 'index.js'));
  const { defaultHostContext } = await import(join(DIST, 'engine', 'core', 'adapter.js'));
  const root = mkdtempSync(join(tmpdir(), 'cleanerx-bench-codex-'));
  try {
    const home = join(root, 'home');
    mkdirSync(join(root, 'proc'), { recursive: true });
    const env = { HOME: home, PATH: '/usr/bin:/bin', LANG: 'C.UTF-8', CODEX_HOME: join(home, '.codex'), XDG_DATA_HOME: join(home, '.local', 'share') };
    const g0 = Date.now();
    const m = buildCodexFixture({
      codexHome: env.CODEX_HOME,
      workRoot: join(root, 'work'),
      userHome: home,
      threads: 2000,
      seed: 42,
      subagentRate: 0.1,
      archivedRate: 0.1,
      memories: true,
    });
    const genMs = Date.now() - g0;
    const ctx = defaultHostContext(env);
    ctx.procRoot = join(root, 'proc');
    const inst = { agent: 'codex', state: 'installed', home: env.CODEX_HOME, homeSource: 'env', executable: BIN, version: null, warnings: [] };
    const c0 = process.hrtime.bigint();
    const cold = await codexAdapter.scan(inst, ctx, () => undefined);
    const coldMs = Number(process.hrtime.bigint() - c0) / 1e6;
    if (cold.sessions.length !== m.threads.length) throw new Error(`listed ${cold.sessions.length} of ${m.threads.length} threads`);
    const ours = [];
    const reference = [];
    let listed = null;
    for (let i = 0; i < RUNS; i++) {
      const r = await appServerListing(env);
      reference.push(r.ms);
      listed = r;
      const s0 = process.hrtime.bigint();
      const inv = await codexAdapter.scan(inst, ctx, () => undefined);
      ours.push(Number(process.hrtime.bigint() - s0) / 1e6);
      if (inv.sessions.length !== r.n) throw new Error(`cleanerx listed ${inv.sessions.length}, Codex ${r.n}`);
    }
    const o = median(ours);
    const ref = median(reference);
    log(
      `  ${m.threads.length} threads (${m.threads.filter((t) => t.depth > 0).length} subagents, ${m.threads.filter((t) => t.archived).length} archived); generated in ${genMs} ms`,
    );
    log(`  first scan with Codex indexing every rollout (cold): ${Math.round(coldMs)} ms; App Server paging: ${listed.pages} pages of ≤100`);
    return { name, ours: o, reference: ref, ratio: o / ref, target, runs: { ours, reference }, extra: {} };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
