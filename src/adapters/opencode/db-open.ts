// Opening an OpenCode database strictly read-only. The file is outside data:
// it may be locked, corrupt, huge or not SQLite at all. cleanerx never writes
// it, never VACUUMs, never checkpoints, and never creates or changes its -wal
// or -shm.

import type Database from 'better-sqlite3';
import { pidsHoldingSync } from '../../engine/host/processes.js';
import { openQuiet } from '../../engine/host/sqlite-quiet.js';

export type Db = Database.Database;

type OpenResult = { ok: true; db: Db; wal: boolean; close(): void } | { ok: false; reason: string };

/**
 * Opens the database for reading without changing it, its -wal or its -shm
 * (shared/sqlite-quiet.ts): a database OpenCode (or anything) closed cleanly,
 * with no -wal and -shm left, is read too. `close()` also removes the private view.
 */
export function openReadOnly(path: string, procRoot = '/proc', live = false): OpenResult {
  const r = openQuiet(path, {
    live,
    what: 'The OpenCode database',
    holders: () => pidsHoldingSync(procRoot, [path, `${path}-wal`, `${path}-shm`]),
    describe: describeSqliteError,
  });
  return r.ok ? { ok: true, db: r.db, wal: r.wal, close: r.close } : r;
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
