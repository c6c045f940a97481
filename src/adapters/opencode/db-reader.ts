// Read-only queries over a recognized (or partially recognized) OpenCode
// database: session metadata without transcript bodies, projects, and the
// logical size of each session's own rows. Only SELECTs; every text value is
// length-bounded in SQL so a hostile row cannot blow up memory.

import type { Db } from './db-open.js';
import type { SchemaInfo, SizeSource } from './schema.js';

const MAX_SESSIONS = 200_000;
const MAX_PROJECTS = 100_000;
const MAX_ID = 128;

interface SessionRow {
  id: string;
  title: string | null;
  directory: string | null;
  parentId: string | null;
  projectId: string | null;
  createdAt: number | null;
  updatedAt: number | null;
  archivedAt: number | null;
  /** length(id)+length(title)+length(directory) in bytes. */
  rowBytes: number;
}

export interface ProjectRow {
  id: string;
  name: string | null;
  worktree: string | null;
}

export interface SessionRead {
  rows: SessionRow[];
  /** Rows left out: a non-text or over-long id. */
  skipped: number;
  /** More sessions than MAX_SESSIONS: only the newest were read. */
  truncated: boolean;
}

const text = (col: string, max: number): string => `CASE WHEN typeof(${col}) = 'text' THEN substr(${col}, 1, ${max}) END`;
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'bigint' ? Number(v) : null);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

let octetLength: 'octet_length' | 'length' | null = null;
/** octet_length (SQLite ≥ 3.43) counts bytes without loading overflow pages; length() is the fallback. */
function byteLengthFn(db: Db): 'octet_length' | 'length' {
  if (octetLength) return octetLength;
  try {
    db.prepare("SELECT octet_length('x')").get();
    octetLength = 'octet_length';
  } catch {
    octetLength = 'length';
  }
  return octetLength;
}

export function readSessions(db: Db, schema: SchemaInfo, max = MAX_SESSIONS): SessionRead {
  const has = (c: string): boolean => schema.sessionColumns.has(c);
  const len = byteLengthFn(db);
  const col = (c: string, expr: string): string => (has(c) ? expr : 'NULL');
  const bytesOf = (c: string): string => (has(c) ? `coalesce(${len}(s.${c}), 0)` : '0');
  const sql = `SELECT
      CASE WHEN typeof(s.id) = 'text' AND length(s.id) <= ${MAX_ID} THEN s.id END AS id,
      ${col('title', text('s.title', 2000))} AS title,
      ${col('directory', text('s.directory', 4096))} AS directory,
      ${col('parent_id', text('s.parent_id', 256))} AS parentId,
      ${col('project_id', text('s.project_id', 256))} AS projectId,
      ${col('time_created', 's.time_created')} AS createdAt,
      ${col('time_updated', 's.time_updated')} AS updatedAt,
      ${col('time_archived', 's.time_archived')} AS archivedAt,
      ${bytesOf('id')} + ${bytesOf('title')} + ${bytesOf('directory')} AS rowBytes
    FROM session s
    ${has('time_updated') ? 'ORDER BY s.time_updated DESC, s.id DESC' : 'ORDER BY s.id DESC'}
    LIMIT ?`;
  const rows: SessionRow[] = [];
  let skipped = 0;
  // Arrays, not an object per row, and one call: the statement runs once, in a cold process.
  const all = db
    .prepare(sql)
    .raw()
    .all(max + 1) as unknown[][];
  const seen = all.length;
  for (let i = 0; i < seen && i < max; i++) {
    const r = all[i]!;
    const id = str(r[0]);
    if (!id) {
      skipped++;
      continue;
    }
    rows.push({
      id,
      title: str(r[1]),
      directory: str(r[2]),
      parentId: str(r[3]),
      projectId: str(r[4]),
      createdAt: num(r[5]),
      updatedAt: num(r[6]),
      archivedAt: num(r[7]),
      rowBytes: num(r[8]) ?? 0,
    });
  }
  return { rows, skipped, truncated: seen > max };
}

export function readProjects(db: Db, schema: SchemaInfo): Map<string, ProjectRow> {
  const out = new Map<string, ProjectRow>();
  if (!schema.hasProject) return out;
  const sql = `SELECT ${text('id', 256)} AS id, ${text('name', 1000)} AS name, ${text('worktree', 4096)} AS worktree FROM project LIMIT ${MAX_PROJECTS}`;
  try {
    for (const r of db.prepare(sql).iterate() as Iterable<Record<string, unknown>>) {
      const id = str(r.id);
      // A duplicated id (no primary key in a hostile schema) keeps the first row.
      if (id && !out.has(id)) out.set(id, { id, name: str(r.name), worktree: str(r.worktree) });
    }
  } catch {
    // name or worktree missing: the schema check reports it; projects stay unnamed.
  }
  return out;
}

/** Logical bytes per session id from every recognized session-owned table. */
export function readSizes(db: Db, schema: SchemaInfo): { sizes: Map<string, number>; failed: string[] } {
  const sizes = new Map<string, number>();
  const failed: string[] = [];
  const len = byteLengthFn(db);
  for (const src of schema.sizeSources) {
    try {
      for (const r of db.prepare(sizeSql(src, len)).iterate() as Iterable<{ id: unknown; n: unknown }>) {
        if (typeof r.id !== 'string') continue;
        const n = num(r.n) ?? 0;
        sizes.set(r.id, (sizes.get(r.id) ?? 0) + n);
      }
    } catch {
      failed.push(src.table);
    }
  }
  return { sizes, failed };
}

function sizeSql(src: SizeSource, len: string): string {
  const sum = src.columns.map((c) => `coalesce(${len}("${c}"), 0)`).join(' + ');
  return `SELECT "${src.owner}" AS id, SUM(${sum}) AS n FROM "${src.table}" GROUP BY "${src.owner}"`;
}

/**
 * readSizes and readUserMessages in one statement: every size source's rows
 * in one UNION ALL, grouped once by owner (each table read in one full scan,
 * message's data once for both answers). A table declaring a collation could
 * group ids the per-table statements would keep apart, and any failure could
 * be one table's: both take the per-table statements, whose answers these are.
 */
export function readSizesAndUsers(db: Db, schema: SchemaInfo): { sizes: Map<string, number>; failed: string[]; users: Map<string, boolean | null> | null } {
  const separate = () => ({ ...readSizes(db, schema), users: readUserMessages(db, schema) });
  const sources = schema.sizeSources;
  if (!sources.length) return separate();
  const len = byteLengthFn(db);
  const tables = new Set(sources.map((s) => s.table));
  const withUsers = tables.has('message');
  try {
    const names = sources.map(() => '?').join(',');
    const collated = db.prepare(`SELECT 1 FROM sqlite_schema WHERE type = 'table' AND lower(name) IN (${names}) AND sql LIKE '%collate%' LIMIT 1`);
    if (collated.get(...sources.map((s) => s.table))) return separate();
    const parts = sources.map((src) => {
      const n = src.columns.map((c) => `coalesce(${len}("${c}"), 0)`).join(' + ');
      const readable = `typeof(data) = 'text' AND json_valid(data)`;
      const roles =
        !withUsers || !MESSAGE_ROWS.has(src.table)
          ? '0, 0, 0'
          : src.table === 'message'
            ? `CASE WHEN ${readable} THEN (json_extract(data, '$.role') IS 'user') ELSE 0 END, CASE WHEN ${readable} THEN 0 ELSE 1 END, 1`
            : '0, 1, 1';
      return `SELECT "${src.owner}" AS id, ${n} AS n, ${roles} FROM "${src.table}"`;
    });
    const sql = `SELECT id, SUM(n), MAX(user), MAX(unread), MAX(m) FROM (SELECT NULL AS id, 0 AS n, 0 AS user, 0 AS unread, 0 AS m WHERE 0 UNION ALL ${parts.join(' UNION ALL ')}) GROUP BY id`;
    const sizes = new Map<string, number>();
    const users = withUsers ? new Map<string, boolean | null>() : null;
    for (const r of db.prepare(sql).raw().iterate() as Iterable<unknown[]>) {
      const id = r[0];
      if (typeof id !== 'string') continue;
      sizes.set(id, num(r[1]) ?? 0);
      if (users && num(r[4]) === 1) users.set(id, num(r[2]) === 1 ? true : num(r[3]) === 1 ? null : false);
    }
    return { sizes, failed: [], users };
  } catch {
    return separate();
  }
}

/** The tables readUserMessages reads: message's roles; v2 input and messages leave a session unknown. */
const MESSAGE_ROWS = new Set(['message', 'session_input', 'session_message']);

export interface SessionLink {
  id: string;
  parentId: string | null;
  directory: string | null;
  createdAt: number | null;
}

/** Every session's parent link, directory and creation time, for expanding and checking deletion scopes. */
export function readLinks(db: Db): SessionLink[] {
  const out: SessionLink[] = [];
  const sql = `SELECT CASE WHEN typeof(id) = 'text' AND length(id) <= ${MAX_ID} THEN id END AS id,
      ${text('parent_id', 256)} AS parentId, ${text('directory', 4096)} AS directory, time_created AS createdAt
    FROM session LIMIT ${MAX_SESSIONS * 2}`;
  for (const r of db.prepare(sql).iterate() as Iterable<Record<string, unknown>>) {
    const id = str(r.id);
    if (id) out.push({ id, parentId: str(r.parentId), directory: str(r.directory), createdAt: num(r.createdAt) });
  }
  return out;
}

/** Which of `ids` still exist (one statement per chunk of 500). */
export function existingIds(db: Db, ids: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const sql = `SELECT id FROM session WHERE id IN (${chunk.map(() => '?').join(',')})`;
    for (const r of db.prepare(sql).all(...chunk) as { id: unknown }[]) if (typeof r.id === 'string') out.add(r.id);
  }
  return out;
}

/**
 * Per session id, whether it holds a user message (`message.data`'s role), in
 * one grouped statement. A session with no message rows at all has none. A
 * session with a row whose data is not JSON, or with v2 input or messages
 * (session_input, session_message), is left unknown unless a user message is
 * found: retention's --empty must not match what cleanerx cannot read.
 * Sessions missing from the map have no message rows; null: the table cannot tell.
 */
export function readUserMessages(db: Db, schema: SchemaInfo): Map<string, boolean | null> | null {
  const tables = new Set(schema.sizeSources.map((s) => s.table));
  if (!tables.has('message')) return null;
  const parts = [
    `SELECT session_id AS id,
        CASE WHEN typeof(data) = 'text' AND json_valid(data) THEN (json_extract(data, '$.role') IS 'user') ELSE 0 END AS user,
        CASE WHEN typeof(data) = 'text' AND json_valid(data) THEN 0 ELSE 1 END AS unread
      FROM message`,
  ];
  if (tables.has('session_input')) parts.push('SELECT session_id, 0, 1 FROM session_input');
  if (tables.has('session_message')) parts.push('SELECT session_id, 0, 1 FROM session_message');
  const sql = `SELECT id, MAX(user) AS user, MAX(unread) AS unread FROM (${parts.join(' UNION ALL ')}) GROUP BY id`;
  const out = new Map<string, boolean | null>();
  try {
    for (const r of db.prepare(sql).iterate() as Iterable<{ id: unknown; user: unknown; unread: unknown }>) {
      if (typeof r.id !== 'string') continue;
      out.set(r.id, num(r.user) === 1 ? true : num(r.unread) === 1 ? null : false);
    }
  } catch {
    return null;
  }
  return out;
}
