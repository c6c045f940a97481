// The metadata-only source revision of an item's owned tree, and its size,
// in one walk that never follows a link. The revision hashes names, sizes,
// mtimes, dev/inode, uid and mode — never contents — so a later mutation can
// prove the tree is what the scan saw. A link, a foreign owner or a mount
// boundary anywhere inside makes the item unsafe (read-only).

import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, type Stats } from 'node:fs';
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

export interface WalkOptions {
  /** Effective uid that must own every entry (-1 skips the check). */
  uid: number;
  maxEntries?: number;
  /**
   * The stat of `paths[0]` the caller already holds (an fstat of that regular
   * file opened with O_NOFOLLOW): the same fields the walk's lstat would see.
   */
  firstStat?: Stats;
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
  return createHash('sha256').update(entryLine(path, st)).digest('hex');
}

/** Walks each path (file or directory tree) without following links. Missing paths are skipped. */
export function walkOwned(paths: readonly string[], opts: WalkOptions): OwnedTree {
  const hash = createHash('sha256');
  const out: OwnedTree = { bytes: 0, files: 0, revision: null, newestMtime: 0 };
  const max = opts.maxEntries ?? 2_000_000;
  let seen = 0;
  const visit = (p: string, st: Stats, rootDev: number): void => {
    seen++;
    hash.update(entryLine(p, st));
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
    for (const name of names) {
      if (seen >= max) {
        out.unsafe ??= `${UNSAFE_REASON}: more than ${max} entries.`;
        return;
      }
      const child = `${p}/${name}`;
      let cst: Stats;
      try {
        cst = lstatSync(child);
      } catch {
        out.unsafe ??= `${UNSAFE_REASON}: ${child} changed during the scan.`;
        continue;
      }
      visit(child, cst, rootDev);
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
    visit(p, st, st.dev);
  }
  out.revision = hash.digest('hex');
  return out;
}
