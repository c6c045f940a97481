// Every regular file under an agent's home (and its other roots) belongs to
// exactly one inventory row. This walk measures the home as du -x would (lstat
// only, no link followed, one filesystem, each hard-linked inode once) and
// matches every file to the rows whose paths hold it. Files no row holds get
// read-only "not recognized" rows here, for every agent alike, so the user sees
// where the rest of the disk went; a file two rows hold is reported, never
// fixed here (that is the adapter's bug to fix). Nothing is opened: a
// protected file is counted by its lstat alone.
//
// The adapter has just walked most of these trees to size its rows; what its
// walks saw (Inventory.walkLog) is reused instead of asking the disk again.
// Every entry of a directory the adapter did not list, and every directory, is
// lstat'ed here; a listing is reused only while that lstat still shows the
// directory the adapter listed (dev, inode, size, mtime, ctime), so a folder
// replaced, or one with an entry added, removed or renamed, is walked afresh.
// A file inside a reused listing counts with the size the adapter's row saw.

import { lstatSync, readdirSync, type Stats } from 'node:fs';
import { dirname, relative } from 'node:path';
import type { Attribution, Installation, Inventory, Item, ScanWarning } from '../core/model.js';
import { cleanText } from '../core/text.js';
import { SEEN_DIR, SEEN_FILE, SEEN_NONE, type WalkLog } from '../core/walk-log.js';
import { WalkRecorder } from './revision.js';

/** More gap rows than this are folded into one (a list of thousands helps nobody). */
const GAP_ROWS_MAX = 400;
/** The walk stops counting beyond this many entries (bounded, like every scan). */
const ENTRIES_MAX = 5_000_000;
/** The double-counted paths kept as examples. */
const DOUBLE_EXAMPLES = 20;
const YIELD_EVERY = 8192;

export const UNRECOGNIZED_DEFAULT_WHY = 'cleanerx does not know this path, so it never guesses: listed with its size, never opened or removed.';

interface AttributeOptions {
  maxEntries?: number;
}

interface Gap {
  path: string;
  root: string;
  bytes: number;
  files: number;
  dir: boolean;
}

interface DirResult {
  /** A file of this subtree is held by a row, or a row's path lies inside it. */
  claimed: boolean;
  gaps: Gap[];
}

/**
 * Walks the roots, attributes every regular file, appends the "not
 * recognized" rows to `inv.items` and returns the figures (also set on
 * `inv.attribution`).
 */
export async function attributeInventory(inst: Installation, inv: Inventory, opts: AttributeOptions = {}): Promise<Attribution> {
  // This scan's record, used once: the snapshot that keeps the inventory does not keep it.
  const log: WalkLog = inv.walkLog ?? new WalkRecorder();
  delete inv.walkLog;
  const roots = distinctRoots([inst.home, ...(inv.attributionRoots ?? [])]);
  // A row is its index: the sessions first, then the items as the adapter listed them (the gap rows come after the walk).
  // A path one row holds maps to that row's number, not to an array of one: at 100k sessions ~10 MiB less at the scan's peak.
  const sessionRows = inv.sessions.length;
  const rowId = (r: number): string => (r < sessionRows ? inv.sessions[r]!.itemId : inv.items[r - sessionRows]!.id);
  const claims = new Map<string, number | number[]>();
  const heldBy = (p: string): number[] | undefined => {
    const v = claims.get(p);
    return typeof v === 'number' ? [v] : v;
  };
  /** Every directory above a row's path: such a directory is never folded into one gap row. */
  const aboveRows = new Set<string>();
  const claim = (p: string, row: number): void => {
    const k = trimSlash(p);
    const list = claims.get(k);
    if (list === undefined) claims.set(k, row);
    else if (typeof list === 'number') {
      if (list !== row) claims.set(k, [list, row]);
    } else if (!list.includes(row)) list.push(row);
    for (let d = dirname(k); d !== k && !aboveRows.has(d); ) {
      aboveRows.add(d);
      const up = dirname(d);
      if (up === d) break;
      d = up;
    }
  };
  for (let i = 0; i < sessionRows; i++) for (const p of inv.sessions[i]!.paths) claim(p, i);
  const unrecognizedRows = new Set<number>();
  for (let j = 0; j < inv.items.length; j++) {
    const it = inv.items[j]!;
    if (it.metadata.unrecognized === true) unrecognizedRows.add(sessionRows + j);
    for (const p of it.paths) claim(p, sessionRows + j);
  }

  const out: Attribution = {
    measure: 'allocated',
    roots,
    totalBytes: 0,
    totalFiles: 0,
    accountedBytes: 0,
    accountedFiles: 0,
    unrecognizedBytes: 0,
    unrecognizedFiles: 0,
    doubleCountedFiles: 0,
    doubleCounted: [],
    notWalked: [],
  };
  const maxEntries = opts.maxEntries ?? ENTRIES_MAX;
  const seenInodes = new Set<string>();
  let entries = 0;
  let capped = false;

  /** A second link to a counted inode counts nothing, as in du. */
  const fileOf = (path: string, slot: number, held: number[]): 'held' | 'gap' | 'again' => {
    if (log.nlink(slot) > 1) {
      const key = `${log.dev(slot)}:${log.ino(slot)}`;
      if (seenInodes.has(key)) return 'again';
      seenInodes.add(key);
    }
    const bytes = log.bytes(slot);
    out.totalBytes += bytes;
    out.totalFiles++;
    if (!held.length) return 'gap';
    if (held.length > 1) {
      out.doubleCountedFiles++;
      if (out.doubleCounted.length < DOUBLE_EXAMPLES) out.doubleCounted.push({ path, rows: held.map(rowId) });
    }
    if (unrecognizedRows.has(held[0]!)) {
      out.unrecognizedBytes += bytes;
      out.unrecognizedFiles++;
    } else {
      out.accountedBytes += bytes;
      out.accountedFiles++;
    }
    return 'held';
  };

  /** A fresh lstat of `p`; the adapter's slot when its walk saw this root unchanged (then its listing is reused). */
  const slotFor = (p: string, st: Stats): number => {
    const now = log.add(st);
    const before = log.slotOf(p);
    return before >= 0 && log.same(before, now) ? before : now;
  };
  const stillSame = (p: string, slot: number): number => {
    try {
      const now = log.add(lstatSync(p));
      return log.same(slot, now) ? slot : now;
    } catch {
      return -1;
    }
  };
  const statNow = (p: string): number => {
    try {
      return slotFor(p, lstatSync(p));
    } catch {
      return -1;
    }
  };

  const walk = async (dir: string, root: string, dev: number, inherited: number[], dirSlot: number): Promise<DirResult> => {
    const res: DirResult = { claimed: inherited.length > 0 || aboveRows.has(dir) || claims.has(dir), gaps: [] };
    const seen = log.listing(dirSlot);
    let names: readonly string[];
    if (seen) names = seen.names;
    else {
      try {
        names = readdirSync(dir).sort();
      } catch (e) {
        out.notWalked.push({
          path: dir,
          reason: `Could not read this directory (${(e as NodeJS.ErrnoException).code ?? 'error'}); its files are not counted.`,
        });
        return res;
      }
    }
    // The stats this walk takes itself are needed only while their entry is handled: freed before the next.
    const mark = log.mark();
    for (let i = 0; i < names.length; i++) {
      log.release(mark);
      const name = names[i]!;
      if (entries >= maxEntries) {
        if (!capped) out.notWalked.push({ path: dir, reason: `Stopped counting after ${maxEntries} entries; the rest is not counted.` });
        capped = true;
        return res;
      }
      if (++entries % YIELD_EVERY === 0) await new Promise((r) => setImmediate(r));
      // Concatenation, not join(): a name from readdir holds no separator, so there is nothing to normalise.
      const p = dir === '/' ? `/${name}` : `${dir}/${name}`;
      // Inside a listing the adapter took, its lstat of each file; of a directory, one now too (an entry
      // added or removed anywhere below shows in its own directory's identity); elsewhere one now.
      let slot = seen ? seen.first + i : -1;
      if (slot < 0 || log.kind(slot) === SEEN_NONE) slot = statNow(p);
      else if (log.kind(slot) === SEEN_DIR) slot = stillSame(p, slot);
      if (slot < 0) continue;
      const own = heldBy(p);
      const held = own ? (inherited.length ? [...new Set([...inherited, ...own])] : own) : inherited;
      const kind = log.kind(slot);
      if (kind === SEEN_DIR) {
        if (log.dev(slot) !== dev) {
          out.notWalked.push({ path: p, reason: 'On another filesystem; not counted (as du -x).' });
          continue;
        }
        const sub = await walk(p, root, dev, held, slot);
        if (sub.claimed) {
          res.claimed = true;
          res.gaps.push(...sub.gaps);
        } else if (sub.gaps.length) {
          let bytes = 0;
          let files = 0;
          for (const g of sub.gaps) {
            bytes += g.bytes;
            files += g.files;
          }
          res.gaps.push({ path: p, root, bytes, files, dir: true });
        }
      } else if (kind === SEEN_FILE) {
        const r = fileOf(p, slot, held);
        if (r === 'held') res.claimed = true;
        else if (r === 'gap') res.gaps.push({ path: p, root, bytes: log.bytes(slot), files: 1, dir: false });
      }
    }
    return res;
  };

  const gaps: Gap[] = [];
  const mark = log.mark();
  for (const root of roots) {
    log.release(mark);
    let st: Stats;
    try {
      st = lstatSync(root);
    } catch {
      continue;
    }
    if (!st.isDirectory()) {
      out.notWalked.push({ path: root, reason: st.isSymbolicLink() ? 'A symbolic link; not followed.' : 'Not a directory; not counted.' });
      continue;
    }
    const r = await walk(root, root, st.dev, heldBy(root) ?? [], slotFor(root, st));
    gaps.push(...r.gaps);
  }
  log.release(mark);

  const why = reasonsByPath(inv.warnings, roots);
  const items = gapItems(gaps, why);
  for (const it of items) {
    out.unrecognizedBytes += it.bytes;
    out.unrecognizedFiles += it.metadata.files as number;
  }
  inv.items.push(...items);
  inv.attribution = out;
  return out;
}

/** Each warning's reason under its path and every directory above it (the first warning wins). */
function reasonsByPath(warnings: readonly ScanWarning[], roots: readonly string[]): Map<string, string> {
  const m = new Map<string, string>();
  for (const w of warnings) {
    const root = roots.find((r) => w.path === r || w.path.startsWith(r + '/'));
    if (!root) continue;
    for (let p = trimSlash(w.path); ; p = dirname(p)) {
      if (!m.has(p)) m.set(p, w.reason);
      if (p === root || p.length <= root.length) break;
    }
  }
  return m;
}

function gapItems(gaps: Gap[], why: Map<string, string>): Item[] {
  let kept = gaps;
  let rest: Gap[] = [];
  if (gaps.length > GAP_ROWS_MAX) {
    const bySize = [...gaps].sort((a, b) => b.bytes - a.bytes || (a.path < b.path ? -1 : 1));
    kept = bySize.slice(0, GAP_ROWS_MAX - 1);
    rest = bySize.slice(GAP_ROWS_MAX - 1);
  }
  const items = kept.map((g) => {
    const reason = why.get(g.path) ?? UNRECOGNIZED_DEFAULT_WHY;
    return unrecognizedItem(
      `unrecognized:${g.path}`,
      cleanText(relative(g.root, g.path) || g.path, 200) + (g.dir ? '/' : ''),
      [g.path],
      g.bytes,
      g.files,
      reason,
    );
  });
  if (rest.length) {
    let bytes = 0;
    let files = 0;
    for (const g of rest) {
      bytes += g.bytes;
      files += g.files;
    }
    items.push(
      unrecognizedItem(
        'unrecognized:others',
        `${rest.length} other unrecognized entries`,
        rest.map((g) => g.path),
        bytes,
        files,
        UNRECOGNIZED_DEFAULT_WHY,
      ),
    );
  }
  return items;
}

/** A read-only row for files cleanerx does not recognize: its size and why, never selectable. */
function unrecognizedItem(id: string, label: string, paths: string[], bytes: number, files: number, why: string): Item {
  return {
    id,
    category: 'protected',
    label,
    subtitle: `Not recognized: ${files} ${files === 1 ? 'file' : 'files'}, read-only`,
    paths,
    bytes,
    risk: 'protected',
    recoverable: false,
    selectable: false,
    blockedReason: `Not recognized — ${why}`,
    metadata: { unrecognized: true, files },
  };
}

function distinctRoots(list: string[]): string[] {
  const out: string[] = [];
  for (const r of list.map(trimSlash)) {
    if (out.some((o) => r === o || r.startsWith(o + '/'))) continue;
    for (let i = out.length - 1; i >= 0; i--) if (out[i]!.startsWith(r + '/')) out.splice(i, 1);
    out.push(r);
  }
  return out;
}

function trimSlash(p: string): string {
  return p.length > 1 && p.endsWith('/') ? p.slice(0, -1) : p;
}
