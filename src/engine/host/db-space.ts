// How much of an agent's SQLite database is free pages, read without
// changing the database or creating anything beside it.
//
// Which read-only open, and why: better-sqlite3 12.11.1 is built with
// SQLITE_USE_URI=0 and opens without SQLITE_OPEN_URI, so `file:…?mode=ro`
// and `file:…?immutable=1` are not available (a `file:` name is taken as a
// literal file name; db-space.test.ts fails if that ever changes, so this
// choice is looked at again). A plain `{ readonly: true }` connection to a
// WAL database creates -wal and -shm when they are missing and cannot
// remove them again. So:
// - a WAL database whose -wal and -shm both exist is read through a
//   read-only connection: it sees the frames still in the WAL, and at most
//   the shared-memory index changes, as with any reader of the agent's;
// - a WAL database without either side file (the agent closed it, which
//   checkpoints and removes them) is read from its 100-byte header: then
//   the main file is the whole database and the header holds exactly what
//   `PRAGMA page_count / freelist_count / auto_vacuum` would report — this
//   is the "immutable" read, valid because nothing is left in a WAL;
// - a WAL database with only one side file is read from its header too, and
//   says that frames still in a -wal are not counted;
// - a rollback-journal database is read through a read-only connection,
//   which never creates a file.
// Anything that is not a plain SQLite file owned by this user is reported
// with its size and a reason, never opened by SQLite.

import type Database from 'better-sqlite3';
import { pidsHoldingSync } from './processes.js';
import { openQuiet } from './sqlite-quiet.js';
import { closeSync, constants, fstatSync, openSync, type Stats } from 'node:fs';
import { lstatSyncOrNull, readAtSync } from './fsx.js';

type DbSpaceState = 'ok' | 'missing' | 'link' | 'notRegular' | 'foreignOwned' | 'notDatabase' | 'truncated' | 'locked' | 'corrupt' | 'unreadable' | 'changed';
type AutoVacuum = 'none' | 'full' | 'incremental';

export interface DbSpace {
  path: string;
  state: DbSpaceState;
  /** One plain sentence when state is not `ok`, or a caveat on an `ok` reading. */
  reason?: string;
  fileBytes: number;
  walBytes: number;
  shmBytes: number;
  pageSize?: number;
  pageCount?: number;
  freePages?: number;
  /** freePages × pageSize: what a compaction gives back (plus the WAL, once checkpointed and truncated). */
  reclaimableBytes?: number;
  autoVacuum?: AutoVacuum;
  journalMode?: 'wal' | 'rollback';
  readVia?: 'connection' | 'header';
}

interface DbHeader {
  pageSize: number;
  /** From the header when it is valid for this file version, else the file size in pages. */
  pageCount: number;
  freePages: number;
  autoVacuum: AutoVacuum;
  wal: boolean;
}

const MAGIC = 'SQLite format 3\0';

/** Parses the 100-byte database header; a string says why it is not a usable SQLite header. */
export function parseDbHeader(h: Buffer, fileBytes: number): DbHeader | { bad: 'notDatabase' | 'truncated'; reason: string } {
  if (fileBytes === 0) return { bad: 'notDatabase', reason: 'The file is empty: not an SQLite database yet.' };
  if (h.length < 16 || h.toString('latin1', 0, 16) !== MAGIC) return { bad: 'notDatabase', reason: 'The file is not an SQLite database.' };
  if (h.length < 100) return { bad: 'truncated', reason: 'The SQLite file is truncated (shorter than its header).' };
  const raw = h.readUInt16BE(16);
  const pageSize = raw === 1 ? 65536 : raw;
  if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0)
    return { bad: 'notDatabase', reason: 'The SQLite header names an impossible page size.' };
  const changeCounter = h.readUInt32BE(24);
  const inHeader = h.readUInt32BE(28);
  const validFor = h.readUInt32BE(92);
  const pageCount = inHeader > 0 && validFor === changeCounter ? inHeader : Math.floor(fileBytes / pageSize);
  if (fileBytes < pageCount * pageSize)
    return {
      bad: 'truncated',
      reason: `The SQLite file is truncated: its header counts ${pageCount} pages, the file holds ${Math.floor(fileBytes / pageSize)}.`,
    };
  const freePages = h.readUInt32BE(36);
  if (freePages >= Math.max(pageCount, 1)) return { bad: 'notDatabase', reason: 'The SQLite header counts more free pages than the file has.' };
  const autoVacuum: AutoVacuum = h.readUInt32BE(52) === 0 ? 'none' : h.readUInt32BE(64) ? 'incremental' : 'full';
  return { pageSize, pageCount, freePages, autoVacuum, wal: h[18] === 2 || h[19] === 2 };
}

const sideSize = (st: Stats | null): number => (st?.isFile() ? st.size : 0);

function describeError(e: unknown): { state: DbSpaceState; reason: string } {
  const code = String((e as { code?: string }).code ?? '');
  const msg = String((e as Error).message ?? e).slice(0, 160);
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'))
    return { state: 'locked', reason: 'The database is locked by another program; look again when the agent is idle.' };
  if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) return { state: 'corrupt', reason: `The database is corrupt (${msg}).` };
  // A write that did not finish (the agent was killed mid-transaction): only a writer may roll it back, and that is the agent's to do.
  if (code === 'SQLITE_READONLY_ROLLBACK' || code === 'SQLITE_READONLY_RECOVERY')
    return {
      state: 'unreadable',
      reason: 'The database holds a write its agent did not finish; start the agent once so that SQLite rolls it back, then look again.',
    };
  return { state: 'unreadable', reason: `The database cannot be read (${code || 'error'}: ${msg}).` };
}

/**
 * File size, WAL size, page size and count, free pages and auto_vacuum of
 * the SQLite database at `path`, read as the header comment says. Never
 * throws for what is on disk; `uid` is whose files may be opened.
 */
export function readDbSpace(path: string, uid = process.getuid?.() ?? -1, procRoot = '/proc'): DbSpace {
  const base = { path, fileBytes: 0, walBytes: 0, shmBytes: 0 };
  const st = lstatSyncOrNull(path);
  if (!st) return { ...base, state: 'missing', reason: 'The database does not exist.' };
  if (st.isSymbolicLink()) return { ...base, state: 'link', reason: 'The database path is a symbolic link; not followed.' };
  if (!st.isFile()) return { ...base, state: 'notRegular', reason: 'The database path is not a regular file.' };
  const walSt = lstatSyncOrNull(`${path}-wal`);
  const shmSt = lstatSyncOrNull(`${path}-shm`);
  const sized = { ...base, fileBytes: st.size, walBytes: sideSize(walSt), shmBytes: sideSize(shmSt) };
  if (uid >= 0 && st.uid !== uid)
    return { ...sized, state: 'foreignOwned', reason: `The database belongs to another user (uid ${st.uid}); it is listed with its size and never opened.` };
  for (const [side, s] of [
    ['-wal', walSt],
    ['-shm', shmSt],
  ] as const) {
    if (s && !s.isFile()) return { ...sized, state: 'notRegular', reason: `${path}${side} is not a regular file; the database is left unread.` };
    if (s && uid >= 0 && s.uid !== uid)
      return { ...sized, state: 'foreignOwned', reason: `${path}${side} belongs to another user; the database is left unread.` };
  }

  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { ...base, state: 'missing', reason: 'The database does not exist.' };
    if (code === 'ELOOP') return { ...sized, state: 'link', reason: 'The database path is a symbolic link; not followed.' };
    return { ...sized, state: 'unreadable', reason: `The database cannot be opened for reading (${code ?? 'error'}).` };
  }
  let fst: Stats;
  let header: DbHeader | { bad: 'notDatabase' | 'truncated'; reason: string };
  try {
    fst = fstatSync(fd);
    if (!fst.isFile()) return { ...sized, state: 'notRegular', reason: 'The database path is not a regular file.' };
    const h = Buffer.alloc(100);
    header = parseDbHeader(h.subarray(0, readAtSync(fd, h, 100, 0)), fst.size);
  } finally {
    closeSync(fd);
  }
  if ('bad' in header) return { ...sized, fileBytes: fst.size, state: header.bad, reason: header.reason };
  const fromHeader = (reason?: string): DbSpace => ({
    ...sized,
    fileBytes: fst.size,
    state: 'ok',
    ...(reason ? { reason } : {}),
    pageSize: header.pageSize,
    pageCount: header.pageCount,
    freePages: header.freePages,
    reclaimableBytes: header.freePages * header.pageSize,
    autoVacuum: header.autoVacuum,
    journalMode: header.wal ? 'wal' : 'rollback',
    readVia: 'header',
  });
  if (header.wal && !walSt && !shmSt) return fromHeader();
  if (header.wal && (!walSt || !shmSt)) {
    return fromHeader(
      walSt
        ? 'The -wal exists without its -shm; counted from the main file only (frames still in the -wal are not).'
        : 'A -shm is left without its -wal; counted from the main file, which holds the whole database.',
    );
  }

  let db: Database.Database | null = null;
  try {
    // Not in place: a read-only connection still writes the -shm's read marks (sqlite-quiet.ts).
    const opened = openQuiet(path, {
      what: 'The database',
      holders: () => pidsHoldingSync(procRoot, [path, `${path}-wal`, `${path}-shm`]),
      // An SQLite error is this function's to describe (locked, corrupt): it comes out as thrown.
      describe: (e) => {
        throw e;
      },
    });
    if (!opened.ok) return fromHeader(opened.reason);
    db = opened.db;
    const pageSize = Number(db.pragma('page_size', { simple: true }));
    const pageCount = Number(db.pragma('page_count', { simple: true }));
    const freePages = Number(db.pragma('freelist_count', { simple: true }));
    const av = Number(db.pragma('auto_vacuum', { simple: true }));
    // SQLite follows a link swapped in after the O_NOFOLLOW look: what it read must be the same file.
    const again = lstatSyncOrNull(path);
    if (!again || again.isSymbolicLink() || again.ino !== fst.ino || again.dev !== fst.dev)
      return { ...sized, state: 'changed', reason: 'The database was replaced while cleanerx read it; look again.' };
    return {
      ...sized,
      fileBytes: fst.size,
      state: 'ok',
      pageSize,
      pageCount,
      freePages,
      reclaimableBytes: freePages * pageSize,
      autoVacuum: av === 1 ? 'full' : av === 2 ? 'incremental' : 'none',
      journalMode: header.wal ? 'wal' : 'rollback',
      readVia: 'connection',
    };
  } catch (e) {
    return { ...sized, fileBytes: fst.size, ...describeError(e) };
  } finally {
    try {
      db?.close();
    } catch {
      // already unusable
    }
  }
}
