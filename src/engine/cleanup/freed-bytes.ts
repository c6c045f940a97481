// How much disk space a cleanup gave back, measured rather than promised.
// Around the executor's run: statfs of every filesystem the plan touches,
// and the allocated size (st_blocks × 512, lstat, no link followed) of
// every planned path and of each database an item changes in place (with
// its -wal/-shm/-journal), once before and once after. What the removed
// data took is the allocation that went away; what was freed is the
// filesystem's own free-space difference. When freed and promised differ
// by more than 5%, the result names why, as codes (the JSON stays
// language-neutral; the result screen says each in a sentence).
//
// Why both figures: statfs alone cannot tell our deletions from another
// process's writes on a busy disk, and st_blocks alone cannot see space a
// hard link or an open descriptor keeps. Their difference is the evidence
// for "another process wrote meanwhile".

import { lstatSync, readdirSync, statfsSync, type Stats } from 'node:fs';
import { dirname, join } from 'node:path';
import type { CleanupPlan, ExecuteResult, FilesystemFreed, FreedBytes, FreedExplanation } from '../core/model.js';

/** A difference up to this share of the larger figure needs no explanation. */
export const FREED_TOLERANCE = 0.05;
/** Entries walked per planned tree at most (a larger tree is measured by statfs only beyond it). */
const MAX_ENTRIES = 500_000;
const DB_SIDES = ['-wal', '-shm', '-journal'];
const DB_NAME = /\.(sqlite|sqlite3|db)$/;

interface Tally {
  /** st_blocks × 512 of entries with one link (their space goes with them). */
  allocated: number;
  /** …of regular files with more links (another name keeps their data). */
  linked: number;
  /** Apparent size of regular files. */
  apparent: number;
  /** Of `apparent`: the part sparse files never allocated. */
  holes: number;
}

const zero = (): Tally => ({ allocated: 0, linked: 0, apparent: 0, holes: 0 });

// Synchronous on purpose: the engine runs in a worker or a CLI command, and a
// 1,000-file plan's awaited thread-pool round trips cost more than its lstats.
function lstatOrNull(p: string): Stats | null {
  try {
    // Stryker disable next-line ObjectLiteral,BooleanLiteral: without it a missing entry throws ENOENT, which the catch turns into the same null
    // Stryker disable BlockStatement: an empty catch returns undefined, which reads as null at every caller (`!top`, `if (cst)`, `st?.`, `?.dev ?? null`)
    return lstatSync(p, { throwIfNoEntry: false }) ?? null;
  } catch {
    // Stryker restore BlockStatement
    return null;
  }
}

/** The allocation of one tree, never following a link nor leaving the filesystem it starts on. */
function tally(root: string): Tally {
  const out = zero();
  const top = lstatOrNull(root);
  if (!top) return out;
  const stack: [string, Stats][] = [[root, top]];
  let seen = 0;
  while (stack.length && seen < MAX_ENTRIES) {
    const [p, st] = stack.pop()!;
    seen++;
    const bytes = st.blocks * 512;
    if (st.isFile()) {
      out.apparent += st.size;
      // Stryker disable next-line EqualityOperator: at bytes === size the hole added is 0 (`>=` goes too; → true is held)
      if (bytes < st.size) out.holes += st.size - bytes;
      if (st.nlink > 1) out.linked += bytes;
      else out.allocated += bytes;
    } else out.allocated += bytes;
    if (!st.isDirectory() || st.dev !== top.dev) continue;
    let names: string[];
    try {
      names = readdirSync(p);
    } catch {
      // Stryker disable next-line ArrayDeclaration: any name put here lstats as missing below and is skipped
      names = [];
    }
    for (const n of names) {
      const c = join(p, n);
      const cst = lstatOrNull(c);
      if (cst) stack.push([c, cst]);
    }
  }
  return out;
}

/** The nearest existing directory at or above `p`, with its device; `seen` answers a directory asked before in the same measurement. */
function anchor(p: string, seen: Map<string, { dir: string; dev: number } | null>): { dir: string; dev: number } | null {
  const start = dirname(p);
  // Stryker disable next-line ConditionalExpression: a cache only; the walk again gives the same answer within one measurement (→ true, on the same line, is killed)
  if (seen.has(start)) return seen.get(start)!;
  let found: { dir: string; dev: number } | null = null;
  for (let cur = start; ; cur = dirname(cur)) {
    const st = lstatOrNull(cur);
    if (st?.isDirectory()) {
      found = { dir: cur, dev: st.dev };
      break;
    }
    // Stryker disable next-line ConditionalExpression: "/" (or "." for a relative path) is a directory, so the walk always stops above first (→ true, on the same line, is killed)
    if (cur === dirname(cur)) break;
  }
  // Stryker disable next-line CallExpression: a cache only (as above)
  seen.set(start, found);
  return found;
}

function freeBytes(dir: string): number | null {
  try {
    const s = statfsSync(dir);
    return s.bavail * s.bsize;
  } catch {
    return null;
  }
}

interface Target {
  path: string;
  /** What the plan promised for the item owning it, spread over its targets. */
  promised: number;
  /** A database changed in place: its staying behind is expected. */
  database: boolean;
  before: Tally;
}

export interface FreedBaseline {
  promised: number;
  targets: Target[];
  filesystems: Map<number, { dir: string; freeBefore: number | null }>;
  devOf: Map<string, number>;
}

/** What an item changes without removing it: a database (its file and side files), or a tree such as a git repository a gc rewrites. */
export interface InPlaceTarget {
  path: string;
  kind: 'database' | 'tree';
}

/**
 * Before the executor runs. `inPlace` maps an item id to what it changes in
 * place (an item metadata's `dbPath` or `measureTree`): that is measured
 * instead of (absent) paths.
 */
export async function measureBefore(plan: CleanupPlan, inPlace: ReadonlyMap<string, InPlaceTarget> = new Map()): Promise<FreedBaseline> {
  const targets: Target[] = [];
  const seen = new Set<string>();
  for (const item of plan.items) {
    const at = inPlace.get(item.id);
    const db = at?.kind === 'database' ? at.path : undefined;
    const tree = at?.kind === 'tree' ? [at.path] : [];
    const paths = [...item.paths, ...tree, ...(db ? [db, ...DB_SIDES.map((s) => db + s)] : [])].filter((p) => !seen.has(p));
    for (const p of paths) seen.add(p);
    const share = paths.length ? item.bytes / paths.length : 0;
    for (const path of paths) targets.push({ path, promised: share, database: Boolean(db) || DB_NAME.test(path), before: tally(path) });
    // An item with nothing to measure still promised its bytes: they count on the first filesystem.
    if (!paths.length && targets.length) targets[0]!.promised += item.bytes;
  }
  const filesystems = new Map<number, { dir: string; freeBefore: number | null }>();
  const devOf = new Map<string, number>();
  const anchors = new Map<string, { dir: string; dev: number } | null>();
  for (const t of targets) {
    const a = anchor(t.path, anchors);
    // Stryker disable next-line ConditionalExpression: anchor() always finds a directory, so a is never null here (→ true, on the same line, is killed)
    if (!a) continue;
    devOf.set(t.path, a.dev);
    if (!filesystems.has(a.dev)) filesystems.set(a.dev, { dir: a.dir, freeBefore: freeBytes(a.dir) });
  }
  return { promised: plan.estimatedBytes, targets, filesystems, devOf };
}

const beyond = (a: number, b: number): boolean => Math.abs(a - b) > FREED_TOLERANCE * Math.max(Math.abs(a), Math.abs(b), 1);

interface AfterOptions {
  /** The backup written during the run (its archive takes space on its own filesystem). */
  backup?: { path: string; bytes: number };
}

/** After the executor's run: the figures per filesystem, and why they differ from the promise. */
export async function measureAfter(base: FreedBaseline, result: ExecuteResult, opts: AfterOptions = {}): Promise<FreedBytes> {
  const why = new Set<FreedExplanation>();
  const perDev = new Map<number, { promised: number; allocated: number }>();
  let hardLinked = false;
  let holes = 0;
  let apparent = 0;
  let databaseKept = false;
  for (const t of base.targets) {
    const after = tally(t.path);
    const dev = base.devOf.get(t.path);
    const removed = Math.max(0, t.before.allocated - after.allocated);
    // Stryker disable next-line ConditionalExpression: every target has a dev (anchor() always finds a directory); an undefined key would be read by no filesystem (→ false, on the same line, is killed)
    if (dev !== undefined) {
      const d = perDev.get(dev) ?? { promised: 0, allocated: 0 };
      d.promised += t.promised;
      d.allocated += removed;
      perDev.set(dev, d);
    }
    // A hard-linked file that went: its blocks stay with the other name.
    if (after.linked < t.before.linked) hardLinked = true;
    holes += t.before.holes;
    apparent += t.before.apparent;
    if (t.database && after.allocated > 0 && after.allocated >= t.before.allocated && t.promised > 0) databaseKept = true;
  }
  let backupDev: number | null = null;
  if (opts.backup) backupDev = lstatOrNull(opts.backup.path)?.dev ?? null;
  const filesystems: FilesystemFreed[] = [];
  for (const [dev, fs] of base.filesystems) {
    // Stryker disable next-line ObjectLiteral: every filesystem was found through a target, whose dev perDev holds
    const d = perDev.get(dev) ?? { promised: 0, allocated: 0 };
    const freeAfter = freeBytes(fs.dir) ?? freeBytesUp(fs.dir);
    const freed = fs.freeBefore === null || freeAfter === null ? 0 : freeAfter - fs.freeBefore;
    filesystems.push({ path: fs.dir, device: dev, promisedBytes: Math.round(d.promised), allocatedBytes: d.allocated, freedBytes: freed });
    // What the removed data took, less a backup written here meanwhile, is what this filesystem should report.
    // Stryker disable next-line OptionalChaining: backupDev matches a dev only when opts.backup is set
    const expected = d.allocated - (backupDev === dev ? (opts.backup?.bytes ?? 0) : 0);
    // Stryker disable next-line OptionalChaining: as above
    if (backupDev === dev && opts.backup?.bytes) why.add('backup');
    // Stryker disable next-line EqualityOperator: freed === expected is never beyond(), so `<` and `<=` agree (`>=` goes too; the test's → true/false are held)
    if (beyond(freed, expected)) why.add(freed < expected ? 'otherWrites' : 'otherFrees');
  }
  const allocatedBytes = filesystems.reduce((s, f) => s + f.allocatedBytes, 0);
  const freedBytes = filesystems.reduce((s, f) => s + f.freedBytes, 0);
  const out: FreedBytes = { promisedBytes: base.promised, allocatedBytes, freedBytes, filesystems, explanations: [] };
  if (!beyond(freedBytes, base.promised)) return out;
  if (result.status !== 'complete') why.add('incomplete');
  if (databaseKept) why.add('databasePages');
  if (hardLinked) why.add('hardLinks');
  if (beyond(allocatedBytes, base.promised)) {
    // Inside beyond() the figures differ: not under is over.
    // Stryker disable next-line EqualityOperator: as they differ, `<` and `<=` agree (`>=` goes too; under's → true/false are held)
    const under = allocatedBytes < base.promised;
    if (under && holes > FREED_TOLERANCE * base.promised) why.add('sparse');
    else if (!under && allocatedBytes > apparent) why.add('blockRounding');
  }
  if (!why.size) why.add('estimate');
  out.explanations = [...why];
  return out;
}

/** statfs of the nearest existing parent, when the measured directory itself went with the cleanup. */
function freeBytesUp(dir: string): number | null {
  for (let cur = dirname(dir); ; cur = dirname(cur)) {
    const v = freeBytes(cur);
    if (v !== null || cur === dirname(cur)) return v;
  }
}
