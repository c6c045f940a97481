// Reading a Codex SQLite database without touching it. Codex keeps its
// databases in WAL mode, and even a read-only SQLite connection writes the
// -shm index (and creates -wal/-shm when missing). So a database up to
// COPY_LIMIT is read from a private copy of its file and WAL (taken twice
// if it changed while copying); a larger one is opened read-only in place
// only while its -wal and -shm already exist (then only the shared-memory
// index can change, never the database or its log).

import Database from 'better-sqlite3';
import { closeSync, constants, fstatSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { openRegularFile } from '../../engine/host/bounded-read.js';
import { lstatSyncOrNull, readAtSync } from '../../engine/host/fsx.js';
import { systemTempDir } from '../../engine/host/host-context.js';

export type Db = Database.Database;

export const COPY_LIMIT = 256 * 1024 * 1024;
const MAGIC = 'SQLite format 3\0';

export type ReadOpen = { ok: true; db: Db; close(): void } | { ok: false; reason: string };

function identity(p: string): string {
  const st = lstatSyncOrNull(p);
  return st ? `${st.size}:${st.mtimeMs}:${st.ino}` : 'absent';
}

function checkHeader(path: string, what: string): string | null {
  try {
    const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      if (!fstatSync(fd).isFile()) return `${what} is not a regular file.`;
      const b = Buffer.alloc(100);
      const n = readAtSync(fd, b, 100, 0);
      if (n === 0) return `${what} is empty.`;
      if (n < 100 || b.toString('latin1', 0, 16) !== MAGIC) return `${what} is not an SQLite database.`;
      return null;
    } finally {
      closeSync(fd);
    }
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ELOOP' ? `${what} is a symbolic link; not followed.` : `${what} cannot be read (${code ?? 'error'}).`;
  }
}

/**
 * Copies a Codex database file into the private dir: opened read-only
 * without following a link or waiting on a FIFO, checked regular on the
 * descriptor, so a swap after the header check cannot make cleanerx read
 * (or copy) another file; at most `limit` bytes.
 */
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

export function describeSqliteError(e: unknown, what: string): string {
  const code = (e as { code?: string }).code ?? '';
  const msg = String((e as Error).message ?? e).slice(0, 200);
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return `${what} is locked by another program; rescan when Codex is idle.`;
  if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) return `${what} is corrupt or not a database (${msg}).`;
  return `${what} could not be read (${code || 'error'}: ${msg}).`;
}

/** Opens `path` for reading without changing the store; `close()` also removes the private copy. */
export function openSnapshot(path: string, what: string, copyLimit = COPY_LIMIT): ReadOpen {
  const bad = checkHeader(path, what);
  if (bad) return { ok: false, reason: bad };
  const main = lstatSyncOrNull(path)!;
  const wal = lstatSyncOrNull(`${path}-wal`);
  if (wal && !wal.isFile()) return { ok: false, reason: `${what}: its -wal is not a regular file.` };
  const total = main.size + (wal?.size ?? 0);
  if (total <= copyLimit) {
    for (let attempt = 0; attempt < 3; attempt++) {
      const before = identity(path) + '|' + identity(`${path}-wal`);
      const dir = mkdtempSync(join(systemTempDir(), 'cleanerx-codex-db-'));
      const cleanup = (): void => rmSync(dir, { recursive: true, force: true });
      try {
        const copy = join(dir, 'copy.sqlite');
        copyReadOnly(path, copy, copyLimit);
        if (wal) copyReadOnly(`${path}-wal`, `${copy}-wal`, copyLimit);
        const after = identity(path) + '|' + identity(`${path}-wal`);
        if (after !== before) {
          cleanup();
          continue;
        }
        const db = new Database(copy, { fileMustExist: true, timeout: 2000 });
        db.pragma('query_only = 1');
        db.prepare('SELECT count(*) FROM sqlite_schema').get();
        return {
          ok: true,
          db,
          close: () => {
            try {
              db.close();
            } catch {
              // unusable already
            }
            cleanup();
          },
        };
      } catch (e) {
        cleanup();
        return { ok: false, reason: describeSqliteError(e, what) };
      }
    }
    return { ok: false, reason: `${what} kept changing while cleanerx read it; rescan when Codex is idle.` };
  }
  const shm = lstatSyncOrNull(`${path}-shm`);
  if (!wal || !shm || !shm.isFile()) {
    return {
      ok: false,
      reason: `${what} is larger than ${copyLimit >> 20} MiB and has no -wal/-shm; opening it would create them, so cleanerx leaves it unread.`,
    };
  }
  let db: Db | null = null;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true, timeout: 2000 });
    db.pragma('query_only = 1');
    db.prepare('SELECT count(*) FROM sqlite_schema').get();
    const d = db;
    return {
      ok: true,
      db: d,
      close: () => {
        try {
          d.close();
        } catch {
          // unusable already
        }
      },
    };
  } catch (e) {
    try {
      db?.close();
    } catch {
      // nothing
    }
    return { ok: false, reason: describeSqliteError(e, what) };
  }
}

/** Column names of `table` (empty when it does not exist or is not a table). */
export function columnsOf(db: Db, table: string): Set<string> {
  try {
    const kind = db.prepare('SELECT type FROM sqlite_schema WHERE name = ?').get(table) as { type?: string } | undefined;
    if (kind?.type !== 'table') return new Set();
    return new Set((db.prepare(`PRAGMA table_info(${JSON.stringify(table)})`).all() as { name: string }[]).map((r) => r.name));
  } catch {
    return new Set();
  }
}

export function hasColumns(cols: Set<string>, needed: readonly string[]): string[] {
  return needed.filter((c) => !cols.has(c));
}
