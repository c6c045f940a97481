// The reclaim tests' view of OpenCode's snapshot git dirs: the builders
// (src/adapters/opencode/fixture-snapshots.ts, shared with the demo) and what
// the tests measure of a repository.

import { lstatSync, readdirSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { git } from '../../src/adapters/opencode/fixture-snapshots.js';
import { allocatedBytes } from '../../src/engine/host/fsx.js';

export { git, makeSnapshotRepo, type MadeRepo, recordSnapshot } from '../../src/adapters/opencode/fixture-snapshots.js';

/** Allocated bytes of a tree, as du counts them (links count 0, never followed). */
export function duBytes(p: string): number {
  const st = lstatSync(p);
  let n = allocatedBytes(st);
  if (st.isDirectory() && !st.isSymbolicLink()) for (const c of readdirSync(p)) n += duBytes(join(p, c));
  return n;
}

/** Sets a file's mtime `hours` into the past. */
export function age(p: string, hours: number): void {
  const t = (Date.now() - hours * 3600_000) / 1000;
  utimesSync(p, t, t);
}

/** Every object id the repository can read (packed and loose). */
export function allObjects(gitdir: string): Set<string> {
  const out = git(gitdir, null, ['cat-file', '--batch-all-objects', '--batch-check=%(objectname)']);
  return new Set(out.split('\n').filter(Boolean));
}

/** A tree and every tree and blob under it. */
export function treeClosure(gitdir: string, tree: string): string[] {
  const out = git(gitdir, null, ['ls-tree', '-r', '-t', tree]);
  return [
    tree,
    ...out
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split(/\s+/)[2]!),
  ];
}

export function looseCount(gitdir: string): number {
  return readdirSync(join(gitdir, 'objects'))
    .filter((d) => /^[0-9a-f]{2}$/.test(d))
    .reduce((a, d) => a + readdirSync(join(gitdir, 'objects', d)).length, 0);
}
