// SessionRoute.deleteSessions for Codex: thread/delete through the App Server
// (the user's daemon over its control socket when one answers — it also knows
// which threads are loaded — else a private stdio server), for the minimal
// root set; Codex removes each root's spawned descendants itself. Before any
// mutation the store is listed again: unknown ids, a changed revision, a
// pinned, loaded or open thread anywhere in a scope, a fork outside the scope
// that still reads its history, or a rollout recorded outside CODEX_HOME
// refuse the whole call. After each root a read-only re-read (thread/list by
// id in both archive states, and the rollout files on disk) proves what is
// gone; the first failure stops the run. There is no import: irreversible.

import type { HostContext, SessionRoute } from '../../engine/core/adapter.js';
import { lstatSyncOrNull } from '../../engine/host/fsx.js';
import { describeWriters, type Installation } from '../../engine/core/model.js';
import { RpcError } from './rpc-client.js';
import { descendantsOf, minimalRoots } from './lineage.js';
import { THREAD_ID } from './paths.js';
import { LOADED_REASON, PINNED_REASON } from './scan.js';
import { RouteRefused, runOfficialDeletes } from '../shared/official-delete.js';
import { loadStore, rolloutPaths, type StoreView } from './store.js';
import { ALL_SOURCE_KINDS } from './thread-list.js';
import { findCodexWriters } from './writers.js';
import type { JsonRpcClient } from './rpc-client.js';

type DeleteOpts = NonNullable<Parameters<SessionRoute['deleteSessions']>[3]>;
type DeleteResult = Awaited<ReturnType<SessionRoute['deleteSessions']>>;

const DELETE_TIMEOUT_MS = 60_000;

export function validateIds(ids: unknown): string[] {
  if (!Array.isArray(ids) || ids.length === 0) throw new RouteRefused('No Codex thread was given.');
  const out = new Set<string>();
  for (const id of ids) {
    if (typeof id !== 'string' || !THREAD_ID.test(id)) throw new RouteRefused(`Not a Codex thread id: ${JSON.stringify(String(id).slice(0, 64))}.`);
    out.add(id.toLowerCase());
  }
  return [...out];
}

export async function deleteCodexThreads(inst: Installation, ctx: HostContext, rootIds: readonly string[], opts: DeleteOpts = {}): Promise<DeleteResult> {
  const started = Date.now();
  const ids = validateIds(rootIds);
  if (!inst.executable)
    throw new RouteRefused(
      'The codex executable was not found; Codex threads are deleted only through its App Server. Install Codex (npm i -g @openai/codex) and rescan.',
    );
  const writers = await findCodexWriters(ctx, inst.home);
  if (writers.opaque.length) throw new RouteRefused(`A running Codex cannot be inspected (${describeWriters(writers.opaque)}); quit it and review again.`);
  const store = await loadStore(inst, ctx);
  try {
    if (!store.conn) throw new RouteRefused(`The Codex App Server is unavailable (${store.unavailable ?? 'no connection'}); nothing was deleted.`);
    if (!store.conn.caps.threadDelete) throw new RouteRefused('This Codex App Server offers no thread/delete; nothing was deleted.');
    if (opts.expectedRevision !== undefined && opts.expectedRevision !== store.revision) {
      throw new RouteRefused(
        'The Codex threads changed after the inventory scan (a thread was added, moved, archived, pinned or re-parented); rescan and review again.',
      );
    }
    const unknown = ids.filter((id) => !store.byId.has(id));
    if (unknown.length)
      throw new RouteRefused(`Codex does not list ${unknown.slice(0, 5).join(', ')}${unknown.length > 5 ? ` and ${unknown.length - 5} more` : ''}; rescan.`);
    const roots = minimalRoots(store.lineage, ids);
    const scopes = new Map(roots.map((r) => [r, [r, ...descendantsOf(store.lineage, r)]]));
    for (const [root, scope] of scopes) {
      const why = scopeBlocker(inst.home, store, writers.held, scope);
      if (why) throw new RouteRefused(`${store.byId.get(root)?.id ?? root}: ${why}`);
    }
    const client = store.conn.client;
    const route = store.conn.transport === 'proxy' ? 'verifiedServer' : 'privateServer';
    const result: DeleteResult = { route, roots, deleted: [], failed: [], stopped: false, durationMs: 0 };
    await runOfficialDeletes(
      {
        roots,
        scopes,
        deleteRoot: async (root) => {
          try {
            await client.request('thread/delete', { threadId: root }, opts.timeoutMs ?? DELETE_TIMEOUT_MS);
            return null;
          } catch (e) {
            return e instanceof RpcError ? `Codex refused to delete the thread: ${e.message}` : `Codex did not delete the thread: ${(e as Error).message}`;
          }
        },
        stillPresent: (scope) => stillPresent(client, inst.home, store, scope),
        unprovable: (e) => `Codex could not be asked whether the thread is gone: ${e.message}`,
        stillThere: (n) => `Codex reported success, but ${n} thread(s) of this scope are still listed or still have rollout files.`,
        shouldStop: opts.shouldStop,
        onProgress: opts.onProgress,
      },
      result,
    );
    result.durationMs = Date.now() - started;
    return result;
  } finally {
    await store.conn?.close();
  }
}

/** Why a deletion scope may not be deleted now, if so. */
export function scopeBlocker(home: string, store: StoreView, held: Map<string, number>, scope: readonly string[]): string | null {
  const inScope = new Set(scope);
  for (const id of scope) {
    const t = store.byId.get(id);
    if (!t) return `thread ${id} of the scope is no longer listed; rescan.`;
    if (t.pinned || store.state?.titles.get(id)?.pinned) return PINNED_REASON;
    if (store.loaded.has(id) || (t.status !== 'notLoaded' && t.status !== '')) return LOADED_REASON;
    const pid = held.get(id);
    if (pid !== undefined) return `Codex (pid ${pid}) has thread ${id} open; close it there and review again.`;
    if (store.lineage.inCycle.has(id)) return "the thread's spawn-parent links form a cycle.";
    const r = rolloutPaths(home, t);
    if (r.outside) return `Codex records the rollout of ${id} outside CODEX_HOME; its delete would fail half-way.`;
    const forks = (store.forkDeps.get(id) ?? []).filter((f) => !inScope.has(f));
    if (forks.length) return `a fork (${forks[0]}) still reads the history of ${id}; delete the fork first.`;
  }
  return null;
}

/** The ids of `scope` that Codex still lists (either archive state) or whose rollout files still exist. */
async function stillPresent(client: JsonRpcClient, home: string, store: StoreView, scope: readonly string[]): Promise<Set<string>> {
  const left = new Set<string>();
  for (let i = 0; i < scope.length; i += 100) {
    const chunk = scope.slice(i, i + 100);
    for (const archived of [false, true]) {
      let cursor: string | null = null;
      for (let page = 0; page < 100; page++) {
        const params: Record<string, unknown> = { includedThreadIds: chunk, limit: 100, modelProviders: [], sourceKinds: [...ALL_SOURCE_KINDS], archived };
        if (cursor) params.cursor = cursor;
        const res = (await client.request('thread/list', params)) as Record<string, unknown> | null;
        const data = res && Array.isArray(res.data) ? res.data : [];
        for (const t of data) {
          const id = t && typeof t === 'object' ? (t as Record<string, unknown>).id : null;
          if (typeof id === 'string') left.add(id.toLowerCase());
        }
        cursor = res && typeof res.nextCursor === 'string' && res.nextCursor ? res.nextCursor : null;
        if (!cursor || !data.length) break;
      }
    }
  }
  for (const id of scope) {
    const t = store.byId.get(id);
    if (t && rolloutPaths(home, t).paths.some((p) => lstatSyncOrNull(p))) left.add(id);
  }
  return left;
}
