// ArchiveRoute for Codex: thread/archive and thread/unarchive through the App
// Server (the user's daemon when one answers, else a private stdio server),
// one thread at a time. Codex moves the rollout between sessions/ and
// archived_sessions/ itself; cleanerx moves nothing. Before the first call
// the store is listed again: unknown ids or a changed revision refuse the
// whole call. A thread already in the wanted state is left alone and counts
// as done, so an interrupted plan can run again.

import type { ArchiveRoute } from '../../engine/core/adapter.js';
import { RouteRefused } from '../shared/official-delete.js';
import { validateIds } from './delete-route.js';
import { RpcError } from './rpc-client.js';
import { loadStore } from './store.js';

const ARCHIVE_TIMEOUT_MS = 60_000;

export const setCodexArchived: ArchiveRoute['setArchived'] = async (inst, ctx, sessionIds, archived, opts = {}) => {
  const ids = validateIds(sessionIds);
  if (!inst.executable)
    throw new RouteRefused(
      'The codex executable was not found; Codex threads are archived only through its App Server. Install Codex (npm i -g @openai/codex) and rescan.',
    );
  const store = await loadStore(inst, ctx);
  try {
    if (!store.conn) throw new RouteRefused(`The Codex App Server is unavailable (${store.unavailable ?? 'no connection'}); nothing was changed.`);
    if (opts.expectedRevision !== undefined && opts.expectedRevision !== store.revision) {
      throw new RouteRefused('The Codex threads changed after the inventory scan; rescan and review again.');
    }
    const unknown = ids.filter((id) => !store.byId.has(id));
    if (unknown.length) throw new RouteRefused(`Codex does not list ${unknown.slice(0, 5).join(', ')}; rescan.`);
    const method = archived ? 'thread/archive' : 'thread/unarchive';
    const changed: string[] = [];
    const failed: { id: string; reason: string }[] = [];
    for (const id of ids) {
      if (store.byId.get(id)!.archived === archived) {
        changed.push(id);
        continue;
      }
      try {
        await store.conn.client.request(method, { threadId: id }, opts.timeoutMs ?? ARCHIVE_TIMEOUT_MS);
        changed.push(id);
      } catch (e) {
        failed.push({ id, reason: e instanceof RpcError ? `Codex refused: ${e.message}` : `Codex did not answer: ${(e as Error).message}` });
        break;
      }
    }
    return { changed, failed };
  } finally {
    await store.conn?.close();
  }
};
