// All-or-nothing, journaled restore. A journal (restore-journal.ts) is
// written before anything else; the archive is decrypted and checked into
// one private staging dir (sparse files keep their holes); every destination
// is preflighted through directory handles from its allowlisted root down
// (no link on the way, same owner and device, nothing there in any form
// unless it is already byte-identical, no duplicates); each file then goes
// into place as a no-replace link of its staged copy, its parent reached by
// the same handles, so a swapped ancestor stops the restore instead of
// redirecting it. On an error everything this restore created is removed
// again, newest first, identity-checked. A restore killed at any point is
// finished (or, when it cannot be, rolled back) by settlePendingRestores.

import { randomUUID } from 'node:crypto';
import { closeSync, constants as C, fchmodSync, fstatSync, promises as fsp } from 'node:fs';
import { dirname, join } from 'node:path';
import { ensurePrivateDir } from '../engine/host/atomic.js';
import type { DirHandle } from '../engine/host/anchored-fs.js';
import { crashPoint, failPoint } from '../engine/core/faults.js';
import type { AgentKind, BackupProgress } from '../engine/core/model.js';
import { ArchiveError, readArchiveTable, type ManifestDir, type ManifestDirAttrs, type SkippedKind } from './archive.js';
import type { TableManifest } from './manifest-read.js';
import type { ManifestTable } from './manifest-table.js';
import { AnchoredTree, commitFile, hashFd, holdsContent, lstatAt, openStaging, removeCreatedDir, setMtime, uncommit, unlinkAt } from './restore-commit.js';
import { removeStaging, StagingWriter } from './restore-staging.js';
import {
  listRestoreJournals,
  partialName,
  PlannedEntries,
  removeRestoreJournal,
  restoreJournalPath,
  safeRelative,
  saveRestoreJournal,
  stagingDirName,
  type RestoreJournal,
  type RestoreJournalDir,
  type RestoreJournalEntry,
} from './restore-journal.js';

export interface RestoreOptions {
  archivePath: string;
  identity: string;
  agent: AgentKind;
  /** Root label → fixed directory (e.g. pi_home → the pi agent dir). */
  roots: Record<string, string>;
  uid: number;
  stagingParent: string;
  /** Where the restore journal lives (cleanerx's state dir); defaults to the staging parent. */
  journalDir?: string;
  /** Stop after the preflight, reporting what would be restored. */
  dryRun?: boolean;
  /** The catalog id the archive must carry. */
  expectId?: string;
  /**
   * Restore only the entries whose destination is one of these absolute
   * paths or lies beneath one (the missing paths of a partially applied
   * item); every other entry of the archive is verified and skipped.
   */
  onlyPaths?: readonly string[];
  /**
   * Entries under this root label are official session exports: they are not
   * copied anywhere but handed, decrypted and hash-checked in staging, to the
   * agent's import route (relative path → staged file). Returns what it restored.
   */
  sessionImport?: { root: string; run(staged: Map<string, string>, dryRun: boolean): Promise<string[]> };
  /**
   * A real restore hands this what its dry run would have returned, once
   * every byte is staged and hash-checked and every destination preflighted,
   * before anything at a destination changes: a caller that has the user's
   * consent already (`backups restore --yes`) shows the plan from the one
   * pass instead of reading the archive twice.
   */
  onPlanned?: (planned: RestoreResult) => void | Promise<void>;
  /** The archive's read (entries and bytes checked so far), then the destinations' check and the writing. */
  onProgress?: (p: BackupProgress) => void;
}

export interface RestoreResult {
  manifest: TableManifest;
  /** Every destination now holding its backed-up content (written now, or already byte-identical). */
  restored: string[];
  /** The subset that was already there byte-identical (e.g. put back by an interrupted restore) and was left as it was. */
  alreadyPresent: string[];
  /** The backup's empty dirs this restore recreated (or, dry, would), with their modes; existing ones are left as they are. */
  emptyDirs: string[];
  /** One sentence per FIFO, socket or device that was under the backed-up paths: not in the backup, so not restored. */
  notInBackup: string[];
}

const KIND_TEXT: Record<SkippedKind, string> = { fifo: 'a FIFO (named pipe)', socket: 'a socket', device: 'a device file' };

function notInBackup(o: RestoreOptions, m: TableManifest, wanted: (e: { root: string; relativePath: string }) => boolean): string[] {
  // Stryker disable next-line ArrayDeclaration: a text in place of the list has no root, so the filter drops it.
  return (m.skipped ?? [])
    .filter((k) => o.roots[k.root] && wanted(k))
    .map(
      (k) => `Not in the backup: ${destOf(o.roots, k.root, k.relativePath)} was ${KIND_TEXT[k.kind]}, which holds no data; the restore did not recreate it.`,
    );
}

const destOf = (roots: Record<string, string>, root: string, rel: string): string => `${roots[root]}/${rel}`;

function selector(o: RestoreOptions): (e: { root: string; relativePath: string }) => boolean {
  const only = o.onlyPaths?.map((p) => p.replace(/\/+$/, ''));
  if (!only) return () => true;
  return (e) => {
    const base = o.roots[e.root];
    if (!base) return true; // refused with a clear reason by the preflight
    const d = destOf(o.roots, e.root, e.relativePath);
    return only.some((p) => d === p || d.startsWith(p + '/'));
  };
}

function newJournal(o: RestoreOptions, id: string, staging: string): RestoreJournal {
  const now = new Date().toISOString();
  return {
    formatVersion: 2,
    kind: 'cleanerx-restore',
    restoreId: id,
    agent: o.agent,
    backupId: o.expectId ?? null,
    createdAt: now,
    updatedAt: now,
    status: 'staging',
    staging,
    uid: o.uid,
    roots: { ...o.roots },
    entries: [],
    dirs: [],
  };
}

/**
 * Reads the whole archive (every payload hash-checked by the reader) and
 * decrypts each wanted entry into staging. Returns the manifest and each
 * staged entry's name (a dry run stages only session exports).
 */
async function stageArchive(
  o: RestoreOptions,
  stager: StagingWriter,
  wanted: (e: { root: string; relativePath: string }) => boolean,
): Promise<{ manifest: TableManifest; staged: Int32Array }> {
  // By manifest index: the staged name (a number), -1 for an entry not staged.
  let staged = new Int32Array(0);
  const imp = o.sessionImport;
  let n = 0;
  const manifest = await readArchiveTable(
    o.archivePath,
    o.identity,
    {
      manifest: (m) => {
        if (o.expectId && m.id !== o.expectId) throw new ArchiveError('The archive does not belong to this catalog entry.');
        staged = new Int32Array(m.entries.length).fill(-1);
      },
      payload: async (entry, stream, index) => {
        const imported = Boolean(imp && entry.root === imp.root);
        // A dry run writes no file copy: the reader still hash-checks every payload,
        // and the preflight needs only names. Session exports are staged even then
        // (the import route reads them to say what it would import).
        if ((!imported && !wanted(entry)) || (o.dryRun && !imported)) {
          for await (const _ of stream) void _; // still hash-checked by the reader
          return;
        }
        staged[index] = n;
        await stager.stage(String(n++), stream, entry.mode ?? 0o600, entry.mtimeNs);
      },
    },
    o.agent,
    // The restore a user confirmed after its check: that check hashed this very archive.
    {
      // Stryker disable next-line BooleanLiteral: it only spares hashing an archive its check verified; the bytes restored are the same (restore-reuse holds the refusals).
      reuseVerified: !o.dryRun,
      onRead: o.onProgress && ((done, total, bytesDone, bytesTotal) => o.onProgress!({ step: 'reading', done, total, bytesDone, bytesTotal })),
    },
  );
  return { manifest, staged };
}

/** The staged files' names (every entry staged). */
// Stryker disable next-line BlockStatement: the names only choose what is fsync'd, durability against a power cut that no in-process test can tell.
function* stagedNames(staged: Int32Array): Generator<string> {
  // Stryker disable next-line ConditionalExpression,EqualityOperator: as above, fsync only.
  for (const n of staged) if (n >= 0) yield String(n);
}

/** The manifest entries a restore wants, in manifest order. */
function wantedIndexes(t: ManifestTable, wanted: (e: { root: string; relativePath: string }) => boolean): Uint32Array {
  const out = new Uint32Array(t.length);
  let n = 0;
  for (let i = 0; i < t.length; i++) if (wanted({ root: t.root(i), relativePath: t.relativePath(i) })) out[n++] = i;
  return out.subarray(0, n);
}

/** The destinations the preflight found already holding their content. */
function presentDests(t: ManifestTable, planned: PlannedEntries, roots: Record<string, string>): string[] {
  const out: string[] = [];
  // Stryker disable next-line EqualityOperator: present[length] is undefined, so one more turn pushes nothing.
  for (let i = 0; i < planned.length; i++) if (planned.present[i]) out.push(destOf(roots, t.root(planned.indexes[i]!), t.relativePath(planned.indexes[i]!)));
  return out;
}

export async function restoreArchive(o: RestoreOptions): Promise<RestoreResult> {
  const journalDir = o.journalDir ?? o.stagingParent;
  await ensurePrivateDir(o.stagingParent);
  // A restore that ends (done or refused) leaves no dir of its own behind: the ones made here go again if empty.
  const made = await fsp.mkdir(journalDir, { recursive: true, mode: 0o700 });
  const id = randomUUID();
  const staging = join(o.stagingParent, stagingDirName(id));
  const j = newJournal(o, id, staging);
  await saveRestoreJournal(journalDir, j, 'restore:journal');
  // Cleared only when a rollback could not undo everything: then staging and journal stay for the next settle.
  let tidy = true;
  const stager = new StagingWriter(staging);
  try {
    await fsp.mkdir(staging, { mode: 0o700 });
    const imp = o.sessionImport;
    const wanted = selector(o);
    const { manifest, staged } = await stageArchive(o, stager, wanted);
    const counted = { done: manifest.entries.length, total: manifest.entries.length, bytesDone: manifest.originalBytes, bytesTotal: manifest.originalBytes };
    await stager.done();
    // Durable before the journal can say "committing" (a resume links these very inodes):
    // every staged file fsync'd at once, overlapped, then the staging dir once, instead
    // of one fsync per file while the archive streams.
    // Stryker disable next-line ConditionalExpression: fsync only, as in stagedNames.
    if (!o.dryRun) await stager.sync(stagedNames(staged));
    crashPoint('restore:staged');
    const labels = manifest.entries.rootLabels();
    if (imp && labels.includes(imp.root)) {
      if (labels.some((r) => r !== imp.root)) throw new ArchiveError('The archive mixes session exports with files; cleanerx never writes such an archive.');
      const byPath = new Map<string, string>();
      for (let i = 0; i < manifest.entries.length; i++) byPath.set(manifest.entries.relativePath(i), join(staging, String(staged[i]!)));
      const result = (restored: string[]): RestoreResult => ({ manifest, restored, alreadyPresent: [], emptyDirs: [], notInBackup: [] });
      o.onProgress?.({ step: o.dryRun ? 'checking' : 'writing', ...counted });
      if (!o.dryRun && o.onPlanned) await o.onPlanned(result(await imp.run(byPath, true)));
      return result(await imp.run(byPath, Boolean(o.dryRun)));
    }
    const tree = new AnchoredTree(o.roots, o.uid);
    let stage: DirHandle | null = null;
    try {
      o.onProgress?.({ step: 'checking', ...counted });
      const planned = new PlannedEntries(manifest.entries, wantedIndexes(manifest.entries, wanted), staged);
      // Stryker disable next-line ArrayDeclaration: a text in place of the list has no root or path, so its key matches no dir.
      const dirAttrs = manifest.dirs ?? [];
      const restored = await preflight(manifest.entries, planned, (manifest.emptyDirs ?? []).filter(wanted), dirAttrs, o, tree, j);
      const alreadyPresent = presentDests(manifest.entries, planned, o.roots);
      const emptyDirs = j.dirs.filter((d) => d.empty).map((d) => destOf(o.roots, d.root, d.path));
      const result = { manifest, restored, alreadyPresent, emptyDirs, notInBackup: notInBackup(o, manifest, wanted) };
      if (o.dryRun) return result;
      // Before the all-present refusal: a dry run reports that plan too.
      await o.onPlanned?.(result);
      if (j.entries.length && alreadyPresent.length === j.entries.length && !emptyDirs.length) {
        throw new ArchiveError(
          `Every destination already exists; a restore never overwrites anything (all ${j.entries.length} files are byte-identical to the backup, so nothing was written).`,
        );
      }
      o.onProgress?.({ step: 'writing', ...counted });
      j.status = 'committing';
      await saveRestoreJournal(journalDir, j, 'restore:committing');
      stage = openStaging(staging);
      const left = await commitAll(j, tree, stage, new Set(), async () => {
        j.status = 'rollingBack';
        await saveRestoreJournal(journalDir, j, 'restore:rollingBack');
      });
      if (left) {
        tidy = false;
        j.message = left.message;
        await saveRestoreJournal(journalDir, j, 'restore:rollingBack').catch(() => undefined);
        throw left.error;
      }
      // Stryker disable next-line BooleanLiteral: whether the dirs are fsync'd: durability only, as in stagedNames.
      tree.close(true);
      j.status = 'committed';
      await saveRestoreJournal(journalDir, j, 'restore:committed');
      return result;
    } finally {
      stage?.close();
      // Stryker disable next-line BooleanLiteral: fsync only (a committed restore has closed every handle already).
      tree.close(false);
    }
  } finally {
    if (tidy) {
      await stager.settle();
      await removeStaging(staging);
      crashPoint('restore:unstaged');
      await removeRestoreJournal(journalDir, id);
      if (made) await removeEmptyDirs(journalDir, made);
    }
  }
}

/** rmdir from `dir` up to and including `top` while they are empty. */
async function removeEmptyDirs(dir: string, top: string): Promise<void> {
  // Each stop below is enough alone for the absolute journal dir and its ancestor `top` (mkdir's first made dir) callers give; both stay for a path given otherwise.
  // Stryker disable next-line LogicalOperator,ConditionalExpression: the walk from dir meets top exactly, where the return below stops it.
  for (let cur = dir; cur.length >= top.length && cur.startsWith(top); cur = dirname(cur)) {
    if (
      !(await fsp.rmdir(cur).then(
        () => true,
        // Stryker disable next-line ArrowFunction,BooleanLiteral: a dir rmdir refuses holds an entry or is held by its parent, which fails too; one already gone only lets the walk go on to dirs this restore made that are empty anyway.
        () => false,
      ))
    )
      return;
    // Stryker disable next-line ConditionalExpression: past top the loop condition stops the walk.
    if (cur === top) return;
  }
}

const splitPath = (rel: string): { dir: string; name: string } => {
  const i = rel.lastIndexOf('/');
  // Stryker disable next-line EqualityOperator: a slash first (i = 0) is an absolute path, which safeRelative refused.
  return i < 0 ? { dir: '', name: rel } : { dir: rel.slice(0, i), name: rel.slice(i + 1) };
};

/** Fills j.entries and j.dirs and returns each entry's destination, in order; refuses (nothing written) whatever a restore must not touch. */
async function preflight(
  t: ManifestTable,
  planned: PlannedEntries,
  emptyDirs: ManifestDir[],
  dirAttrs: ManifestDirAttrs[],
  o: RestoreOptions,
  tree: AnchoredTree,
  j: RestoreJournal,
): Promise<string[]> {
  // The manifest names each (root, path) once, so files' destinations can only meet when two roots nest:
  // only then (and for the few empty dirs) is every destination kept to be compared.
  const nested = rootsNest(o.roots, t.rootLabels());
  const dests = new Set<string>();
  const missing = new Set<string>();
  const dirs: RestoreJournalDir[] = [];
  const attrs = new Map(dirAttrs.map((d) => [`${d.root}\0${d.relativePath}`, d]));
  /**
   * Plans every absent dir of `comps` (outermost first; the last one is an
   * empty dir of the backup when `emptyMode` is given), each with the mode
   * and mtime the manifest records for it. Returns the handle of the full
   * path when it exists.
   */
  const planDirs = (root: string, comps: string[], emptyMode?: number): DirHandle | null => {
    // The deepest existing ancestor decides; below it every dir is to be created.
    let found: DirHandle | null = null;
    let depth = comps.length;
    for (; depth >= 0; depth--) {
      const rel = comps.slice(0, depth).join('/');
      // Stryker disable next-line ConditionalExpression,EqualityOperator,StringLiteral: the skip only spares a walk: tree.dir of a missing dir answers null as well.
      if (depth > 0 && missing.has(`${root}\0${rel}`)) continue;
      const h = tree.dir(root, rel);
      if (h) {
        found = depth === comps.length ? h : null;
        break;
      }
    }
    for (let d = Math.max(depth, 0) + 1; d <= comps.length; d++) {
      const rel = comps.slice(0, d).join('/');
      const k = `${root}\0${rel}`;
      const empty = d === comps.length && emptyMode !== undefined;
      if (!missing.has(k)) {
        missing.add(k);
        const a = attrs.get(k);
        dirs.push({
          root,
          path: rel,
          ...(empty ? { empty: true as const } : {}),
          ...(empty ? { mode: emptyMode } : a ? { mode: a.mode & 0o777 } : {}),
          ...(a ? { mtimeNs: a.mtimeNs } : {}),
        });
      }
    }
    return found;
  };
  const check = (e: { root: string; relativePath: string }, kept: boolean): string => {
    if (!o.roots[e.root]) throw new ArchiveError(`The archive restores into "${e.root}", which is not a root of ${o.agent}.`);
    // Stryker disable next-line ConditionalExpression,StringLiteral: the manifest reader refused every unsafe path already; only one over 4096 bytes, which no backed-up file has, reaches this.
    if (!safeRelative(e.relativePath)) throw new ArchiveError(`${e.relativePath} escapes its root.`);
    const dest = destOf(o.roots, e.root, e.relativePath);
    // Stryker disable next-line ConditionalExpression: keeping every destination only costs memory; without nested roots none repeats.
    if (!kept) return dest;
    if (dests.has(dest)) throw new ArchiveError(`Two entries restore to ${dest}.`);
    dests.add(dest);
    return dest;
  };
  const restored: string[] = [];
  for (let i = 0; i < planned.length; i++) {
    const entry = t.entry(planned.indexes[i]!);
    const dest = check(entry, nested);
    restored.push(dest);
    const { dir, name } = splitPath(entry.relativePath);
    const parent = planDirs(entry.root, dir ? dir.split('/') : []);
    let present = false;
    if (parent && lstatAt(parent, name)) {
      present = await holdsContent(parent, name, o.uid, entry);
      if (!present) throw new ArchiveError(`${dest} already exists; a restore never overwrites anything.`);
    }
    if (present) planned.present[i] = 1;
  }
  // Parents first (the manifest's order): a dir that exists already (as a plain dir of this user) is left as it is.
  for (const d of emptyDirs) {
    check(d, true);
    planDirs(d.root, d.relativePath.split('/'), d.mode & 0o777);
  }
  j.entries = planned;
  j.dirs = dirs;
  return restored;
}

/** Whether a root's dir is, or holds, another's (a path under one could then be a path under the other). */
function rootsNest(roots: Record<string, string>, labels: readonly string[]): boolean {
  const dirs = labels.map((l) => roots[l]).filter((d) => d !== undefined);
  // Each pair is met both ways round, so one startsWith covers both directions.
  // Stryker disable next-line ConditionalExpression,EqualityOperator,LogicalOperator: a nest found where there is none only keeps every destination to compare (see check).
  return dirs.some((a, i) => dirs.some((b, k) => k !== i && a.startsWith(b)));
}

/** A mode that keeps its owner from adding or removing entries: loosened before a rollback empties the dir. */
const locksOwnerOut = (mode: number | undefined): boolean => mode !== undefined && (mode & 0o300) !== 0o300;

/**
 * Creates the backup's empty dirs (planned in j.dirs, absent at the
 * preflight), then gives every dir the restore planned its mode and mtime,
 * deepest first, once nothing more is made in it: a dir without write
 * permission for its owner does not refuse its own children, and no later
 * mkdir or link moves a time already set. Existing dirs are not in j.dirs.
 */
function makeEmptyDirs(j: RestoreJournal, tree: AnchoredTree, planned: Set<string>, created: { root: string; path: string }[], moded: Set<string>): void {
  for (const d of j.dirs) {
    // Stryker disable next-line ConditionalExpression: a planned dir that is not empty holds a committed file, so it was made already.
    if (!d.empty) continue;
    const h = tree.dir(
      d.root,
      d.path,
      (rel) => planned.has(`${d.root}\0${rel}`),
      (rel) => created.push({ root: d.root, path: rel }),
    );
    // Stryker disable next-line ConditionalExpression,StringLiteral: a planned dir is made when missing, so tree.dir never answers null here.
    if (!h) throw new ArchiveError(`${tree.display(d.root, d.path)} could not be created; the restore stopped.`);
  }
  // Stryker disable next-line MethodExpression: every mkdir and link is done by now, and a chmod or utime of a dir moves no time of its parent.
  for (const d of [...j.dirs].reverse()) {
    if (d.mode === undefined && d.mtimeNs === undefined) continue;
    const h = tree.dir(d.root, d.path);
    // Stryker disable next-line ConditionalExpression,StringLiteral: every dir of j.dirs was just made or walked, so the tree answers from its cache.
    if (!h) throw new ArchiveError(`${tree.display(d.root, d.path)} disappeared during the restore; the restore stopped.`);
    if (d.mode !== undefined) {
      fchmodSync(h.fd, d.mode);
      // Every dir given a mode: loosen picks the ones that lock their owner out.
      moded.add(`${d.root}\0${d.path}`);
    }
    if (d.mtimeNs !== undefined) setMtime(h.fd, d.mtimeNs);
  }
}

/** Gives the owner back write access to the restrictive dirs a rollback is about to empty (each reached by handle). */
async function loosen(tree: AnchoredTree, dirs: readonly RestoreJournalDir[], only?: Set<string>): Promise<void> {
  for (const d of dirs) {
    if (!locksOwnerOut(d.mode) || (only && !only.has(`${d.root}\0${d.path}`))) continue;
    await withDir(tree, d.root, d.path, (h) => fchmodSync(h.fd, 0o700));
  }
}

/** The files this run committed, oldest first: journal index and the inode it linked (three numbers each, no object per file). */
interface Committed {
  at: number[];
  dev: number[];
  ino: number[];
}

/** Committed file `k`: where it is (from its journal entry) and which inode it was. */
function committedAt(j: RestoreJournal, c: Committed, k: number): { root: string; dir: string; name: string; id: { dev: number; ino: number } } {
  const e = j.entries.at(c.at[k]!)!;
  return { root: e.root, ...splitPath(e.path), id: { dev: c.dev[k]!, ino: c.ino[k]! } };
}

/**
 * Commits every entry not yet in place (`done` holds indexes a resume
 * observed in place). On an error it undoes this run's commits and dirs;
 * returns what it could not undo, or null on success.
 */
async function commitAll(
  j: RestoreJournal,
  tree: AnchoredTree,
  stage: DirHandle,
  done: Set<number>,
  beforeUndo?: () => Promise<void>,
): Promise<{ error: Error; message: string } | null> {
  const planned = new Set(j.dirs.map((d) => `${d.root}\0${d.path}`));
  const created: { root: string; path: string }[] = [];
  const committed: Committed = { at: [], dev: [], ino: [] };
  const moded = new Set<string>();
  try {
    for (let i = 0; i < j.entries.length; i++) {
      const e = j.entries.at(i)!;
      if (e.present || done.has(i)) continue;
      const { dir, name } = splitPath(e.path);
      const parent = tree.dir(
        e.root,
        dir,
        (rel) => planned.has(`${e.root}\0${rel}`),
        (rel) => created.push({ root: e.root, path: rel }),
      );
      if (!parent) throw new ArchiveError(`${tree.display(e.root, dir)} disappeared during the restore; the restore stopped.`);
      crashPoint(`restore:${i}:before`);
      failPoint(`restore:${i}:before`);
      let id: { dev: number; ino: number };
      try {
        id = await commitFile(stage, e.staged, parent, name, j.restoreId, i, e.mode, e.mtimeNs);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EEXIST')
          throw new ArchiveError(`${tree.display(e.root, e.path)} appeared during the restore; everything restored so far was removed again.`);
        throw err;
      }
      committed.at.push(i);
      committed.dev.push(id.dev);
      committed.ino.push(id.ino);
      tree.pin(e.root, dir, parent);
      crashPoint(`restore:${i}:after`);
      failPoint(`restore:${i}:after`);
    }
    // Before the modes are given: the fresh walk then meets the dirs as the commits left them (0700).
    const parents = new Set<string>();
    for (let k = 0; k < committed.at.length; k++) {
      const c = committedAt(j, committed, k);
      parents.add(`${c.root}\0${c.dir}`);
    }
    for (const k of parents) {
      const [root, dir] = k.split('\0') as [string, string];
      tree.verify(root, dir);
    }
    makeEmptyDirs(j, tree, planned, created, moded);
    crashPoint('restore:emptyDirs');
    failPoint('restore:emptyDirs');
    return null;
  } catch (err) {
    // Recorded first: a kill during the undo is finished as a rollback, not resumed.
    await beforeUndo?.().catch(() => undefined);
    await loosen(tree, j.dirs, moded);
    const left = await undo(tree, j, committed, created);
    if (!left.length) throw err;
    return {
      error: new ArchiveError(
        `${(err as Error).message} ${left.length} restored item(s) could not be removed again (first: ${left[0]}); the next cleanerx start or \`cleanerx backups restore\` finishes the clean-up.`,
      ),
      message: (err as Error).message,
    };
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Runs `f` with the parent dir of a rollback step. A walk that meets a
 * swapped ancestor is retried a few times (the swap may be undone); the
 * step is reported as left over when it never succeeds.
 */
async function withDir(tree: AnchoredTree, root: string, dir: string, f: (h: DirHandle) => void): Promise<boolean> {
  const pinned = tree.pinnedDir(root, dir);
  if (pinned) {
    try {
      f(pinned);
      return true;
    } catch {
      return false;
    }
  }
  // Stryker disable next-line EqualityOperator: 51 tries instead of 50.
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      const h = tree.dir(root, dir);
      if (!h) return true; // the dir is gone, and with it whatever was in it
      f(h);
      return true;
    } catch {
      tree.forget();
      await sleep(2);
    }
  }
  return false;
}

/** Removes committed files (newest first, only if still the committed inode), then created dirs (deepest first, only if empty). */
async function undo(tree: AnchoredTree, j: RestoreJournal, committed: Committed, created: { root: string; path: string }[]): Promise<string[]> {
  const left: string[] = [];
  for (let k = committed.at.length - 1; k >= 0; k--) {
    const c = committedAt(j, committed, k);
    // A file replaced by someone else since is not ours any more: uncommit leaves it alone.
    const ok = await withDir(tree, c.root, c.dir, (h) => void uncommit(h, c.name, c.id));
    if (!ok) left.push(tree.display(c.root, c.dir ? `${c.dir}/${c.name}` : c.name));
  }
  for (const d of created.reverse()) {
    const { dir, name } = splitPath(d.path);
    await withDir(tree, d.root, dir, (h) => removeCreatedDir(h, name));
  }
  return left;
}

// ---- settling interrupted restores --------------------------------------------------------

interface SettleOptions {
  journalDir: string;
  stagingParent: string;
  /**
   * The roots cleanerx allowlists for the agent now (label → dir), or a
   * sentence why the agent's data may not be written now (e.g. it is running).
   */
  rootsFor(agent: AgentKind): Promise<Record<string, string> | string>;
  /** 'resume' (default) finishes a restore whose staged copies are intact; 'rollback' undoes it. */
  mode?: 'resume' | 'rollback';
  /** Only this agent's restores. */
  agent?: AgentKind;
}

interface SettleOutcome {
  restoreId: string;
  agent: AgentKind | null;
  backupId: string | null;
  /** completed: every file is in place; rolledBack: nothing of it is left; discarded: it had written nothing; pending: left for later (see message); unknown: not a journal cleanerx can act on. */
  outcome: 'completed' | 'rolledBack' | 'discarded' | 'pending' | 'unknown';
  restored: string[];
  message: string;
}

/** Finishes or rolls back every restore a kill interrupted. Never throws for one restore; each outcome says what happened. */
export async function settlePendingRestores(o: SettleOptions): Promise<SettleOutcome[]> {
  const out: SettleOutcome[] = [];
  const journals = await listRestoreJournals(o.journalDir);
  if (!journals.some((f) => f.kind === 'unknown')) await removeOrphanStaging(o.stagingParent, o.journalDir);
  for (const f of journals) {
    if (f.kind === 'unknown') {
      out.push({
        restoreId: f.path,
        agent: null,
        backupId: null,
        outcome: 'unknown',
        restored: [],
        message: `${f.reason} Inspect ${f.path} and move it away; cleanerx leaves it alone.`,
      });
      continue;
    }
    const j = f.journal;
    if (o.agent && j.agent !== o.agent) continue;
    try {
      out.push(await settleOne(j, o));
    } catch (e) {
      out.push({
        restoreId: j.restoreId,
        agent: j.agent,
        backupId: j.backupId,
        outcome: 'pending',
        restored: [],
        message: `The interrupted restore ${j.restoreId} could not be settled yet: ${(e as Error).message}`,
      });
    }
  }
  return out;
}

/**
 * Staging dirs no journal names hold decrypted data nothing will use (left
 * by a restore killed before restores were journaled): removed. A journal is
 * written before its staging dir and removed after it, so the staging dir of
 * a restore running in another process always has its journal.
 */
async function removeOrphanStaging(parent: string, journalDir: string): Promise<void> {
  const names = await fsp.readdir(parent).catch(() => [] as string[]);
  for (const n of names) {
    const m = /^restore-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/.exec(n);
    if (!m) continue;
    const p = join(parent, n);
    // Stryker disable next-line ArrowFunction: undefined reads as null in `st?.isDirectory()`.
    const st = await fsp.lstat(p).catch(() => null);
    // Stryker disable next-line OptionalChaining: st is null only for a name gone between the readdir and the lstat, a race no in-process test can place.
    if (!st?.isDirectory()) continue;
    if (
      await fsp.lstat(restoreJournalPath(journalDir, m[1]!)).then(
        () => true,
        // Stryker disable next-line ArrowFunction: undefined is as falsy as false here.
        () => false,
      )
    )
      continue;
    await removeStaging(p);
  }
}

/** The root labels a journal's files are under. */
function journalRoots(j: RestoreJournal): Set<string> {
  const out = new Set<string>();
  for (let i = 0; i < j.entries.length; i++) out.add(j.entries.at(i)!.root);
  return out;
}

async function settleOne(j: RestoreJournal, o: SettleOptions): Promise<SettleOutcome> {
  const base = { restoreId: j.restoreId, agent: j.agent, backupId: j.backupId };
  if (j.staging !== join(o.stagingParent, stagingDirName(j.restoreId))) {
    return {
      ...base,
      outcome: 'unknown',
      restored: [],
      message: `The restore journal ${j.restoreId} names a staging dir outside cleanerx's own; it is left alone.`,
    };
  }
  const finish = async (): Promise<void> => {
    await removeStaging(j.staging);
    await removeRestoreJournal(o.journalDir, j.restoreId);
  };
  if (j.status === 'staging') {
    await finish();
    return {
      ...base,
      outcome: 'discarded',
      restored: [],
      message: 'An interrupted restore had not written anything to the agent yet; its staging was removed.',
    };
  }
  const dests = Array.from({ length: j.entries.length }, (_, i) => destOf(j.roots, j.entries.at(i)!.root, j.entries.at(i)!.path));
  if (j.status === 'committed') {
    await finish();
    return {
      ...base,
      outcome: 'completed',
      restored: dests,
      message: `An interrupted restore had put back all ${dests.length} files; its staging was removed.`,
    };
  }
  const now = await o.rootsFor(j.agent);
  if (typeof now === 'string') return { ...base, outcome: 'pending', restored: [], message: now };
  for (const [label, dir] of Object.entries(j.roots)) {
    if (journalRoots(j).has(label) && now[label] !== dir) {
      return {
        ...base,
        outcome: 'pending',
        restored: [],
        message: `The interrupted restore ${j.restoreId} wrote into ${dir}, which is no longer a root of this agent; restore that home setting to finish it.`,
      };
    }
  }
  const tree = new AnchoredTree(j.roots, j.uid);
  let stage: DirHandle | null = null;
  try {
    stage = await fsp
      .stat(j.staging)
      .then(() => openStaging(j.staging))
      .catch(
        // Stryker disable next-line ArrowFunction: an undefined stage reads as null everywhere below (`&& stage`, `stage ? … : null`, `stage?.close()`).
        () => null,
      );
    if (j.status === 'committing' && (o.mode ?? 'resume') === 'resume' && stage) {
      const r = await tryResume(j, tree, stage);
      if (r === true) {
        // Stryker disable next-line BooleanLiteral,CallExpression: fsync only, as in stagedNames (without it the finally's close(false) closes the handles).
        tree.close(true);
        j.status = 'committed';
        await saveRestoreJournal(o.journalDir, j, 'restore:resumed');
        stage.close();
        stage = null;
        await finish();
        return {
          ...base,
          outcome: 'completed',
          restored: dests,
          message: `The interrupted restore ${j.restoreId} was finished: all ${dests.length} files are in place.`,
        };
      }
      j.message = r;
    }
    if (j.status !== 'rollingBack') {
      j.status = 'rollingBack';
      await saveRestoreJournal(o.journalDir, j, 'restore:rollingBack');
    }
    const { left, kept } = await rollbackJournal(j, tree, stage);
    if (left.length)
      return {
        ...base,
        outcome: 'pending',
        restored: [],
        message: `The interrupted restore ${j.restoreId} is being rolled back, but ${left.length} item(s) could not be removed yet (first: ${left[0]}); cleanerx retries at the next start.`,
      };
    // Stryker disable next-line BooleanLiteral,CallExpression: fsync only, as in stagedNames (without it the finally's close(false) closes the handles).
    tree.close(true);
    stage?.close();
    stage = null;
    await finish();
    const what = kept.length
      ? `${kept.length} file(s) byte-identical to the backup stay in place (its staging was gone, so they cannot be told from yours), e.g. ${kept[0]}; a restore again counts them as restored`
      : 'nothing it had put back is left; the backup can be restored again';
    return {
      ...base,
      outcome: 'rolledBack',
      restored: [],
      message: `The interrupted restore ${j.restoreId} was rolled back${j.message ? ` (${j.message})` : ''}: ${what}.`,
    };
  } finally {
    stage?.close();
    // Stryker disable next-line BooleanLiteral: fsync only (the handles of a settle that went well are closed already).
    tree.close(false);
  }
}

/** True when the restore could be finished; otherwise the reason it has to be rolled back. */
async function tryResume(j: RestoreJournal, tree: AnchoredTree, stage: DirHandle): Promise<true | string> {
  const done = new Set<number>();
  for (let i = 0; i < j.entries.length; i++) {
    const e = j.entries.at(i)!;
    if (e.present) continue;
    const { dir, name } = splitPath(e.path);
    const dest = destOf(j.roots, e.root, e.path);
    const parent = tree.dir(e.root, dir);
    if (parent) {
      const part = lstatAt(parent, partialName(j.restoreId, i));
      if (part?.isFile()) unlinkAt(parent, partialName(j.restoreId, i));
      const st = lstatAt(parent, name);
      if (st) {
        const s = lstatAt(stage, e.staged);
        if ((s && s.dev === st.dev && s.ino === st.ino) || (await holdsContent(parent, name, j.uid, e))) {
          done.add(i);
          continue;
        }
        return `${dest} now holds other data`;
      }
    }
    if (!(await stagedIntact(stage, e))) return `the staged copy of ${dest} is missing or damaged`;
  }
  try {
    const left = await commitAll(j, tree, stage, done);
    return left ? left.message : true;
  } catch (e) {
    return (e as Error).message;
  }
}

async function stagedIntact(stage: DirHandle, e: RestoreJournalEntry): Promise<boolean> {
  const { openFileAt } = await import('../engine/host/anchored-fs.js');
  let fd: number;
  try {
    fd = openFileAt(stage, e.staged, C.O_RDONLY);
  } catch {
    return false;
  }
  try {
    if (!fstatSync(fd).isFile()) return false;
    const h = await hashFd(fd);
    return h.size === e.sizeBytes && h.sha256 === e.sha256;
  } finally {
    closeSync(fd);
  }
}

/** The dir handle for a rollback step: null when the dir is gone, undefined when it cannot be reached safely. */
async function dirFor(tree: AnchoredTree, root: string, dir: string): Promise<DirHandle | null | undefined> {
  let out: DirHandle | null | undefined;
  const ok = await withDir(tree, root, dir, (h) => {
    out = h;
  });
  if (!ok) return undefined;
  return out ?? null;
}

/** Undoes an interrupted restore: its files (proven its own), its partials, then its empty dirs. Returns what is left. */
async function rollbackJournal(j: RestoreJournal, tree: AnchoredTree, stage: DirHandle | null): Promise<{ left: string[]; kept: string[] }> {
  const left: string[] = [];
  const kept: string[] = [];
  // The journal cannot tell whether its modes were applied yet: a dir that locks its owner out is opened up before anything is removed from it.
  await loosen(tree, j.dirs);
  for (let i = j.entries.length - 1; i >= 0; i--) {
    const e = j.entries.at(i)!;
    if (e.present) continue;
    const { dir, name } = splitPath(e.path);
    const s = stage ? lstatAt(stage, e.staged) : null;
    const ok = await withDir(tree, e.root, dir, (h) => {
      const part = lstatAt(h, partialName(j.restoreId, i));
      if (part?.isFile()) unlinkAt(h, partialName(j.restoreId, i));
    });
    const h = ok ? await dirFor(tree, e.root, dir) : undefined;
    if (h === undefined) {
      left.push(destOf(j.roots, e.root, e.path));
      continue;
    }
    const st = h ? lstatAt(h, name) : null;
    if (!h || !st) continue;
    if (!s) {
      if (await holdsContent(h, name, j.uid, e)) kept.push(destOf(j.roots, e.root, e.path));
      continue;
    }
    // Ours: the very inode of the staged copy; or, when staging is on another filesystem (a copy was made), the manifest's content.
    if ((s.dev === st.dev && s.ino === st.ino) || (s.dev !== st.dev && (await holdsContent(h, name, j.uid, e)))) unlinkAt(h, name);
  }
  for (const d of [...j.dirs].reverse()) {
    const { dir, name } = splitPath(d.path);
    await withDir(tree, d.root, dir, (h) => removeCreatedDir(h, name));
  }
  return { left, kept };
}
