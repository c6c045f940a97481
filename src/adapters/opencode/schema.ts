// Which parts of an OpenCode database cleanerx recognizes. Recognition is by
// tables and columns: added columns keep working (OpenCode adds migrations
// often), anything missing or ambiguous leaves sessions read-only, and so
// does any table the pinned 1.x does not create — OpenCode 2.x writes its
// new tables (session_v2, …) into the same opencode.db beside the frozen
// 1.x ones, and deleting a 1.x session there would leave its 2.x half.

import { cleanText } from '../../engine/core/text.js';
import type { Db } from './db-open.js';

/**
 * Every table OpenCode 1.18.33 creates (`opencode db path` on an empty
 * store), its own `migration` bookkeeping included. 1.18.33 already has
 * `session_message`, `session_input` and `session_context_epoch`; a 2.x
 * marker is a table outside this set. SQLite's own `sqlite_*` tables are
 * no OpenCode schema.
 */
export const KNOWN_TABLES = new Set([
  'account',
  'account_state',
  'control_account',
  'credential',
  'data_migration',
  'event',
  'event_sequence',
  'message',
  'migration',
  'part',
  'permission',
  'project',
  'project_directory',
  'session',
  'session_context_epoch',
  'session_input',
  'session_message',
  'session_share',
  'todo',
  'workspace',
]);

export const NEWER_SCHEMA_REASON = 'This OpenCode database has a newer schema: read-only';
const MAX_NAMED_TABLES = 5;

/** Columns cleanerx needs to list sessions and let OpenCode delete them. */
const REQUIRED = {
  session: ['id', 'project_id', 'parent_id', 'directory', 'title', 'time_created', 'time_updated', 'time_archived'],
  project: ['id', 'worktree', 'name'],
} as const;

/** Session-owned rows whose lengths make up a session's logical size: table, owner column, measured columns. */
const SIZE_SOURCES = [
  { table: 'message', owner: 'session_id', columns: ['data'] },
  { table: 'part', owner: 'session_id', columns: ['data'] },
  { table: 'session_message', owner: 'session_id', columns: ['data'] },
  { table: 'session_input', owner: 'session_id', columns: ['prompt'] },
  { table: 'session_context_epoch', owner: 'session_id', columns: ['baseline', 'snapshot'] },
  { table: 'todo', owner: 'session_id', columns: ['content', 'status'] },
  { table: 'event', owner: 'aggregate_id', columns: ['data', 'type'] },
] as const;

export type SizeSource = (typeof SIZE_SOURCES)[number];

export interface SchemaInfo {
  /** True when sessions can be listed and offered for official deletion. */
  recognized: boolean;
  /** Why not, when not. */
  reason?: string;
  /** The session columns that exist (a partial, read-only listing uses them). */
  sessionColumns: Set<string>;
  hasProject: boolean;
  /** Size sources whose table and columns exist. */
  sizeSources: SizeSource[];
  /** Preview needs message(id, session_id, data) and part(message_id, session_id, data). */
  messageProjection: boolean;
  /** Applied OpenCode migrations (0 when the table is missing). */
  migrations: number;
  /** Tables and views the pinned 1.x does not create (lower case, as stored): a newer OpenCode's. */
  unknownTables: string[];
}

export function readSchema(db: Db): SchemaInfo {
  const objects = db.prepare("SELECT type, name FROM sqlite_schema WHERE type IN ('table','view')").all() as { type: string; name: string }[];
  const kinds = new Map<string, string[]>();
  for (const o of objects) {
    const k = o.name.toLowerCase();
    kinds.set(k, [...(kinds.get(k) ?? []), o.type]);
  }
  const columns = (table: string): Map<string, { pk: number }> => {
    const out = new Map<string, { pk: number }>();
    const t = kinds.get(table);
    if (!t || t.length !== 1 || t[0] !== 'table') return out;
    for (const c of db.prepare('SELECT name, pk FROM pragma_table_info(?)').all(table) as { name: string; pk: number }[]) out.set(c.name, { pk: c.pk });
    return out;
  };
  const session = columns('session');
  const project = columns('project');
  const info: SchemaInfo = {
    recognized: true,
    sessionColumns: new Set(session.keys()),
    hasProject: project.size > 0,
    sizeSources: [],
    messageProjection: false,
    migrations: 0,
    unknownTables: [...kinds.keys()].filter((k) => !k.startsWith('sqlite_') && !KNOWN_TABLES.has(k)).sort(),
  };
  const fail = (reason: string): SchemaInfo => ({ ...info, recognized: false, reason });
  for (const src of SIZE_SOURCES) {
    const cols = columns(src.table);
    if (cols.has(src.owner) && src.columns.every((c) => cols.has(c))) info.sizeSources.push(src);
  }
  const m = columns('message');
  const p = columns('part');
  info.messageProjection = ['id', 'session_id', 'data'].every((c) => m.has(c)) && ['message_id', 'session_id', 'data'].every((c) => p.has(c));
  if (kinds.get('migration')?.[0] === 'table') {
    try {
      info.migrations = Number((db.prepare('SELECT count(*) AS n FROM migration').get() as { n: number }).n) || 0;
    } catch {
      info.migrations = 0;
    }
  }

  if (info.unknownTables.length) return fail(newerSchemaReason(info.unknownTables));
  const sessionKinds = kinds.get('session');
  if (!sessionKinds) return fail('The OpenCode database has no session table; its schema is not recognized and its contents remain read-only.');
  if (sessionKinds.length !== 1 || sessionKinds[0] !== 'table') {
    return fail('The OpenCode database defines "session" ambiguously (not one plain table); its contents remain read-only.');
  }
  const missing = REQUIRED.session.filter((c) => !session.has(c)).map((c) => `session.${c}`);
  if (!project.size) missing.push('project');
  else missing.push(...REQUIRED.project.filter((c) => !project.has(c)).map((c) => `project.${c}`));
  if (missing.length) {
    return fail(`The OpenCode database schema is not recognized (missing ${missing.join(', ')}); its contents remain read-only.`);
  }
  const pk = [...session.entries()].filter(([, c]) => c.pk > 0).map(([n]) => n);
  if (pk.length !== 1 || pk[0] !== 'id') {
    return fail('The OpenCode database schema is not recognized (session.id is not the only primary key); its contents remain read-only.');
  }
  return info;
}

/** One line; table names are outside data (cleaned, a few named). */
export function newerSchemaReason(tables: string[]): string {
  const named = tables.slice(0, MAX_NAMED_TABLES).map((t) => cleanText(t, 64) || '?');
  const more = tables.length > MAX_NAMED_TABLES ? `, and ${tables.length - MAX_NAMED_TABLES} more` : '';
  return `${NEWER_SCHEMA_REASON} (tables cleanerx does not know: ${named.join(', ')}${more}).`;
}
