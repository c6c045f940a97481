// A compaction's work directory as compactDatabase leaves it at its crash
// points: the private folder beside the database, a second link to the
// original, and the compacted copy VACUUM INTO wrote there.

import type Database from 'better-sqlite3';
import { linkSync, lstatSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ORIGINAL_NAME, siblingFor } from '../../src/engine/cleanup/compact.js';

/** Makes the work directory of `op` for the database `dbPath` (open as `db`) with its copy; returns the copy's path. */
export function writeWorkCopy(db: Database.Database, dbPath: string, op: string): string {
  const sib = siblingFor(dbPath, op);
  mkdirSync(dirname(sib), { mode: 0o700 });
  linkSync(dbPath, join(dirname(sib), ORIGINAL_NAME));
  db.prepare('VACUUM INTO ?').run(sib);
  return sib;
}

/** Every entry under a directory: a file with its bytes, a folder as such (a work directory is one). */
export const treeSnapshot = (d: string): Record<string, Buffer | 'folder'> =>
  Object.fromEntries(
    readdirSync(d, { recursive: true, encoding: 'utf8' }).map((n) => [n, lstatSync(join(d, n)).isDirectory() ? 'folder' : readFileSync(join(d, n))]),
  );
