// Compact one agent database (Codex logs_2.sqlite after its old-rows
// delete, opencode.db after official deletes): its free pages go back to
// the filesystem.
//
// VACUUM INTO a sibling file plus an atomic rename, not VACUUM in place:
// - the original is never written (beyond the WAL checkpoint, which keeps
//   its content) until one rename swaps in a copy that has already passed
//   integrity_check and a content proof against that very original; a
//   crash at any point leaves the original, or the verified copy in its
//   place, and a failed proof simply discards the copy. In place, a proof
//   can only be taken after the original is gone, and undoing a kill relies
//   on the next opener rolling SQLite's own journal back;
// - in place needs up to twice the database in free space (the rewritten
//   pages go through the WAL or rollback journal, then back into the file);
//   VACUUM INTO needs the live pages once (the free-space check still asks
//   for the database and its WAL, as the issue does);
// - its costs, handled here: the copy takes the original's mode (the owner
//   is this user: foreign-owned databases are refused); the original's WAL
//   is checkpointed (TRUNCATE) and removed by the last close before the
//   rename, so no -wal of the old file is ever applied to the new one (a
//   stale -shm is reset by the next opener, which finds itself alone); a
//   reader holding the old inode would go on reading a file nobody sees, so
//   any process holding the database or a side file refuses it, and the
//   compaction holds SQLite's EXCLUSIVE lock (locking_mode=EXCLUSIVE) from
//   the checkpoint to the proof, so nobody reads or writes meanwhile.
// - every write into the database's directory (the work directory, the
//   rename, each removal) goes through one handle on that directory opened
//   without following links (#26), and the rename first checks that the
//   directory's path still leads to that handle: a directory swapped for a
//   link can neither receive the rename nor lose a file to the clean-up.
// - SQLite opens by path (and resolves /proc/self/fd names back to paths),
//   so it is never given a name in the database's directory: the original
//   (and its WAL) is hard-linked into a private 0700 work directory created
//   there through the handle, and SQLite opens that link and writes the copy
//   beside it. A path through a directory swapped for a link then leads to
//   a work directory that does not exist in the link's target, and every
//   open SQLite tries fails instead of creating or changing anything there.
// The caller asserts the agent is stopped and holds the agent's cleanup lock.

import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { closeSync, constants, fchmodSync, fstatSync, fsyncSync, promises as fsp, type Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { crashPoint, failPoint } from '../core/faults.js';
import {
  type AnchoredError,
  type DirHandle,
  linkAt,
  lstatAt,
  mkdirAt,
  openChildDir,
  openFileAt,
  openTrustedDir,
  readdirAt,
  renameAt,
  rmdirAt,
  sameIdentity as sameEntry,
  unlinkAt,
} from '../host/anchored-fs.js';
import { readDbSpace, type DbSpace } from '../host/db-space.js';
import { fileHolders, type Holder } from './compact-holders.js';
import { listCompactions, saveCompaction, COMPACT_TERMINAL, type CompactionEntry, type FileIdentity } from './compact-journal.js';
import { compareWith, MMAP_BYTES, type ComparedTable } from './compact-proof.js';

export class CompactRefused extends Error {}

interface CompactOptions {
  stateDir: string;
  dbPath: string;
  /** The caller's statement that the agent owning the database is not running (checked by its writer detection). */
  agentStopped: boolean;
  /** Where holders are looked for (a test points it elsewhere); /proc by default. */
  procRoot?: string;
  /** Free bytes for an unprivileged user on the database's filesystem (statfs), injectable for tests. */
  freeBytes?: (dir: string) => Promise<number>;
  operationId?: string;
}

interface CompactResult {
  operationId: string;
  before: { fileBytes: number; walBytes: number; freePages: number; pageSize: number };
  after: { fileBytes: number; walBytes: number; freePages: number };
  /** What the database and its WAL took before, less what the database takes now. */
  freedBytes: number;
  /** Every table and its row count, proven equal row by row in the original and the compacted copy. */
  proof: ComparedTable[];
}

/** Free space beyond the database and its WAL that the check keeps in hand. */
const FREE_MARGIN_BYTES = 16 * 1024 * 1024;
const BUSY_MS = 2000;

export const identityOf = (st: Stats): FileIdentity => ({ dev: st.dev, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, mode: st.mode & 0o7777 });
export const sameIdentity = (a: FileIdentity | undefined, st: Stats | null): boolean =>
  Boolean(a && st?.isFile() && st.dev === a.dev && st.ino === a.ino && st.size === a.size && st.mtimeMs === a.mtimeMs);

/** Every crash point a compaction passes, in order (CLEANERX_CRASH_AT=<point>). */
export const COMPACT_CRASH_POINTS = [
  'compact:planned',
  'compact:checkpointed',
  'compact:copying',
  'compact:copy:written',
  'compact:copied',
  'compact:verified',
  'compact:swapping',
  'compact:swap:renamed',
  'compact:swapped',
  'compact:complete',
] as const;

/** The private directory beside the database in which SQLite does all its work. */
export const workDirFor = (dbPath: string, operationId: string): string => join(dirname(dbPath), `.${basename(dbPath)}.cleanerx-compact-${operationId}`);
/** In the work directory: the compacted copy, and the hard link to the original that SQLite opens. */
const COPY_NAME = 'compacted';
export const ORIGINAL_NAME = 'original';
export const siblingFor = (dbPath: string, operationId: string): string => join(workDirFor(dbPath, operationId), COPY_NAME);
const SIDE_FILES = ['-wal', '-shm', '-journal'] as const;
/** link(2)'s answers on a filesystem without hard links (FAT, some FUSE and network mounts). */
const NO_LINKS = ['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS'];

async function statfsFree(dir: string): Promise<number> {
  const s = await fsp.statfs(dir);
  return s.bavail * s.bsize;
}

/** fsync of an entry opened by name without following a link; what was synced, as its descriptor sees it. */
function fsyncAt(dir: DirHandle, name: string): Stats {
  const fd = openFileAt(dir, name, constants.O_RDONLY);
  try {
    fsyncSync(fd);
    return fstatSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The database's directory, opened without following a link (only root's own, as /home → /var/home); throws AnchoredError. */
export function openDbDir(dbPath: string): DirHandle {
  return openTrustedDir(dirname(dbPath));
}

/** Whether the directory's path still leads to the directory the handle holds (not moved, not swapped for a link). */
export function stillAt(dir: DirHandle, path: string): boolean {
  let now: DirHandle;
  try {
    now = openTrustedDir(path);
  } catch {
    return false;
  }
  try {
    return sameEntry(now.stat(), dir.stat());
  } finally {
    now.close();
  }
}

const SQLITE_LIB = createRequire(import.meta.url).resolve('better-sqlite3');

/**
 * integrity_check of the compacted copy on a second thread, while this one
 * takes its content proof: the two full reads of the copy overlap. The copy
 * is still a rollback-journal file then, so a read-only open creates nothing.
 */
function integrityInWorker(path: string): Promise<string> {
  // Dynamic imports only: an eval worker takes the parent's --input-type, so `require` may not exist.
  const code = `(async () => {
  const { parentPort, workerData } = await import('node:worker_threads');
  let d;
  try { const D = (await import(workerData.lib)).default; d = new D(workerData.path, { readonly: true, fileMustExist: true }); d.pragma('mmap_size = ${MMAP_BYTES}'); parentPort.postMessage(String(d.pragma('integrity_check', { simple: true }))); }
  catch (e) { parentPort.postMessage('error: ' + (e && e.message)); }
  finally { try { d && d.close(); } catch {} }
})();`;
  return new Promise((resolve) => {
    const w = new Worker(code, { eval: true, workerData: { lib: pathToFileURL(SQLITE_LIB).href, path } });
    w.once('message', (m: string) => resolve(m));
    w.once('error', (e) => resolve(`error: ${e.message}`));
    w.once('exit', (c) => resolve(`error: the integrity check thread exited (${c})`));
  });
}

// A function declaration, not a const arrow: Stryker switches a whole-arrow mutant at module load, which no test reruns.
function holderText(h: Holder[]): string {
  return (
    h
      .slice(0, 3)
      .map((x) => `${x.name} (pid ${x.pid})`)
      .join(', ') + (h.length > 3 ? ` and ${h.length - 3} more` : '')
  );
}

/** The preconditions, in the order a user can act on them; throws CompactRefused with one sentence. */
async function preflight(o: CompactOptions): Promise<DbSpace> {
  if (!o.agentStopped) throw new CompactRefused('Quit the agent first: a database is compacted only while its agent is stopped.');
  const space = readDbSpace(o.dbPath);
  if (space.state !== 'ok') throw new CompactRefused(`Cannot compact ${o.dbPath}: ${space.reason ?? space.state}`);
  for (const f of await listCompactions(o.stateDir)) {
    if (f.kind === 'unknown') throw new CompactRefused(`An unreadable compaction journal (${f.path}) blocks compaction; inspect it and move it away.`);
    if (f.entry.dbPath === o.dbPath && !COMPACT_TERMINAL.includes(f.entry.step))
      throw new CompactRefused(`An interrupted compaction of ${o.dbPath} must be recovered first.`);
  }
  const holders = await fileHolders([o.dbPath, ...SIDE_FILES.map((s) => o.dbPath + s)], o.procRoot);
  if (holders.length) throw new CompactRefused(`${holderText(holders)} has ${o.dbPath} open; quit it, then compact again.`);
  const need = space.fileBytes + space.walBytes + FREE_MARGIN_BYTES;
  const free = await (o.freeBytes ?? statfsFree)(dirname(o.dbPath));
  if (free < need)
    throw new CompactRefused(
      `Not enough free space to compact ${o.dbPath}: it needs ${need} bytes free on its filesystem (the database and its WAL again), ${free} are free.`,
    );
  return space;
}

function closeQuietly(db: Database.Database | null): void {
  try {
    // Stryker disable next-line OptionalChaining: close on a null db throws a TypeError into the catch below, the same nothing.
    db?.close();
  } catch {
    // already unusable
  }
}

/** Removes the sibling and any side file SQLite gave it from the directory the handle holds; only regular files, never through a link. */
export function removeSibling(dir: DirHandle, sibling: string): void {
  for (const n of [sibling, ...SIDE_FILES.map((s) => sibling + s)]) if (lstatAt(dir, n)?.isFile()) unlinkAt(dir, n);
}

/**
 * Removes the work directory: the copy, the link to the original (the
 * database's own name is never touched here) and SQLite's side files of
 * both, then the directory. Anything else found in it is left, with it.
 */
export function removeWorkDir(dir: DirHandle, workName: string): void {
  if (!lstatAt(dir, workName)?.isDirectory()) return;
  const work = openChildDir(dir, workName);
  let empty: boolean;
  try {
    removeSibling(work, COPY_NAME);
    removeSibling(work, ORIGINAL_NAME);
    empty = readdirAt(work).length === 0;
  } finally {
    work.close();
  }
  if (empty) rmdirAt(dir, workName);
}

/**
 * Creates the work directory through the handle and links the original and
 * its WAL into it (a rollback journal with content is refused before: its
 * link would be rolled back and removed by SQLite while the database's own
 * name kept it, hot, for the next opener of the compacted file).
 */
function prepareWorkDir(dir: DirHandle, dbPath: string, workName: string, made: () => void): DirHandle {
  const dbName = basename(dbPath);
  if ((lstatAt(dir, `${dbName}-journal`)?.size ?? 0) > 0)
    throw new CompactRefused(
      `${dbPath} has an unfinished transaction (${dbName}-journal); start its agent once so that SQLite rolls it back, then compact again.`,
    );
  // Exclusive (EEXIST on anything at the name, a link included): only a folder this run made is ever emptied by it.
  mkdirAt(dir, workName, 0o700);
  made();
  const work = openChildDir(dir, workName);
  try {
    try {
      linkAt(dir, dbName, work, ORIGINAL_NAME);
    } catch (e) {
      if (!NO_LINKS.includes(String((e as AnchoredError).code))) throw e;
      throw new CompactRefused(
        `Cannot compact ${dbPath}: its filesystem does not allow hard links, which the compaction needs to keep SQLite's files inside its own folder.`,
      );
    }
    if (lstatAt(dir, `${dbName}-wal`)?.isFile()) linkAt(dir, `${dbName}-wal`, work, `${ORIGINAL_NAME}-wal`);
    // The link must be the database's own inode: a link (or anything else) at its name would have been linked as it is.
    const orig = lstatAt(dir, dbName);
    if (!orig?.isFile() || !sameEntry(orig, lstatAt(work, ORIGINAL_NAME)!)) throw new Error(`${dbPath} changed during the compaction`);
    return work;
  } catch (e) {
    work.close();
    throw e;
  }
}

/** Takes the exclusive lock (held until the connection closes) and empties the WAL into the database; whether it is in WAL mode. */
function lockAndCheckpoint(db: Database.Database, dbPath: string): boolean {
  // Before the first read: in WAL mode the connection then never uses the -shm, and holds the lock until closed.
  db.pragma('locking_mode = EXCLUSIVE');
  // No mmap on the original: a file truncated under it by anyone would be a SIGBUS, not an error (the copy is ours).
  try {
    db.exec('BEGIN EXCLUSIVE; COMMIT');
  } catch (e) {
    throw new CompactRefused(`Another program is using ${dbPath} (${String((e as { code?: string }).code ?? e)}); quit it, then compact again.`);
  }
  // Unguarded by the journal mode: outside WAL mode SQLite answers the checkpoint with one row, busy 0, and does nothing.
  const [r] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number; log: number; checkpointed: number }[];
  // Stryker disable next-line ConditionalExpression,StringLiteral,CallExpression: unreachable after BEGIN EXCLUSIVE above, which any reader of the WAL makes fail with SQLITE_BUSY first; kept in case a SQLite lets one through
  if (r.busy) throw new CompactRefused(`The WAL of ${dbPath} could not be checkpointed; quit whatever uses it, then compact again.`);
  return String(db.pragma('journal_mode', { simple: true })).toLowerCase() === 'wal';
}

/** VACUUM INTO a copy this call creates in the work directory, proven to be the file it created, with the original's mode, synced. */
function writeSibling(db: Database.Database, work: DirHandle, dir: DirHandle, sibling: string, dbPath: string): void {
  // The copy is created here, exclusively and without following a link; VACUUM INTO fills the empty file.
  const own = openFileAt(work, COPY_NAME, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  try {
    db.prepare('VACUUM INTO ?').run(sibling);
    crashPoint('compact:copy:written');
    // Through the handle: the name SQLite wrote must be the file created there.
    // One identity test for both (device, inode, a regular file; size and time too, which two stats of one untouched inode share).
    const written = fstatSync(own);
    if (!sameIdentity(identityOf(written), lstatAt(work, COPY_NAME))) throw new Error(`${sibling} was replaced while the copy was written`);
    // Still empty: SQLite's path led elsewhere (a work directory of the same name planted behind a swapped link).
    if (written.size === 0) throw new Error(`${sibling} was not written by the copy`);
    const orig = lstatAt(dir, basename(dbPath));
    if (!orig?.isFile()) throw new Error(`${dbPath} changed during the compaction`);
    // The mode through the descriptor: never a chmod that follows a name.
    fchmodSync(own, orig.mode & 0o7777);
    fsyncSync(own);
  } finally {
    closeSync(own);
  }
}

function refusedDir(o: CompactOptions, e: AnchoredError): CompactRefused {
  // Off Linux the sentence says it all; otherwise it names what is wrong with the folder.
  return new CompactRefused(e.code === 'ENOTSUP' ? e.message : `Cannot compact ${o.dbPath}: ${e.message}`);
}

export async function compactDatabase(o: CompactOptions): Promise<CompactResult> {
  const space = await preflight(o);
  let dir: DirHandle;
  try {
    dir = openDbDir(o.dbPath);
  } catch (e) {
    throw refusedDir(o, e as AnchoredError);
  }
  try {
    return await compactIn(o, space, dir);
  } finally {
    dir.close();
  }
}

/** The copy against the original (still under its EXCLUSIVE lock): the same content, integrity_check in a thread, no free page left, back in WAL mode when the original was. */
async function proveCopy(db: Database.Database, sibling: string, wal: boolean): Promise<{ proof: ComparedTable[]; freeAfter: number }> {
  let copy: Database.Database | null = null;
  try {
    const checking = integrityInWorker(sibling);
    failPoint('compact:proof');
    // Still under the EXCLUSIVE lock on the original: the two files are compared as they are.
    const compared = compareWith(db, sibling);
    const diff = process.env.CLEANERX_FAIL_AT === 'compact:proof-mismatch' ? 'injected difference' : compared.difference;
    // Stryker disable next-line ObjectLiteral,BooleanLiteral: compareWith has just read the copy, so it exists, holds no hot journal and is locked by nobody (the integrity thread only reads); a read-write open that only reads does the same.
    copy = new Database(sibling, { readonly: true, fileMustExist: true, timeout: BUSY_MS });
    const freeAfter = Number(copy.pragma('freelist_count', { simple: true }));
    copy.close();
    copy = null;
    const copyIntegrity = await checking;
    if (copyIntegrity !== 'ok') throw new Error(`the compacted copy fails integrity_check (${copyIntegrity.slice(0, 160)})`);
    if (diff) throw new Error(`the compacted copy is not the same content: ${diff}`);
    if (freeAfter !== 0) throw new Error(`the compacted copy still has ${freeAfter} free pages`);
    if (wal) {
      // VACUUM INTO writes a rollback-journal file; the agent expects its database in WAL mode (the last close removes the side files).
      // Stryker disable next-line ObjectLiteral,BooleanLiteral: the copy was opened just above, so it exists; without the timeout a reader of the copy still makes it fail as locked, after 5 s instead of 2.
      copy = new Database(sibling, { fileMustExist: true, timeout: BUSY_MS });
      copy.pragma('journal_mode = WAL');
      copy.close();
      copy = null;
    }
    return { proof: compared.tables, freeAfter };
  } catch (e) {
    closeQuietly(copy);
    throw e;
  }
}

async function compactIn(o: CompactOptions, space: DbSpace, dir: DirHandle): Promise<CompactResult> {
  const operationId = o.operationId ?? randomUUID();
  const sibling = siblingFor(o.dbPath, operationId);
  const workName = basename(workDirFor(o.dbPath, operationId));
  const dbName = basename(o.dbPath);
  const now = new Date().toISOString();
  const entry: CompactionEntry = {
    formatVersion: 1,
    kind: 'compact',
    operationId,
    dbPath: o.dbPath,
    siblingPath: sibling,
    createdAt: now,
    updatedAt: now,
    step: 'planned',
    before: { fileBytes: space.fileBytes, walBytes: space.walBytes, pageCount: space.pageCount!, freePages: space.freePages!, pageSize: space.pageSize! },
  };
  await saveCompaction(o.stateDir, entry);

  let db: Database.Database | null = null;
  let work: DirHandle | null = null;
  let madeWork = false;
  // Set just before the rename: until then the original is untouched, whatever the journal says.
  let renaming = false;
  try {
    work = prepareWorkDir(dir, o.dbPath, workName, () => (madeWork = true));
    // Stryker disable next-line ObjectLiteral,BooleanLiteral: prepareWorkDir has just linked and re-identified the original there, in a folder only this run writes; without the flag a missing file would be created, which cannot happen here (and the timeout only matters to a locker, refused earlier).
    db = new Database(join(workDirFor(o.dbPath, operationId), ORIGINAL_NAME), { fileMustExist: true, timeout: BUSY_MS });
    const wal = lockAndCheckpoint(db, o.dbPath);
    entry.step = 'checkpointed';
    await saveCompaction(o.stateDir, entry);

    const integrity = db.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') throw new CompactRefused(`${o.dbPath} fails integrity_check (${String(integrity).slice(0, 160)}); it is left as it is.`);

    entry.step = 'copying';
    await saveCompaction(o.stateDir, entry);
    writeSibling(db, work, dir, sibling, o.dbPath);
    entry.step = 'copied';
    await saveCompaction(o.stateDir, entry);

    const { proof, freeAfter } = await proveCopy(db, sibling, wal);
    for (const s of SIDE_FILES) if (lstatAt(work, COPY_NAME + s)) throw new Error(`SQLite left ${sibling}${s} behind`);
    // The identity recorded is the file just synced: opened by name, no link followed.
    const sib = fsyncAt(work, COPY_NAME);
    // The copy's entry in the work directory, and the work directory's in the database's: both durable before `verified` says so.
    fsyncSync(work.fd);
    fsyncSync(dir.fd);
    entry.sibling = identityOf(sib);
    entry.proof = proof;

    // Closing removes the link to the checkpointed WAL; then the original is re-identified as it will be at the rename.
    db.close();
    db = null;
    const orig = lstatAt(dir, dbName);
    if (!orig) throw new Error(`${o.dbPath} changed during the compaction`);
    entry.original = identityOf(orig);
    const leftWal = lstatAt(dir, `${dbName}-wal`);
    if (leftWal && leftWal.size > 0) throw new Error(`${o.dbPath}-wal still holds data after the checkpoint`);
    // The empty WAL the checkpoint left under the database's own name, which SQLite's close removes when it opened that name.
    if (leftWal?.isFile()) unlinkAt(dir, `${dbName}-wal`);
    entry.step = 'verified';
    await saveCompaction(o.stateDir, entry);

    const holders = await fileHolders([o.dbPath, ...SIDE_FILES.map((s) => o.dbPath + s)], o.procRoot);
    if (holders.length) throw new CompactRefused(`${holderText(holders)} opened ${o.dbPath} during the compaction; the original is kept.`);
    entry.step = 'swapping';
    await saveCompaction(o.stateDir, entry);
    // Right before the rename, all through the one handle: the directory is still where the path leads, and both files are as proven.
    if (!stillAt(dir, dirname(o.dbPath))) throw new Error(`${dirname(o.dbPath)} was moved or replaced during the compaction`);
    if (!sameIdentity(entry.original, lstatAt(dir, dbName))) throw new Error(`${o.dbPath} changed during the compaction`);
    if (!sameIdentity(entry.sibling, lstatAt(work, COPY_NAME))) throw new Error(`${sibling} changed after it was proven`);
    renaming = true;
    renameAt(work, COPY_NAME, dir, dbName);
    crashPoint('compact:swap:renamed');
    fsyncSync(dir.fd);
    entry.step = 'swapped';
    await saveCompaction(o.stateDir, entry);
    // The old database goes with its last link, in the work directory.
    work.close();
    removeWorkDir(dir, workName);
    fsyncSync(dir.fd);

    entry.step = 'complete';
    entry.message = `Compacted: ${space.fileBytes + space.walBytes} bytes before, ${sib.size} after.`;
    await saveCompaction(o.stateDir, entry);
    return {
      operationId,
      before: { fileBytes: space.fileBytes, walBytes: space.walBytes, freePages: space.freePages!, pageSize: space.pageSize! },
      // What was proven of the copy now in place: read again by path, the name could lead elsewhere.
      after: { fileBytes: sib.size, walBytes: 0, freePages: freeAfter },
      freedBytes: space.fileBytes + space.walBytes - sib.size,
      proof,
    };
  } catch (e) {
    closeQuietly(db);
    work?.close();
    // Before the rename the original is untouched: the copy is discarded. After it, nothing is undone here; recovery decides.
    const swapped = renaming;
    if (!swapped) {
      if (madeWork) removeWorkDir(dir, workName);
      entry.step = 'rolledBack';
      entry.message = `Not compacted; the original is kept: ${(e as Error).message}`;
      await saveCompaction(o.stateDir, entry, 'compact:rolledBack');
    }
    if (e instanceof CompactRefused) throw e;
    if (swapped)
      throw new Error(
        `Compaction of ${o.dbPath} stopped at the swap (${(e as Error).message}); run recovery, which keeps whichever complete copy is in place.`,
      );
    throw new Error(`Compaction of ${o.dbPath} stopped and the original is kept: ${(e as Error).message}`);
  }
}
