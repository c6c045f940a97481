// The newest state_<N>.sqlite, read without touching it (sqlite-read.ts),
// after checking its columns. It supplements the App Server's listing with
// the title columns (name, title, first_user_message), pinned state, spawn
// edges and the app-level project registry — and, when the App Server cannot
// list, it is the read-only fallback listing (mutations then stay off). Rows
// a malformed rollout left behind (no cwd, no preview, no originator, no
// rollout file) are ignored, as Codex's own listing ignores them.

import { isAbsolute } from 'node:path';
import { lstatSyncOrNull } from '../../engine/host/fsx.js';
import { THREAD_ID } from './paths.js';
import { columnsOf, hasColumns, openSnapshot, describeSqliteError, type Db } from './sqlite-read.js';
import { PINNED_SECTION_ID, sourceLabel, spawnOf, type ListedThread } from './thread-list.js';

const FALLBACK_COLUMNS = ['id', 'rollout_path', 'created_at', 'updated_at', 'source', 'cwd', 'title', 'archived'] as const;
const MAX_ROWS = 500_000;
const TEXT = 2000;

interface TitleColumns {
  name: string | null;
  title: string | null;
  firstUserMessage: string | null;
  pinned: boolean;
}

export interface StateRead {
  path: string;
  titles: Map<string, TitleColumns>;
  /** child → parent from thread_spawn_edges. */
  edges: Map<string, string>;
  /** The app-level project registry (projects + project_roots). */
  projects: { root: string; name: string }[];
  /** Present when asked for: the fallback listing. */
  threads?: ListedThread[];
  ignoredRows: number;
  warnings: string[];
}

function text(v: unknown): string | null {
  return typeof v === 'string' ? v.slice(0, TEXT) : null;
}

function parseSource(v: unknown): unknown {
  if (typeof v !== 'string') return null;
  if (!v.startsWith('{')) return v;
  try {
    return JSON.parse(v.slice(0, 64 * 1024)) as unknown;
  } catch {
    return v;
  }
}

export function readStateDb(path: string, opts: { listing: boolean }): StateRead | { error: string } {
  const opened = openSnapshot(path, `The Codex state database ${path}`);
  if (!opened.ok) return { error: opened.reason };
  try {
    return readOpened(opened.db, path, opts);
  } catch (e) {
    return { error: describeSqliteError(e, `The Codex state database ${path}`) };
  } finally {
    opened.close();
  }
}

function readOpened(db: Db, path: string, opts: { listing: boolean }): StateRead | { error: string } {
  const out: StateRead = { path, titles: new Map(), edges: new Map(), projects: [], ignoredRows: 0, warnings: [] };
  const cols = columnsOf(db, 'threads');
  if (!cols.has('id')) return { error: `The Codex state database ${path} has no recognized threads table; it is not read.` };
  let pinnedSections = new Set<string>([PINNED_SECTION_ID]);
  const secCols = columnsOf(db, 'thread_sections');
  if (secCols.has('id') && secCols.has('name')) {
    for (const r of db.prepare(`SELECT id FROM thread_sections WHERE name = 'Pinned' LIMIT 100`).all() as { id: unknown }[])
      if (typeof r.id === 'string') pinnedSections.add(r.id);
  }
  pinnedSections = new Set([...pinnedSections]);
  const optional = ['name', 'title', 'first_user_message', 'is_pinned', 'thread_section_id'].filter((c) => cols.has(c));
  const sel = ['id', ...optional.map((c) => (c === 'is_pinned' || c === 'thread_section_id' ? c : `substr(${c}, 1, ${TEXT}) AS ${c}`))];
  const rows = db.prepare(`SELECT ${sel.join(', ')} FROM threads LIMIT ${MAX_ROWS}`).all() as Record<string, unknown>[];
  for (const r of rows) {
    if (typeof r.id !== 'string' || !THREAD_ID.test(r.id)) continue;
    out.titles.set(r.id.toLowerCase(), {
      name: text(r.name),
      title: text(r.title),
      firstUserMessage: text(r.first_user_message),
      pinned: r.is_pinned === 1 || (typeof r.thread_section_id === 'string' && pinnedSections.has(r.thread_section_id)),
    });
  }
  const edgeCols = columnsOf(db, 'thread_spawn_edges');
  if (edgeCols.has('parent_thread_id') && edgeCols.has('child_thread_id')) {
    for (const e of db.prepare(`SELECT parent_thread_id AS p, child_thread_id AS c FROM thread_spawn_edges LIMIT ${MAX_ROWS}`).all() as {
      p: unknown;
      c: unknown;
    }[]) {
      if (typeof e.p === 'string' && typeof e.c === 'string' && THREAD_ID.test(e.p) && THREAD_ID.test(e.c)) out.edges.set(e.c.toLowerCase(), e.p.toLowerCase());
    }
  }
  const pCols = columnsOf(db, 'projects');
  const rCols = columnsOf(db, 'project_roots');
  if (pCols.has('id') && pCols.has('name') && rCols.has('project_id') && rCols.has('path')) {
    for (const p of db.prepare('SELECT r.path AS root, p.name AS name FROM project_roots r JOIN projects p ON p.id = r.project_id LIMIT 10000').all() as {
      root: unknown;
      name: unknown;
    }[]) {
      if (typeof p.root === 'string' && isAbsolute(p.root) && p.root.length < 4096)
        out.projects.push({ root: p.root, name: typeof p.name === 'string' ? p.name.slice(0, 200) : '' });
    }
  } else if (pCols.size || rCols.size)
    out.warnings.push('The Codex project registry in the state database is not recognized; only Git roots and config.toml projects are used.');
  if (opts.listing) {
    const missing = hasColumns(cols, FALLBACK_COLUMNS);
    if (missing.length) return { error: `The Codex state database ${path} lacks the columns ${missing.join(', ')}; it is not read.` };
    out.threads = fallbackThreads(db, cols, out);
  }
  return out;
}

function fallbackThreads(db: Db, cols: Set<string>, read: StateRead): ListedThread[] {
  const extra = ['preview', 'cli_version', 'originator', 'history_mode'].filter((c) => cols.has(c));
  const sel = [
    'id',
    'rollout_path',
    'created_at',
    'updated_at',
    'substr(source, 1, 65536) AS source',
    'cwd',
    'archived',
    ...extra.map((c) => `substr(${c}, 1, ${TEXT}) AS ${c}`),
  ];
  const rows = db.prepare(`SELECT ${sel.join(', ')} FROM threads ORDER BY created_at DESC LIMIT ${MAX_ROWS}`).all() as Record<string, unknown>[];
  const out: ListedThread[] = [];
  for (const r of rows) {
    const id = typeof r.id === 'string' && THREAD_ID.test(r.id) ? r.id.toLowerCase() : null;
    const cwd = text(r.cwd);
    const rollout = typeof r.rollout_path === 'string' ? r.rollout_path : '';
    const junk =
      !id ||
      !cwd ||
      !isAbsolute(rollout) ||
      !lstatSyncOrNull(rollout)?.isFile() ||
      (extra.includes('preview') && !text(r.preview)) ||
      (extra.includes('cli_version') && !text(r.cli_version)) ||
      (extra.includes('originator') && !text(r.originator));
    if (junk) {
      read.ignoredRows++;
      continue;
    }
    const source = parseSource(r.source);
    const spawn = spawnOf(source);
    const cols = read.titles.get(id!);
    out.push({
      id: id!,
      parentId: spawn?.parent ?? read.edges.get(id!) ?? null,
      depth: spawn?.depth ?? null,
      nickname: spawn?.nickname ?? null,
      archived: r.archived === 1,
      name: null,
      preview: text(r.preview) ?? cols?.firstUserMessage ?? '',
      cwd,
      path: rollout,
      source: sourceLabel(source),
      historyMode: text(r.history_mode) ?? 'legacy',
      pinned: cols?.pinned ?? false,
      forkedFromId: null,
      createdAt: typeof r.created_at === 'number' && r.created_at > 0 ? r.created_at * 1000 : null,
      updatedAt: typeof r.updated_at === 'number' && r.updated_at > 0 ? r.updated_at * 1000 : null,
      status: 'notLoaded',
      modelProvider: '',
    });
  }
  return out;
}
