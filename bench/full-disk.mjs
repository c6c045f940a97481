// full-disk (#28.5): the scenario of a server whose disk the agents filled,
// as a benchmark. It builds a home with every hog of the issue — Claude's
// leaked task output, an OpenCode snapshot repository with unreachable
// objects, a stale leaked pack (and a fresh one left alone), free pages in
// opencode.db, a Codex logs database with old rows — beside ordinary
// sessions of all four agents (S=1 ≈ 15 GB; `--scale S`, default 0.1), on a
// loop-mounted ext4 of its own when root (so statfs is exact), else on the
// plain disk (said so). Then, through the CLI as a user would:
// `plan --agent all --suggested --json`, and `clean --plan FILE --yes`
// timed from confirm to done. It prints the share of the bytes on disk a row
// accounts for, the share of the reclaimable bytes the plan freed, the wall
// time, statfs freed vs promised, the files and rows changed outside the plan
// (checksums before and after), and whether each agent still lists its
// sessions. The home is removed at the end.

import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statfsSync,
  utimesSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { CLI, fmtBytes, ROOT, STORES } from './lib/util.mjs';

export const name = 'full-disk';
export const target = null;

const GB = 1e9;
const DIST = (p) => join(ROOT, 'dist', p);
const req = createRequire(join(ROOT, 'package.json'));

/** The issue's hogs at S=1, in bytes. */
const HOGS = { claudeTemp: 6 * GB, leakedPack: 3 * GB, looseObjects: 1.5 * GB, dbFreePages: 1.5 * GB, codexOldRows: 2 * GB };

function exec(cmd, args, opts = {}) {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const child = spawn(cmd, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => resolve({ code, out, err, ms: Number(process.hrtime.bigint() - started) / 1e6 }));
  });
}

/** A filesystem of its own: a sparse ext4 image, loop-mounted (root only); else a plain directory. */
function makeFilesystem(dir, bytes, log) {
  mkdirSync(dir, { recursive: true });
  if (process.getuid?.() === 0) {
    const img = `${dir}.img`;
    rmSync(img, { force: true });
    const ok =
      spawnSync('truncate', ['-s', String(Math.ceil(bytes)), img]).status === 0 &&
      spawnSync('mkfs.ext4', ['-q', '-F', '-m', '0', img]).status === 0 &&
      spawnSync('mount', ['-o', 'loop', img, dir]).status === 0;
    if (ok)
      return {
        kind: 'loop-mounted ext4',
        cleanup: () => {
          spawnSync('umount', [dir]);
          rmSync(img, { force: true });
          rmSync(dir, { recursive: true, force: true });
        },
      };
    rmSync(img, { force: true });
  }
  log('  no filesystem of its own (not root, or no loop device): on the plain disk, so statfs also sees other writers');
  return { kind: 'plain disk', cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Appends `bytes` of incompressible data to a file. */
function grow(path, bytes) {
  const fd = openSync(path, 'a');
  const chunk = Buffer.alloc(8 << 20);
  for (let i = 0; i < chunk.length; i += 4) chunk.writeUInt32LE((i * 2654435761) >>> 0, i);
  try {
    for (let left = bytes; left > 0; left -= chunk.length) {
      chunk.writeUInt32LE(left >>> 0, 0);
      writeSync(fd, chunk, 0, Math.min(chunk.length, left));
    }
  } finally {
    closeSync(fd);
  }
}

async function buildHome(root, env, scale, log) {
  const now = Date.now();
  const [{ ADAPTERS }, claudeTemp, claudeFx, snaps, ocFx, codexLogs, tools] = await Promise.all([
    import(DIST('adapters/registry.js')),
    import(DIST('adapters/claude/fixture-temp.js')),
    import(DIST('adapters/claude/fixture.js')),
    import(DIST('adapters/opencode/fixture-snapshots.js')),
    import(DIST('adapters/opencode/fixture.js')),
    import(DIST('demo/codex-demo-logs.js')),
    import(DIST('demo/demo-tools.js')),
  ]);
  mkdirSync(env.TMPDIR, { recursive: true, mode: 0o700 });
  mkdirSync(env.XDG_RUNTIME_DIR, { recursive: true, mode: 0o700 });
  // Ordinary sessions of Codex and pi, as the demo has them.
  for (const a of ADAPTERS.filter((x) => x.kind === 'codex' || x.kind === 'pi')) await a.demo.build(env, now);
  // Claude: its sessions, and task output left in its temp root, grown to the hog's size.
  const m = claudeFx.buildClaudeFixture({
    configDir: env.CLAUDE_CONFIG_DIR,
    projects: 6,
    sessionsPerProject: 6,
    seed: 11,
    now,
    cwdRoot: join(env.HOME, 'code'),
  });
  const written = claudeTemp.buildClaudeTemp({ tmpDir: env.CLAUDE_CODE_TMPDIR ?? env.TMPDIR, uid: process.getuid?.() ?? -1, sessions: m.sessions, now });
  // The loose task output (no session's own folder): what the suggested plan frees.
  const loose = written.filter((p) => p.endsWith('.output') && !m.sessions.some((x) => p.includes(`/${x.id}/`)));
  if (!loose.length) log('  no loose Claude task output was written: the Claude hog is missing from this run');
  for (const p of loose) {
    const st = lstatSync(p);
    grow(p, Math.round((HOGS.claudeTemp * scale) / loose.length));
    utimesSync(p, st.atime, st.mtime);
  }
  // OpenCode: a real store (the pinned opencode makes its schema), a repository with unreachable snapshots, packs, free pages.
  const ocBin = join(req.resolve('opencode-linux-x64/package.json'), '..', 'bin', 'opencode');
  const dataDir = join(env.XDG_DATA_HOME, 'opencode');
  ocFx.writeNpmGuard(join(env.XDG_CONFIG_HOME, 'opencode'));
  await ocFx.initOpencodeStore(ocBin, ocFx.opencodeSandboxEnv({ ...env, PATH: `${join(ocBin, '..')}:/usr/bin:/bin` }, env.TMPDIR), env.OPENCODE_DB, 90_000);
  const om = ocFx.buildOpencodeFixture({
    db: env.OPENCODE_DB,
    workRoot: join(env.HOME, 'oc-work'),
    dataDir,
    cacheDir: join(env.XDG_CACHE_HOME, 'opencode'),
    configDir: join(env.XDG_CONFIG_HOME, 'opencode'),
    projects: 2,
    rootsPerProject: 6,
    messagesPerSession: 3,
    seed: 17,
    now,
  });
  const live = om.sessions.find((s) => s.parentId === null && !s.archivedAt);
  const project = om.projects.find((p) => p.id === live.projectId);
  const fileBytes = 1_000_000;
  const steps = Math.max(2, Math.round((HOGS.looseObjects * scale) / (fileBytes * 20)));
  const noise = (pid, step, file, bytes) =>
    `${pid} ${step} ${file}\n${createHash('sha512')
      .update(`${step}/${file}`)
      .digest('base64')
      .repeat(Math.ceil(bytes / 88))
      .slice(0, bytes)}\n`;
  const rnd = (pid, step, file, bytes) => {
    const b = Buffer.alloc(bytes);
    for (let i = 0; i < bytes; i += 64) createHash('sha512').update(`${pid}${step}/${file}/${i}`).digest().copy(b, i);
    return b.toString('base64').slice(0, bytes);
  };
  void noise;
  const repo = snaps.makeSnapshotRepo(dataDir, project.id, project.worktree, steps + 1, 20, fileBytes, rnd);
  snaps.recordSnapshot(env.OPENCODE_DB, live.id, repo.trees.at(-1));
  snaps.ageLooseObjects(repo.gitdir, 48, now);
  // Packs of at most 1 GB each (one Buffer holds < 2 GiB).
  const leak = Math.round(HOGS.leakedPack * scale);
  for (let i = 0, left = leak; left > 0; i++, left -= GB) snaps.leakPack(repo.gitdir, `tmp_pack_full${i + 1}`, Math.min(GB, left), 48, now);
  snaps.leakPack(repo.gitdir, 'tmp_pack_fresh', 1_000_000, 0, now);
  const Database = req('better-sqlite3');
  const d = new Database(env.OPENCODE_DB);
  d.exec('CREATE TABLE cleanerx_bench_deleted (b BLOB)');
  const put = d.prepare('INSERT INTO cleanerx_bench_deleted (b) VALUES (?)');
  const blob = Buffer.alloc(1 << 20, 7);
  d.transaction(() => {
    for (let i = 0; i < Math.round((HOGS.dbFreePages * scale) / blob.length); i++) put.run(blob);
  })();
  d.exec('DROP TABLE cleanerx_bench_deleted');
  d.pragma('wal_checkpoint(TRUNCATE)');
  d.close();
  // Codex: its logs database (the pinned codex makes it) with rows older than the retention.
  const dirs = tools.findDemoTools().dirs;
  const body = 4000;
  const ok = await codexLogs.buildDemoCodexLogs(root, { ...env, PATH: [...dirs, '/usr/bin', '/bin'].join(':') }, now, 60_000, {
    oldRows: Math.round((HOGS.codexOldRows * scale) / body),
    bodyBytes: body,
  });
  if (!ok) log('  the pinned codex did not make its logs database: no Codex log rows in this run');
  return { dirs, gitdir: repo.gitdir, liveTree: repo.trees.at(-1) };
}

/** Every regular file under `root` by content hash, but the planned paths and the databases (their rows are compared instead). */
function checksums(root, skip) {
  const out = new Map();
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (skip(p)) continue;
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out.set(p, createHash('sha256').update(readFileSync(p)).digest('hex'));
      else if (e.isSymbolicLink()) out.set(p, 'link');
    }
  };
  walk(root);
  return out;
}

/** Rows of a database, table by table, as one hash each (`where` limits a table's rows). */
function rowHashes(db, where = {}) {
  const Database = req('better-sqlite3');
  if (!existsSync(db)) return {};
  const d = new Database(db, { readonly: true, fileMustExist: true });
  try {
    const out = {};
    for (const { name } of d.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all()) {
      const h = createHash('sha256');
      let n = 0;
      for (const r of d.prepare(`SELECT * FROM "${name}" ${where[name] ?? ''} ORDER BY rowid`).iterate()) {
        h.update(JSON.stringify(r));
        n++;
      }
      out[name] = `${n}:${h.digest('hex')}`;
    }
    return out;
  } finally {
    d.close();
  }
}

/** The sessions each agent lists itself: pi's SessionManager, opencode session list, and cleanerx's scan for Codex and Claude. */
async function agentListings(env, dirs) {
  const out = {};
  // pi's own lister in a child (pi reads PI_CODING_AGENT_DIR as it loads), as test/peers/pi-loader.test.ts runs it.
  const sm = join(ROOT, 'node_modules', '@mariozechner', 'pi-coding-agent', 'dist', 'core', 'session-manager.js');
  const pi = await exec(process.execPath, [join(ROOT, 'test', 'peers', 'pi-list-all.mjs'), sm], { env, cwd: env.HOME });
  try {
    const listed = JSON.parse(pi.out);
    out.pi = Array.isArray(listed) ? listed.length : (listed.sessions?.length ?? 'n/a');
  } catch {
    out.pi = `error: ${pi.err.slice(0, 120)}`;
  }
  const ocBin = join(req.resolve('opencode-linux-x64/package.json'), '..', 'bin', 'opencode');
  const oc = await exec(ocBin, ['session', 'list'], { env: { ...env, PATH: `${join(ocBin, '..')}:/usr/bin:/bin` }, cwd: '/' });
  // Its table or JSON alike: the distinct session ids it prints.
  out.opencode = oc.code === 0 ? new Set(oc.out.match(/ses_[0-9A-Za-z]+/g) ?? []).size : `error: ${oc.err.slice(0, 120)}`;
  const scan = await exec(process.execPath, [CLI, 'scan', '--json'], { env: { ...env, PATH: [...dirs, '/usr/bin', '/bin'].join(':') } });
  for (const a of JSON.parse(scan.out).agents) if (a.agent === 'codex' || a.agent === 'claude') out[a.agent] = a.sessions.length;
  return out;
}

export async function run({ log, scale = 0.1 }) {
  const dir = join(STORES, 'full-disk');
  const fs = makeFilesystem(dir, Math.max(2 * GB, 2.2 * 15 * GB * scale), log);
  try {
    const { isolatedEnv } = await import(DIST('demo/demo-home.js'));
    const env = { ...isolatedEnv(dir), TMPDIR: join(dir, 'tmp'), PATH: '/usr/bin:/bin', LANG: 'C.UTF-8' };
    const t0 = Date.now();
    const { dirs, gitdir, liveTree } = await buildHome(dir, env, scale, log);
    const cliEnv = { ...env, PATH: [...dirs, '/usr/bin', '/bin'].join(':') };
    log(`  built the home at S=${scale} on a ${fs.kind} in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    // What is there: every agent's scan in one engine, the all-agents figures.
    const { cliEngine } = await import(DIST('cli/engine-factory.js'));
    // Not read-only: a read-only engine offers nothing, so nothing would count as reclaimable (the scans change no agent file).
    // The temp dir is read from this process (os.tmpdir()): Claude's temp root must be the home's, as the CLI sees it.
    const tmpBefore = process.env.TMPDIR;
    process.env.TMPDIR = cliEnv.TMPDIR;
    const engine = cliEngine(cliEnv, { readOnly: false });
    let all;
    try {
      for (const i of await engine.detect()) if (i.state !== 'notFound') await engine.scan(i.agent);
      all = await engine.allAgents();
    } finally {
      await engine.close();
      if (tmpBefore === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = tmpBefore;
    }
    const before = await agentListings(env, dirs);
    const plan = await exec(process.execPath, [CLI, 'plan', '--agent', 'all', '--suggested', '--json'], { env: cliEnv });
    if (plan.code !== 0) throw new Error(`plan --agent all failed: ${plan.err.slice(0, 300)}`);
    const set = JSON.parse(plan.out);
    const planFile = join(STORES, 'full-disk-plan.json');
    writeFileSync(planFile, plan.out);
    // The planned paths, from the same scan: their files are the plan's, everything else must stay.
    const scanned = JSON.parse((await exec(process.execPath, [CLI, 'scan', '--json'], { env: cliEnv })).out);
    const planned = [];
    for (const p of set.plans) {
      const items = scanned.agents.find((a) => a.agent === p.agent)?.items ?? [];
      for (const i of p.items) planned.push(...(items.find((x) => x.id === i.id)?.paths ?? []));
    }
    const dbs = [env.OPENCODE_DB, join(env.CODEX_HOME, 'logs_2.sqlite')];
    const skip = (p) =>
      planned.some((q) => p === q || p.startsWith(`${q}/`)) ||
      /\.sqlite(-wal|-shm)?$|opencode\.db(-wal|-shm)?$/.test(p) ||
      p.startsWith(env.CLEANERX_STATE_DIR) ||
      p.startsWith(env.XDG_RUNTIME_DIR) ||
      p.startsWith(join(dir, 'lost+found')) ||
      p.includes('/snapshot/') /* the repository gc repacks: compared by its objects below */;
    const cutoff = Math.floor(Date.now() / 1000) - 7 * 86400 + 300;
    const filesBefore = checksums(dir, skip);
    const rowsBefore = { opencode: rowHashes(dbs[0]), codexLogs: rowHashes(dbs[1], { logs: `WHERE ts >= ${cutoff}` }) };
    const objectsBefore = gitObjects(gitdir, liveTree);
    const sf0 = statfsSync(dir);
    const clean = await exec(process.execPath, [CLI, 'clean', '--plan', planFile, '--yes', '--json'], { env: cliEnv });
    const sf1 = statfsSync(dir);
    if (clean.code !== 0) throw new Error(`clean --plan failed: ${clean.err.slice(-500)}`);
    const results = JSON.parse(clean.out).results;
    const promised = results.reduce((n, r) => n + (r.freed?.promisedBytes ?? r.removedBytes), 0);
    const freed = (sf1.bfree - sf0.bfree) * sf0.bsize;
    const filesAfter = checksums(dir, skip);
    let outside = 0;
    for (const [p, h] of filesBefore) if (filesAfter.get(p) !== h) outside++;
    for (const p of filesAfter.keys()) if (!filesBefore.has(p)) outside++;
    const rowsAfter = { opencode: rowHashes(dbs[0]), codexLogs: rowHashes(dbs[1], { logs: `WHERE ts >= ${cutoff}` }) };
    let rowsOutside = 0;
    for (const k of ['opencode', 'codexLogs']) for (const [tb, h] of Object.entries(rowsBefore[k])) if (rowsAfter[k][tb] !== h) rowsOutside++;
    const objectsLost = objectsBefore.filter((o) => !hasObject(gitdir, o)).length;
    const after = await agentListings(env, dirs);
    const attributed = all.totals.onDiskBytes ? all.totals.attributedBytes / all.totals.onDiskBytes : null;
    const freedShare = all.totals.reclaimableBytes ? freed / all.totals.reclaimableBytes : null;
    const offBy = promised ? Math.abs(freed - promised) / promised : null;
    const lists = Object.keys(before).every((a) => before[a] === after[a]);
    const lines = [
      `home ${fmtBytes(all.totals.onDiskBytes)} on disk on a ${fs.kind}; reclaimable now ${fmtBytes(all.totals.reclaimableBytes)}; the plan: ${set.plans.map((p) => `${p.agent} ${p.items.length}`).join(', ')} items, ${fmtBytes(set.plans.reduce((n, p) => n + p.totals.bytes, 0))}`,
      `per agent (on disk / reclaimable / suggested): ${all.agents
        .map((a) => `${a.agent} ${fmtBytes(a.onDiskBytes)} / ${fmtBytes(a.reclaimableBytes)} / ${fmtBytes(a.suggestedBytes)}`)
        .join(', ')}; planned per agent: ${set.plans.map((p) => `${p.agent} ${fmtBytes(p.totals.bytes)}`).join(', ')}`,
      `attributed ${(100 * (attributed ?? 0)).toFixed(2)}% · freed ${(100 * (freedShare ?? 0)).toFixed(1)}% of the reclaimable · confirm→done ${(clean.ms / 1000).toFixed(1)} s`,
      `statfs freed ${fmtBytes(freed)} vs promised ${fmtBytes(promised)} (${offBy === null ? 'n/a' : `${(100 * offBy).toFixed(2)}% apart`})`,
      `outside the plan: ${outside} files changed, ${rowsOutside} tables' rows changed, ${objectsLost} referenced git objects lost`,
      `sessions listed by each agent before → after: ${Object.keys(before)
        .map((a) => `${a} ${before[a]} → ${after[a]}`)
        .join(', ')}`,
    ];
    const pct = (v) => (v === null ? null : 100 * v);
    return {
      name,
      ours: clean.ms,
      reference: null,
      ratio: null,
      target: null,
      runs: { ours: [clean.ms], reference: [] },
      extra: { lines, scale, filesystem: fs.kind, before, after, promised, freed },
      figures: [
        { label: 'share of bytes on disk attributed', value: pct(attributed), unit: '%', op: '≥', target: 100 },
        { label: 'share of the reclaimable bytes freed', value: pct(freedShare), unit: '%', op: '≥', target: 90 },
        { label: 'wall time from confirm to done', value: clean.ms, unit: 'ms', op: '≤', target: scale >= 1 ? 300_000 : 300_000 * scale },
        { label: 'statfs freed vs promised (apart)', value: pct(offBy), unit: '%', op: '≤', target: 2 },
        { label: 'files and DB rows changed outside the plan', value: outside + rowsOutside + objectsLost, unit: '', op: '≤', target: 0 },
        { label: 'agents whose session listing changed', value: lists ? 0 : 1, unit: '', op: '≤', target: 0 },
      ],
    };
  } finally {
    fs.cleanup();
  }
}

/** The live session's snapshot tree and every object under it (gc must keep each one). */
function gitObjects(gitdir, tree) {
  const r = spawnSync('git', ['--git-dir', gitdir, 'ls-tree', '-r', '-t', tree], { encoding: 'utf8' });
  return r.status === 0
    ? [
        tree,
        ...r.stdout
          .split('\n')
          .filter(Boolean)
          .map((l) => l.split(/\s+/)[2]),
      ]
    : [tree];
}

function hasObject(gitdir, o) {
  return spawnSync('git', ['--git-dir', gitdir, 'cat-file', '-e', o]).status === 0;
}
