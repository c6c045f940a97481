// The OpenCode adapter against stores made by the real `opencode` (schema and
// migrations) and filled by the project's fixture builder, in a temp env:
// titles, parents, transitive descendants, projects, logical sizes, archive
// state; schema recognition (missing columns, future additive schema, a view,
// no table), corrupt/locked/foreign files and WAL side files; that a scan
// leaves the database and its WAL byte-for-byte unchanged; channel databases
// and OPENCODE_DB; writers through a fake /proc and a fake loopback server;
// previews; routes that must refuse before running anything; the CLI's JSON.

import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeQuietly, openReadOnly } from '../../src/adapters/opencode/db-open.js';
import { dbRevision } from '../../src/adapters/opencode/db-revision.js';
import { NO_EXECUTABLE } from '../../src/adapters/opencode/delete-route.js';
import type { OpencodeFixtureManifest } from '../../src/adapters/opencode/fixture.js';
import { opencodeAdapter } from '../../src/adapters/opencode/index.js';
import { RUNNING_REASON } from '../../src/adapters/opencode/items.js';
import { buildLineage, descendantsOf, minimalRoots } from '../../src/adapters/opencode/lineage.js';
import { chooseDatabase } from '../../src/adapters/opencode/paths.js';
import { ACTIVE_REASON, opencodeFallbackTitle } from '../../src/adapters/opencode/scan.js';
import { newerSchemaReason } from '../../src/adapters/opencode/schema.js';
import { UNVERIFIED_REASON } from '../../src/adapters/opencode/server-probe.js';
import { RouteRefused } from '../../src/adapters/shared/official-delete.js';
import { isOpencodeProcess, parseEndpoint, targetsDatabase } from '../../src/adapters/opencode/writers.js';
import { ADAPTERS } from '../../src/adapters/registry.js';
import { Engine } from '../../src/engine/api/engine.js';
import type { Inventory, Item, SessionRecord } from '../../src/engine/core/model.js';
import { walkOwned } from '../../src/engine/inventory/revision.js';
import { buildStore, cacheDir, configDir, dataDir, installation, makeTemplate, OPENCODE_BIN, opencodeEnv, type Template } from '../helpers/opencode.js';
import { CLI } from '../helpers/pty-screen.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';

let template: Template;
beforeAll(async () => {
  template = await makeTemplate();
}, 180_000);
afterAll(() => template?.cleanup());

let t: TempEnv;
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
  t?.cleanup();
});

const db = (): string => t.env.OPENCODE_DB!;
const scan = (executable: string | null = OPENCODE_BIN): Promise<Inventory> => opencodeAdapter.scan(installation(t, executable), t.ctx, () => undefined);
const byId = (inv: Inventory): Map<string, SessionRecord> => new Map(inv.sessions.map((s) => [s.id, s]));
const item = (inv: Inventory, id: string): Item | undefined => inv.items.find((i) => i.id === id);
const sorted = (xs: Iterable<string>): string[] => [...xs].sort();

/** Rewrites the fixture database with a writable connection, then leaves -wal/-shm like OpenCode does. */
function mutateDb(fn: (w: Database.Database) => void): void {
  const w = new Database(db(), { fileMustExist: true });
  fn(w);
  const reader = new Database(db(), { readonly: true, fileMustExist: true });
  reader.prepare('SELECT 1').get();
  w.close();
  reader.close();
}

/** SHA-256 and mtime of the database and its WAL: what a scan must never change. */
function dbState(): string[] {
  return [db(), `${db()}-wal`].map((p) => {
    if (!existsSync(p)) return `${p} absent`;
    const st = statSync(p);
    return `${p} ${hashTree(dirname(p)).get(p.slice(dirname(p).length + 1))} ${st.mtimeMs} ${st.size}`;
  });
}

/** A fake /proc/<pid> with comm, cmdline and environ. */
function fakeOpencode(pid: number, argv: string[], env: Record<string, string> | null, comm = 'opencode'): void {
  const dir = join(t.procRoot, String(pid));
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'comm'), `${comm}\n`);
  writeFileSync(join(dir, 'cmdline'), argv.join('\0') + '\0');
  if (env)
    writeFileSync(
      join(dir, 'environ'),
      Object.entries(env)
        .map(([k, v]) => `${k}=${v}`)
        .join('\0') + '\0',
    );
}

const userEnv = (): Record<string, string> => ({ HOME: t.env.HOME!, XDG_DATA_HOME: t.env.XDG_DATA_HOME! });

function expectedTitle(title: string, id: string): string {
  if (title === '') return opencodeFallbackTitle(id);
  if (title.startsWith('Evil')) return 'Evil title red';
  return title;
}

describe('inventory of a fixture store', () => {
  it('lists every session with its title, parent, descendants, project, size, times and archive state', async () => {
    t = makeTempEnv();
    const m = buildStore(t, template, { orphans: 2, edgeCases: true, globalSessions: 2, rootsPerProject: 5 });
    const inv = await scan();
    expect(inv.writers).toEqual([]);
    const got = byId(inv);
    expect(sorted(got.keys())).toEqual(sorted(m.sessions.map((s) => s.id)));
    const revision = dbRevision(db());
    const projectOf = new Map(inv.projects.map((p) => [p.id, p]));
    for (const f of m.sessions) {
      const s = got.get(f.id)!;
      expect(s.title, f.id).toBe(expectedTitle(f.title, f.id));
      expect(s.parentId, f.id).toBe(f.kind === 'orphan' ? null : f.parentId);
      expect(sorted(s.deletionDescendantIds), f.id).toEqual(sorted(m.descendants.get(f.id)!));
      expect(s.cwd).toBe(f.directory);
      expect(s.state).toBe(f.archivedAt !== null ? 'archived' : 'current');
      expect(s.metadata.archivedAt ?? null).toBe(f.archivedAt);
      expect(s.createdAt).toBe(f.createdAt);
      expect(s.updatedAt).toBe(f.updatedAt);
      expect(s.bytes, `${f.id} logical size`).toBe(f.bytes);
      expect(s.paths).toEqual([]);
      expect(s.recoverable).toBe(true);
      expect(s.selectable, f.id).toBe(f.kind !== 'cycle');
      expect(s.metadata.routeRevision).toBe(revision);
      // A session owns no paths: the adapter records the empty tree's revision the engine's walk would give it (selectable rows only).
      expect(s.metadata.sourceRevision).toBe(s.selectable ? walkOwned([], { uid: t.ctx.uid }).revision : undefined);
      expect(s.metadata.databasePath).toBe(db());
      expect(s.metadata.opencodeProjectId).toBe(f.projectId);
      expect(projectOf.get(s.projectId!)).toBeDefined();
      if (f.kind === 'orphan') expect(s.metadata.missingParentId).toBe(f.parentId);
      expect(s.named).toBe(!(f.title === '' || /^(New|Child) session - /.test(f.title)));
    }
    // OpenCode's recursive delete: a root with a child and a grandchild takes both; forks stay.
    const root = m.sessions.find((f) => f.kind === 'root' && (m.descendants.get(f.id)?.length ?? 0) >= 3)!;
    const fork = m.sessions.find((f) => f.kind === 'fork' && f.title.startsWith(root.title))!;
    expect(got.get(root.id)!.deletionDescendantIds).not.toContain(fork?.id ?? 'none');
    expect(m.sessions.filter((f) => f.parentId === root.id)).toHaveLength(2);
    // Cycle members are blocked with the reason; the forest gets their parent links.
    const cycle = inv.sessions.filter((s) => s.title.startsWith('Cycle'));
    expect(cycle).toHaveLength(2);
    for (const s of cycle) expect(s.blockedReason).toMatch(/cycle/);
    expect(inv.warnings.map((w) => w.reason).join('\n')).toMatch(/2 OpenCode session\(s\) have parent links that form a cycle/);
    // Projects: the joined project row's name, else the worktree's name; "global" is Global.
    const labels = new Map(inv.projects.map((p) => [p.label, p.roots]));
    expect([...labels.keys()].sort()).toEqual(['Global', 'Payments API', 'p1', 'p3']);
    expect(labels.get('p1')).toEqual([m.projects[0]!.worktree]);
    expect(labels.get('Global')).toEqual(['/']);
    // Newest first, as OpenCode lists them.
    const updated = inv.sessions.map((s) => s.updatedAt!);
    expect(updated).toEqual([...updated].sort((a, b) => b - a));
  });

  it('lists logs and the cache root as items, and protected data as never selectable', async () => {
    t = makeTempEnv();
    buildStore(t, template);
    const inv = await scan();
    const logs = item(inv, 'logs:opencode')!;
    expect(logs).toMatchObject({ category: 'log', risk: 'review', recoverable: false, selectable: true, paths: [join(dataDir(t), 'log')] });
    expect(logs.metadata.sourceRevision).toBe(walkOwned([join(dataDir(t), 'log')], { uid: t.ctx.uid }).revision);
    const cache = item(inv, 'cache:opencode')!;
    expect(cache).toMatchObject({ category: 'cache', risk: 'safe', recoverable: false, selectable: true });
    expect(cache.paths).toEqual(
      readdirSync(cacheDir(t))
        .sort()
        .map((n) => join(cacheDir(t), n)),
    );
    expect(cache.metadata.regenerable).toBe(true);
    const prot = inv.items.filter((i) => i.category === 'protected');
    const labels = prot.map((i) => i.label);
    for (const name of [
      'auth.json',
      'mcp-auth.json',
      'storage',
      'plans',
      'repos',
      'opencode.db',
      'opencode.db-wal',
      'opencode.db-shm',
      'OpenCode configuration',
      'snapshot',
      'tool-output',
    ]) {
      expect(labels, name).toContain(name);
    }
    for (const i of prot) expect(i.selectable, i.label).toBe(false);
    expect(prot.find((i) => i.label === 'OpenCode configuration')!.paths).toEqual([configDir(t)]);
    expect(prot.find((i) => i.label === 'snapshot')!.blockedReason).toBe('Reported only.');
    // No item owns the database or a credential.
    const selectablePaths = inv.items.filter((i) => i.selectable).flatMap((i) => i.paths);
    for (const p of selectablePaths) {
      expect(p.startsWith(db())).toBe(false);
      expect(p.endsWith('auth.json')).toBe(false);
    }
  });

  it('leaves the database, its WAL and every other file unchanged (byte for byte)', async () => {
    t = makeTempEnv();
    buildStore(t, template);
    const shm = `${db()}-shm`;
    const before = hashTree(t.root, [shm]);
    const dbBefore = dbState();
    await scan();
    await scan();
    await opencodeAdapter.preview(installation(t), [], `session:${(await scan()).sessions[0]!.id}`);
    expect(dbState()).toEqual(dbBefore);
    expect(treeDiff(before, hashTree(t.root, [shm]))).toEqual([]);
  });

  it('reports a store without the opencode executable read-only, through the engine', async () => {
    t = makeTempEnv();
    const m = buildStore(t, template);
    const engine = new Engine(ADAPTERS, t.ctx);
    const summary = await engine.scan('opencode');
    expect(summary.installation.state).toBe('dataOnly');
    expect(summary.sessionCount).toBe(m.sessions.length);
    expect(summary.archivedSessionCount).toBe(m.sessions.filter((s) => s.archivedAt !== null).length);
    const snap = engine.snapshot(summary.snapshotId);
    for (const n of snap.forest.nodes) {
      expect(n.s.selectable).toBe(false);
      expect(n.s.blockedReason).toBe(NO_EXECUTABLE);
    }
    // Logs and cache are files: they stay selectable without the program.
    expect(snap.item('logs:opencode')?.selectable).toBe(true);
    // Parent links make the tree: a child sits under its root.
    const child = m.sessions.find((s) => s.kind === 'child')!;
    expect(snap.forest.nodeById.get(child.id)!.parent?.s.id).toBe(child.parentId);
    await engine.close();
  });
});

describe('schema recognition', () => {
  it('a missing required column leaves sessions read-only with the reason, logs and cache still listed', async () => {
    t = makeTempEnv();
    const m = buildStore(t, template);
    mutateDb((w) => w.exec('DROP INDEX session_parent_idx; ALTER TABLE session DROP COLUMN parent_id;'));
    const dbBefore = dbState();
    const inv = await scan();
    expect(inv.sessions).toHaveLength(m.sessions.length);
    for (const s of inv.sessions) {
      expect(s.selectable).toBe(false);
      expect(s.blockedReason).toMatch(/schema is not recognized \(missing session\.parent_id\)/);
      expect(s.parentId).toBeNull();
    }
    expect(inv.warnings.some((w) => /missing session\.parent_id/.test(w.reason))).toBe(true);
    expect(item(inv, 'logs:opencode')?.selectable).toBe(true);
    expect(item(inv, 'cache:opencode')?.selectable).toBe(true);
    expect(dbState()).toEqual(dbBefore);
  });

  it('a future schema that only adds columns and migrations is still recognized', async () => {
    t = makeTempEnv();
    const m = buildStore(t, template);
    mutateDb((w) =>
      w.exec(`ALTER TABLE session ADD COLUMN time_pinned integer;
              INSERT INTO migration (id, time_completed) VALUES ('29991231000000_future_columns', 1);`),
    );
    const inv = await scan();
    expect(inv.warnings).toEqual([]);
    expect(inv.sessions.filter((s) => s.selectable)).toHaveLength(m.sessions.length);
  });

  it("a table 1.18.33 does not create (a newer OpenCode's) leaves everything read-only with one line; hostile table names are cleaned", async () => {
    t = makeTempEnv();
    const m = buildStore(t, template);
    mutateDb((w) => w.exec(`CREATE TABLE session_v3 (id text PRIMARY KEY, data text); CREATE TABLE "x\x1b]0;PWNED\x07y" (a); CREATE VIEW zz AS SELECT 1;`));
    const dbBefore = dbState();
    const inv = await scan();
    const line = newerSchemaReason(['session_v3', 'x\x1b]0;pwned\x07y', 'zz']);
    expect(line).toMatch(/^This OpenCode database has a newer schema: read-only \(tables cleanerx does not know: session_v3, x.*y, zz\)\.$/);
    expect(line).not.toMatch(/[\x00-\x1f\x7f-\x9f]/);
    expect(inv.warnings).toEqual([{ path: db(), reason: line }]);
    expect(inv.sessions).toHaveLength(m.sessions.length);
    expect(inv.sessions.every((s) => !s.selectable && s.blockedReason === line)).toBe(true);
    expect(item(inv, 'logs:opencode')?.blockedReason).toBe(line);
    expect(item(inv, 'cache:opencode')?.blockedReason).toBe(line);
    expect(dbState()).toEqual(dbBefore);
  });

  it('a future schema that renames the session table or the project columns is not recognized', async () => {
    t = makeTempEnv();
    buildStore(t, template);
    mutateDb((w) => w.exec('ALTER TABLE project RENAME COLUMN worktree TO root_dir;'));
    const inv = await scan();
    expect(inv.sessions.length).toBeGreaterThan(0);
    expect(inv.sessions.every((s) => !s.selectable && /missing project\.worktree/.test(s.blockedReason!))).toBe(true);
  });

  it('a "session" that is a view is ambiguous; a store without a session table lists no sessions', async () => {
    t = makeTempEnv();
    buildStore(t, template);
    mutateDb((w) => w.exec('PRAGMA foreign_keys = OFF; ALTER TABLE session RENAME TO session_old; CREATE VIEW session AS SELECT * FROM session_old;'));
    let inv = await scan();
    expect(inv.sessions.every((s) => !s.selectable && /ambiguously/.test(s.blockedReason!))).toBe(true);
    mutateDb((w) => w.exec('DROP VIEW session; DROP TABLE session_old;'));
    inv = await scan();
    expect(inv.sessions).toEqual([]);
    expect(inv.warnings.map((w) => w.reason).join('\n')).toMatch(/no session table/);
    expect(item(inv, 'logs:opencode')?.selectable).toBe(true);
  });
});

describe('hostile database files', () => {
  const clearSides = (): void => {
    rmSync(`${db()}-wal`, { force: true });
    rmSync(`${db()}-shm`, { force: true });
  };

  it('a file that is not SQLite, an empty file and a corrupt database give a warning, never a crash or a write', async () => {
    t = makeTempEnv();
    buildStore(t, template);
    const real = readFileSync(db()).subarray(0, 100);
    const cases: [Buffer, RegExp][] = [
      [Buffer.from('this is not a database at all, just text '.repeat(20)), /not an SQLite database/],
      [Buffer.alloc(0), /empty/],
      // A valid legacy-mode header followed by garbage pages.
      [Buffer.concat([Buffer.from(real).fill(1, 18, 20), Buffer.alloc(8192 - 100, 0xa5)]), /corrupt|could not be read/],
    ];
    for (const [bytes, reason] of cases) {
      clearSides();
      writeFileSync(db(), bytes);
      const inv = await scan();
      expect(inv.sessions).toEqual([]);
      expect(inv.warnings.map((w) => w.reason).join('\n')).toMatch(reason);
      expect(readFileSync(db()).equals(bytes)).toBe(true);
      expect(existsSync(`${db()}-wal`) || existsSync(`${db()}-shm`)).toBe(false);
      expect(item(inv, 'logs:opencode')?.selectable).toBe(true);
      expect(item(inv, 'cache:opencode')?.selectable).toBe(true);
    }
  });

  it('a WAL database closed cleanly (no -shm, or neither side file) is still read, and no side file is created or changed (#25)', async () => {
    t = makeTempEnv();
    buildStore(t, template);
    const full = (await scan()).sessions.map((s) => s.id).sort();
    expect(full.length).toBeGreaterThan(0);
    rmSync(`${db()}-shm`);
    const before = dbState();
    let inv = await scan();
    expect(inv.sessions.map((s) => s.id).sort()).toEqual(full);
    expect(inv.warnings.map((w) => w.reason).join('\n')).not.toMatch(/WAL mode|missing/);
    expect(existsSync(`${db()}-shm`)).toBe(false);
    expect(dbState()).toEqual(before);
    // As SQLite leaves it after the last connection closes: the log checkpointed and both side files gone.
    const w = new Database(db(), { fileMustExist: true });
    w.pragma('wal_checkpoint(TRUNCATE)');
    w.close();
    expect(existsSync(`${db()}-wal`) || existsSync(`${db()}-shm`)).toBe(false);
    const closed = dbState();
    inv = await scan();
    expect(inv.sessions.map((s) => s.id).sort()).toEqual(full);
    expect(existsSync(`${db()}-wal`) || existsSync(`${db()}-shm`)).toBe(false);
    expect(dbState()).toEqual(closed);
  });

  it('a database another program holds mid-transaction is read from a private copy: its committed rows, at once, and its files unchanged', async () => {
    t = makeTempEnv();
    const m = buildStore(t, template);
    const w = new Database(db(), { fileMustExist: true });
    try {
      w.exec('BEGIN IMMEDIATE');
      w.prepare('UPDATE project SET time_updated = time_updated + 1').run();
      const before = dbState();
      const started = Date.now();
      const inv = await scan();
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(inv.sessions).toHaveLength(m.sessions.length);
      expect(inv.warnings.map((x) => x.reason).join('\n')).not.toMatch(/locked/);
      expect(dbState()).toEqual(before);
    } finally {
      w.exec('ROLLBACK');
      w.close();
    }
  });

  it('a database in rollback-journal mode is read without creating side files', async () => {
    t = makeTempEnv();
    const m = buildStore(t, template);
    const w = new Database(db(), { fileMustExist: true });
    w.pragma('journal_mode = DELETE');
    w.close();
    expect(existsSync(`${db()}-wal`)).toBe(false);
    const before = readFileSync(db());
    const inv = await scan();
    expect(inv.sessions).toHaveLength(m.sessions.length);
    expect(readFileSync(db()).equals(before)).toBe(true);
    expect(existsSync(`${db()}-wal`) || existsSync(`${db()}-shm`) || existsSync(`${db()}-journal`)).toBe(false);
  });

  it('hostile rows: a huge title, non-text ids, odd times and a large part are bounded, skipped or counted', async () => {
    t = makeTempEnv();
    const m = buildStore(t, template, { projects: 1, rootsPerProject: 2, globalSessions: 0 });
    const p = m.projects[0]!;
    const big = 'x'.repeat(8 * 1024 * 1024);
    mutateDb((w) => {
      const ins = w.prepare(
        "INSERT INTO session (id, project_id, slug, directory, path, title, version, time_created, time_updated) VALUES (?, ?, 's', ?, '', ?, '1.18.33', ?, ?)",
      );
      ins.run('ses_hugetitle00000000000000', p.id, p.worktree, 'T'.repeat(1024 * 1024), 1, 2);
      ins.run(12345, p.id, p.worktree, 'integer id', 1, 2);
      ins.run(Buffer.from('ses_blobid'), p.id, p.worktree, 'blob id', 1, 2);
      ins.run(`ses_${'L'.repeat(200)}`, p.id, p.worktree, 'long id', 1, 2);
      ins.run('ses_oddtimes000000000000000', p.id, p.worktree, 'odd times', 'yesterday', 2.5);
      w.prepare("INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES ('msg_big', ?, 1, 1, '{}')").run(m.sessions[0]!.id);
      w.prepare("INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_big', 'msg_big', ?, 1, 1, ?)").run(
        m.sessions[0]!.id,
        big,
      );
    });
    const inv = await scan();
    const got = byId(inv);
    expect(Array.from(got.get('ses_hugetitle00000000000000')!.title).length).toBeLessThanOrEqual(201);
    expect(got.get('ses_oddtimes000000000000000')!.createdAt).toBeNull();
    expect(got.get('ses_oddtimes000000000000000')!.updatedAt).toBe(2.5);
    // A number in the TEXT id column becomes text ('12345.0'): listed, but not an id OpenCode accepts.
    expect(got.get('12345.0')).toMatchObject({ selectable: false, blockedReason: expect.stringMatching(/not one OpenCode accepts/) });
    // The blob id and the over-long id are skipped.
    expect(inv.warnings.map((w) => w.reason).join('\n')).toMatch(/Skipped 2 OpenCode session row/);
    expect(got.get(m.sessions[0]!.id)!.bytes).toBe(m.sessions[0]!.bytes + big.length + 2);
  });
});

describe('which database', () => {
  it('finds the one channel database, refuses several, and follows OPENCODE_DB', async () => {
    t = makeTempEnv();
    const m = buildStore(t, template);
    const home = dataDir(t);
    for (const s of ['', '-wal', '-shm']) renameSync(db() + s, join(home, `opencode-dev.db${s}`));
    const withDb = (v: string | undefined): void => {
      const env: Record<string, string | undefined> = { ...t.ctx.env, OPENCODE_DB: v };
      if (v === undefined) delete env.OPENCODE_DB;
      t.ctx = { ...t.ctx, env };
    };
    withDb(undefined);
    let inv = await scan();
    expect(inv.sessions).toHaveLength(m.sessions.length);
    expect(inv.sessions[0]!.metadata.databasePath).toBe(join(home, 'opencode-dev.db'));
    copyFileSync(join(home, 'opencode-dev.db'), join(home, 'opencode-beta.db'));
    inv = await scan();
    expect(inv.sessions).toEqual([]);
    expect(inv.warnings.map((w) => w.reason).join('\n')).toMatch(/Multiple OpenCode channel databases were found \(opencode-beta\.db, opencode-dev\.db\)/);
    expect(inv.items.filter((i) => i.label.startsWith('opencode-')).every((i) => !i.selectable)).toBe(true);
    // OPENCODE_DB (relative = inside the data dir) picks one, as OpenCode does.
    withDb('opencode-dev.db');
    expect((await scan()).sessions).toHaveLength(m.sessions.length);
    withDb(':memory:');
    inv = await scan();
    expect(inv.sessions).toEqual([]);
    expect(inv.warnings.map((w) => w.reason).join('\n')).toMatch(/:memory:/);
    // A settings override is the user's explicit choice: an absolute OPENCODE_DB elsewhere is ignored.
    withDb('/elsewhere/opencode.db');
    expect(chooseDatabase({ home, homeSource: 'override' }, t.ctx).reason).toMatch(/Multiple/);
    expect(chooseDatabase({ home, homeSource: 'env' }, t.ctx).reason).toMatch(/does not exist/);
  });

  it('a symlinked database is not followed', async () => {
    t = makeTempEnv();
    buildStore(t, template);
    const real = join(t.root, 'real.db');
    for (const s of ['', '-wal', '-shm']) renameSync(db() + s, real + s);
    spawnSync('ln', ['-s', real, db()]);
    expect(lstatSync(db()).isSymbolicLink()).toBe(true);
    const inv = await scan();
    expect(inv.sessions).toEqual([]);
    expect(inv.warnings.map((w) => w.reason).join('\n')).toMatch(/symbolic link/);
  });
});

describe('writers', () => {
  it('recognizes OpenCode processes and their explicit loopback endpoints', () => {
    const p = (argv: string[], comm = '', exe: string | null = null) => ({ pid: 1, comm, argv, exe });
    expect(isOpencodeProcess(p(['opencode'], 'opencode'))).toBe(true);
    expect(isOpencodeProcess(p(['/x/node_modules/opencode-linux-x64/bin/opencode', 'serve'], 'opencode'))).toBe(true);
    expect(isOpencodeProcess(p(['node', '/usr/lib/node_modules/opencode-ai/bin/opencode'], 'node'))).toBe(true);
    expect(isOpencodeProcess(p(['opencode-cli.exe'], ''))).toBe(true);
    expect(isOpencodeProcess(p(['opencode', 'attach', 'http://127.0.0.1:4096'], 'opencode'))).toBe(false);
    expect(isOpencodeProcess(p(['vim', 'opencode.json'], 'vim'))).toBe(false);
    expect(isOpencodeProcess(p(['node', 'server.js'], 'node'))).toBe(false);

    expect(parseEndpoint(['opencode']).endpoint).toBeNull();
    expect(parseEndpoint(['opencode', 'serve', '--port', '4096']).endpoint).toEqual({ host: '127.0.0.1', port: 4096 });
    expect(parseEndpoint(['opencode', '--port=4097', '--hostname=localhost']).endpoint).toEqual({ host: '127.0.0.1', port: 4097 });
    expect(parseEndpoint(['opencode', 'serve', '--port', '4096', '--hostname', '0.0.0.0']).endpoint).toEqual({ host: '127.0.0.1', port: 4096 });
    expect(parseEndpoint(['opencode', 'serve', '--port', '4096', '--hostname', '[::1]']).endpoint).toEqual({ host: '::1', port: 4096 });
    expect(parseEndpoint(['opencode', 'serve', '--port', '0']).reason).toMatch(/dynamic/);
    expect(parseEndpoint(['opencode', 'serve', '--port', '4096', '--hostname', '10.1.2.3']).reason).toMatch(/not loopback/);
    expect(parseEndpoint(['opencode', 'serve', '--port', 'abc']).endpoint).toBeNull();
  });

  it('matches a process to the database through OPENCODE_DB, XDG_DATA_HOME or HOME', () => {
    const dbp = '/home/u/.local/share/opencode/opencode.db';
    const env = (o: Record<string, string>): Map<string, string> => new Map(Object.entries(o));
    expect(targetsDatabase(env({ HOME: '/home/u' }), dbp)).toBe(true);
    expect(targetsDatabase(env({ HOME: '/home/v' }), dbp)).toBe(false);
    expect(targetsDatabase(env({ HOME: '/home/v', XDG_DATA_HOME: '/home/u/.local/share' }), dbp)).toBe(true);
    expect(targetsDatabase(env({ HOME: '/home/u', OPENCODE_DB: ':memory:' }), dbp)).toBe(false);
    expect(targetsDatabase(env({ HOME: '/home/u', OPENCODE_DB: '/tmp/other.db' }), dbp)).toBe(false);
    expect(targetsDatabase(env({ HOME: '/home/v', OPENCODE_DB: dbp }), dbp)).toBe(true);
    expect(targetsDatabase(env({ HOME: '/home/u', OPENCODE_DB: 'opencode.db' }), dbp)).toBe(true);
    expect(targetsDatabase(null, dbp)).toBe(true);
  });

  it('a running OpenCode without a verified server blocks sessions, logs and cache with the reasons', async () => {
    t = makeTempEnv();
    buildStore(t, template);
    fakeOpencode(4242, ['opencode'], userEnv());
    fakeOpencode(4243, ['opencode', 'serve', '--port', '4096'], { ...userEnv(), OPENCODE_DB: ':memory:' });
    fakeOpencode(4244, ['opencode', 'attach', 'http://127.0.0.1:4096'], userEnv());
    fakeOpencode(4245, ['opencode'], { HOME: join(t.root, 'someone-else') });
    const inv = await scan();
    expect(inv.writers).toMatchObject([{ pid: 4242, name: 'opencode' }]);
    for (const s of inv.sessions) {
      expect(s.selectable).toBe(false);
      expect(s.blockedReason).toContain(UNVERIFIED_REASON);
      expect(s.blockedReason).toMatch(/pid 4242: it has no explicit --port/);
      expect(s.metadata.status).toBe('loaded');
    }
    expect(item(inv, 'logs:opencode')?.blockedReason).toContain(RUNNING_REASON);
    expect(item(inv, 'cache:opencode')?.blockedReason).toContain(RUNNING_REASON);
  });

  it('an unreadable process environment counts as a writer; a non-loopback server is not verified', async () => {
    t = makeTempEnv();
    buildStore(t, template);
    fakeOpencode(5001, ['opencode', 'serve', '--port', '4096', '--hostname', '192.168.1.9'], null);
    const inv = await scan();
    expect(inv.writers.map((w) => w.pid)).toEqual([5001]);
    expect(inv.sessions[0]!.blockedReason).toMatch(/"192\.168\.1\.9" is not loopback/);
  });

  interface FakeServer {
    port: number;
    requests: { method: string; url: string; auth: string | undefined }[];
  }

  /** A loopback stand-in for `opencode serve`: health, the session route from the manifest, and status. */
  async function fakeServer(m: OpencodeFixtureManifest, o: { busy?: string; auth?: boolean; foreign?: boolean } = {}): Promise<FakeServer> {
    const requests: FakeServer['requests'] = [];
    const server = createServer((req: IncomingMessage, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      requests.push({ method: req.method ?? '', url: req.url ?? '', auth: req.headers.authorization });
      const send = (status: number, body: unknown): void => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (o.auth) {
        res.writeHead(401, { 'www-authenticate': 'Basic realm="Secure Area"' });
        res.end();
        return;
      }
      if (url.pathname === '/global/health') return send(200, { healthy: true, version: '1.18.33' });
      if (url.pathname === '/session/status') {
        const busy = m.sessions.find((s) => s.id === o.busy);
        return send(200, busy && busy.directory === url.searchParams.get('directory') ? { [busy.id]: { type: 'busy' } } : {});
      }
      const sm = /^\/session\/(ses_[A-Za-z0-9_-]+)$/.exec(url.pathname);
      const s = sm && !o.foreign ? m.sessions.find((x) => x.id === sm[1]) : undefined;
      if (s && url.searchParams.get('directory') === s.directory)
        return send(200, { id: s.id, directory: s.directory, time: { created: s.createdAt, updated: s.updatedAt } });
      return send(404, { name: 'NotFoundError', data: { message: 'Session not found' } });
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const addr = server.address();
    return { port: typeof addr === 'object' && addr ? addr.port : 0, requests };
  }

  it('a verified loopback server keeps idle sessions selectable and blocks the busy one', async () => {
    t = makeTempEnv();
    const m = buildStore(t, template);
    const busy = m.sessions.find((s) => s.kind === 'child')!;
    const srv = await fakeServer(m, { busy: busy.id });
    fakeOpencode(6001, ['opencode', 'serve', '--hostname', '127.0.0.1', '--port', String(srv.port)], userEnv());
    const inv = await scan();
    const got = byId(inv);
    expect(got.get(busy.id)!.selectable).toBe(false);
    expect(got.get(busy.id)!.blockedReason).toBe(ACTIVE_REASON);
    expect(got.get(busy.id)!.metadata.status).toBe('active');
    for (const s of inv.sessions.filter((x) => x.id !== busy.id && !x.title.startsWith('Cycle'))) expect(s.selectable, s.id).toBe(true);
    // Logs and cache still need OpenCode to exit.
    expect(item(inv, 'logs:opencode')?.blockedReason).toContain(RUNNING_REASON);
    // Only the public routes were asked, and never with credentials.
    expect(srv.requests.every((r) => r.auth === undefined && r.method === 'GET')).toBe(true);
    expect(new Set(srv.requests.map((r) => new URL(r.url, 'http://x').pathname.replace(/ses_[A-Za-z0-9_-]+/, ':id')))).toEqual(
      new Set(['/global/health', '/session/:id', '/session/status']),
    );
    const dirs = new Set(m.sessions.map((s) => s.directory));
    expect(srv.requests.filter((r) => r.url.startsWith('/session/status')).length).toBe(dirs.size);
  });

  it('an authentication challenge, a server of another database, or no answer block every session', async () => {
    t = makeTempEnv();
    const m = buildStore(t, template);
    const auth = await fakeServer(m, { auth: true });
    fakeOpencode(7001, ['opencode', 'serve', '--port', String(auth.port)], userEnv());
    let inv = await scan();
    expect(inv.sessions.every((s) => !s.selectable && /asks for authentication/.test(s.blockedReason!))).toBe(true);
    rmSync(join(t.procRoot, '7001'), { recursive: true });

    const foreign = await fakeServer(m, { foreign: true });
    fakeOpencode(7002, ['opencode', 'serve', '--port', String(foreign.port)], userEnv());
    inv = await scan();
    expect(inv.sessions.every((s) => !s.selectable && /does not know session/.test(s.blockedReason!))).toBe(true);
    rmSync(join(t.procRoot, '7002'), { recursive: true });

    const closed = await fakeServer(m);
    await new Promise((r) => servers.pop()!.close(r));
    fakeOpencode(7003, ['opencode', 'serve', '--port', String(closed.port)], userEnv());
    inv = await scan();
    expect(inv.sessions.every((s) => !s.selectable && /did not answer its health route/.test(s.blockedReason!))).toBe(true);
  });
});

describe('lineage', () => {
  it('finds transitive descendants, cycles (also a self-parent) and the minimal root set', () => {
    const l = buildLineage([
      { id: 'a', parentId: null },
      { id: 'b', parentId: 'a' },
      { id: 'c', parentId: 'b' },
      { id: 'd', parentId: 'a' },
      { id: 'e', parentId: 'missing' },
      { id: 'x', parentId: 'y' },
      { id: 'y', parentId: 'x' },
      { id: 'z', parentId: 'y' },
      { id: 's', parentId: 's' },
    ]);
    expect(descendantsOf(l, 'a').sort()).toEqual(['b', 'c', 'd']);
    expect(descendantsOf(l, 'e')).toEqual([]);
    expect(l.parentOf.has('e')).toBe(false);
    expect([...l.inCycle].sort()).toEqual(['s', 'x', 'y']);
    expect(descendantsOf(l, 'x').sort()).toEqual(['y', 'z']);
    expect(minimalRoots(l, ['c', 'a', 'd', 'e', 'a'])).toEqual(['a', 'e']);
    expect(minimalRoots(l, ['z'])).toEqual(['z']);
  });
});

describe('previews', () => {
  it('shows a bounded message/part projection of one session and the newest log lines with a warning', async () => {
    t = makeTempEnv();
    const m = buildStore(t, template, { messagesPerSession: 3 });
    const inv = await scan();
    const s = m.sessions.find((x) => x.kind === 'root')!;
    const p = await opencodeAdapter.preview(installation(t), [], `session:${s.id}`);
    expect(p.source).toBe('opencodeDb.readOnly');
    expect(p.blocks.filter((b) => b.kind === 'message').map((b) => (b as { role: string }).role)).toEqual(['user', 'assistant', 'user']);
    const logs = await opencodeAdapter.preview(installation(t), item(inv, 'logs:opencode')!.paths, 'logs:opencode');
    expect(logs.warning).toBe('OpenCode logs can contain prompts, file paths, and tool output.');
    expect(logs.blocks[0]!.kind).toBe('text');
    expect(logs.bytesRead).toBeGreaterThan(0);
  });
});

describe('routes refuse before running anything', () => {
  /** An executable that must never run: it leaves a marker when it does. */
  function trap(): { exe: string; ran: () => boolean } {
    const marker = join(t.root, 'trap-ran');
    const exe = join(t.root, 'bin', 'opencode');
    mkdirSync(dirname(exe), { recursive: true });
    writeFileSync(exe, `#!/bin/sh\ntouch '${marker}'\nexit 0\n`);
    chmodSync(exe, 0o755);
    return { exe, ran: () => existsSync(marker) };
  }

  it('unknown, malformed or cyclic ids, a changed store, a blind writer, or no executable', async () => {
    t = makeTempEnv();
    const m = buildStore(t, template, { edgeCases: true });
    const { exe, ran } = trap();
    const inst = installation(t, exe);
    const route = opencodeAdapter.sessionRoute!;
    const root = m.sessions.find((s) => s.kind === 'root')!.id;
    const before = dbState();
    await expect(route.deleteSessions(inst, t.ctx, ['ses_doesnotexist0000000000'])).rejects.toThrow(/Not in the OpenCode database/);
    await expect(route.deleteSessions(inst, t.ctx, ['foo'])).rejects.toThrow(/Not an OpenCode session id/);
    await expect(route.deleteSessions(inst, t.ctx, [])).rejects.toThrow(RouteRefused);
    await expect(route.deleteSessions(inst, t.ctx, [m.sessions.find((s) => s.kind === 'cycle')!.id])).rejects.toThrow(/cycle/);
    await expect(route.deleteSessions(inst, t.ctx, [root], { expectedRevision: 'stale' })).rejects.toThrow(/changed after the inventory scan/);
    await expect(route.deleteSessions(installation(t, null), t.ctx, [root])).rejects.toThrow(NO_EXECUTABLE);
    fakeOpencode(4242, ['opencode'], userEnv());
    await expect(route.deleteSessions(inst, t.ctx, [root], { expectedRevision: dbRevision(db()) })).rejects.toThrow(UNVERIFIED_REASON);
    await expect(route.exportSessions!(inst, t.ctx, [root], join(t.root, 'stage'))).rejects.toThrow(/Quit OpenCode before backing up/);
    rmSync(join(t.procRoot, '4242'), { recursive: true });
    mkdirSync(join(t.root, 'open-stage'), { mode: 0o755 });
    chmodSync(join(t.root, 'open-stage'), 0o755);
    await expect(route.exportSessions!(inst, t.ctx, [root], join(t.root, 'open-stage'))).rejects.toThrow(/0700/);
    await expect(route.exportSessions!(inst, t.ctx, [root], 'relative/stage')).rejects.toThrow(/absolute/);

    const exportFile = (id: string, directory: string): string => {
      const f = join(t.root, `${id}.json`);
      writeFileSync(f, JSON.stringify({ info: { id, slug: 'x', directory, title: 't', version: '1.18.33', time: { created: 1, updated: 1 } }, messages: [] }));
      return f;
    };
    const entry = (id: string, directory: string) => ({ id, file: exportFile(id, directory), directory, parentId: null, title: 't', bytes: 1, sha256: '' });
    await expect(route.importSessions!(inst, t.ctx, [entry(root, m.sessions[0]!.directory)])).rejects.toThrow(/already exists/);
    await expect(route.importSessions!(inst, t.ctx, [entry('ses_new0000000000000000001', join(t.root, 'gone'))])).rejects.toThrow(
      /working directory .* is unavailable/,
    );
    const e = entry('ses_new0000000000000000002', m.sessions[0]!.directory);
    await expect(route.importSessions!(inst, t.ctx, [e, e])).rejects.toThrow(/twice/);
    await expect(route.importSessions!(inst, t.ctx, [{ ...e, directory: '/' }])).rejects.toThrow(/another working directory/);
    expect(ran()).toBe(false);
    expect(dbState()).toEqual(before);
  });
});

describe('cleanerx scan --agent opencode --json', () => {
  it('shows the inventory: sessions with parents, items, the installed program', () => {
    t = makeTempEnv();
    const m = buildStore(t, template);
    const env = { ...opencodeEnv(t), PATH: `${dirname(OPENCODE_BIN)}:/usr/bin:/bin` };
    const r = spawnSync(process.execPath, [CLI, 'scan', '--agent', 'opencode', '--json'], { cwd: t.root, env, encoding: 'utf8', timeout: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    const a = (JSON.parse(r.stdout) as { agents: Record<string, unknown>[] }).agents[0] as {
      agent: string;
      state: string;
      home: string;
      version: string;
      sessions: { id: string; title: string; parentId: string | null; selectable: boolean; state: string; paths: string[] }[];
      items: { id: string }[];
    };
    expect(a).toMatchObject({ agent: 'opencode', state: 'installed', home: dataDir(t) });
    // detect() gives `--version` 3 s; on a loaded machine OpenCode's start can take longer.
    expect([null, '1.18.33']).toContain(a.version);
    expect(a.sessions).toHaveLength(m.sessions.length);
    const child = m.sessions.find((s) => s.kind === 'grandchild')!;
    expect(a.sessions.find((s) => s.id === child.id)).toMatchObject({ parentId: child.parentId, title: child.title, selectable: true, paths: [] });
    expect(a.sessions.filter((s) => s.state === 'archived')).toHaveLength(m.sessions.filter((s) => s.archivedAt !== null).length);
    expect(a.items.map((i) => i.id)).toEqual(
      expect.arrayContaining(['logs:opencode', 'cache:opencode', 'protected:opencode:auth.json', 'protected:opencode:db:opencode.db']),
    );
  });
});

describe('the read-only opener', () => {
  it('opens the real store with query_only and refuses to write', () => {
    t = makeTempEnv();
    buildStore(t, template);
    const o = openReadOnly(db());
    expect(o.ok).toBe(true);
    if (!o.ok) return;
    try {
      expect(o.wal).toBe(true);
      expect(() => o.db.exec("INSERT INTO project (id, worktree, time_created, time_updated, sandboxes) VALUES ('x', '/', 1, 1, '[]')")).toThrow();
      expect(() => o.db.exec('VACUUM')).toThrow();
    } finally {
      closeQuietly(o.db);
    }
  });
});
