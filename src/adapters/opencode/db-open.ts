// Opening an OpenCode database strictly read-only. The file is outside data:
// it may be locked, corrupt, huge or not SQLite at all. cleanerx never writes
// it, never VACUUMs, never checkpoints, and never creates its -wal or -shm:
// a WAL-mode database is opened only while both side files already exist
// (SQLite would otherwise create them even for a read-only connection).

import Database from 'better-sqlite3';
import { closeSync, constants, fstatSync, openSync } from 'node:fs';
import { readAtSync, lstatSyncOrNull } from '../../engine/host/fsx.js';

export type Db = Database.Database;

export type OpenResult = { ok: true; db: Db; wal: boolean } | { ok: false; reason: string };

const MAGIC = 'SQLite format 3\0';
export const BUSY_TIMEOUT_MS = 2000;

export function openReadOnly(path: string): OpenResult {
  let header: Buffer;
  try {
    const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      if (!fstatSync(fd).isFile()) return { ok: false, reason: 'The OpenCode database is not a regular file.' };
      header = Buffer.alloc(100);
      header = header.subarray(0, readAtSync(fd, header, 100, 0));
    } finally {
      closeSync(fd);
    }
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return {
      ok: false,
      reason: code === 'ELOOP' ? 'The OpenCode database is a symbolic link; not followed.' : `The OpenCode database cannot be read (${code ?? 'error'}).`,
    };
  }
  if (header.length === 0) return { ok: false, reason: 'The OpenCode database file is empty.' };
  if (header.length < 100 || header.toString('latin1', 0, 16) !== MAGIC) {
    return { ok: false, reason: 'The OpenCode database is not an SQLite database (corrupt or foreign file).' };
  }
  const wal = header[18] === 2 || header[19] === 2;
  if (wal) {
    for (const side of ['-wal', '-shm']) {
      const st = lstatSyncOrNull(path + side);
      if (!st) {
        return {
          ok: false,
          reason: `The OpenCode database is in WAL mode but ${path}${side} is missing; opening it would create that file, so cleanerx leaves the database unread. Start and quit OpenCode once, then rescan.`,
        };
      }
      if (!st.isFile()) return { ok: false, reason: `${path}${side} is not a regular file; the OpenCode database is left unread.` };
    }
  }
  let db: Db | null = null;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
    db.pragma('query_only = 1');
    db.prepare('SELECT count(*) FROM sqlite_schema').get();
    return { ok: true, db, wal };
  } catch (e) {
    try {
      db?.close();
    } catch {
      // already unusable
    }
    return { ok: false, reason: describeSqliteError(e) };
  }
}

export function describeSqliteError(e: unknown): string {
  const code = (e as { code?: string }).code ?? '';
  const msg = String((e as Error).message ?? e).slice(0, 200);
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return 'The OpenCode database is locked by another program; rescan when it is idle.';
  if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) return `The OpenCode database is corrupt or not a database (${msg}).`;
  if (code.startsWith('SQLITE_CANTOPEN') || code.startsWith('SQLITE_READONLY') || code.startsWith('SQLITE_PERM')) {
    return `The OpenCode database cannot be opened read-only (${code}: ${msg}).`;
  }
  return `The OpenCode database could not be read (${code || 'error'}: ${msg}).`;
}

export function closeQuietly(db: Db | null | undefined): void {
  try {
    db?.close();
  } catch {
    // nothing to do
  }
}
