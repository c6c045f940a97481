// readDbSpace: free pages, sizes and auto_vacuum of an agent database, read
// without creating a -wal or -shm or changing a byte, and a clear state for
// everything that is not a plain SQLite file of this user.

import Database from 'better-sqlite3';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, mkdirSync, readdirSync, readFileSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseDbHeader, readDbSpace } from '../../src/engine/host/db-space.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

const envs: TempEnv[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  for (const t of envs.splice(0)) t.cleanup();
});

function dir(): string {
  const t = makeTempEnv('cleanerx-dbspace-');
  envs.push(t);
  const d = join(t.root, 'db');
  mkdirSync(d);
  return d;
}

/** A database with free pages made by a real delete; closed cleanly (WAL mode: no side files left). */
function makeDb(path: string, wal: boolean, autoVacuum = 0): { pages: number; free: number } {
  const db = new Database(path);
  db.pragma(`auto_vacuum = ${autoVacuum}`);
  if (wal) db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)');
  const ins = db.prepare('INSERT INTO t (body) VALUES (?)');
  db.transaction(() => {
    for (let i = 0; i < 600; i++) ins.run('x'.repeat(3000) + i);
  })();
  db.exec('DELETE FROM t WHERE id <= 400');
  const pages = Number(db.pragma('page_count', { simple: true }));
  const free = Number(db.pragma('freelist_count', { simple: true }));
  db.close();
  return { pages, free };
}

const nodeRequire = createRequire(import.meta.url);
const BETTER_SQLITE3 = nodeRequire.resolve('better-sqlite3');

/** A child process that opens the database and keeps it open (optionally inside an exclusive lock). */
async function holdOpen(path: string, lock: 'none' | 'exclusive'): Promise<ChildProcess> {
  const code = `const D=require(${JSON.stringify(BETTER_SQLITE3)});const d=new D(${JSON.stringify(path)});${lock === 'exclusive' ? "d.exec('BEGIN EXCLUSIVE');d.prepare('SELECT count(*) FROM t').get();" : "d.prepare('SELECT count(*) FROM t').get();"}process.stdout.write('ready\\n');setInterval(()=>{},1000);`;
  const c = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(c);
  await new Promise<void>((resolve, reject) => {
    c.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
    c.on('exit', (code) => reject(new Error(`holder exited ${code}`)));
  });
  return c;
}

describe('readDbSpace', () => {
  it('reads a cleanly closed WAL database from its header and creates no -wal or -shm', () => {
    const d = dir();
    const p = join(d, 'logs_2.sqlite');
    const made = makeDb(p, true, 2);
    expect(made.free).toBeGreaterThan(100);
    const before = hashTree(d);
    const s = readDbSpace(p);
    expect(s).toMatchObject({
      state: 'ok',
      readVia: 'header',
      journalMode: 'wal',
      autoVacuum: 'incremental',
      pageSize: 4096,
      pageCount: made.pages,
      freePages: made.free,
      walBytes: 0,
    });
    expect(s.reclaimableBytes).toBe(made.free * 4096);
    expect(treeDiff(before, hashTree(d))).toEqual([]);
    expect(readdirSync(d)).toEqual(['logs_2.sqlite']);
  });

  it('reads a WAL database whose side files exist through a read-only connection, counting the frames in the WAL', async () => {
    const d = dir();
    const p = join(d, 'opencode.db');
    makeDb(p, true);
    // A writer that deleted more rows and still has them in its WAL (not checkpointed).
    const w = new Database(p);
    w.pragma('wal_autocheckpoint = 0');
    w.exec('DELETE FROM t WHERE id <= 500');
    const live = { pages: Number(w.pragma('page_count', { simple: true })), free: Number(w.pragma('freelist_count', { simple: true })) };
    const names = readdirSync(d).sort();
    expect(names).toEqual(['opencode.db', 'opencode.db-shm', 'opencode.db-wal']);
    const mainBefore = hashTree(d, [join(d, 'opencode.db-shm')]);
    const s = readDbSpace(p);
    expect(s).toMatchObject({ state: 'ok', readVia: 'connection', journalMode: 'wal', pageCount: live.pages, freePages: live.free, autoVacuum: 'none' });
    expect(s.walBytes).toBeGreaterThan(0);
    // The database and its WAL are byte for byte as they were (only the shared-memory index may change).
    expect(treeDiff(mainBefore, hashTree(d, [join(d, 'opencode.db-shm')]))).toEqual([]);
    w.close();
  });

  it('reads a rollback-journal database through a read-only connection and creates nothing', () => {
    const d = dir();
    const p = join(d, 'state.sqlite');
    const made = makeDb(p, false);
    const before = hashTree(d);
    expect(readDbSpace(p)).toMatchObject({ state: 'ok', readVia: 'connection', journalMode: 'rollback', freePages: made.free, pageCount: made.pages });
    expect(treeDiff(before, hashTree(d))).toEqual([]);
  });

  it('a write its agent did not finish (a hot -journal): says to start the agent, and changes nothing', () => {
    const d = dir();
    const p = join(d, 'state.sqlite');
    makeDb(p, false);
    // A writer killed inside a transaction whose pages spilled: the -journal it leaves is hot.
    const code = `const D=require(${JSON.stringify(BETTER_SQLITE3)});const d=new D(${JSON.stringify(p)});d.pragma('cache_size = 1');d.exec('BEGIN');d.exec("UPDATE t SET body = body || 'y'");process.kill(process.pid,'SIGKILL');`;
    expect(spawnSync(process.execPath, ['-e', code]).signal).toBe('SIGKILL');
    expect(readFileSync(`${p}-journal`).length).toBeGreaterThan(0);
    const before = hashTree(d);
    const s = readDbSpace(p);
    expect(s).toMatchObject({ state: 'unreadable' });
    expect(s.reason).toBe('The database holds a write its agent did not finish; start the agent once so that SQLite rolls it back, then look again.');
    expect(treeDiff(before, hashTree(d))).toEqual([]);
  });

  it('agrees with the header parser on the same file', () => {
    const d = dir();
    const p = join(d, 'a.db');
    const made = makeDb(p, false, 1);
    const h = parseDbHeader(readFileSync(p).subarray(0, 100), made.pages * 4096);
    expect(h).toMatchObject({ pageCount: made.pages, freePages: made.free, autoVacuum: 'full', wal: false });
  });

  it('gives a clear state for hostile files and never creates or changes anything', async () => {
    const d = dir();
    const good = join(d, 'good.db');
    makeDb(good, true);
    writeFileSync(join(d, 'text.db'), 'hello, this is not a database at all'.repeat(10));
    writeFileSync(join(d, 'empty.db'), '');
    writeFileSync(join(d, 'short.db'), 'SQLite format 3\0abc');
    const cut = join(d, 'cut.db');
    makeDb(cut, false);
    truncateSync(cut, 4096 * 3);
    symlinkSync(good, join(d, 'link.db'));
    expect(spawnSync('mkfifo', [join(d, 'fifo.db')]).status).toBe(0);
    mkdirSync(join(d, 'dir.db'));
    const foreign = join(d, 'foreign.db');
    makeDb(foreign, false);
    const sideDir = join(d, 'side.db');
    makeDb(sideDir, true);
    mkdirSync(sideDir + '-wal');
    writeFileSync(sideDir + '-shm', '');
    const isRoot = process.getuid?.() === 0;
    if (isRoot) chownSync(foreign, 4242, 4242);
    const before = hashTree(d);
    expect(readDbSpace(join(d, 'text.db'))).toMatchObject({ state: 'notDatabase' });
    expect(readDbSpace(join(d, 'empty.db'))).toMatchObject({ state: 'notDatabase', fileBytes: 0 });
    expect(readDbSpace(join(d, 'short.db'))).toMatchObject({ state: 'truncated' });
    expect(readDbSpace(cut)).toMatchObject({ state: 'truncated', fileBytes: 4096 * 3 });
    expect(readDbSpace(join(d, 'link.db'))).toMatchObject({ state: 'link' });
    expect(readDbSpace(join(d, 'fifo.db'))).toMatchObject({ state: 'notRegular' });
    expect(readDbSpace(join(d, 'dir.db'))).toMatchObject({ state: 'notRegular' });
    expect(readDbSpace(join(d, 'absent.db'))).toMatchObject({ state: 'missing' });
    expect(readDbSpace(sideDir)).toMatchObject({ state: 'notRegular' });
    // Without root, "foreign" is simulated by asking as another uid.
    expect(readDbSpace(foreign, isRoot ? 0 : (process.getuid?.() ?? 0) + 1)).toMatchObject({ state: 'foreignOwned' });
    for (const s of [readDbSpace(join(d, 'text.db')), readDbSpace(cut)]) expect(s.reason).toMatch(/\.$/);
    expect(treeDiff(before, hashTree(d))).toEqual([]);
  });

  it('reports a database another process holds in an exclusive lock as locked, without waiting long', async () => {
    const d = dir();
    const p = join(d, 'busy.db');
    makeDb(p, false);
    await holdOpen(p, 'exclusive');
    const t0 = Date.now();
    const s = readDbSpace(p);
    expect(s.state).toBe('locked');
    expect(s.reason).toMatch(/locked by another program/);
    expect(Date.now() - t0).toBeLessThan(5000);
  });

  it('cannot use SQLite URIs in this build (file:…?mode=ro opens nothing): the header read stands in for immutable=1', () => {
    const d = dir();
    const p = join(d, 'a.db');
    makeDb(p, true);
    expect(() => new Database(`file:${p}?mode=ro`, { readonly: true, fileMustExist: true })).toThrow();
    expect(readdirSync(d)).toEqual(['a.db']);
  });
});
