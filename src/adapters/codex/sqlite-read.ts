// Reading a Codex SQLite database without touching it: Codex keeps its
// databases in WAL mode, and even a read-only SQLite connection writes the
// -shm index and creates -wal/-shm when missing, so every read goes through
// shared/sqlite-quiet.ts (a private linked or copied view unless Codex itself
// holds the database).

import type Database from 'better-sqlite3';
import { pidsHoldingSync } from '../../engine/host/processes.js';
import { COPY_LIMIT, openQuiet } from '../../engine/host/sqlite-quiet.js';

export { COPY_LIMIT };

export type Db = Database.Database;

type ReadOpen = { ok: true; db: Db; close(): void } | { ok: false; reason: string };

export function describeSqliteError(e: unknown, what: string): string {
  const code = (e as { code?: string }).code ?? '';
  const msg = String((e as Error).message ?? e).slice(0, 200);
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return `${what} is locked by another program; rescan when Codex is idle.`;
  if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) return `${what} is corrupt or not a database (${msg}).`;
  return `${what} could not be read (${code || 'error'}: ${msg}).`;
}

/** Opens `path` for reading without changing the store (shared/sqlite-quiet.ts); `close()` also removes the private view. */
export function openSnapshot(path: string, what: string, copyLimit = COPY_LIMIT, procRoot = '/proc'): ReadOpen {
  const r = openQuiet(path, {
    what,
    copyLimit,
    holders: () => pidsHoldingSync(procRoot, [path, `${path}-wal`, `${path}-shm`]),
    describe: (e) => describeSqliteError(e, what),
  });
  return r.ok ? { ok: true, db: r.db, close: r.close } : r;
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
