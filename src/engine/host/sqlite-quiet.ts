// Reading an agent's SQLite database without changing a byte of it, its
// -wal or its -shm. Even a read-only SQLite connection writes the -shm index
// (its read marks) and creates -wal/-shm when they are missing; and a WAL
// database that any program closed cleanly has neither. So, unless a process
// holds the database open, it is read through a private view: a hard link of
// the database (and a copy of a -wal with content) in a private 0700
// directory on the same filesystem, where SQLite makes its own -wal/-shm;
// while a process holds it, or where no link can be made, a private copy up to
// a size bound. Only a larger database the agent itself holds (its own
// -wal/-shm present), or a route's live proof, is read in place, read-only,
// where the read marks in the agent's shared index are all that can change.

import Database from 'better-sqlite3';
import { closeSync, constants, fstatSync, linkSync, lstatSync, mkdtempSync, openSync, readdirSync, readSync, rmSync, statSync, writeSync } from 'node:fs';
import { basename, join } from 'node:path';
import { openRegularFile } from './bounded-read.js';
import { lstatSyncOrNull, readAtSync } from './fsx.js';
import { systemTempDir } from './host-context.js';

export type Db = Database.Database;

type QuietOpen = { ok: true; db: Db; wal: boolean; via: 'link' | 'copy' | 'inPlace' | 'plain'; close(): void } | { ok: false; reason: string };

export const COPY_LIMIT = 256 * 1024 * 1024;
const MAGIC = 'SQLite format 3\0';
const PREFIX = 'cleanerx-sqlite-';
/** A private view left by a killed cleanerx is swept once it is this old (it may pin a replaced database's blocks). */
const STALE_MS = 10 * 60 * 1000;

interface QuietOptions {
  /** What to call the database in sentences ("The OpenCode database"). */
  what: string;
  /** Processes holding the database, its -wal or its -shm open, by pid (cleanerx's own connections excluded). */
  holders: () => number[];
  /** Directories for the private view, tried in turn (the first on the database's filesystem takes hard links). */
  scratchDirs?: string[];
  copyLimit?: number;
  /** Called with an SQLite error to make a sentence. */
  describe: (e: unknown) => string;
  /**
   * A connection kept open while the agent changes the database (a route's
   * proof of what it did) must see each change: it reads in place whenever
   * the agent's -wal and -shm exist. A private view is a snapshot.
   */
  live?: boolean;
}

function header(path: string, what: string): { wal: boolean } | { reason: string } {
  try {
    const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      if (!fstatSync(fd).isFile()) return { reason: `${what} is not a regular file.` };
      const b = Buffer.alloc(100);
      const n = readAtSync(fd, b, 100, 0);
      if (n === 0) return { reason: `${what} is empty.` };
      if (n < 100 || b.toString('latin1', 0, 16) !== MAGIC) return { reason: `${what} is not an SQLite database (corrupt or foreign file).` };
      return { wal: b[18] === 2 || b[19] === 2 };
    } finally {
      closeSync(fd);
    }
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return { reason: code === 'ELOOP' ? `${what} is a symbolic link; not followed.` : `${what} cannot be read (${code ?? 'error'}).` };
  }
}

function openDb(file: string, readonly: boolean): Db {
  const db = new Database(file, { readonly, fileMustExist: true, timeout: 2000 });
  try {
    db.pragma('query_only = 1');
    db.prepare('SELECT count(*) FROM sqlite_schema').get();
    return db;
  } catch (e) {
    try {
      db.close();
    } catch {
      // unusable
    }
    throw e;
  }
}

/** `close()` of the result, and of the connection itself (a caller may close only `db`): both remove the private view. */
function closer(db: Db, dir: string | null): () => void {
  if (dir) {
    const close = db.close.bind(db);
    db.close = () => {
      try {
        close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      return db;
    };
  }
  return () => {
    try {
      db.close();
    } catch {
      // unusable already
    }
  };
}

/** Private views a killed run left behind: a hard link keeps a replaced database's blocks allocated. */
function sweepStale(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  const uid = process.getuid?.() ?? -1;
  for (const n of names) {
    if (!n.startsWith(PREFIX)) continue;
    const p = join(dir, n);
    const st = lstatSyncOrNull(p);
    if (st?.isDirectory() && (uid < 0 || st.uid === uid) && Date.now() - st.mtimeMs > STALE_MS) rmSync(p, { recursive: true, force: true });
  }
}

/**
 * A hard link of the database in a private dir on its filesystem, with a
 * private copy of its -wal when that has content (a link would share the log
 * a starting agent may restart under a reader's private index), or null.
 */
function linkedView(path: string, withWal: boolean, dirs: string[], limit: number): { file: string; dir: string } | null {
  const dev = statSync(path).dev;
  for (const base of dirs) {
    const st = lstatSyncOrNull(base);
    if (!st?.isDirectory() || st.dev !== dev) continue;
    sweepStale(base);
    let dir: string;
    try {
      dir = mkdtempSync(join(base, PREFIX));
    } catch {
      continue;
    }
    try {
      const file = join(dir, basename(path));
      linkSync(path, file);
      if (withWal) copyReadOnly(`${path}-wal`, `${file}-wal`, limit);
      // The links must still be the files that were checked (a swap between the check and the link is refused).
      if (lstatSync(file).ino !== lstatSync(path).ino) throw new Error('changed');
      return { file, dir };
    } catch {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return null;
}

function copyReadOnly(from: string, to: string, limit: number): void {
  const src = openRegularFile(from);
  try {
    if (src.stat.size > limit) throw Object.assign(new Error(`${from} grew past the copy limit`), { code: 'ETOOBIG' });
    const dst = openSync(to, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      const buf = Buffer.allocUnsafe(1024 * 1024);
      let total = 0;
      for (;;) {
        const n = readSync(src.fd, buf, 0, buf.length, null);
        if (n === 0) break;
        total += n;
        if (total > limit) throw Object.assign(new Error(`${from} grew past the copy limit`), { code: 'ETOOBIG' });
        for (let off = 0; off < n; ) off += writeSync(dst, buf, off, n - off);
      }
    } finally {
      closeSync(dst);
    }
  } finally {
    closeSync(src.fd);
  }
}

const identity = (p: string): string => {
  const st = lstatSyncOrNull(p);
  return st ? `${st.size}:${st.mtimeMs}:${st.ino}` : 'absent';
};

function copiedView(path: string, withWal: boolean, limit: number): { file: string; dir: string } | 'changing' | null {
  for (let attempt = 0; attempt < 3; attempt++) {
    const before = identity(path) + '|' + identity(`${path}-wal`);
    const dir = mkdtempSync(join(systemTempDir(), PREFIX));
    try {
      const file = join(dir, 'copy.sqlite');
      copyReadOnly(path, file, limit);
      if (withWal) copyReadOnly(`${path}-wal`, `${file}-wal`, limit);
      if (identity(path) + '|' + identity(`${path}-wal`) === before) return { file, dir };
    } catch (e) {
      rmSync(dir, { recursive: true, force: true });
      if ((e as NodeJS.ErrnoException).code === 'ETOOBIG') return null;
      throw e;
    }
    rmSync(dir, { recursive: true, force: true });
  }
  return 'changing';
}

/** Opens `path` for reading, leaving the database, its -wal and -shm exactly as they were (see the top of this file). */
export function openQuiet(path: string, o: QuietOptions): QuietOpen {
  const h = header(path, o.what);
  if ('reason' in h) return { ok: false, reason: h.reason };
  try {
    // A rollback-journal database: a read-only connection creates nothing and writes nothing.
    if (!h.wal) {
      const db = openDb(path, true);
      return { ok: true, db, wal: false, via: 'plain', close: closer(db, null) };
    }
    const wal = lstatSyncOrNull(`${path}-wal`);
    const shm = lstatSyncOrNull(`${path}-shm`);
    if ((wal && !wal.isFile()) || (shm && !shm.isFile()))
      return { ok: false, reason: `${o.what}: its -wal or -shm is not a regular file; the database is left unread.` };
    if (o.live && wal && shm) {
      // A route's proof: it must see each change the agent makes, so it reads with the agent's own index.
      const db = openDb(path, true);
      return { ok: true, db, wal: true, via: 'inPlace', close: closer(db, null) };
    }
    const held = o.live || o.holders().length > 0;
    const withWal = Boolean(wal && wal.size > 0);
    // Nobody holds it: a link is a consistent view (nothing checkpoints under it). Held: a copy, taken again if it changed meanwhile.
    const linked = held ? null : linkedView(path, withWal, [...(o.scratchDirs ?? []), systemTempDir()], o.copyLimit ?? COPY_LIMIT);
    if (linked) {
      try {
        const db = openDb(linked.file, true);
        return { ok: true, db, wal: true, via: 'link', close: closer(db, linked.dir) };
      } catch (e) {
        rmSync(linked.dir, { recursive: true, force: true });
        throw e;
      }
    }
    const copied = copiedView(path, withWal, o.copyLimit ?? COPY_LIMIT);
    if (copied === 'changing') return { ok: false, reason: `${o.what} kept changing while cleanerx read it; rescan when the agent is idle.` };
    if (copied) {
      try {
        const db = openDb(copied.file, false);
        return { ok: true, db, wal: true, via: 'copy', close: closer(db, copied.dir) };
      } catch (e) {
        rmSync(copied.dir, { recursive: true, force: true });
        throw e;
      }
    }
    if (wal && shm) {
      const db = openDb(path, true);
      return { ok: true, db, wal: true, via: 'inPlace', close: closer(db, null) };
    }
    return {
      ok: false,
      reason: `${o.what} is larger than ${(o.copyLimit ?? COPY_LIMIT) >> 20} MiB, closed (no -wal/-shm), and no private place on its filesystem could hold a link to it; opening it in place would create side files, so cleanerx leaves it unread.`,
    };
  } catch (e) {
    return { ok: false, reason: o.describe(e) };
  }
}
