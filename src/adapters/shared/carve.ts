// What of a read-only tree stays read-only once some paths inside it are
// offered as items: the fewest whole entries that cover everything else.
// The protected-path check of every removal then holds for the rest, and an
// offered path lies under none of them.

import { join } from 'node:path';
import { listDirSorted, lstatSyncOrNull } from '../../engine/host/fsx.js';

const under = (p: string, dir: string): boolean => p.startsWith(`${dir}/`);

/** Entries under `root` (recursively split only where an offered path lies) that are not offered, nor above one. */
export function keptAround(root: string, offered: readonly string[]): string[] {
  const out: string[] = [];
  const taken = new Set(offered);
  const visit = (dir: string): void => {
    for (const d of listDirSorted(dir)) {
      const p = join(dir, d.name);
      if (taken.has(p)) continue;
      const st = lstatSyncOrNull(p);
      if (st?.isDirectory() && !st.isSymbolicLink() && offered.some((o) => under(o, p))) visit(p);
      else out.push(p);
    }
  };
  if (offered.some((o) => under(o, root))) visit(root);
  else out.push(root);
  return out;
}
