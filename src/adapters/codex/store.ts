// The store as both the scan and the routes read it: the App Server's own
// listing (thread/list, thread/loaded/list) over a live connection, the state
// DB read without touching it, the fork dependencies of paginated threads,
// and one structural revision the delete route checks again.

import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { HostContext } from '../../engine/core/adapter.js';
import { canonicalPath, lstatSyncOrNull } from '../../engine/host/fsx.js';
import type { Installation, ScanWarning } from '../../engine/core/model.js';
import { connectCodex, type CodexConnection, type ConnectOptions } from './connection.js';
import { buildLineage, type Lineage } from './lineage.js';
import { beneath, newestDb, sqliteHome } from './paths.js';
import { readSessionMeta } from './rollout-reader.js';
import { readStateDb, type StateRead } from './state-db.js';
import { listAllThreads, loadedThreads, type ListedThread } from './thread-list.js';

export interface StoreView {
  source: 'appServer' | 'stateDb' | 'none';
  /** Open when source is appServer; the caller closes it. */
  conn: CodexConnection | null;
  threads: ListedThread[];
  byId: Map<string, ListedThread>;
  lineage: Lineage;
  loaded: Set<string>;
  state: StateRead | null;
  /** base thread id → paginated forks that still read its history. */
  forkDeps: Map<string, string[]>;
  revision: string;
  /** Why the App Server could not list (mutations are then off, unless `notStarted`). */
  unavailable?: string;
  /** No App Server was running and none was started (an inventory): the state database is the listing, and a confirmed action starts one. */
  notStarted?: boolean;
  warnings: ScanWarning[];
  listMs: number;
}

export async function loadStore(inst: Installation, ctx: HostContext, opts: ConnectOptions & { needState?: boolean } = {}): Promise<StoreView> {
  const warnings: ScanWarning[] = [];
  const started = Date.now();
  let conn: CodexConnection | null = null;
  let threads: ListedThread[] | null = null;
  let loaded = new Set<string>();
  let unavailable: string | undefined;
  let notStarted = false;
  if (inst.executable) {
    try {
      // A store Codex never indexed (no state database) has nothing of its own to prune or rewrite: its App Server indexes it.
      const indexed = newestDb(sqliteHome(inst, ctx), 'state') !== null;
      conn = await connectCodex(inst, ctx, { ...opts, socketOnly: opts.socketOnly && indexed });
      for (const w of conn.warnings) warnings.push({ path: inst.home, reason: w });
      const listed = await listAllThreads(conn.client);
      threads = listed.threads;
      if (listed.skipped)
        warnings.push({
          path: inst.home,
          reason: `Codex listed ${listed.skipped} entr${listed.skipped === 1 ? 'y' : 'ies'} that are not usable threads; they are not shown.`,
        });
      if (conn.caps.loadedList) loaded = await loadedThreads(conn.client);
    } catch (e) {
      unavailable = (e as Error).message.slice(0, 500);
      notStarted = (e as { notStarted?: boolean }).notStarted === true;
      await conn?.close();
      conn = null;
      threads = null;
    }
  } else unavailable = 'the codex executable was not found';
  const listMs = Date.now() - started;

  const dbPath = newestDb(sqliteHome(inst, ctx), 'state');
  let state: StateRead | null = null;
  if (dbPath) {
    const r = readStateDb(dbPath, { listing: threads === null });
    if ('error' in r) warnings.push({ path: dbPath, reason: r.error });
    else {
      state = r;
      for (const w of r.warnings) warnings.push({ path: dbPath, reason: w });
      if (threads === null && r.ignoredRows)
        warnings.push({ path: dbPath, reason: `${r.ignoredRows} state database row(s) left by malformed or missing rollouts are ignored.` });
    }
  }
  let source: StoreView['source'] = 'appServer';
  if (threads === null && notStarted && state?.threads) {
    threads = state.threads;
    source = 'stateDb';
  } else if (threads === null) {
    notStarted = false;
    warnings.push({
      path: inst.home,
      reason: state?.threads
        ? `App Server unavailable; using read-only storage scan: ${unavailable}. Codex data cannot be changed until the App Server answers.`
        : `App Server unavailable (${unavailable}) and no readable Codex state database; no threads are listed.`,
    });
    threads = state?.threads ?? [];
    source = state?.threads ? 'stateDb' : 'none';
  }
  const byId = new Map(threads.map((t) => [t.id, t]));
  const forkDeps = await forkDependencies(threads);
  return {
    source,
    conn,
    threads,
    byId,
    lineage: buildLineage(threads),
    loaded,
    state,
    forkDeps,
    revision: storeRevision(threads, forkDeps),
    unavailable,
    notStarted,
    warnings,
    listMs,
  };
}

/** Paginated forks read their base thread's rollout: base id → fork ids (from each fork's session_meta). */
async function forkDependencies(threads: readonly ListedThread[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  const candidates = threads.filter((t) => t.historyMode !== 'legacy' && t.path);
  for (let i = 0; i < candidates.length; i += 16) {
    await Promise.all(
      candidates.slice(i, i + 16).map(async (t) => {
        try {
          const meta = await readSessionMeta(t.path!);
          const base = meta?.historyBaseId;
          if (base && base !== t.id) {
            const list = out.get(base);
            if (list) list.push(t.id);
            else out.set(base, [t.id]);
          }
        } catch {
          // an unreadable rollout names no base
        }
      }),
    );
  }
  return out;
}

/**
 * The store's structural revision: every thread's id, archive state, spawn
 * parent, rollout path and pinned state, and the fork dependencies — what
 * decides what thread/delete removes and whether it may. Sizes and names are
 * left out, so a Codex writing to an unrelated thread does not make a
 * reviewed plan stale; a new, moved, re-parented or pinned thread does.
 */
export function storeRevision(threads: readonly ListedThread[], forkDeps: Map<string, string[]>): string {
  const h = createHash('sha256');
  for (const t of [...threads].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    h.update(`${t.id}\0${t.archived ? 1 : 0}\0${t.parentId ?? ''}\0${t.path ?? ''}\0${t.pinned ? 1 : 0}\n`);
  }
  for (const [base, forks] of [...forkDeps].sort((a, b) => (a[0] < b[0] ? -1 : 1))) h.update(`fork\0${base}\0${[...forks].sort().join(',')}\n`);
  return h.digest('hex');
}

/** The rollout file(s) of a thread that lie where Codex keeps rollouts (sessions/ or archived_sessions/). */
export function rolloutPaths(home: string, t: ListedThread): { paths: string[]; outside?: string } {
  if (!t.path) return { paths: [] };
  const roots = [join(home, 'sessions'), join(home, 'archived_sessions')];
  const canonRoots = roots.map(canonicalPath);
  const p = t.path;
  const inside = roots.some((r) => beneath(p, r)) || canonRoots.some((r) => beneath(canonicalPath(p), r));
  if (!inside) return { paths: [], outside: p };
  const variants = p.endsWith('.zst') ? [p.slice(0, -4), p] : [p, `${p}.zst`];
  return { paths: variants.filter((v) => lstatSyncOrNull(v) !== null) };
}
