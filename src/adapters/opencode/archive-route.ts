// ArchiveRoute for OpenCode: `PATCH /session/:id {"time":{"archived":<ms>}}`
// on one private loopback `opencode serve` (random password, same database),
// as OpenCode's own app archives. cleanerx never writes SQL.
//
// OpenCode 1.18.33 has no way back: its server ignores `"archived": null`
// (the session stays archived) and stores `0` as an archive time, which its
// own listing (/experimental/session, the time_archived IS NULL filter) still
// treats as archived; its apps offer no unarchive. So `unarchive` is not
// offered for OpenCode (test/peers/opencode-archive.test.ts pins both facts).
// While OpenCode runs, the archive is refused: quit it first.

import type { ArchiveRoute } from '../../engine/core/adapter.js';
import { describeWriters } from '../../engine/core/model.js';
import { RouteRefused } from '../shared/official-delete.js';
import { openReadOnly } from './db-open.js';
import { describeEndpoint, httpJson } from './http.js';
import { opencodeEnv } from './official-cli.js';
import { startPrivateServer } from './private-server.js';
import { loadStore, requireKnown, requireRevision, validateIds } from './store.js';
import { findOpencodeWriters } from './writers.js';

export const NO_UNARCHIVE = 'OpenCode 1.18 has no official unarchive (its server keeps a session archived), so cleanerx cannot offer one.';

/** Each id's archive time as the database holds it now (read-only), null when current. */
function archiveTimes(db: string, ids: readonly string[]): Map<string, number | null> {
  const opened = openReadOnly(db);
  if (!opened.ok) throw new RouteRefused(opened.reason);
  try {
    const q = opened.db.prepare('SELECT time_archived AS t FROM session WHERE id = ?');
    const out = new Map<string, number | null>();
    for (const id of ids) {
      const r = q.get(id) as { t: unknown } | undefined;
      if (r) out.set(id, typeof r.t === 'number' ? r.t : null);
    }
    return out;
  } finally {
    opened.close();
  }
}

export const setOpencodeArchived: ArchiveRoute['setArchived'] = async (inst, ctx, sessionIds, archived, opts = {}) => {
  if (!archived) throw new RouteRefused(NO_UNARCHIVE);
  const ids = validateIds(sessionIds);
  const exe = inst.executable;
  if (!exe)
    throw new RouteRefused(
      'The opencode executable was not found; OpenCode sessions are archived only through its own server. Install OpenCode (npm i -g opencode-ai) and rescan.',
    );
  const store = loadStore(inst, ctx);
  requireRevision(store, opts.expectedRevision);
  requireKnown(store, ids);
  const writers = await findOpencodeWriters(ctx, store.db, inst.home);
  if (writers.length) throw new RouteRefused(`Quit OpenCode and archive again (running: ${describeWriters(writers)}).`);
  const before = archiveTimes(store.db, ids);
  const todo = ids.filter((id) => before.get(id) === null);
  const changed = ids.filter((id) => typeof before.get(id) === 'number');
  const failed: { id: string; reason: string }[] = [];
  if (!todo.length) return { changed, failed };
  const server = await startPrivateServer(exe, opencodeEnv(inst, ctx, store.db));
  try {
    for (const id of todo) {
      try {
        const r = await httpJson(server.endpoint, 'PATCH', `/session/${encodeURIComponent(id)}`, {
          basicAuth: server.auth,
          body: { time: { archived: Date.now() } },
          timeoutMs: opts.timeoutMs ?? 30_000,
        });
        const t = (r.json as { time?: { archived?: unknown } } | undefined)?.time?.archived;
        if (r.status !== 200 || typeof t !== 'number') {
          failed.push({ id, reason: `OpenCode server at ${describeEndpoint(server.endpoint)} did not archive it (HTTP ${r.status}).` });
          break;
        }
        changed.push(id);
      } catch (e) {
        failed.push({ id, reason: `OpenCode server did not answer (${(e as Error).message}).` });
        break;
      }
    }
  } finally {
    await server.stop();
  }
  return { changed, failed };
};
