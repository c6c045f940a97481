// The durable metadata revision of an OpenCode store: name, size, mtime,
// dev/inode, uid and mode of opencode.db and of a present opencode.db-wal —
// never contents. The -shm file is left out on purpose: it holds reader-lock
// state that changes during cleanerx's own read-only inventory and no
// durable session data.

import { createHash } from 'node:crypto';
import { lstatSyncOrNull } from '../../engine/host/fsx.js';

export function dbRevision(db: string): string {
  const h = createHash('sha256');
  for (const p of [db, `${db}-wal`]) {
    const st = lstatSyncOrNull(p);
    if (!st) h.update(`${p}\0absent\n`);
    else h.update(`${p}\0${st.size}\0${st.mtimeMs}\0${st.dev}\0${st.ino}\0${st.uid}\0${st.mode}\n`);
  }
  return h.digest('hex');
}
