// opencode-5k: a real OpenCode 1.18.33 database (made by `opencode db path`,
// filled by the fixture builder) with ~5,000 sessions, generated once under
// bench/.stores/opencode-5k.
//
// 1. Inventory: `cleanerx scan --agent opencode --json` vs a plain reader
//    that opens the same database read-only and selects the session rows
//    (the floor: no lineage, sizes or project join). Reported, no target.
// 2. Bulk delete (the figure): `cleanerx clean` of 500 roots, whose
//    route starts one private loopback `opencode serve` for all of them,
//    against one `opencode --pure session delete <id>` process per root.
//    The per-root CLI is measured on a sample of roots in the same run and
//    scaled to 500 (running 500 of them would take half an hour).

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, ROOT, STORES, emptyHomeScanMs, fixedCostLine, isolatedEnvFor, median, timeNode } from './lib/util.mjs';

export const name = 'opencode-5k';
export const target = null;
const ROOTS = 500;
/** Odd, for a true median; each is a whole OpenCode process start (~1.5–8 s on 2 cores), the bench's longest part. */
const CLI_SAMPLE = 5;
const OPENCODE = join(ROOT, 'node_modules', `opencode-${process.platform}-${process.arch}`, 'bin', 'opencode');

async function fixtureModule() {
  return import(join(ROOT, 'dist', 'demo', 'fixtures', 'opencode.js'));
}

/** The template store, built once: 10 projects × 198 roots (5,000 sessions), half with 2 children, each with a grandchild. */
async function template(log) {
  const dir = join(STORES, 'opencode-5k');
  const db = join(dir, 'opencode.db');
  const marker = join(dir, 'roots.json');
  if (existsSync(marker)) return { db, dir };
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
    projects: 10,
    rootsPerProject: 198,
    childrenPerRoot: 2,
    grandchildren: 1,
    forks: 5,
    archived: 10,
    messagesPerSession: 2,
    partBytes: 200,
    seed: 11,
  });
  const roots = m.sessions.filter((s) => s.kind === 'root' && m.descendants.get(s.id).length > 0).map((s) => s.id);
  execFileSync('node', [
    '-e',
    `require('fs').writeFileSync(${JSON.stringify(marker)}, JSON.stringify(${JSON.stringify({ sessions: m.sessions.length, roots })}))`,
  ]);
  return { db, dir };
}

/** A private copy of the template store with its own isolated env. */
async function copy(tpl) {
  const f = await fixtureModule();
  const root = mkdtempSync(join(tmpdir(), 'cleanerx-bench-oc-'));
  const base = await isolatedEnvFor(root, { CLEANERX_PROC_ROOT: join(root, 'proc') });
  const env = { ...f.opencodeSandboxEnv(base, join(root, 'tmp')), PATH: `${join(OPENCODE, '..')}:/usr/bin:/bin` };
  mkdirSync(env.CLEANERX_PROC_ROOT, { recursive: true });
  mkdirSync(env.HOME, { recursive: true });
  f.writeNpmGuard(join(env.XDG_CONFIG_HOME, 'opencode'));
  env.OPENCODE_DB = join(env.XDG_DATA_HOME, 'opencode', 'opencode.db');
  f.copyOpencodeStore(tpl.db, env.OPENCODE_DB);
  return { root, env };
}

function countSessions(db) {
  const code = `const D=require(${JSON.stringify(join(ROOT, 'node_modules', 'better-sqlite3'))});const d=new D(${JSON.stringify(db)},{readonly:true});process.stdout.write(String(d.prepare('select count(*) c from session').get().c))`;
  return Number(execFileSync(process.execPath, ['-e', code], { encoding: 'utf8' }));
}

export async function run({ log }) {
  const tpl = await template(log);
  const meta = JSON.parse(execFileSync('cat', [join(tpl.dir, 'roots.json')], { encoding: 'utf8' }));
  log(`  ${meta.sessions} sessions, ${meta.roots.length} roots with descendants`);

  // ---- inventory ----
  const scanOurs = [];
  const scanRef = [];
  const a = await copy(tpl);
  const reader = `const D=require(${JSON.stringify(join(ROOT, 'node_modules', 'better-sqlite3'))});const d=new D(process.env.OPENCODE_DB,{readonly:true,fileMustExist:true});const r=d.prepare('select id,title,directory,parent_id,project_id,time_created,time_updated,time_archived from session').all();process.stdout.write(String(r.length))`;
  for (let i = 0; i < 3; i++) {
    scanOurs.push((await timeNode([CLI, 'scan', '--agent', 'opencode', '--json'], { env: a.env, cwd: a.root })).ms);
    scanRef.push((await timeNode(['-e', reader], { env: a.env, cwd: a.root })).ms);
  }
  rmSync(a.root, { recursive: true, force: true });
  const f = await fixtureModule();
  const emptyMs = await emptyHomeScanMs('opencode', {
    envFor: (e) => ({ ...f.opencodeSandboxEnv(e, join(e.HOME, '..', 'tmp')), PATH: `${join(OPENCODE, '..')}:/usr/bin:/bin` }),
    prepare: (e) => {
      mkdirSync(join(e.XDG_DATA_HOME, 'opencode'), { recursive: true });
      f.writeNpmGuard(join(e.XDG_CONFIG_HOME, 'opencode'));
    },
  });

  // ---- bulk delete: one private server (the whole cleanerx transaction) ----
  const roots = meta.roots.slice(0, ROOTS);
  const b = await copy(tpl);
  const before = countSessions(b.env.OPENCODE_DB);
  const del = await timeNode([CLI, 'clean', '--agent', 'opencode', '--yes', ...roots.flatMap((id) => ['--id', id])], {
    env: b.env,
    cwd: b.root,
    timeoutMs: 900_000,
    capture: true,
  });
  const after = countSessions(b.env.OPENCODE_DB);
  rmSync(b.root, { recursive: true, force: true });
  if (!/complete:/.test(del.stdout)) throw new Error(`the bulk delete did not complete: ${del.stdout.slice(-400)}`);

  // ---- one CLI process per root, on a sample ----
  const c = await copy(tpl);
  const perRoot = [];
  for (const id of meta.roots.slice(ROOTS, ROOTS + CLI_SAMPLE)) {
    const started = process.hrtime.bigint();
    const r = spawnSync(OPENCODE, ['--pure', 'session', 'delete', id], { cwd: '/', env: c.env, encoding: 'utf8', timeout: 120_000 });
    if (r.status !== 0) throw new Error(`opencode session delete ${id} failed: ${r.stderr.slice(0, 300)}`);
    perRoot.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  rmSync(c.root, { recursive: true, force: true });
  const cliPerRoot = median(perRoot);
  const cliFor500 = cliPerRoot * roots.length;

  const lines = [
    `inventory: cleanerx scan ${median(scanOurs).toFixed(0)} ms vs plain read-only SELECT of the session rows ${median(scanRef).toFixed(0)} ms (${(median(scanOurs) / median(scanRef)).toFixed(2)}×; runs ours [${scanOurs.map((x) => x.toFixed(0)).join(', ')}], plain [${scanRef.map((x) => x.toFixed(0)).join(', ')}])`,
    `  ${fixedCostLine(median(scanOurs), median(scanRef), emptyMs)}`,
    `bulk delete: ${roots.length} roots (${before - after} sessions with their descendants) through one private server, whole cleanerx transaction incl. two scans: ${(del.ms / 1000).toFixed(1)} s = ${(del.ms / roots.length).toFixed(1)} ms/root`,
    `one CLI process per root: ${cliPerRoot.toFixed(0)} ms/root (median of ${perRoot.length}: [${perRoot.map((x) => x.toFixed(0)).join(', ')}]) → ${(cliFor500 / 1000).toFixed(0)} s for ${roots.length} roots`,
  ];
  return {
    name,
    ours: del.ms,
    reference: cliFor500,
    ratio: del.ms / cliFor500,
    target,
    runs: { ours: [del.ms], reference: perRoot.map((x) => x * roots.length) },
    extra: {
      lines,
      sessions: meta.sessions,
      scanOursMs: median(scanOurs),
      scanReferenceMs: median(scanRef),
      scanEmptyHomeMs: emptyMs,
      cliPerRootMs: cliPerRoot,
      deletedSessions: before - after,
    },
  };
}
