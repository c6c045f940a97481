// What pi keeps of a session, probed after a cleanup: the session file
// (wherever in sessions/ it lies: pi names it `<timestamp>_<id>.jsonl`) and,
// in builds that write them, `checkpoints/<id>/` (the SessionManager's list
// is the engine's rescan). Listings and lstat only.

import { join } from 'node:path';
import type { ResidueTarget } from '../../engine/core/adapter.js';
import type { Installation, ResidueSurface } from '../../engine/core/model.js';
import { DirPresence, listDirSorted } from '../../engine/host/fsx.js';

/** Project buckets looked at, at most: a session file is found in any of them. */
const MAX_BUCKETS = 10_000;

export async function piResidue(inst: Installation, targets: readonly ResidueTarget[]): Promise<Map<string, ResidueSurface[]>> {
  const out = new Map<string, ResidueSurface[]>(targets.map((x) => [x.id, []]));
  const files = new Map<string, string[]>();
  const root = join(inst.home, 'sessions');
  for (const bucket of listDirSorted(root).slice(0, MAX_BUCKETS)) {
    if (!bucket.isDirectory()) continue;
    for (const f of listDirSorted(join(root, bucket.name))) {
      const m = /_([^_/]+)\.jsonl$/.exec(f.name);
      if (m && out.has(m[1]!)) files.set(m[1]!, [...(files.get(m[1]!) ?? []), join(root, bucket.name, f.name)]);
    }
  }
  const present = new DirPresence();
  for (const x of targets) {
    const v = out.get(x.id)!;
    for (const p of new Set([...x.paths.filter((p) => p.endsWith('.jsonl') && present.has(p)), ...(files.get(x.id) ?? [])]))
      v.push({ surface: 'sessionFile', path: p, why: 'noRoute' });
    const cp = join(inst.home, 'checkpoints', x.id);
    if (present.has(cp)) v.push({ surface: 'checkpoints', path: cp, why: 'noRoute' });
  }
  return out;
}
