// Recovery of an interrupted compaction. What is on disk decides, compared
// with the identities the journal recorded; the step only says whether the
// sibling was ever verified. Nothing is deleted unless another complete
// copy of the database is in place, so the original and the compacted copy
// are never both lost:
//
//   database path holds            sibling                  decision
//   the recorded original          verified, unchanged      roll forward (rename)
//   the recorded original          absent / unverified      roll back (remove sibling)
//   the recorded compacted copy    (moved by the rename)    roll forward (finish)
//   nothing                        verified, unchanged      roll forward (rename)
//   nothing                        unverified               keep the sibling, blocked
//   a changed database file        any                      roll back: the file in place is complete
//                                                            and newer than the copy
//   not a regular file             any                      keep everything, blocked
//
// "Unchanged" means the same device, inode, size and mtime; a verified
// sibling is also re-checked with integrity_check before it is renamed in.
// Everything is looked at and written through one handle on the database's
// directory (opened without following links, as the compaction's), and the
// roll forward first checks that the path still leads there: a directory
// swapped for a link blocks recovery instead of receiving its rename.

import Database from 'better-sqlite3';
import { fsyncSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { crashPoint } from '../core/faults.js';
import { type AnchoredError, type DirHandle, lstatAt, openChildDir, renameAt, unlinkAt } from '../host/anchored-fs.js';
import { COMPACT_TERMINAL, listCompactions, saveCompaction, type CompactionEntry } from './compact-journal.js';
import { ORIGINAL_NAME, openDbDir, removeSibling, removeWorkDir, sameIdentity, stillAt, workDirFor } from './compact.js';

type CompactRecovery =
  | { decision: 'nothingToDo'; reason: string }
  | { decision: 'rolledBack'; reason: string }
  | { decision: 'rolledForward'; reason: string }
  | { decision: 'blocked'; reason: string };

function integrityOk(path: string): boolean {
  let db: Database.Database | null = null;
  let ok = false;
  try {
    // Read-write, so that closing removes the -wal/-shm SQLite makes for a WAL file (a read-only connection would leave them).
    db = new Database(path, { fileMustExist: true, timeout: 2000 });
    db.pragma('query_only = 1');
    ok = db.pragma('integrity_check', { simple: true }) === 'ok';
  } catch {
    // A file SQLite cannot open or check is no copy to rename in: ok stays false.
  } finally {
    try {
      // Stryker disable next-line OptionalChaining: db is null only when the open threw; close on null then throws into the catch below.
      db?.close();
    } catch {
      // nothing
    }
  }
  return ok;
}

async function settle(stateDir: string, e: CompactionEntry, step: 'complete' | 'rolledBack', message: string): Promise<void> {
  e.step = step;
  e.message = message;
  await saveCompaction(stateDir, e, `compact:recovered:${step}`);
}

/** Decides and carries out the recovery of one compaction journal entry (the caller holds the agent's cleanup lock). */
export async function recoverCompaction(stateDir: string, entry: CompactionEntry): Promise<CompactRecovery> {
  const e = entry;
  if (COMPACT_TERMINAL.includes(e.step)) return { decision: 'nothingToDo', reason: 'The compaction was already settled.' };
  const place = copyPlace(e);
  if (!place)
    return { decision: 'blocked', reason: `The compaction journal names a copy outside the folder of ${e.dbPath} (${e.siblingPath}); nothing is touched.` };
  let dir: DirHandle;
  try {
    dir = openDbDir(e.dbPath);
  } catch (err) {
    const a = err as AnchoredError;
    // Off Linux the sentence says it all; otherwise it names what is wrong with the folder.
    return { decision: 'blocked', reason: a.code === 'ENOTSUP' ? a.message : `Recovery of ${e.dbPath} is blocked: ${a.message} Nothing is touched.` };
  }
  try {
    return await recoverWith(stateDir, e, dir, place);
  } finally {
    dir.close();
  }
}

interface CopyPlace {
  /** The compaction's work directory in the database's folder; null for a journal written before there was one (the copy beside the database). */
  workName: string | null;
  sibName: string;
}

/** Where the journal says the copy is, or null when that is anywhere but the two places a compaction puts it. */
function copyPlace(e: CompactionEntry): CopyPlace | null {
  if (dirname(e.siblingPath) === dirname(e.dbPath)) return { workName: null, sibName: basename(e.siblingPath) };
  const work = dirname(e.siblingPath);
  if (work === workDirFor(e.dbPath, e.operationId)) return { workName: basename(work), sibName: basename(e.siblingPath) };
  return null;
}

async function recoverWith(stateDir: string, e: CompactionEntry, dir: DirHandle, place: CopyPlace): Promise<CompactRecovery> {
  // Beside the database, a copy's side file with content may be another program's: after the rename it is left.
  if (!place.workName) return recoverIn(stateDir, e, dir, dir, place.sibName, { renamed: () => {}, rollBack: () => removeSibling(dir, place.sibName) });
  const workName = place.workName;
  // Opened without following a link; absent, the copy is absent.
  const work = lstatAt(dir, workName)?.isDirectory() ? openChildDir(dir, workName) : null;
  try {
    const clean = (): void => removeWorkDir(dir, workName);
    return await recoverIn(stateDir, e, dir, work, place.sibName, { renamed: clean, rollBack: clean });
  } finally {
    work?.close();
  }
}

/**
 * `work` holds the copy (the database's directory itself for an older
 * journal, or null when the work directory is gone); `clean` removes what
 * the compaction left once the copy is in place, or the copy and the rest
 * on a roll back, never the database's name.
 */
async function recoverIn(
  stateDir: string,
  e: CompactionEntry,
  dir: DirHandle,
  work: DirHandle | null,
  sibName: string,
  clean: { renamed: () => void; rollBack: () => void },
): Promise<CompactRecovery> {
  const dbName = basename(e.dbPath);
  const db = lstatAt(dir, dbName);
  const sib = work ? lstatAt(work, sibName) : null;
  // The unsettled steps at which the sibling had passed its proof ('complete' is settled and never recovered); listed
  // here, not in a module constant, so that its mutants are not static ones, which Stryker does not test.
  const verified = ['verified', 'swapping', 'swapped'].includes(e.step) && sameIdentity(e.sibling, sib);

  // The rename happened: the database path is the compacted copy.
  if (e.sibling && db && !sib && db.dev === e.sibling.dev && db.ino === e.sibling.ino) {
    // What is left is the old database's last link and SQLite's leftovers.
    clean.renamed();
    fsyncSync(dir.fd);
    await settle(stateDir, e, 'complete', 'Recovered: the compacted database was already in place.');
    return { decision: 'rolledForward', reason: 'The compacted database is in place; the compaction is finished.' };
  }
  const originalThere = sameIdentity(e.original, db);
  const walHoldsData = (lstatAt(dir, `${dbName}-wal`)?.size ?? 0) > 0;

  if (verified && (originalThere || !db) && !walHoldsData && integrityOk(e.siblingPath)) {
    // The last moment before the roll forward writes: a test swaps the database's directory here.
    crashPoint('compact:recovery:renaming');
    if (!stillAt(dir, dirname(e.dbPath)))
      return {
        decision: 'blocked',
        reason: `${dirname(e.dbPath)} was moved or replaced during the recovery; nothing more is touched: inspect it and ${e.siblingPath}.`,
      };
    // verified implies the copy was found, so its directory is open.
    const from = work!;
    for (const side of ['-wal', '-shm']) {
      const st = lstatAt(from, sibName + side);
      if (st?.isFile() && st.size === 0) unlinkAt(from, sibName + side);
    }
    renameAt(from, sibName, dir, dbName);
    clean.renamed();
    fsyncSync(dir.fd);
    await settle(stateDir, e, 'complete', 'Recovered by finishing the compaction: the verified compacted copy replaced the database.');
    return {
      decision: 'rolledForward',
      reason: db ? 'The verified compacted copy replaced the unchanged original.' : 'The database was missing; the verified compacted copy took its place.',
    };
  }
  // Without the database, the work directory's link may be the original's last name: say where it is rather than lose it.
  const kept =
    !db && work && lstatAt(work, ORIGINAL_NAME)?.isFile()
      ? ` The original database is still there as ${join(work.display, ORIGINAL_NAME)}: move it back to ${e.dbPath}.`
      : '';
  if (!db && sib) {
    return {
      decision: 'blocked',
      reason: `${e.dbPath} is missing and the copy ${e.siblingPath} was never verified; it is kept: inspect it before anything else.${kept}`,
    };
  }
  if (db?.isFile()) {
    clean.rollBack();
    await settle(stateDir, e, 'rolledBack', 'Recovered by rolling back: the original database is kept, the unfinished copy removed.');
    return { decision: 'rolledBack', reason: 'The original database is in place; the unfinished compacted copy was removed.' };
  }
  if (!db && !sib) return { decision: 'blocked', reason: `${e.dbPath} and its compacted copy are both missing: something else removed them.${kept}` };
  return { decision: 'blocked', reason: `${e.dbPath} is no longer a regular file; nothing is touched: inspect it and ${e.siblingPath}.` };
}

/** Recovers every unfinished compaction; unreadable journals are reported, never acted on. */
export async function recoverCompactions(stateDir: string): Promise<{ path: string; result: CompactRecovery }[]> {
  const out: { path: string; result: CompactRecovery }[] = [];
  for (const f of await listCompactions(stateDir)) {
    if (f.kind === 'unknown') out.push({ path: f.path, result: { decision: 'blocked', reason: f.reason } });
    else if (!COMPACT_TERMINAL.includes(f.entry.step)) out.push({ path: f.path, result: await recoverCompaction(stateDir, f.entry) });
  }
  return out;
}
