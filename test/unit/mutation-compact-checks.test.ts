// compactDatabase's checks of the original and of its copy, its syncs and
// its descriptors (#26 item 5: the mutants of engine/cleanup/compact.ts that
// mutation-compact leaves). A small real SQLite file in a temp dir; the
// faults are made at the compaction's own crash points (a corrupt index, free
// pages or a reader in the copy, a WAL written for the original). Two spies:
// node:fs records the opens, fsyncs, closes and the rename, in order, so the
// syncs a power loss would need are checked; node:worker_threads runs the
// real integrity thread, or in its place a thread that throws or exits, and
// lets a test wait for it to end before it counts the descriptors left open.

import Database from 'better-sqlite3';
import type * as fs from 'node:fs';
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  statfsSync,
  symlinkSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import type { Worker as RealWorker } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { COMPACT_CRASH_POINTS, CompactRefused, compactDatabase, identityOf, sameIdentity, siblingFor } from '../../src/engine/cleanup/compact.js';
import { listCompactions, type CompactionEntry } from '../../src/engine/cleanup/compact-journal.js';
import { atCrashPoints } from '../../src/engine/core/faults.js';
import { readDbSpace } from '../../src/engine/host/db-space.js';
import { writeFreePagesDb } from '../helpers/free-pages-db.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

const io = vi.hoisted(() => ({
  log: [] as (string | number)[][],
  threads: [] as Promise<unknown>[],
  threadCode: null as string | null,
  linkError: null as string | null,
  afterLink: null as (() => void) | null,
}));

vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  const openSync = (...a: Parameters<typeof real.openSync>) => {
    const fd = real.openSync(...a);
    io.log.push(['open', String(a[0]), fd]);
    return fd;
  };
  const fsyncSync = (fd: number) => {
    io.log.push(['fsync', fd]);
    real.fsyncSync(fd);
  };
  const closeSync = (fd: number) => {
    io.log.push(['close', fd]);
    real.closeSync(fd);
  };
  const rename = async (from: fs.PathLike, to: fs.PathLike) => {
    io.log.push(['rename', String(from), String(to)]);
    return real.promises.rename(from, to);
  };
  const renameSync = (from: fs.PathLike, to: fs.PathLike) => {
    io.log.push(['rename', String(from), String(to)]);
    real.renameSync(from, to);
  };
  const linkSync = (from: fs.PathLike, to: fs.PathLike) => {
    if (io.linkError) throw Object.assign(new Error(`${io.linkError}: link`), { code: io.linkError });
    real.linkSync(from, to);
    io.afterLink?.();
  };
  return { ...real, openSync, fsyncSync, closeSync, renameSync, linkSync, promises: { ...real.promises, rename } };
});

vi.mock('node:worker_threads', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:worker_threads')>();
  class Thread extends real.Worker {
    constructor(code: string | URL, options?: import('node:worker_threads').WorkerOptions) {
      super(io.threadCode ?? code, options);
      io.threads.push(new Promise((r) => this.once('exit', r)));
    }
  }
  return { ...real, Worker: Thread as unknown as typeof RealWorker };
});

let t: TempEnv;
let dir: string;
let state: string;
let db: string;
beforeEach(() => {
  t = makeTempEnv('cleanerx-compact-checks-');
  dir = join(t.root, 'db');
  mkdirSync(dir);
  state = t.env.CLEANERX_STATE_DIR!;
  db = join(dir, 'store.sqlite');
  writeFreePagesDb(db);
  io.log.length = 0;
  io.threads.length = 0;
  io.linkError = null;
  io.afterLink = null;
  io.threadCode = null;
});
afterEach(async () => {
  atCrashPoints(null);
  await Promise.all(io.threads);
  t.cleanup();
});

const opts = (extra: object = {}) => ({ stateDir: state, dbPath: db, agentStopped: true, procRoot: t.procRoot, freeBytes: async () => 1e12, ...extra });

async function failure(extra: object = {}): Promise<Error> {
  const e = await compactDatabase(opts(extra)).catch((x: Error) => x);
  expect(e).toBeInstanceOf(Error);
  return e as Error;
}

async function journaled(): Promise<CompactionEntry> {
  const [f] = await listCompactions(state);
  return (f as { entry: CompactionEntry }).entry;
}

const inDir = (p: string): boolean => p === dir || p.startsWith(`${dir}/`);

/** The descriptors this process holds on anything in the database's directory, once every integrity thread has ended. */
async function openInDir(): Promise<string[]> {
  await Promise.all(io.threads);
  const out: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    const target = (() => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        return '';
      }
    })();
    if (inDir(target)) out.push(target);
  }
  return out;
}

const LONG_INDEX = `by_value_${'x'.repeat(200)}`;

/** Adds a table with an index on its text (a long index name: integrity_check then names it in more than 160 characters). */
function withIndex(path = db): void {
  const d = new Database(path);
  d.exec(
    `CREATE TABLE k (id INTEGER PRIMARY KEY, v TEXT); CREATE INDEX ${LONG_INDEX} ON k(v); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 30) INSERT INTO k SELECT i, printf('KEY%04d', i) FROM n`,
  );
  d.close();
}
/** Breaks that index in a file (one key rewritten in the index page only); what integrity_check then says. */
function breakIndex(path: string): string {
  const d = new Database(path, { readonly: true });
  const root = Number(d.prepare('SELECT rootpage FROM sqlite_master WHERE name = ?').pluck().get(LONG_INDEX));
  const pageSize = Number(d.pragma('page_size', { simple: true }));
  d.close();
  const bytes = readFileSync(path);
  const at = bytes.indexOf('KEY0005', (root - 1) * pageSize);
  expect(at).toBeGreaterThan(0);
  expect(at).toBeLessThan(root * pageSize);
  bytes.write('KEY9995', at);
  writeFileSync(path, bytes);
  const c = new Database(path, { readonly: true });
  const said = String(c.pragma('integrity_check', { simple: true }));
  c.close();
  expect(said.length).toBeGreaterThan(160);
  return said;
}

/** Free pages in a file, its content unchanged: a table filled and dropped. */
function addFreePages(path: string): number {
  const d = new Database(path);
  d.exec(
    'CREATE TABLE scratch (b TEXT); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100) INSERT INTO scratch SELECT hex(randomblob(300)) FROM n; DROP TABLE scratch',
  );
  const free = Number(d.pragma('freelist_count', { simple: true }));
  d.close();
  expect(free).toBeGreaterThan(0);
  return free;
}

describe('the original is checked before it is copied', () => {
  it('an original that fails integrity_check: refused with what SQLite says (cut to 160 characters), nothing copied, the file unchanged', async () => {
    withIndex();
    const said = breakIndex(db);
    const before = readFileSync(db);
    const e = await failure({ operationId: 'op-i' });
    expect(e).toBeInstanceOf(CompactRefused);
    expect(e.message).toBe(`${db} fails integrity_check (${said.slice(0, 160)}); it is left as it is.`);
    expect(readFileSync(db).equals(before)).toBe(true);
    expect(readdirSync(dir)).toEqual(['store.sqlite']);
    expect(await journaled()).toMatchObject({ step: 'rolledBack', message: `Not compacted; the original is kept: ${e.message}` });
    expect(await openInDir()).toEqual([]);
  });

  it('a WAL is emptied into the original (TRUNCATE) before anything is copied', async () => {
    const d = new Database(db);
    d.pragma('journal_mode = WAL');
    d.pragma('wal_autocheckpoint = 0');
    d.exec('DELETE FROM t WHERE id > 30');
    const copyOf = join(t.root, 'frames');
    copyFileSync(db, copyOf);
    copyFileSync(`${db}-wal`, `${copyOf}-wal`);
    d.close();
    copyFileSync(copyOf, db);
    copyFileSync(`${copyOf}-wal`, `${db}-wal`);
    expect(statSync(`${db}-wal`).size).toBeGreaterThan(0);
    const seen: Record<string, number> = {};
    atCrashPoints((p) => {
      if (p === 'compact:checkpointed') seen.wal = statSync(`${db}-wal`).size;
    });
    const r = await compactDatabase(opts());
    expect(seen.wal).toBe(0);
    expect(r.proof).toEqual([{ name: 't', rows: 30 }]);
  });

  it('the original removed after the preflight: the compaction fails and creates no database in its place', async () => {
    atCrashPoints((p) => {
      if (p === 'compact:planned') rmSync(db);
    });
    const e = await failure();
    expect(e).not.toBeInstanceOf(CompactRefused);
    expect(e.message).toMatch(new RegExp(`^Compaction of ${db} stopped and the original is kept: `));
    expect(existsSync(db)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
    expect((await journaled()).step).toBe('rolledBack');
  });

  it('free space from the filesystem itself when none is injected: a database larger than the disk is refused with the free bytes statfs gives', async () => {
    // Sparse: the file claims 8 TiB and takes no blocks.
    truncateSync(db, 8 * 2 ** 40);
    const s = readDbSpace(db);
    expect(s.state).toBe('ok');
    const e = await compactDatabase({ stateDir: state, dbPath: db, agentStopped: true, procRoot: t.procRoot }).catch((x: Error) => x);
    expect(e).toBeInstanceOf(CompactRefused);
    const need = s.fileBytes + s.walBytes + 16 * 1024 * 1024;
    const m = /, (\d+) are free\.$/.exec((e as Error).message);
    expect((e as Error).message.startsWith(`Not enough free space to compact ${db}: it needs ${need} bytes free`)).toBe(true);
    const fsNow = statfsSync(dir);
    // Other processes share the disk: the two readings may differ by what they wrote meanwhile.
    expect(Math.abs(Number(m?.[1]) - fsNow.bavail * fsNow.bsize)).toBeLessThan(2 ** 30);
    expect(await listCompactions(state)).toEqual([]);
  });
});

describe('the copy is checked before the swap', () => {
  it('a copy that fails integrity_check: refused with what SQLite says, the copy removed, the original unchanged', async () => {
    withIndex();
    const before = readFileSync(db);
    let said = '';
    atCrashPoints((p) => {
      if (p === 'compact:copied') said = breakIndex(siblingFor(db, 'op-c'));
    });
    const e = await failure({ operationId: 'op-c' });
    expect(e.message).toBe(`Compaction of ${db} stopped and the original is kept: the compacted copy fails integrity_check (${said.slice(0, 160)})`);
    expect(readFileSync(db).equals(before)).toBe(true);
    expect(readdirSync(dir)).toEqual(['store.sqlite']);
    expect(await openInDir()).toEqual([]);
  });

  it('a copy that still has free pages: refused with their count', async () => {
    let free = 0;
    atCrashPoints((p) => {
      if (p === 'compact:copied') free = addFreePages(siblingFor(db, 'op-f'));
    });
    const e = await failure({ operationId: 'op-f' });
    expect(e.message).toBe(`Compaction of ${db} stopped and the original is kept: the compacted copy still has ${free} free pages`);
    expect(readdirSync(dir)).toEqual(['store.sqlite']);
  });

  it('an injected failure at the proof: rolled back, the copy removed', async () => {
    process.env.CLEANERX_FAIL_AT = 'compact:proof';
    try {
      const e = await failure();
      expect(e.message).toBe(`Compaction of ${db} stopped and the original is kept: injected failure at compact:proof`);
    } finally {
      delete process.env.CLEANERX_FAIL_AT;
    }
    expect(readdirSync(dir)).toEqual(['store.sqlite']);
    expect((await journaled()).step).toBe('rolledBack');
  });

  it('a reader holding the copy while it is turned back to WAL mode: refused as locked, the copy removed, nothing left open', async () => {
    const d = new Database(db);
    d.pragma('journal_mode = WAL');
    d.close();
    let reader: Database.Database | null = null;
    atCrashPoints((p) => {
      if (p !== 'compact:copied') return;
      reader = new Database(siblingFor(db, 'op-r'), { readonly: true });
      reader.exec('BEGIN');
      reader.prepare('SELECT count(*) FROM t').get();
    });
    try {
      const e = await failure({ operationId: 'op-r' });
      expect(e.message).toBe(`Compaction of ${db} stopped and the original is kept: database is locked`);
    } finally {
      (reader as Database.Database | null)?.close();
    }
    expect(readdirSync(dir)).toEqual(['store.sqlite']);
    expect(await openInDir()).toEqual([]);
  });

  it('the copy replaced by a link to itself after it was written: refused, no link renamed over the database', async () => {
    const sib = siblingFor(db, 'op-l');
    const moved = join(t.root, 'moved-copy');
    atCrashPoints((p) => {
      if (p !== 'compact:copied') return;
      renameSync(sib, moved);
      symlinkSync(moved, sib);
    });
    const before = readFileSync(db);
    const e = await failure({ operationId: 'op-l' });
    expect(e.message).toBe(`Compaction of ${db} stopped and the original is kept: ${sib} is a symbolic link.`);
    expect(lstatSync(db).isFile()).toBe(true);
    expect(readFileSync(db).equals(before)).toBe(true);
  });

  it('a WAL written for the original during the compaction (a writer past the lock): refused before the swap', async () => {
    atCrashPoints((p) => {
      if (p === 'compact:copied') writeFileSync(`${db}-wal`, 'frames');
    });
    const before = readFileSync(db);
    const e = await failure();
    expect(e.message).toBe(`Compaction of ${db} stopped and the original is kept: ${db}-wal still holds data after the checkpoint`);
    expect(readFileSync(db).equals(before)).toBe(true);
  });

  it('an empty -wal next to the original holds no data: the compaction completes', async () => {
    atCrashPoints((p) => {
      if (p === 'compact:copied') writeFileSync(`${db}-wal`, '');
    });
    const r = await compactDatabase(opts());
    expect(r.after.freePages).toBe(0);
    expect((await journaled()).step).toBe('complete');
  });

  it('a holder of a side file that appeared after the copy was verified: refused', async () => {
    atCrashPoints((p) => {
      if (p !== 'compact:verified') return;
      writeFileSync(`${db}-shm`, '');
      mkdirSync(join(t.procRoot, '400', 'fd'), { recursive: true });
      writeFileSync(join(t.procRoot, '400', 'comm'), 'late\n');
      symlinkSync(`${db}-shm`, join(t.procRoot, '400', 'fd', '5'));
    });
    const e = await failure();
    expect(e).toBeInstanceOf(CompactRefused);
    expect(e.message).toBe(`late (pid 400) opened ${db} during the compaction; the original is kept.`);
  });
});

describe('the integrity thread', () => {
  it('a thread that throws: refused with its error', async () => {
    io.threadCode = 'throw new Error("thread broke")';
    const e = await failure();
    expect(e.message).toBe(`Compaction of ${db} stopped and the original is kept: the compacted copy fails integrity_check (error: thread broke)`);
    expect(readdirSync(dir)).toEqual(['store.sqlite']);
  });

  it('a thread that exits without an answer: refused with its exit code', async () => {
    io.threadCode = 'process.exit(7)';
    const e = await failure();
    expect(e.message).toBe(
      `Compaction of ${db} stopped and the original is kept: the compacted copy fails integrity_check (error: the integrity check thread exited (7))`,
    );
  });
});

describe('a compaction that completes', () => {
  /**
   * The fsyncs and the rename in the database's directory, in order, each
   * fsync named by the path its descriptor was opened on; a name under a
   * directory handle (/proc/self/fd/<fd>/<name>) is read as the path that
   * handle was opened on.
   */
  function syncs(): string[] {
    const paths = new Map<number, string>();
    const real = (p: string): string => {
      const m = /^\/proc\/self\/fd\/(\d+)\/(.+)$/.exec(p);
      return m ? join(paths.get(Number(m[1])) ?? '?', m[2]!) : p;
    };
    const out: string[] = [];
    const open = new Set<number>();
    for (const [op, a, b] of io.log) {
      if (op === 'open') {
        paths.set(b as number, real(a as string));
        if (inDir(real(String(a)))) open.add(b as number);
      } else if (op === 'close') open.delete(a as number);
      else if (op === 'fsync' && inDir(paths.get(a as number) ?? '')) out.push(`fsync ${paths.get(a as number)}`);
      else if (op === 'rename' && inDir(real(String(a)))) out.push(`rename ${real(String(a))} ${real(String(b))}`);
    }
    expect(open.size).toBe(0);
    return out;
  }

  for (const wal of [false, true]) {
    it(`${wal ? 'in WAL mode' : 'in rollback mode'}: the copy and the directory synced before the rename, the directory after it; every descriptor closed`, async () => {
      if (wal) {
        const d = new Database(db);
        d.pragma('journal_mode = WAL');
        d.close();
      }
      const sib = siblingFor(db, 'op-s');
      await compactDatabase(opts({ operationId: 'op-s' }));
      // The copy (written, then as identified), its folder, the database's folder; the rename; the folder again after it and after the work folder is gone.
      expect(syncs()).toEqual([`fsync ${sib}`, `fsync ${sib}`, `fsync ${dirname(sib)}`, `fsync ${dir}`, `rename ${sib} ${db}`, `fsync ${dir}`, `fsync ${dir}`]);
      expect(await openInDir()).toEqual([]);
    });
  }

  it('passes every crash point in order and journals the sizes before', async () => {
    const before = readDbSpace(db);
    const points: string[] = [];
    atCrashPoints((p) => points.push(p));
    await compactDatabase(opts());
    expect(points).toEqual([...COMPACT_CRASH_POINTS]);
    expect((await journaled()).before).toEqual({
      fileBytes: before.fileBytes,
      walBytes: before.walBytes,
      pageCount: before.pageCount,
      freePages: before.freePages,
      pageSize: before.pageSize,
    });
  });

  it('reports the copy as it was proven, not the path read again after the swap (which could lead elsewhere by then)', async () => {
    const before = readDbSpace(db);
    let proven = 0;
    atCrashPoints((p) => {
      if (p !== 'compact:swapped') return;
      proven = statSync(db).size;
      expect(addFreePages(db)).toBeGreaterThan(0);
    });
    const r = await compactDatabase(opts());
    expect(proven).toBeGreaterThan(0);
    expect(r.after).toEqual({ fileBytes: proven, walBytes: 0, freePages: 0 });
    expect(r.freedBytes).toBe(before.fileBytes + before.walBytes - proven);
  });
});

describe('an unfinished rollback journal', () => {
  // Written once the first checks passed (which a hot journal already fails: a read-only connection cannot roll it back).
  it('a -journal with content: refused before anything is linked, the database and the journal byte-identical', async () => {
    const original = readFileSync(db);
    atCrashPoints((p) => {
      if (p === 'compact:planned') writeFileSync(`${db}-journal`, 'hot');
    });
    const e = await compactDatabase(opts()).catch((x: Error) => x);
    expect(e).toBeInstanceOf(CompactRefused);
    expect((e as Error).message).toBe(
      `${db} has an unfinished transaction (store.sqlite-journal); start its agent once so that SQLite rolls it back, then compact again.`,
    );
    expect(readFileSync(db).equals(original)).toBe(true);
    expect(readFileSync(`${db}-journal`, 'utf8')).toBe('hot');
    expect(readdirSync(dir).sort()).toEqual(['store.sqlite', 'store.sqlite-journal']);
  });

  it('an empty -journal is no transaction: the compaction runs', async () => {
    writeFileSync(`${db}-journal`, '');
    const r = await compactDatabase(opts());
    expect(r.after.freePages).toBe(0);
    expect(r.freedBytes).toBeGreaterThan(0);
  });
});

describe('the work folder', () => {
  it("a folder already at its name is not this run's: refused, and nothing in it is removed", async () => {
    const work = join(dir, '.store.sqlite.cleanerx-compact-op-taken');
    mkdirSync(work);
    for (const n of ['compacted', 'original', 'compacted-journal']) writeFileSync(join(work, n), n);
    const original = readFileSync(db);
    const e = await compactDatabase(opts({ operationId: 'op-taken' })).catch((x: Error) => x);
    expect((e as Error).message).toBe(`Compaction of ${db} stopped and the original is kept: ${work} already exists.`);
    expect(readdirSync(work).sort()).toEqual(['compacted', 'compacted-journal', 'original']);
    expect(readFileSync(db).equals(original)).toBe(true);
  });

  it("is made private (0700) and holds the original's second link while SQLite works", async () => {
    let seen: { mode: number; linked: boolean } | null = null;
    atCrashPoints((p) => {
      if (p !== 'compact:checkpointed') return;
      const work = join(dir, '.store.sqlite.cleanerx-compact-op-m');
      seen = { mode: lstatSync(work).mode & 0o777, linked: lstatSync(join(work, 'original')).ino === lstatSync(db).ino };
    });
    await compactDatabase(opts({ operationId: 'op-m' }));
    expect(seen).toEqual({ mode: 0o700, linked: true });
    expect(readdirSync(dir)).toEqual(['store.sqlite']);
  });
});

describe('the link to the original', () => {
  it('the database replaced right after it was linked: refused as changed, the replacement kept, no work folder left', async () => {
    io.afterLink = () => {
      io.afterLink = null;
      writeFileSync(`${db}.other`, 'another file');
      renameSync(`${db}.other`, db);
    };
    const e = await compactDatabase(opts()).catch((x: Error) => x);
    expect((e as Error).message).toBe(`Compaction of ${db} stopped and the original is kept: ${db} changed during the compaction`);
    expect(readFileSync(db, 'utf8')).toBe('another file');
    expect(readdirSync(dir)).toEqual(['store.sqlite']);
  });

  it('the database removed right after it was linked: refused as changed, no work folder left', async () => {
    io.afterLink = () => {
      io.afterLink = null;
      rmSync(db);
    };
    const e = await compactDatabase(opts()).catch((x: Error) => x);
    expect((e as Error).message).toBe(`Compaction of ${db} stopped and the original is kept: ${db} changed during the compaction`);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('the copy VACUUM INTO wrote', () => {
  it('found empty where it was made (SQLite wrote somewhere else): refused, the original kept', async () => {
    const original = readFileSync(db);
    atCrashPoints((p) => {
      if (p === 'compact:copy:written') truncateSync(siblingFor(db, 'op-e'), 0);
    });
    const e = await compactDatabase(opts({ operationId: 'op-e' })).catch((x: Error) => x);
    expect((e as Error).message).toBe(`Compaction of ${db} stopped and the original is kept: ${siblingFor(db, 'op-e')} was not written by the copy`);
    expect(readFileSync(db).equals(original)).toBe(true);
    expect(readdirSync(dir)).toEqual(['store.sqlite']);
  });
});

describe('a filesystem without hard links', () => {
  for (const code of ['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS'])
    it(`link(2) answering ${code}: refused in one sentence, the database byte-identical, no work folder left`, async () => {
      const original = readFileSync(db);
      io.linkError = code;
      const e = await compactDatabase(opts()).catch((x: Error) => x);
      expect(e).toBeInstanceOf(CompactRefused);
      expect((e as Error).message).toBe(
        `Cannot compact ${db}: its filesystem does not allow hard links, which the compaction needs to keep SQLite's files inside its own folder.`,
      );
      expect(readFileSync(db).equals(original)).toBe(true);
      expect(readdirSync(dir)).toEqual(['store.sqlite']);
      expect((await journaled()).step).toBe('rolledBack');
      expect(await openInDir()).toEqual([]);
    });

  it('any other failure of the link is not called a filesystem without hard links', async () => {
    io.linkError = 'EIO';
    const e = await compactDatabase(opts()).catch((x: Error) => x);
    expect(e).not.toBeInstanceOf(CompactRefused);
    expect((e as Error).message).toMatch(/^Compaction of .* stopped and the original is kept: .*original cannot be used \(EIO\)\.$/);
    expect(readdirSync(dir)).toEqual(['store.sqlite']);
  });
});

describe('sameIdentity', () => {
  it('the same file only with the same device, inode, size and time, and only a regular file', () => {
    const st = lstatSync(db);
    const id = identityOf(st);
    expect(sameIdentity(id, st)).toBe(true);
    expect(sameIdentity({ ...id, dev: id.dev + 1 }, st)).toBe(false);
    expect(sameIdentity({ ...id, ino: id.ino + 1 }, st)).toBe(false);
    expect(sameIdentity({ ...id, size: id.size + 1 }, st)).toBe(false);
    expect(sameIdentity({ ...id, mtimeMs: id.mtimeMs + 1 }, st)).toBe(false);
    expect(sameIdentity(undefined, st)).toBe(false);
    expect(sameIdentity(id, null)).toBe(false);
    const d = lstatSync(dir);
    expect(sameIdentity(identityOf(d), d)).toBe(false);
    utimesSync(db, 1e9, 1e9);
    expect(sameIdentity(id, lstatSync(db))).toBe(false);
  });
});
