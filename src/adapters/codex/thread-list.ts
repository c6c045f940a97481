// The App Server's own inventory: thread/list over every page, live and
// archived, every source kind, every model provider (`modelProviders: []`),
// and thread/loaded/list. Only metadata is kept — never turns — and every
// field is checked, since the answer is outside data.

import { THREAD_ID } from './paths.js';
import type { JsonRpcClient } from './rpc-client.js';

export const ALL_SOURCE_KINDS = [
  'cli',
  'vscode',
  'exec',
  'appServer',
  'subAgent',
  'subAgentReview',
  'subAgentCompact',
  'subAgentThreadSpawn',
  'subAgentOther',
  'unknown',
] as const;

const PAGE_SIZE = 200;
const MAX_PAGES = 5000;
/** Longest name or preview kept before titles are chosen (the chosen one is cleaned again). */
const MAX_TEXT = 2000;

export interface ListedThread {
  id: string;
  /** The subagent spawn parent (source.subAgent.thread_spawn.parent_thread_id, else parentThreadId). */
  parentId: string | null;
  depth: number | null;
  nickname: string | null;
  archived: boolean;
  name: string | null;
  preview: string;
  cwd: string | null;
  path: string | null;
  /** "cli", "vscode", "exec", "subagent", "custom:<x>", … */
  source: string;
  historyMode: string;
  pinned: boolean;
  forkedFromId: string | null;
  createdAt: number | null;
  updatedAt: number | null;
  status: string;
  modelProvider: string;
}

const str = (v: unknown, max = MAX_TEXT): string | null => (typeof v === 'string' ? v.slice(0, max) : null);

function seconds(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 && v < 1e11 ? Math.round(v * 1000) : null;
}

/** The spawn parent of a subagent source, in either spelling (API `subAgent`, store `subagent`). */
export function spawnOf(source: unknown): { parent: string; depth: number | null; nickname: string | null } | null {
  if (!source || typeof source !== 'object') return null;
  const s = source as Record<string, unknown>;
  const sub = (s.subAgent ?? s.subagent) as Record<string, unknown> | undefined;
  if (!sub || typeof sub !== 'object') return null;
  const spawn = sub.thread_spawn as Record<string, unknown> | undefined;
  if (!spawn || typeof spawn !== 'object') return null;
  const parent = typeof spawn.parent_thread_id === 'string' ? spawn.parent_thread_id : '';
  if (!THREAD_ID.test(parent)) return null;
  return {
    parent: parent.toLowerCase(),
    depth: typeof spawn.depth === 'number' ? spawn.depth : null,
    nickname: typeof spawn.agent_nickname === 'string' ? spawn.agent_nickname.slice(0, 200) : null,
  };
}

/** A source as one short string: the value itself, or the first key of an object ("subagent", "custom:x"). */
export function sourceLabel(source: unknown): string {
  if (typeof source === 'string') return source.slice(0, 64) || 'unknown';
  if (source && typeof source === 'object' && !Array.isArray(source)) {
    const k = Object.keys(source)[0] ?? 'unknown';
    if (k === 'custom') {
      const v = (source as Record<string, unknown>).custom;
      return typeof v === 'string' ? `custom:${v.slice(0, 48)}` : 'custom';
    }
    return k.toLowerCase() === 'subagent' ? 'subagent' : k.slice(0, 64);
  }
  return 'unknown';
}

export function parseThread(raw: unknown, archived: boolean): ListedThread | null {
  if (!raw || typeof raw !== 'object') return null;
  const t = raw as Record<string, unknown>;
  const id = typeof t.id === 'string' && THREAD_ID.test(t.id) ? t.id.toLowerCase() : null;
  if (!id) return null;
  const spawn = spawnOf(t.source);
  const apiParent = typeof t.parentThreadId === 'string' && THREAD_ID.test(t.parentThreadId) ? t.parentThreadId.toLowerCase() : null;
  const section = t.section && typeof t.section === 'object' ? (t.section as Record<string, unknown>) : null;
  const status = t.status && typeof t.status === 'object' ? (t.status as Record<string, unknown>).type : t.status;
  return {
    id,
    parentId: spawn?.parent ?? apiParent,
    depth: spawn?.depth ?? null,
    nickname: spawn?.nickname ?? str(t.agentNickname, 200),
    archived,
    name: str(t.name),
    preview: str(t.preview) ?? '',
    cwd: str(t.cwd, 4096),
    path: str(t.path, 4096),
    source: sourceLabel(t.source),
    historyMode: str(t.historyMode, 32) ?? 'legacy',
    pinned: section !== null && (section.name === 'Pinned' || section.id === PINNED_SECTION_ID),
    forkedFromId: typeof t.forkedFromId === 'string' && THREAD_ID.test(t.forkedFromId) ? t.forkedFromId.toLowerCase() : null,
    createdAt: seconds(t.createdAt),
    updatedAt: seconds(t.updatedAt),
    status: typeof status === 'string' ? status.slice(0, 32) : 'notLoaded',
    modelProvider: str(t.modelProvider, 128) ?? '',
  };
}

/** Codex's built-in "Pinned" thread section. */
export const PINNED_SECTION_ID = '01984de2-8f74-7c91-a3b2-5c5e937cf318';

interface ListResult {
  threads: ListedThread[];
  /** Entries the server sent that were not usable threads. */
  skipped: number;
  pages: number;
}

async function listPass(client: JsonRpcClient, archived: boolean, timeoutMs?: number): Promise<ListResult> {
  const out: ListedThread[] = [];
  let skipped = 0;
  let cursor: string | null = null;
  const seenCursors = new Set<string>();
  let pages = 0;
  for (; pages < MAX_PAGES; ) {
    const params: Record<string, unknown> = {
      limit: PAGE_SIZE,
      sortKey: 'created_at',
      sortDirection: 'desc',
      modelProviders: [],
      sourceKinds: [...ALL_SOURCE_KINDS],
      archived,
    };
    if (cursor) params.cursor = cursor;
    const res = (await client.request('thread/list', params, timeoutMs)) as Record<string, unknown> | null;
    pages++;
    const data = res && Array.isArray(res.data) ? res.data : null;
    if (!data) throw new Error('Codex answered thread/list without a data list.');
    for (const raw of data) {
      const t = parseThread(raw, archived);
      if (t) out.push(t);
      else skipped++;
    }
    const next = res && typeof res.nextCursor === 'string' && res.nextCursor ? res.nextCursor : null;
    if (!next || data.length === 0) break;
    if (seenCursors.has(next)) throw new Error('Codex repeated a thread/list cursor; the listing would not end.');
    seenCursors.add(next);
    cursor = next;
  }
  if (pages >= MAX_PAGES) throw new Error(`Codex listed more than ${MAX_PAGES} pages of threads.`);
  return { threads: out, skipped, pages };
}

/** Every thread Codex lists: both archive states (in parallel), de-duplicated by id (live wins). */
export async function listAllThreads(client: JsonRpcClient, timeoutMs?: number): Promise<ListResult> {
  const [live, archived] = await Promise.all([listPass(client, false, timeoutMs), listPass(client, true, timeoutMs)]);
  const byId = new Map<string, ListedThread>();
  for (const t of [...live.threads, ...archived.threads]) if (!byId.has(t.id)) byId.set(t.id, t);
  return { threads: [...byId.values()], skipped: live.skipped + archived.skipped, pages: live.pages + archived.pages };
}

/** Thread ids loaded in the connected server (a daemon shares them with the user's Codex). */
export async function loadedThreads(client: JsonRpcClient, timeoutMs?: number): Promise<Set<string>> {
  const out = new Set<string>();
  let cursor: string | null = null;
  for (let i = 0; i < 1000; i++) {
    const params: Record<string, unknown> = { limit: 500 };
    if (cursor) params.cursor = cursor;
    const res = (await client.request('thread/loaded/list', params, timeoutMs)) as Record<string, unknown> | null;
    const data = res && Array.isArray(res.data) ? res.data : [];
    for (const id of data) if (typeof id === 'string' && THREAD_ID.test(id)) out.add(id.toLowerCase());
    const next = res && typeof res.nextCursor === 'string' && res.nextCursor ? res.nextCursor : null;
    if (!next || !data.length) break;
    cursor = next;
  }
  return out;
}
