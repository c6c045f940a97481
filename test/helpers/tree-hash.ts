// A byte-for-byte picture of a directory tree (files by content hash, links
// by target, directories by presence), to prove that a cleanup touched
// nothing outside its plan.

import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join, relative } from 'node:path';

export function hashTree(root: string, exclude: string[] = []): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      if (exclude.some((x) => p === x || p.startsWith(x + '/'))) continue;
      const st = lstatSync(p);
      const rel = relative(root, p);
      if (st.isSymbolicLink()) out.set(rel, `link:${readlinkSync(p)}`);
      else if (st.isDirectory()) {
        out.set(rel, 'dir');
        walk(p);
      } else if (st.isFile()) out.set(rel, `file:${createHash('sha256').update(readFileSync(p)).digest('hex')}:${st.mode & 0o777}`);
      else out.set(rel, 'other');
    }
  };
  walk(root);
  return out;
}

/** The relative path of every entry below `root` (links not followed): hashTree's keys without reading a byte. */
export function treeNames(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const p = join(dir, e.name);
      out.push(relative(root, p));
      if (e.isDirectory()) walk(p);
    }
  };
  walk(root);
  return out;
}

/** Entries that differ between two pictures, as readable lines. */
export function treeDiff(before: Map<string, string>, after: Map<string, string>): string[] {
  const out: string[] = [];
  for (const [k, v] of before) if (after.get(k) !== v) out.push(after.has(k) ? `changed ${k}` : `removed ${k}`);
  for (const k of after.keys()) if (!before.has(k)) out.push(`added ${k}`);
  return out;
}
