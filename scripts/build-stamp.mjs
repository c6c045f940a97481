// Whether dist/ is current. The build records a key of its inputs (the
// newest mtime and the number of files under src/, plus the tsconfig files and
// package.json) in dist/.build-stamp; dist/ is stale when the key differs —
// an edit, a new file or a deleted one — or when the stamp is missing (never
// built, or the last build failed before writing it).

import { lstatSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const STAMP = join('dist', '.build-stamp');
const INPUT_FILES = ['tsconfig.json', 'tsconfig.build.json', 'package.json', join('scripts', 'bundle.mjs')];

function walk(dir, acc) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, acc);
    else acc.push(p);
  }
}

/** The key of the build inputs under `root`, as it is now. */
export function inputsKey(root) {
  const files = [];
  walk(join(root, 'src'), files);
  for (const f of INPUT_FILES) files.push(join(root, f));
  let newest = 0;
  let count = 0;
  for (const f of files) {
    try {
      newest = Math.max(newest, lstatSync(f).mtimeMs);
      count++;
    } catch {
      // a config file that does not exist
    }
  }
  return `${newest}:${count}`;
}

export function readStamp(root) {
  try {
    return readFileSync(join(root, STAMP), 'utf8').trim();
  } catch {
    return null;
  }
}

export function isStale(root) {
  return readStamp(root) !== inputsKey(root);
}

/** Records `key` (taken before the build started, so an edit during the build still counts as newer). */
export function writeStamp(root, key) {
  writeFileSync(join(root, STAMP), `${key}\n`);
}
