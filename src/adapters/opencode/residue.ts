// What OpenCode 1.18 keeps of a session, probed after a cleanup: its rows in
// `session`, `message`, `part`, `todo`, `session_message`, `session_input`,
// `session_context_epoch`, `session_share`, `event` and `event_sequence`
// (events by `aggregate_id`), and `storage/session_diff/<id>.json`, which
// OpenCode's own delete leaves (the scan offers those as an item). The
// server's list is the engine's rescan. Permission rows belong to a project,
// not a session, in 1.18. The database is read through db-open.ts (a private
// view: no -wal or -shm is created).

import { join } from 'node:path';
import type { HostContext, ResidueTarget } from '../../engine/core/adapter.js';
import type { Installation, ResidueSurface } from '../../engine/core/model.js';
import { lstatSyncOrNull } from '../../engine/host/fsx.js';
import { ownedRowCounter } from '../shared/residue-rows.js';
import { openReadOnly } from './db-open.js';
import { SESSION_DIFF_ITEM_ID } from './leftovers.js';
import { chooseDatabase } from './paths.js';

/** Table → the column naming the session; all are indexed by it in 1.18 (event through its aggregate indexes). */
const OWNED: readonly [string, string][] = [
  ['session', 'id'],
  ['message', 'session_id'],
  ['part', 'session_id'],
  ['todo', 'session_id'],
  ['session_message', 'session_id'],
  ['session_input', 'session_id'],
  ['session_context_epoch', 'session_id'],
  ['session_share', 'session_id'],
  ['event', 'aggregate_id'],
  ['event_sequence', 'aggregate_id'],
];

export async function opencodeResidue(inst: Installation, ctx: HostContext, targets: readonly ResidueTarget[]): Promise<Map<string, ResidueSurface[]>> {
  const out = new Map<string, ResidueSurface[]>(targets.map((x) => [x.id, []]));
  const db = chooseDatabase(inst, ctx).db;
  if (db) {
    const o = openReadOnly(db, ctx.procRoot);
    if (!o.ok) for (const v of out.values()) v.push({ surface: 'dbRows', path: db, why: 'unreadable' });
    else
      try {
        for (const [table, column] of OWNED) {
          const count = ownedRowCounter(o.db, table, column);
          if (!count) continue;
          for (const x of targets) {
            const n = count(x.id);
            if (n === null) out.get(x.id)!.push({ surface: `${table}Rows`, path: db, why: 'unreadable' });
            else if (n > 0) out.get(x.id)!.push({ surface: `${table}Rows`, path: db, why: 'noRoute', count: n });
          }
        }
      } catch {
        for (const v of out.values()) v.push({ surface: 'dbRows', path: db, why: 'unreadable' });
      } finally {
        o.close();
      }
  }
  for (const x of targets) {
    const diff = join(inst.home, 'storage', 'session_diff', `${x.id}.json`);
    if (lstatSyncOrNull(diff)) out.get(x.id)!.push({ surface: 'sessionDiff', path: diff, why: 'noRoute', followUpId: SESSION_DIFF_ITEM_ID });
  }
  return out;
}
