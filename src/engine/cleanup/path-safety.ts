// Path safety for the file routes: a target must sit beneath a fixed,
// allowlisted root, reached without a symbolic link at any component, hold
// no link inside, belong to this user, stay on the root's filesystem, and
// neither be, lie under, nor contain a protected path. Its identity is
// captured at execution start and checked again right before removal, and
// removal itself goes through directory handles (anchored-fs.ts), never
// through a path resolved again.

import { lstatSync, readlinkSync, type Stats } from 'node:fs';
import { isAbsolute, normalize, sep } from 'node:path';
import {
  AnchoredError,
  anchoredSupported,
  lstatAt as lstatAtRaw,
  openChildDir,
  openTrustedDir,
  readdirAt,
  rmdirAt,
  sameIdentity,
  unlinkAt,
  type DirHandle,
} from '../host/anchored-fs.js';
import { fileRevision, walkOwned } from '../inventory/revision.js';

class UnsafePathError extends Error {}

export interface FileIdentity {
  path: string;
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  /** Metadata revision of the whole tree under the path. */
  revision: string;
}

export interface SafetyContext {
  roots: readonly string[];
  protectedPaths: readonly string[];
  uid: number;
}

const within = (child: string, parent: string): boolean => child === parent || child.startsWith(parent.endsWith(sep) ? parent : parent + sep);

/**
 * The lstat of the roots and of the directories above the targets, shared by
 * the captures of one preflight: a 1,000-file plan in one bucket asked the
 * same three directories a thousand times each. It lives for one pass only;
 * what the removal trusts is checked again through handles (removeAnchored).
 */
export type CaptureMemo = Map<string, Stats>;

/** Validates one target and captures its identity; throws UnsafePathError with a plain reason. */
export function captureIdentity(target: string, ctx: SafetyContext, memo?: CaptureMemo): FileIdentity {
  if (!isAbsolute(target)) throw new UnsafePathError(`Refusing a relative path: ${target}`);
  if (target.split(sep).includes('..') || normalize(target) !== target) throw new UnsafePathError(`Refusing a path with "..": ${target}`);
  const root = ctx.roots.find((r) => within(target, r) && target !== r);
  if (!root) throw new UnsafePathError(`${target} is outside the allowed roots.`);
  for (const p of ctx.protectedPaths) {
    if (within(target, p) || within(p, target)) throw new UnsafePathError(`${target} is or contains protected data (${p}).`);
  }
  const dirStat = (p: string): Stats => {
    if (!memo) return lstatOrThrow(p);
    const known = memo.get(p);
    if (known) return known;
    const st = lstatOrThrow(p);
    memo.set(p, st);
    return st;
  };
  const rootStat = dirStat(root);
  if (rootStat.isSymbolicLink()) throw new UnsafePathError(`The root ${root} is a symbolic link.`);
  // Every component from the root down to the target must be a real directory (or the target itself).
  const rel = target.slice(root.length + 1).split(sep);
  let cur = root;
  let st = rootStat;
  for (let i = 0; i < rel.length; i++) {
    cur = `${cur}${sep}${rel[i]}`;
    st = i < rel.length - 1 ? dirStat(cur) : lstatOrThrow(cur);
    if (st.isSymbolicLink()) throw new UnsafePathError(`${cur} is a symbolic link.`);
    if (i < rel.length - 1 && !st.isDirectory()) throw new UnsafePathError(`${cur} is not a directory.`);
    if (st.dev !== rootStat.dev) throw new UnsafePathError(`${cur} is on another filesystem than ${root}.`);
  }
  // The target's own lstat (the last component above) is the walk's first entry.
  const tree = walkOwned([target], { uid: ctx.uid, firstStat: st });
  if (tree.unsafe) throw new UnsafePathError(tree.unsafe);
  return { path: target, dev: st.dev, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, revision: tree.revision! };
}

/**
 * Handles on the directories that hold planned paths, opened once per run
 * from the allowlisted root down exactly as removeAnchored opens them (no
 * link followed, one filesystem), so that a bucket of 1,000 files is not
 * walked from `/` 1,000 times. A handle is handed out again only while the
 * kernel still names it by the path it was opened at (readlink of
 * /proc/self/fd/<fd>, which tracks every rename of it or of any ancestor):
 * a bucket moved away, or swapped for a link, between two files of a batch
 * is not used again, and the caller falls back to the full walk from the
 * root, which then refuses the link or misses the moved file.
 */
export class ParentHandles {
  private readonly held = new Map<string, { h: DirHandle; rootDev: number; where: string }>();
  /**
   * The path whose revalidation just checked its parent's place: its removal
   * follows with nothing in between but a crash point, and uses that check
   * instead of asking the kernel again. Any other call forgets it.
   */
  private vouched: { path: string; entry: { h: DirHandle; rootDev: number } } | null = null;

  constructor(private readonly max = 32) {}

  /** The held handle on `dir` (below `root`), or null when it cannot be vouched for: the caller takes the slow path. */
  get(dir: string, root: string): { h: DirHandle; rootDev: number } | null {
    this.vouched = null;
    const got = this.held.get(dir);
    if (got) {
      if (whereNow(got.h) === got.where) return got;
      this.held.delete(dir);
      got.h.close();
      return null;
    }
    const opened = openBelowRoot(dir, root);
    if (!opened) return null;
    const where = whereNow(opened.h);
    // Only a race between the open above and its readlink makes the kernel unable to name it.
    // Stryker disable all: a fresh handle is unnamed or deleted only if its directory goes between the open and this readlink, which no test can schedule
    if (where === null || where.endsWith(' (deleted)')) {
      opened.h.close();
      return null;
    }
    // Stryker restore all
    if (this.held.size >= this.max) this.close();
    const entry = { ...opened, where };
    this.held.set(dir, entry);
    return entry;
  }

  /** Records that `path` was just revalidated through `entry`. */
  vouch(path: string, entry: { h: DirHandle; rootDev: number }): void {
    this.vouched = { path, entry };
  }

  /** The handle `path`'s revalidation just used, once; else the same as get(). */
  forRemoval(path: string, dir: string, root: string): { h: DirHandle; rootDev: number } | null {
    const v = this.vouched;
    this.vouched = null;
    if (v && v.path === path && this.held.get(dir)?.h === v.entry.h) return v.entry;
    return this.get(dir, root);
  }

  close(): void {
    for (const { h } of this.held.values()) h.close();
    this.held.clear();
    this.vouched = null;
  }
}

/** Where the kernel says the handle's directory is now; null when it cannot say. */
function whereNow(h: DirHandle): string | null {
  try {
    // Stryker disable BlockStatement: a handle's readlink fails only once the handle is closed, which ParentHandles never lets happen to one it holds
    return readlinkSync(h.path);
  } catch {
    // Stryker restore BlockStatement
    return null;
  }
}

/** A handle on `dir`, opened from `root` down the way removeAnchored does; null on any refusal (the slow path words it). */
function openBelowRoot(dir: string, root: string): { h: DirHandle; rootDev: number } | null {
  if (!anchoredSupported() || !within(dir, root)) return null;
  const rel = dir === root ? [] : dir.slice(root.length + (root.endsWith(sep) ? 0 : 1)).split(sep);
  let cur: DirHandle | undefined;
  try {
    cur = openTrustedDir(root);
    const rootDev = cur.stat().dev;
    for (const c of rel) {
      const next: DirHandle = openChildDir(cur, c);
      cur.close();
      cur = next;
      if (cur.stat().dev !== rootDev) {
        cur.close();
        return null;
      }
    }
    return { h: cur, rootDev };
  } catch {
    cur?.close();
    return null;
  }
}

const rootOf = (target: string, ctx: SafetyContext): string | undefined => ctx.roots.find((r) => within(target, r) && target !== r);

/**
 * A regular file still exactly as captured, seen through its parent's held
 * handle: the same answer the full revalidate would give, from one readlink
 * and one lstat. Anything else (a directory, whose revision needs its tree
 * walked, a link, a change) says false, and the full revalidate words it.
 */
function sameFileAt(id: FileIdentity, ctx: SafetyContext, parents: ParentHandles): boolean {
  const root = rootOf(id.path, ctx);
  if (!root) return false;
  const cut = id.path.lastIndexOf(sep);
  const p = parents.get(id.path.slice(0, cut), root);
  // Stryker disable next-line ConditionalExpression: a null p throws in the try below, which says false too
  if (!p) return false;
  let st: Stats | null;
  try {
    // Stryker disable BlockStatement: an empty catch leaves st undefined, which the isFile() test below turns into the same false
    st = lstatAtRaw(p.h, id.path.slice(cut + 1));
  } catch {
    // Stryker restore BlockStatement
    return false;
  }
  if (!st?.isFile() || st.dev !== p.rootDev || (ctx.uid >= 0 && st.uid !== ctx.uid)) return false;
  // The revision hashes the entry's dev, ino, size, mtime, uid and mode: equal revisions, equal fields.
  if (fileRevision(id.path, st) !== id.revision) return false;
  parents.vouch(id.path, p);
  return true;
}

/** Throws when the path is no longer exactly what was captured. */
export function revalidate(id: FileIdentity, ctx: SafetyContext, parents?: ParentHandles): void {
  if (parents && sameFileAt(id, ctx, parents)) return;
  let now: FileIdentity;
  try {
    now = captureIdentity(id.path, ctx);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new UnsafePathError(`${id.path} is gone; target changed after scan.`);
    throw e;
  }
  // The revision's first line is the target's own dev, ino, size and mtime: equal revisions, equal fields.
  if (now.revision !== id.revision) throw new UnsafePathError(`Target changed after scan: ${id.path}.`);
}

/**
 * Removes a planned path through directory handles opened from its
 * allowlisted root down without following a link: every component, the
 * target and every directory inside it are opened by name under the handle
 * of their parent and checked (dev/ino) against what was seen, and every
 * unlink or rmdir names one entry of an open handle. A rename or swap of
 * any ancestor mid-run can therefore not redirect it; the removal stops
 * with a plain error instead, having removed only entries of the planned tree.
 */
export function removeAnchored(id: FileIdentity, ctx: SafetyContext, afterFirstEntry?: () => void, parents?: ParentHandles): void {
  const root = rootOf(id.path, ctx);
  if (!root) throw new UnsafePathError(`${id.path} is outside the allowed roots.`);
  const rel = id.path.slice(root.length + (root.endsWith(sep) ? 0 : 1)).split(sep);
  const name = rel.pop()!;
  const held: DirHandle[] = [];
  try {
    let parent: DirHandle;
    let dev: number;
    const kept = parents?.forRemoval(id.path, id.path.slice(0, id.path.lastIndexOf(sep)), root);
    if (kept) {
      parent = kept.h;
      dev = kept.rootDev;
    } else {
      const rootH = anchored(() => openTrustedDir(root));
      held.push(rootH);
      dev = rootH.stat().dev;
      parent = rootH;
      for (const c of rel) {
        const up: DirHandle = parent;
        parent = anchored(() => openChildDir(up, c));
        held.push(parent);
        if (parent.stat().dev !== dev) throw new UnsafePathError(`${parent.display} is on another filesystem than ${root}.`);
      }
    }
    const st = lstatAt(parent, name);
    if (!st) throw Object.assign(new UnsafePathError(`${id.path} is gone; target changed after scan.`), { code: 'ENOENT' });
    if (!sameIdentity(st, id)) throw new UnsafePathError(`${id.path} was replaced after the scan; nothing more was removed.`);
    if (!st.isDirectory()) {
      anchored(() => unlinkAt(parent, name));
      return;
    }
    let first = afterFirstEntry;
    removeDirAt(parent, name, st, dev, () => {
      const f = first;
      first = undefined;
      f?.();
    });
  } finally {
    for (const h of held) h.close();
  }
}

/** Empties and removes the directory `name` of `parent`, which must still be the one seen as `seen`. */
function removeDirAt(parent: DirHandle, name: string, seen: { dev: number; ino: number }, dev: number, removed: () => void): void {
  const h = anchored(() => openChildDir(parent, name));
  try {
    // Stryker disable next-line ConditionalExpression,CallExpression,StringLiteral: only a swap between the caller's lstat and this open, with nothing of ours in between, trips it
    if (!sameIdentity(h.stat(), seen)) throw new UnsafePathError(`${h.display} was swapped during the removal; it stopped there.`);
    for (const child of anchored(() => readdirAt(h))) {
      const cst = lstatAt(h, child);
      if (!cst) continue;
      if (cst.dev !== dev) throw new UnsafePathError(`${h.display}/${child} is on another filesystem; the removal stopped there.`);
      if (cst.isDirectory()) removeDirAt(h, child, cst, dev, removed);
      else {
        anchored(() => unlinkAt(h, child));
        removed();
      }
    }
  } finally {
    h.close();
  }
  // The name must still hold the directory just emptied, not something swapped in meanwhile.
  const again = lstatAt(parent, name);
  if (!again || !sameIdentity(again, seen) || !again.isDirectory())
    throw new UnsafePathError(`${parent.display}/${name} was moved or swapped during the removal; it stopped there.`);
  anchored(() => rmdirAt(parent, name));
}

/** Runs an anchored operation; its refusals become UnsafePathError with the same plain message. */
function anchored<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    // Stryker disable next-line ConditionalExpression: the operations run here throw nothing but AnchoredError short of a kernel fault
    if (e instanceof AnchoredError) {
      // Stryker disable next-line StringLiteral: every AnchoredError the removal can meet ends with "."; the check keeps a future one whole
      const dotted = e.message.endsWith('.');
      throw Object.assign(new UnsafePathError(dotted ? `${e.message.slice(0, -1)}; the removal stopped there.` : e.message), { code: e.code });
    }
    throw e;
  }
}

/**
 * What is at a planned path now, compared with the identity captured before
 * the run: `intact` (same entry, same tree revision), `missing`, `changed`
 * (the same entry, but its tree differs: partly removed or written since),
 * or `replaced` (another entry at the name, or a link or non-directory on
 * the way to it). Read-only; the parent is reached through handles.
 */
export type PathState = 'intact' | 'missing' | 'changed' | 'replaced';

type Pre = { dev: number; ino: number; revision?: string } | undefined;

export function observePath(path: string, pre: Pre, uid: number): PathState {
  // Stryker disable next-line BooleanLiteral,ConditionalExpression: on Linux both routes give the same answer; only a host without /proc takes the other
  if (!anchoredSupported()) return observeByPath(path, pre, uid);
  const cut = path.lastIndexOf(sep);
  const name = path.slice(cut + 1);
  let parent: DirHandle;
  try {
    parent = openTrustedDir(path.slice(0, cut) || sep);
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === 'ENOENT') return 'missing';
    if (code === 'ELOOP' || code === 'ENOTDIR') return 'replaced';
    throw e;
  }
  try {
    const st = lstatAtRaw(parent, name);
    return st ? comparedWithPre(st, path, pre, uid) : 'missing';
  } finally {
    parent.close();
  }
}

/** The entry `st` found at `path`, against what was captured before the run. */
function comparedWithPre(st: Stats, path: string, pre: Pre, uid: number): PathState {
  if (!pre) return 'intact';
  if (!sameIdentity(st, pre)) return 'replaced';
  if (pre.revision === undefined) return 'intact';
  // Stryker disable next-line ObjectLiteral: only the revision is read, and the uid changes walkOwned's unsafe, never its revision
  return walkOwned([path], { uid }).revision === pre.revision ? 'intact' : 'changed';
}

/** Where handles cannot anchor (no /proc): the same answer from lstat of every component; read-only, so a race only blurs it. */
export function observeByPath(path: string, pre: Pre, uid: number): PathState {
  // Stryker disable next-line MethodExpression: an empty first component makes cur "/", then "//a", the same entries to lstat
  const parts = path.split(sep).filter(Boolean);
  let cur = '';
  for (const [i, part] of parts.entries()) {
    cur += sep + part;
    let st: Stats;
    try {
      st = lstatSync(cur);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
      throw e;
    }
    if (i === parts.length - 1) return comparedWithPre(st, path, pre, uid);
    if (st.isSymbolicLink() || !st.isDirectory()) return 'replaced';
  }
  // Stryker disable next-line StringLiteral: only "/" itself, no planned path, has no component to look at
  return 'missing';
}

const lstatAt = (dir: DirHandle, name: string): Stats | null => anchored(() => lstatAtRaw(dir, name));

function lstatOrThrow(p: string): Stats {
  try {
    return lstatSync(p);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'ENOENT') throw Object.assign(new UnsafePathError(`${p} does not exist.`), { code: 'ENOENT' });
    // Stryker disable next-line StringLiteral: every error lstatSync throws carries a code
    const code = err.code ?? 'error';
    throw new UnsafePathError(`${p} cannot be checked (${code}).`);
  }
}
