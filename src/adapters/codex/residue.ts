// What Codex 0.171 keeps of a thread, probed after a cleanup: the rollout
// file, the state database's `threads` row, the thread's lines in
// `session_index.jsonl`, its rows in the logs database and the memory
// pipeline's `stage1_outputs` rows that cite it (the App Server's list is the
// engine's rescan). Read only: databases through sqlite-read.ts (a private
// view, no -wal/-shm created), the index streamed with a byte bound.

import { join } from 'node:path';
import type { HostContext, ResidueTarget } from '../../engine/core/adapter.js';
import type { Installation, ResidueSurface } from '../../engine/core/model.js';
import { openRegularFileAsync } from '../../engine/host/bounded-read.js';
import { lstatSyncOrNull } from '../../engine/host/fsx.js';
import { MEMORY_ITEM } from './items.js';
import { allDbs, newestDb, ROLLOUT_NAME, sqliteHome } from './paths.js';
import { MAX_INDEX_BYTES } from './session-index.js';
import { openSnapshot } from './sqlite-read.js';
import { ownedRowCounter } from '../shared/residue-rows.js';

export async function codexResidue(inst: Installation, ctx: HostContext, targets: readonly ResidueTarget[]): Promise<Map<string, ResidueSurface[]>> {
  const out = new Map<string, ResidueSurface[]>(targets.map((x) => [x.id.toLowerCase(), []]));
  const add = (id: string, s: ResidueSurface): void => void out.get(id.toLowerCase())?.push(s);
  for (const x of targets)
    for (const p of x.paths)
      if (ROLLOUT_NAME.test(p.slice(p.lastIndexOf('/') + 1)) && lstatSyncOrNull(p)) add(x.id, { surface: 'rollout', path: p, why: 'noRoute' });
  const ids = [...out.keys()];
  const dbHome = sqliteHome(inst, ctx);
  rowsIn(newestDb(dbHome, 'state'), 'threads', 'id', ids, 'stateRow', add);
  rowsIn(newestDb(dbHome, 'logs'), 'logs', 'thread_id', ids, 'logRows', add);
  for (const db of allDbs(dbHome, /^memories(_v\d+)?_\d{1,6}\.sqlite$/)) rowsIn(db, 'stage1_outputs', 'thread_id', ids, 'memory', add, MEMORY_ITEM);
  await indexLines(join(inst.home, 'session_index.jsonl'), out);
  return new Map([...out].map(([k, v]) => [targets.find((x) => x.id.toLowerCase() === k)!.id, v]));
}

/** Rows of `table` whose `column` names a removed thread; an unreadable database is `unreadable`, a missing one nothing. */
function rowsIn(
  path: string | null,
  table: string,
  column: string,
  ids: readonly string[],
  surface: string,
  add: (id: string, s: ResidueSurface) => void,
  followUpId?: string,
): void {
  if (!path) return;
  const o = openSnapshot(path, path);
  if (!o.ok) {
    for (const id of ids) add(id, { surface, path, why: 'unreadable' });
    return;
  }
  try {
    const count = ownedRowCounter(o.db, table, column);
    if (!count) return;
    for (const id of ids) {
      const n = count(id);
      if (n === null) add(id, { surface, path, why: 'unreadable' });
      else if (n > 0) add(id, { surface, path, why: 'noRoute', count: n, ...(followUpId ? { followUpId } : {}) });
    }
  } catch {
    for (const id of ids) add(id, { surface, path, why: 'unreadable' });
  } finally {
    o.close();
  }
}

/**
 * Lines of session_index.jsonl naming a removed thread. Codex removes them
 * in its delete; one left by a write that stopped half-way makes Codex show a
 * name for a thread that is gone. cleanerx never rewrites Codex's index.
 */
async function indexLines(path: string, out: Map<string, ResidueSurface[]>): Promise<void> {
  let opened: Awaited<ReturnType<typeof openRegularFileAsync>>;
  try {
    opened = await openRegularFileAsync(path);
  } catch (e) {
    if ((e as { reason?: string }).reason === 'missing') return;
    for (const v of out.values()) v.push({ surface: 'indexLine', path, why: 'unreadable' });
    return;
  }
  const { fh, stat } = opened;
  const counts = new Map<string, number>();
  try {
    if (stat.size > MAX_INDEX_BYTES) throw new Error('too large');
    const text = (await fh.readFile()).subarray(0, MAX_INDEX_BYTES).toString('utf8');
    for (const line of text.split('\n')) {
      // A line that is not JSON may still name the thread (a write cut off mid-line): the id's text is what counts.
      const m = /"id"\s*:\s*"([0-9a-fA-F-]{36})"/.exec(line);
      const id = m?.[1]?.toLowerCase();
      if (id && out.has(id)) counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    for (const [id, n] of counts) out.get(id)!.push({ surface: 'indexLine', path, why: 'noRoute', count: n });
  } catch {
    for (const v of out.values()) v.push({ surface: 'indexLine', path, why: 'unreadable' });
  } finally {
    await fh.close();
  }
}
