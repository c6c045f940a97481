// The metadata-only source revision of an item's owned tree, and its size,
// in one walk that never follows a link. The revision hashes names, sizes,
// mtimes, dev/inode, uid and mode — never contents — so a later mutation can
// prove the tree is what the scan saw. A link, a foreign owner or a mount
// boundary anywhere inside makes the item unsafe (read-only).

import { createHash, type Hash, hash } from 'node:crypto';
import { lstatSync, readdirSync, type Stats } from 'node:fs';
import { SEEN_DIR, SEEN_FILE, SEEN_NONE, SEEN_OTHER, type SeenListing, type WalkLog } from '../core/walk-log.js';
import { allocatedBytes } from '../host/fsx.js';

export const UNSAFE_REASON = 'Linked, foreign-owned, or unstable data cannot be cleaned';

export interface OwnedTree {
  bytes: number;
  files: number;
  revision: string | null;
  newestMtime: number;
  /** Why the tree must stay read-only, when it must. */
  unsafe?: string;
}

interface WalkOptions {
  /** Effective uid that must own every entry (-1 skips the check). */
  uid: number;
  maxEntries?: number;
  /**
   * The stat of `paths[0]` the caller already holds (an fstat of that regular
   * file opened with O_NOFOLLOW): the same fields the walk's lstat would see.
   */
  firstStat?: Stats;
  /** Where this scan keeps what its walks saw, for the attribution walk to reuse (Inventory.walkLog). */
  log?: WalkRecorder;
}

/** Fields per slot: kind, dev, ino, nlink, allocated bytes, mtimeMs, ctimeMs, size. */
const F = 8;

/**
 * One scan's record of its walks: every entry a walk stat'ed, packed in one
 * Float64Array (no Stats kept), every directory it listed with the names in
 * the order walked, and the walks' roots by path.
 */
export class WalkRecorder implements WalkLog {
  private buf = new Float64Array(F * 8192);
  private used = 0;
  private readonly roots = new Map<string, number>();
  private readonly listings = new Map<number, SeenListing>();
  /** Entries of the listings the adapter took itself (listedDir), by path: a walk of one fills its slot. */
  private readonly entries = new Map<string, number>();

  /** `n` consecutive slots, not stat'ed yet (kind SEEN_NONE). */
  reserve(n: number): number {
    const first = this.used;
    this.used += n;
    if (this.used * F > this.buf.length) {
      const grown = new Float64Array(Math.max(this.buf.length * 2, this.used * F));
      grown.set(this.buf);
      this.buf = grown;
    }
    return first;
  }

  put(slot: number, st: Stats): void {
    const b = this.buf;
    const o = slot * F;
    b[o] = st.isDirectory() ? SEEN_DIR : st.isFile() ? SEEN_FILE : SEEN_OTHER;
    b[o + 1] = st.dev;
    b[o + 2] = st.ino;
    b[o + 3] = st.nlink;
    b[o + 4] = allocatedBytes(st);
    b[o + 5] = st.mtimeMs;
    b[o + 6] = st.ctimeMs;
    b[o + 7] = st.size;
  }

  add(st: Stats): number {
    const slot = this.reserve(1);
    this.put(slot, st);
    return slot;
  }

  mark(): number {
    return this.used;
  }

  release(mark: number): void {
    if (mark >= this.used) return;
    this.buf.fill(0, mark * F, this.used * F);
    this.used = mark;
  }

  /**
   * A walk's root (the last walk of a path wins). A root that is an entry of a listing taken with
   * listedDir goes to that entry's slot: the attribution walk then needs no stat of its own for it.
   */
  root(path: string, st: Stats): number {
    const at = this.entries.get(path);
    const slot = at ?? this.add(st);
    if (at !== undefined) this.put(at, st);
    this.roots.set(path, slot);
    return slot;
  }

  /**
   * A directory the adapter listed itself, `st` its lstat taken before the listing: its entries get
   * slots (not stat'ed yet) that the adapter's walks and reads fill, and the attribution walk reuses
   * the listing while the directory still has that identity.
   */
  listedDir(dir: string, st: Stats, names: readonly string[]): void {
    const first = this.reserve(names.length);
    this.listed(this.root(dir, st), names, first);
    for (let i = 0; i < names.length; i++) this.entries.set(`${dir}/${names[i]}`, first + i);
  }

  listed(slot: number, names: readonly string[], first: number): void {
    this.listings.set(slot, { names, first });
  }

  slotOf(path: string): number {
    return this.roots.get(path) ?? -1;
  }

  same(a: number, b: number): boolean {
    if (a === b) return true;
    const x = this.buf;
    const i = a * F;
    const j = b * F;
    return (
      x[i] !== SEEN_NONE &&
      x[i] === x[j] &&
      x[i + 1] === x[j + 1] &&
      x[i + 2] === x[j + 2] &&
      x[i + 5] === x[j + 5] &&
      x[i + 6] === x[j + 6] &&
      x[i + 7] === x[j + 7]
    );
  }

  listing(slot: number): SeenListing | undefined {
    return this.listings.get(slot);
  }

  kind(slot: number): number {
    return this.buf[slot * F]!;
  }
  dev(slot: number): number {
    return this.buf[slot * F + 1]!;
  }
  ino(slot: number): number {
    return this.buf[slot * F + 2]!;
  }
  nlink(slot: number): number {
    return this.buf[slot * F + 3]!;
  }
  bytes(slot: number): number {
    return this.buf[slot * F + 4]!;
  }
}

/** What the revision hashes for one entry: metadata only, never contents. */
function entryLine(p: string, st: Stats): string {
  return `${p}\0${st.size}\0${st.mtimeMs}\0${st.dev}\0${st.ino}\0${st.uid}\0${st.mode}\n`;
}

/**
 * The revision `walkOwned([file], …)` would compute for one regular file,
 * from a stat the caller already holds (an fstat of the same open file gives
 * the same fields as the walk's lstat). An adapter that opened the file with
 * O_NOFOLLOW and checked its owner can record this instead of having the
 * engine walk every file again after the scan.
 */
export function fileRevision(path: string, st: Stats): string {
  // The one-shot digest: the same SHA-256 without a Hash object per file (~3× cheaper over a pi store's 11k files).
  return hash('sha256', entryLine(path, st), 'hex');
}

/** Walks each path (file or directory tree) without following links. Missing paths are skipped. */
export function walkOwned(paths: readonly string[], opts: WalkOptions): OwnedTree {
  // Most trees are a file or two: their lines are hashed in one shot; a Hash object only once they outgrow a run.
  let hasher: Hash | null = null;
  const out: OwnedTree = { bytes: 0, files: 0, revision: null, newestMtime: 0 };
  const max = opts.maxEntries ?? 2_000_000;
  const log = opts.log;
  let seen = 0;
  // The entry lines go to the hash in runs, not one native call each (the digest of the concatenation is the same).
  let lines = '';
  const visit = (p: string, st: Stats, rootDev: number, slot: number): void => {
    seen++;
    lines += entryLine(p, st);
    if (lines.length > 32_768) {
      hasher ??= createHash('sha256');
      hasher.update(lines);
      lines = '';
    }
    out.bytes += allocatedBytes(st);
    if (st.mtimeMs > out.newestMtime) out.newestMtime = st.mtimeMs;
    if (st.isSymbolicLink()) out.unsafe ??= `${UNSAFE_REASON}: ${p} is a symbolic link.`;
    else if (opts.uid >= 0 && st.uid !== opts.uid) out.unsafe ??= `${UNSAFE_REASON}: ${p} belongs to another user.`;
    else if (st.dev !== rootDev) out.unsafe ??= `${UNSAFE_REASON}: ${p} is on another filesystem.`;
    if (!st.isDirectory() || st.isSymbolicLink()) {
      if (st.isFile()) out.files++;
      return;
    }
    let names: string[];
    try {
      names = readdirSync(p).sort();
    } catch {
      out.unsafe ??= `${UNSAFE_REASON}: ${p} cannot be listed.`;
      return;
    }
    // The listing is recorded before its entries are stat'ed: one the walk stops before stays SEEN_NONE.
    const first = log ? log.reserve(names.length) : -1;
    if (log) log.listed(slot, names, first);
    for (let i = 0; i < names.length; i++) {
      if (seen >= max) {
        out.unsafe ??= `${UNSAFE_REASON}: more than ${max} entries.`;
        return;
      }
      const child = `${p}/${names[i]}`;
      let cst: Stats;
      try {
        cst = lstatSync(child);
      } catch {
        out.unsafe ??= `${UNSAFE_REASON}: ${child} changed during the scan.`;
        continue;
      }
      if (log) log.put(first + i, cst);
      visit(child, cst, rootDev, first + i);
    }
  };
  for (let i = 0; i < paths.length; i++) {
    const p = paths[i]!;
    let st: Stats;
    if (i === 0 && opts.firstStat) st = opts.firstStat;
    else {
      try {
        st = lstatSync(p);
      } catch {
        continue;
      }
    }
    visit(p, st, st.dev, log ? log.root(p, st) : -1);
  }
  out.revision = hasher ? (hasher as Hash).update(lines).digest('hex') : hash('sha256', lines, 'hex');
  return out;
}
