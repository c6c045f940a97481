// opencode-5k: a real OpenCode 1.18.33 database (made by `opencode db path`,
// filled by the fixture builder) with ~5,000 sessions, generated once under
// bench/.stores/opencode-5k.
//
// 1. Inventory (issue #18: ≤ 2×): `cleanerx scan --agent opencode --json` vs
//    a plain reader that opens the same database read-only and selects what a
//    complete inventory needs: the session rows, the project rows, and per
//    session the byte lengths of its own rows (message, part, event, todo and
//    the v2 tables) with whether it holds a user message — in one grouped
//    statement, the fastest plain form measured. The session rows alone (the
//    old reference) are printed beside it. Wall and CPU (user+sys of the
//    process, its worker included) per run; the first scan of a fresh home
//    (an empty version cache) is reported apart.
// 2. Bulk delete: `cleanerx clean` of 500 roots, whose
//    route starts one private loopback `opencode serve` for all of them,
//    against one `opencode --pure session delete <id>` process per root.
//    The per-root CLI is measured on a sample of roots in the same run and
//    scaled to 500 (running 500 of them would take half an hour).

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
  return import(join(ROOT, 'dist', 'adapters', 'opencode', 'fixture.js'));
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

/** Records the process's own CPU (user+sys, every thread) at exit, into the file CPU_OUT names. */
const CPU_PRELOAD =
  "process.on('exit',()=>{const f=process.env.CLEANERX_BENCH_CPU_OUT;if(f){const u=process.cpuUsage();require('fs').writeFileSync(f,String((u.user+u.system)/1000))}});\n";

/** timeNode plus the child's own CPU time (ms), written at its exit by CPU_PRELOAD (in the copy's root). */
async function timedCpu(args, { env, root }) {
  const preload = join(root, 'cpu-at-exit.cjs');
  if (!existsSync(preload)) writeFileSync(preload, CPU_PRELOAD);
  const out = join(root, 'cpu.txt');
  const { ms } = await timeNode(['--require', preload, ...args], { env: { ...env, CLEANERX_BENCH_CPU_OUT: out }, cwd: root });
  return { ms, cpu: Number(readFileSync(out, 'utf8')) };
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
  const scanRows = [];
  const a = await copy(tpl);
  const sqlite = JSON.stringify(join(ROOT, 'node_modules', 'better-sqlite3'));
  const open = `const D=require(${sqlite});const d=new D(process.env.OPENCODE_DB,{readonly:true,fileMustExist:true});`;
  const rowsOnly = `${open}const r=d.prepare('select id,title,directory,parent_id,project_id,time_created,time_updated,time_archived from session').all();process.stdout.write(String(r.length))`;
  const owned = [
    "select session_id id, octet_length(data) n, json_extract(data, '$.role') = 'user' u from message",
    'select session_id, octet_length(data), 0 from part',
    'select session_id, octet_length(data), 0 from session_message',
    'select session_id, octet_length(prompt), 0 from session_input',
    'select session_id, octet_length(baseline) + octet_length(snapshot), 0 from session_context_epoch',
    'select session_id, octet_length(content) + octet_length(status), 0 from todo',
    'select aggregate_id, octet_length(data) + octet_length(type), 0 from event',
  ].join(' union all ');
  const reader = `${open}const r=d.prepare('select id,title,directory,parent_id,project_id,time_created,time_updated,time_archived,octet_length(id)+octet_length(title)+octet_length(directory) from session').raw().all();const p=d.prepare('select id,name,worktree from project').raw().all();const z=d.prepare(${JSON.stringify(`select id, sum(n), max(u) from (${owned}) group by id`)}).raw().all();process.stdout.write(r.length+' '+p.length+' '+z.length)`;
  const first = await timedCpu([CLI, 'scan', '--agent', 'opencode', '--json'], a);
  for (let i = 0; i < 5; i++) {
    scanOurs.push(await timedCpu([CLI, 'scan', '--agent', 'opencode', '--json'], a));
    scanRef.push(await timedCpu(['-e', reader], a));
    scanRows.push(await timedCpu(['-e', rowsOnly], a));
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

  const wall = (xs) => median(xs.map((x) => x.ms));
  const cpu = (xs) => median(xs.map((x) => x.cpu));
  const runs = (xs) => xs.map((x) => `${x.ms.toFixed(0)}/${x.cpu.toFixed(0)}`).join(', ');
  const lines = [
    `inventory: cleanerx scan ${wall(scanOurs).toFixed(0)} ms (CPU ${cpu(scanOurs).toFixed(0)} ms) vs a plain read-only reader of the same columns (session and project rows, every session's own row lengths and user messages) ${wall(scanRef).toFixed(0)} ms (CPU ${cpu(scanRef).toFixed(0)} ms): ${(wall(scanOurs) / wall(scanRef)).toFixed(2)}× wall, ${(cpu(scanOurs) / cpu(scanRef)).toFixed(2)}× CPU (target ≤ 2×)`,
    `  the session rows alone (the old reference): ${wall(scanRows).toFixed(0)} ms (CPU ${cpu(scanRows).toFixed(0)} ms); ours ${(wall(scanOurs) / wall(scanRows)).toFixed(2)}× that`,
    `  runs wall/CPU ms: ours [${runs(scanOurs)}], reference [${runs(scanRef)}], session rows [${runs(scanRows)}]`,
    `  first scan of the fresh home (empty version cache): ${first.ms.toFixed(0)} ms (CPU ${first.cpu.toFixed(0)} ms)`,
    `  ${fixedCostLine(wall(scanOurs), wall(scanRef), emptyMs)}`,
    `bulk delete: ${roots.length} roots (${before - after} sessions with their descendants) through one private server, whole cleanerx transaction incl. two scans: ${(del.ms / 1000).toFixed(1)} s = ${(del.ms / roots.length).toFixed(1)} ms/root`,
    `one CLI process per root: ${cliPerRoot.toFixed(0)} ms/root (median of ${perRoot.length}: [${perRoot.map((x) => x.toFixed(0)).join(', ')}]) → ${(cliFor500 / 1000).toFixed(0)} s for ${roots.length} roots`,
  ];
  const figures = [
    { label: 'OpenCode inventory vs a plain read-only reader of the same columns', value: wall(scanOurs) / wall(scanRef), unit: '×', op: '≤', target: 2 },
    { label: 'the same, CPU time', value: cpu(scanOurs) / cpu(scanRef), unit: '×', op: '≤', target: 2 },
  ];
  return {
    name,
    figures,
    ours: del.ms,
    reference: cliFor500,
    ratio: del.ms / cliFor500,
    target,
    runs: { ours: [del.ms], reference: perRoot.map((x) => x * roots.length) },
    extra: {
      lines,
      sessions: meta.sessions,
      scanOursMs: wall(scanOurs),
      scanReferenceMs: wall(scanRef),
      scanOursCpuMs: cpu(scanOurs),
      scanReferenceCpuMs: cpu(scanRef),
      scanSessionRowsMs: wall(scanRows),
      scanFirstMs: first.ms,
      scanEmptyHomeMs: emptyMs,
      cliPerRootMs: cliPerRoot,
      deletedSessions: before - after,
    },
  };
}
