// Inventory of a Codex store. Threads come from the App Server's own listing
// (or, when it cannot list, the state DB read-only with every mutation off);
// titles, pinned state and projects are completed read-only from the state
// DB, session_index.jsonl and config.toml. A thread owns its rollout file(s)
// and its per-thread media; it leaves only through Codex's thread/delete,
// which also removes its spawned subagents — so each thread carries them as
// deletion descendants, and anything that blocks one of them blocks it.

import { join } from 'node:path';
import type { HostContext } from '../../engine/core/adapter.js';
import { listDirSorted, lstatSyncOrNull } from '../../engine/host/fsx.js';
import { sessionItemId } from '../../engine/core/ids.js';
import { describeWriters, type Installation, type Inventory, type ProjectGroup, type ScanProgress, type SessionRecord } from '../../engine/core/model.js';
import { walkOwned } from '../../engine/inventory/revision.js';
import { cleanText } from '../../engine/core/text.js';
import { checkHome } from '../shared/home.js';
import { descendantsOf } from './lineage.js';
import { compactItem, fileItems, logsItem, memoryItem, MEMORY_RUNNING_REASON, oldLogRows, orphanMedia, OWNED_DIRS, readOnlyItems } from './items.js';
import { appSupportRoot, sqliteHome, THREAD_ID } from './paths.js';
import { projectGroup, ProjectResolver, readConfigProjects, type Association } from './projects.js';
import { readSessionIndex } from './session-index.js';
import { loadStore, rolloutPaths, type StoreView } from './store.js';
import { chooseTitle } from './titles.js';
import { findCodexWriters, type CodexWriters } from './writers.js';

export const PINNED_REASON = 'Pinned threads are protected from cleanup; unpin it in Codex first.';
export const LOADED_REASON = 'Thread is active or loaded in Codex; close it there and rescan.';
/** What the review says when a confirmed Codex action will start the App Server the inventory did not. */
export const APP_SERVER_START_NOTE =
  "To do this cleanerx starts Codex's App Server; as it starts, Codex itself prunes its log database and rewrites its state, queue and memory databases.";
export const NO_EXECUTABLE =
  'The codex executable was not found; Codex threads are deleted only through its App Server. Install Codex (npm i -g @openai/codex) and rescan.';
/** A thread whose deletion scope is larger than this is not offered (its review would be unbounded). */
const MAX_SCOPE = 20_000;

/** What the last scan of each home used, for previews (which get no host context) and the item route. */
export const lastScan = new Map<string, { env: HostContext['env']; logsDb: string | null; logsIno: number | null }>();

export async function scanCodex(inst: Installation, ctx: HostContext, onProgress: (p: ScanProgress) => void): Promise<Inventory> {
  const home = inst.home;
  const inv: Inventory = { sessions: [], items: [], projects: [], warnings: [], writers: [] };
  const progress = (phase: string, files = 0): void => onProgress({ agent: 'codex', phase, files, bytes: 0 });
  progress('Looking for the Codex store');
  const check = checkHome(home, 'The Codex home', inv.warnings);
  if (!check.ok) return inv;
  let homeBlock = check.readOnly;
  const homeStat = lstatSyncOrNull(home);
  if (ctx.uid >= 0 && homeStat && homeStat.uid !== ctx.uid) homeBlock ??= 'The Codex home belongs to another user; cleanerx only reads it.';

  const writers = await findCodexWriters(ctx, home);
  inv.writers = writers.writers;
  progress('Reading the Codex store');
  // Read-only: a running App Server is asked, none is started (see NOT_STARTED).
  const store = await loadStore(inst, ctx, { socketOnly: true });
  try {
    inv.warnings.push(...store.warnings);
    progress('Reading Codex threads', store.threads.length);
    const index = await readSessionIndex(home, inv.warnings, new Set(store.threads.map((th) => th.id.toLowerCase())));
    const registry = [...(await readConfigProjects(home, inv.warnings)), ...(store.state?.projects ?? [])];
    const resolver = new ProjectResolver(registry);
    const dbHome = sqliteHome(inst, ctx);
    const globalBlock = sessionBlock(inst, store, writers, homeBlock);
    const { sessions, projects } = sessionRecords(inst, ctx, store, writers, index, resolver, globalBlock);
    inv.sessions = sessions;
    inv.projects = projects;

    progress('Reading Codex memory, logs and caches', sessions.length);
    const running = writers.writers.length > 0;
    const memBlock =
      homeBlock ??
      (inst.executable
        ? undefined
        : 'The codex executable was not found; memory is reset only through its App Server. Install Codex (npm i -g @openai/codex) and rescan.') ??
      (store.conn || store.notStarted ? undefined : `App Server unavailable; memory cannot be reset (${store.unavailable ?? 'no connection'}).`) ??
      (store.notStarted || store.conn?.caps.memoryReset ? undefined : 'This Codex App Server offers no memory/reset.') ??
      (running ? MEMORY_RUNNING_REASON : undefined);
    const mem = memoryItem(home, dbHome, ctx, memBlock, inv.warnings);
    if (mem && store.notStarted) mem.metadata.routeStart = APP_SERVER_START_NOTE;
    if (mem) inv.items.push(mem);
    const rows = oldLogRows(dbHome, ctx.now(), inv.warnings);
    const logs = logsItem(rows, homeBlock);
    if (logs) inv.items.push(logs);
    for (const c of [await compactItem(dbHome, rows, writers.writers, homeBlock, ctx)]) if (c) inv.items.push(c);
    lastScan.set(home, { env: ctx.env, logsDb: rows?.db ?? null, logsIno: rows ? (lstatSyncOrNull(rows.db)?.ino ?? null) : null });
    inv.items.push(...fileItems(home, appSupportRoot(ctx), running || Boolean(homeBlock), ctx, inv.warnings));
    if (store.source === 'appServer') inv.items.push(...orphanMedia(home, new Set(store.threads.map((t) => t.id)), inv.warnings));
    inv.items.push(...readOnlyItems(home, dbHome, inv.warnings));
    return inv;
  } finally {
    await store.conn?.close();
  }
}

/** Why no thread can be deleted right now, if so. */
export function sessionBlock(inst: Installation, store: StoreView, writers: CodexWriters, homeBlock: string | undefined): string | undefined {
  if (homeBlock) return homeBlock;
  if (!inst.executable) return NO_EXECUTABLE;
  // Listed from the state database because none runs: the confirmed delete starts one and checks the listing again.
  if (store.notStarted)
    return writers.opaque.length ? `A running Codex cannot be inspected (${describeWriters(writers.opaque)}); quit it to delete threads.` : undefined;
  if (!store.conn) return `App Server unavailable; Codex threads are listed read-only from the state database (${store.unavailable ?? 'no connection'}).`;
  if (!store.conn.caps.threadDelete) return `This Codex App Server offers no thread/delete (${store.conn.caps.notes.join(' ') || 'probe failed'}).`;
  if (writers.opaque.length) return `A running Codex cannot be inspected (${describeWriters(writers.opaque)}); quit it to delete threads.`;
  return undefined;
}

/** Every entry of the per-thread owned dirs, by owning thread id. */
function ownedEntries(home: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const dir of OWNED_DIRS) {
    const root = join(home, dir);
    const st = lstatSyncOrNull(root);
    if (!st || st.isSymbolicLink() || !st.isDirectory()) continue;
    for (const e of listDirSorted(root)) {
      const id = e.name.slice(0, 36).toLowerCase();
      if (!THREAD_ID.test(id)) continue;
      const rest = e.name.slice(36);
      if (rest && !/^[._-]/.test(rest)) continue;
      const list = out.get(id);
      if (list) list.push(join(root, e.name));
      else out.set(id, [join(root, e.name)]);
    }
  }
  return out;
}

const describe = (reason: string): string => (reason === 'pinned' ? PINNED_REASON : reason === 'loaded' ? LOADED_REASON : reason);

/**
 * Why a thread's delete scope (the thread and the subagent threads Codex
 * deletes with it) is read-only: too many subagents, its own reason, a
 * subagent's, or a fork outside the scope still reading its history.
 */
function scopeBlock(
  id: string,
  desc: readonly string[],
  tooMany: boolean,
  own: ReadonlyMap<string, string>,
  info: ReadonlyMap<string, { title: string }>,
  store: StoreView,
): string | undefined {
  if (tooMany) return `This thread has more subagent threads than cleanerx reviews at once (${MAX_SCOPE}); it is listed read-only.`;
  const mine = own.get(id);
  if (mine) return describe(mine);
  for (const d of desc) {
    const r = own.get(d);
    if (r) return `A subagent thread Codex would delete with it (${info.get(d)?.title ?? d}) is blocked: ${describe(r)}`;
  }
  const scope = [id, ...desc];
  const scopeSet = new Set(scope);
  for (const m of scope) {
    const forks = (store.forkDeps.get(m) ?? []).filter((f) => !scopeSet.has(f));
    if (forks.length)
      return `A fork (${info.get(forks[0]!)?.title ?? forks[0]}) still reads this thread's history; Codex refuses to delete it until the fork is deleted.`;
  }
  return undefined;
}

function sessionRecords(
  inst: Installation,
  ctx: HostContext,
  store: StoreView,
  writers: CodexWriters,
  index: Map<string, string>,
  resolver: ProjectResolver,
  globalBlock: string | undefined,
): { sessions: SessionRecord[]; projects: ProjectGroup[] } {
  const home = inst.home;
  const owned = ownedEntries(home);
  const own = new Map<string, string>();
  const info = new Map<string, { paths: string[]; bytes: number; title: string; named: boolean }>();
  for (const t of store.threads) {
    const r = rolloutPaths(home, t);
    const paths = [...r.paths, ...(owned.get(t.id) ?? [])];
    const tree = walkOwned(paths, { uid: ctx.uid });
    const cols = store.state?.titles.get(t.id);
    const { title, named } = chooseTitle(
      {
        serverName: t.name,
        dbName: cols?.name,
        indexName: index.get(t.id),
        dbTitle: cols?.title,
        dbFirstUserMessage: cols?.firstUserMessage,
        serverPreview: t.preview,
      },
      ctx.env,
    );
    info.set(t.id, { paths, bytes: tree.bytes, title, named });
    const held = writers.held.get(t.id);
    const reason =
      (t.pinned || cols?.pinned ? 'pinned' : undefined) ??
      (store.loaded.has(t.id) || (t.status !== 'notLoaded' && t.status !== '') ? 'loaded' : undefined) ??
      (held !== undefined ? `Codex (pid ${held}) has this thread open; close it there and rescan.` : undefined) ??
      (r.outside ? `Codex records this thread's rollout outside CODEX_HOME (${cleanText(r.outside, 300)}); its delete would fail half-way.` : undefined) ??
      (store.lineage.inCycle.has(t.id) ? "This thread's spawn-parent links form a cycle; Codex's recursive delete would not finish." : undefined) ??
      tree.unsafe;
    if (reason) own.set(t.id, reason);
  }

  // Projects: positive evidence first, then inheritance down the spawn tree.
  const assoc = new Map<string, Association | null>();
  for (const t of store.threads) assoc.set(t.id, resolver.associate(t.cwd));
  const resolved = (id: string): Association | null => {
    const seen = new Set<string>();
    let cur: string | undefined = id;
    while (cur !== undefined && !seen.has(cur)) {
      seen.add(cur);
      const a = assoc.get(cur);
      const t = store.byId.get(cur);
      if (a) return a;
      // Only a thread with no usable cwd inherits.
      if (t?.cwd && t.cwd.startsWith('/')) return null;
      cur = store.lineage.parentOf.get(cur);
    }
    return null;
  };
  const groups = new Map<string, ProjectGroup>();
  const sessions: SessionRecord[] = [];
  let budget = 5_000_000;
  for (const t of store.threads) {
    const i = info.get(t.id)!;
    const desc = store.lineage.children.has(t.id) && budget > 0 ? descendantsOf(store.lineage, t.id, MAX_SCOPE + 1) : [];
    budget -= desc.length;
    const tooMany = desc.length > MAX_SCOPE || budget < 0;
    const blocked = globalBlock || (scopeBlock(t.id, desc, tooMany, own, info, store) ?? globalBlock);
    const a = resolved(t.id);
    let projectId: string | null = null;
    if (a) {
      const g = projectGroup(a);
      groups.set(g.id, g);
      projectId = g.id;
    }
    sessions.push({
      id: t.id,
      itemId: sessionItemId(t.id),
      title: i.title,
      named: i.named,
      cwd: t.cwd ? cleanText(t.cwd, 4096) || null : null,
      projectId,
      parentId: store.lineage.parentOf.get(t.id) ?? null,
      deletionDescendantIds: tooMany ? [] : desc,
      state: t.archived ? 'archived' : 'current',
      source: cleanText(t.source, 64) || 'unknown',
      createdAt: t.createdAt,
      updatedAt: t.updatedAt,
      bytes: i.bytes,
      paths: i.paths,
      recoverable: false,
      selectable: !blocked,
      blockedReason: blocked,
      metadata: {
        source:
          store.source === 'appServer'
            ? 'Codex App Server thread/list'
            : store.notStarted
              ? 'Codex state database (read-only)'
              : 'Codex state database (read-only fallback)',
        routeRevision: store.revision,
        ...(store.notStarted ? { routeStart: APP_SERVER_START_NOTE } : {}),
        requiresAgentExit: false,
        irreversible: true,
        status: store.loaded.has(t.id) ? 'loaded' : cleanText(t.status, 32) || 'notLoaded',
        pinned: Boolean(t.pinned || store.state?.titles.get(t.id)?.pinned),
        historyMode: cleanText(t.historyMode, 32),
        ...(t.depth !== null ? { depth: t.depth } : {}),
        ...(t.nickname ? { agentNickname: cleanText(t.nickname, 100) } : {}),
        ...(t.parentId && !store.lineage.parentOf.has(t.id) ? { missingParentId: t.parentId } : {}),
        ...(t.modelProvider ? { modelProvider: cleanText(t.modelProvider, 64) } : {}),
      },
    });
  }
  return { sessions, projects: [...groups.values()] };
}
