// opencode-export-scale: the exports a backed-up OpenCode clean writes before
// anything is removed, for 325 sessions (215 roots, 110 of them with a child), on a
// real OpenCode 1.18.33 database (made by `opencode db path`, filled by the
// fixture builder, generated once under bench/.stores/opencode-export).
// cleanerx's side is its export route as the backup calls it: the store's
// checks, the writer check, one private `opencode serve`, as many requests in
// flight as there are cores, each file read back and checked, and the store
// re-read after. The reference is a bare script with the same parallelism:
// the same server command, GET /session/{id} and /session/{id}/message per
// session, the file written. Each run on a fresh copy of the store, the two
// sides alternating; wall and CPU (user + sys of the process tree, the
// server included). The old route (one `opencode export` process per
// session, one after another) is timed on a sample and scaled.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { isolatedEnvFor, median, ROOT, STORES, timeNodeTree, pairedRuns } from './lib/util.mjs';

export const name = 'opencode-export-scale';
export const target = 1.5;
const RUNS = Number(process.env.CLEANERX_BENCH_RUNS ?? 3);
const CLI_SAMPLE = 3;
const DIST = join(ROOT, 'dist');
const OPENCODE = join(ROOT, 'node_modules', `opencode-${process.platform}-${process.arch}`, 'bin', 'opencode');
const PARALLEL = availableParallelism();

const fixtureModule = () => import(join(DIST, 'adapters', 'opencode', 'fixture.js'));

async function template(log) {
  const dir = join(STORES, 'opencode-export');
  const db = join(dir, 'opencode.db');
  const marker = join(dir, 'order.json');
  if (existsSync(marker)) return { db, ...JSON.parse(readFileSync(marker, 'utf8')) };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const f = await fixtureModule();
  const env = f.opencodeSandboxEnv(await isolatedEnvFor(join(dir, 'sandbox')), join(dir, 'sandbox', 'tmp'));
  mkdirSync(env.HOME, { recursive: true });
  f.writeNpmGuard(join(env.XDG_CONFIG_HOME, 'opencode'));
  log('  building the OpenCode store (once)…');
  await f.initOpencodeStore(OPENCODE, env, db);
  const m = f.buildOpencodeFixture({
    db,
    workRoot: join(dir, 'work'),
    projects: 5,
    rootsPerProject: 43,
    childrenPerRoot: 1,
    grandchildren: 0,
    forks: 0,
    archived: 0,
    messagesPerSession: 4,
    partBytes: 400,
    seed: 17,
  });
  const roots = m.sessions.filter((s) => s.kind === 'root').map((s) => s.id);
  const order = roots.flatMap((r) => [r, ...m.descendants.get(r)]);
  writeFileSync(marker, JSON.stringify({ roots, order }));
  return { db, roots, order };
}

async function copy(tpl) {
  const f = await fixtureModule();
  const root = mkdtempSync(join(tmpdir(), 'cleanerx-bench-oc-export-'));
  const base = await isolatedEnvFor(root, { CLEANERX_PROC_ROOT: join(root, 'proc') });
  const env = { ...f.opencodeSandboxEnv(base, join(root, 'tmp')), PATH: `${join(OPENCODE, '..')}:/usr/bin:/bin` };
  mkdirSync(env.CLEANERX_PROC_ROOT, { recursive: true });
  mkdirSync(env.HOME, { recursive: true });
  f.writeNpmGuard(join(env.XDG_CONFIG_HOME, 'opencode'));
  env.OPENCODE_DB = join(env.XDG_DATA_HOME, 'opencode', 'opencode.db');
  f.copyOpencodeStore(tpl.db, env.OPENCODE_DB);
  return { root, env };
}

const header = `
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
const { defaultHostContext } = await import(${JSON.stringify(join(DIST, 'engine', 'core', 'adapter.js'))});
const { opencodeEnv } = await import(${JSON.stringify(join(DIST, 'adapters', 'opencode', 'official-cli.js'))});
const ctx = defaultHostContext(process.env);
ctx.procRoot = process.env.CLEANERX_PROC_ROOT;
const inst = { agent: 'opencode', displayName: 'OpenCode', memoryNotice: '', state: 'installed', home: join(process.env.XDG_DATA_HOME, 'opencode'), homeSource: 'env', executable: ${JSON.stringify(OPENCODE)}, version: null, warnings: [] };
const stage = join(process.env.BENCH_DIR, 'stage');
`;

/** cleanerx's export route, as the backup calls it. */
const OURS = `${header}
const { opencodeAdapter } = await import(${JSON.stringify(join(DIST, 'adapters', 'opencode', 'index.js'))});
const r = await opencodeAdapter.sessionRoute.exportSessions(inst, ctx, JSON.parse(process.env.BENCH_ROOTS), stage);
process.stdout.write(String(r.exports.length));
`;

/** The bare script: the same server command, the same parallelism, the two GETs and the file. */
const BARE = `${header}
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
const { freeLoopbackPort } = await import(${JSON.stringify(join(DIST, 'adapters', 'opencode', 'private-server.js'))});
const order = JSON.parse(process.env.BENCH_ORDER);
mkdirSync(stage, { mode: 0o700 });
const port = await freeLoopbackPort();
const password = randomBytes(24).toString('hex');
const env = { ...opencodeEnv(inst, ctx, process.env.OPENCODE_DB), OPENCODE_SERVER_USERNAME: 'bench', OPENCODE_SERVER_PASSWORD: password };
const child = spawn(inst.executable, ['--pure', 'serve', '--hostname', '127.0.0.1', '--port', String(port)], { cwd: '/', env, stdio: 'ignore', detached: true });
const exited = new Promise((r) => child.once('exit', r));
const authorization = 'Basic ' + Buffer.from('bench:' + password).toString('base64');
// Plain node:http, one connection per request (as cleanerx's client): fetch's pooled connections are not what is measured.
// A server still starting may take a request and never answer it: each has a deadline, as cleanerx's do.
const get = (p, timeout = 120000) => new Promise((resolve, reject) => {
  const req = request({ host: '127.0.0.1', port, path: p, headers: { authorization, connection: 'close' }, agent: false, timeout }, (res) => {
    const chunks = [];
    res.on('data', (c) => chunks.push(c));
    res.on('end', () => (res.statusCode === 200 ? resolve(Buffer.concat(chunks).toString('utf8')) : reject(new Error(p + ' ' + res.statusCode))));
    res.on('error', reject);
  });
  req.on('error', reject);
  req.on('timeout', () => req.destroy(new Error(p + ' timed out')));
  req.end();
});
for (;;) {
  try { await get('/global/health', 1000); break; } catch {}
  await new Promise((r) => setTimeout(r, 150));
}
let next = 0;
const worker = async () => { while (next < order.length) { const id = order[next++]; const [i, m] = await Promise.all([get('/session/' + id), get('/session/' + id + '/message')]); writeFileSync(join(stage, id + '.json'), '{"info":' + i + ',"messages":' + m + '}\\n', { mode: 0o600, flag: 'wx' }); } };
await Promise.all(Array.from({ length: ${PARALLEL} }, worker));
// Stopped as cleanerx stops its server: TERM, then KILL after 3 s.
process.kill(-child.pid, 'SIGTERM');
if (!(await Promise.race([exited.then(() => true), new Promise((r) => setTimeout(() => r(false), 3000))]))) { process.kill(-child.pid, 'SIGKILL'); await exited; }
process.stdout.write(String(order.length));
`;

export async function run({ log }) {
  const tpl = await template(log);
  const ours = [];
  const reference = [];
  for (let i = 0; i < RUNS; i++) {
    for (const side of i % 2 ? ['reference', 'ours'] : ['ours', 'reference']) {
      const c = await copy(tpl);
      try {
        const script = join(c.root, `${side}.mjs`);
        writeFileSync(script, side === 'ours' ? OURS : BARE);
        const env = { ...c.env, BENCH_DIR: c.root, BENCH_ROOTS: JSON.stringify(tpl.roots), BENCH_ORDER: JSON.stringify(tpl.order) };
        const r = await timeNodeTree([script], { env, cwd: c.root, capture: true });
        if (Number(r.stdout) !== tpl.order.length) throw new Error(`${side} exported ${r.stdout} of ${tpl.order.length} sessions`);
        (side === 'ours' ? ours : reference).push(r);
      } finally {
        rmSync(c.root, { recursive: true, force: true });
      }
    }
  }
  // The old route on a sample: one `opencode export` process per session.
  const c = await copy(tpl);
  const perSession = [];
  try {
    const { opencodeEnv } = await import(join(DIST, 'adapters', 'opencode', 'official-cli.js'));
    const inst = { agent: 'opencode', home: join(c.env.XDG_DATA_HOME, 'opencode'), executable: OPENCODE };
    const env = opencodeEnv(inst, { env: c.env }, c.env.OPENCODE_DB);
    for (const id of tpl.order.slice(0, CLI_SAMPLE)) {
      const started = process.hrtime.bigint();
      const r = spawnSync(OPENCODE, ['--pure', 'export', id], { cwd: '/', env, encoding: 'utf8', timeout: 120_000, maxBuffer: 64 << 20 });
      if (r.status !== 0) throw new Error(`opencode export ${id} failed: ${r.stderr.slice(0, 300)}`);
      perSession.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
  } finally {
    rmSync(c.root, { recursive: true, force: true });
  }
  const wall = (xs) => median(xs.map((x) => x.ms));
  const cpu = (xs) => median(xs.map((x) => x.cpuMs));
  const paired = pairedRuns(ours, reference);
  const { wallRatio, cpuRatio } = paired;
  const oldMs = median(perSession) * tpl.order.length;
  log(`  ${tpl.order.length} sessions (${tpl.roots.length} roots) exported per run; ${PARALLEL} in flight; ${RUNS} runs per side, alternating`);
  const lines = [
    `cleanerx export route: ${(wall(ours) / 1000).toFixed(1)} s wall, ${(cpu(ours) / 1000).toFixed(1)} s CPU; bare script through one server: ${(wall(reference) / 1000).toFixed(1)} s wall, ${(cpu(reference) / 1000).toFixed(1)} s CPU`,
    paired.line,
    `the old route, one \`opencode export\` process per session: ${median(perSession).toFixed(0)} ms each ([${perSession.map((x) => x.toFixed(0)).join(', ')}]) → ${(oldMs / 1000).toFixed(0)} s for ${tpl.order.length}`,
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
        label: `OpenCode backup exports of ${tpl.order.length} sessions vs a bare script through one server (wall)`,
        value: wallRatio,
        unit: '×',
        op: '≤',
        target,
      },
      { label: 'the same, CPU time (process tree)', value: cpuRatio, unit: '×', op: '≤', target },
    ],
    extra: { lines, oldRouteMs: oldMs },
  };
}
