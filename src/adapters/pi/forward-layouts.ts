// Layouts newer pi builds describe, read only here (#29.7): rewind blobs in
// checkpoints/<session id>/ (removed by pi's own picker delete with their
// session) go with that session when present; checkpoints of no listed
// session, and the experimental sessions.sqlite, are listed with their bytes
// and no route. pi 0.73 and 1.6 write neither.

import { join } from 'node:path';
import type { Item, SessionRecord } from '../../engine/core/model.js';
import { listDirSorted, lstatSyncOrNull } from '../../engine/host/fsx.js';
import { walkOwned } from '../../engine/inventory/revision.js';
import { keptAround } from '../shared/carve.js';

const NO_ROUTE = 'Written by a newer pi than cleanerx knows; no route in this version: read-only.';

/** Adds each session's checkpoints/<id>/ to its paths (and size); returns the read-only rows of what no session owns. */
export function attachCheckpoints(home: string, sessions: SessionRecord[], uid: number): Item[] {
  const items: Item[] = [];
  const dir = join(home, 'checkpoints');
  const st = lstatSyncOrNull(dir);
  if (st?.isDirectory() && !st.isSymbolicLink()) {
    const byId = new Map(sessions.map((s) => [s.id, s]));
    const owned: string[] = [];
    for (const d of listDirSorted(dir)) {
      const s = byId.get(d.name);
      const p = join(dir, d.name);
      const dst = lstatSyncOrNull(p);
      if (!s || !dst?.isDirectory() || dst.isSymbolicLink() || (uid >= 0 && dst.uid !== uid)) continue;
      const tree = walkOwned([...s.paths, p], { uid });
      s.paths = [...s.paths, p];
      s.bytes = tree.bytes;
      // The session's revision now covers its checkpoints too (the fast one covered the file alone).
      if (tree.revision) s.metadata.sourceRevision = tree.revision;
      else delete s.metadata.sourceRevision;
      if (tree.unsafe && s.selectable) {
        s.selectable = false;
        s.blockedReason = tree.unsafe;
      }
      owned.push(p);
    }
    // Whatever no listed session owns stays listed, read only.
    if (listDirSorted(dir).length > owned.length)
      items.push(readOnly('protected:pi:checkpoints', 'checkpoints', 'pi rewind checkpoints of no listed session', keptAround(dir, owned)));
  }
  const db = join(home, 'sessions.sqlite');
  const side = [db, `${db}-wal`, `${db}-shm`].filter((p) => lstatSyncOrNull(p));
  if (side.length) items.push(readOnly('protected:pi:sessions.sqlite', 'sessions.sqlite', "pi's experimental session database", side));
  return items;
}

function readOnly(id: string, label: string, subtitle: string, paths: string[]): Item {
  const tree = walkOwned(paths, { uid: -1, maxEntries: 200_000 });
  return {
    id,
    category: 'protected',
    label,
    subtitle,
    paths,
    bytes: tree.bytes,
    modifiedAt: tree.newestMtime || undefined,
    risk: 'protected',
    recoverable: false,
    selectable: false,
    blockedReason: NO_ROUTE,
    metadata: { protected: false },
  };
}
