// Bounded read-only previews: a session's message/part projection from the
// database (at most 200 parts, 64 KiB each), and the newest log lines.

import { join } from 'node:path';
import { listDirSorted, readPrefix } from '../../engine/host/fsx.js';
import type { Preview, PreviewBlock } from '../../engine/core/model.js';
import { cleanMultiline, cleanText } from '../../engine/core/text.js';
import { describeSqliteError, openReadOnly } from './db-open.js';
import { readSchema } from './schema.js';
import { tableBytes, tableBytesBlock } from '../../engine/host/db-tables.js';

const MAX_ROWS = 200;
const ROW_BYTES = 64 * 1024;
const TEXT_CHARS = 16 * 1024;
const LOG_BYTES = 512 * 1024;
const LOG_LINES = 200;

const notice = (id: string, source: string, text: string): Preview => ({ id, source, truncated: false, bytesRead: 0, blocks: [{ kind: 'notice', text }] });

export function previewOpencodeSession(itemId: string, sessionId: string, db: string | undefined): Preview {
  if (!db) return notice(itemId, 'opencodeDb.readOnly', 'Rescan OpenCode to preview this session.');
  const opened = openReadOnly(db);
  if (!opened.ok) return notice(itemId, 'opencodeDb.readOnly', opened.reason);
  try {
    if (!readSchema(opened.db).messageProjection) {
      return notice(itemId, 'opencodeDb.readOnly', 'This OpenCode database does not expose the message projection cleanerx can preview.');
    }
    const rows = opened.db
      .prepare(
        `SELECT CASE WHEN typeof(m.data) = 'text' THEN substr(m.data, 1, ${ROW_BYTES}) END AS mdata,
                CASE WHEN typeof(p.data) = 'text' THEN substr(p.data, 1, ${ROW_BYTES}) END AS pdata
           FROM message m LEFT JOIN part p ON p.message_id = m.id AND p.session_id = m.session_id
          WHERE m.session_id = ? ORDER BY m.id, p.id LIMIT ${MAX_ROWS + 1}`,
      )
      .all(sessionId) as { mdata: string | null; pdata: string | null }[];
    const blocks: PreviewBlock[] = [];
    let bytesRead = 0;
    for (const r of rows.slice(0, MAX_ROWS)) {
      bytesRead += (r.mdata?.length ?? 0) + (r.pdata?.length ?? 0);
      const block = partBlock(r.mdata, r.pdata);
      if (block) blocks.push(block);
    }
    if (!blocks.length) blocks.push({ kind: 'notice', text: 'No text in this session.' });
    return {
      id: itemId,
      source: 'opencodeDb.readOnly',
      truncated: rows.length > MAX_ROWS,
      bytesRead,
      blocks,
      warning: 'Read-only preview from the OpenCode database; nothing is changed.',
    };
  } catch (e) {
    return notice(itemId, 'opencodeDb.readOnly', describeSqliteError(e));
  } finally {
    opened.close();
  }
}

function parse(s: string | null): Record<string, unknown> | null {
  if (!s) return null;
  try {
    const v = JSON.parse(s) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function partBlock(mdata: string | null, pdata: string | null): PreviewBlock | null {
  const part = parse(pdata);
  if (!part) return pdata ? { kind: 'notice', text: 'A part too large or malformed to preview.' } : null;
  const role = typeof parse(mdata)?.role === 'string' ? cleanText(parse(mdata)!.role as string, 32) : 'assistant';
  if ((part.type === 'text' || part.type === 'reasoning') && typeof part.text === 'string') {
    return { kind: 'message', role: part.type === 'reasoning' ? `${role} (reasoning)` : role, text: cleanMultiline(part.text, TEXT_CHARS) };
  }
  if (part.type === 'tool') {
    const state = (part.state && typeof part.state === 'object' ? part.state : {}) as Record<string, unknown>;
    const title = typeof state.title === 'string' ? state.title : typeof part.tool === 'string' ? part.tool : 'tool';
    const output = typeof state.output === 'string' ? state.output : '';
    return { kind: 'text', title: cleanText(title, 256), text: cleanMultiline(output, TEXT_CHARS) };
  }
  return null;
}

export async function previewOpencodeLogs(itemId: string, logDir: string): Promise<Preview> {
  const files = listDirSorted(logDir).filter((d) => d.isFile());
  const withTime: { name: string; mtime: number }[] = [];
  for (const f of files.slice(0, 1000)) {
    try {
      const { stat } = await readPrefix(join(logDir, f.name), 0);
      withTime.push({ name: f.name, mtime: stat.mtimeMs });
    } catch {
      // vanished or not a plain file
    }
  }
  withTime.sort((a, b) => b.mtime - a.mtime);
  const blocks: PreviewBlock[] = [];
  let bytesRead = 0;
  let lines = 0;
  let truncated = false;
  for (const f of withTime) {
    if (bytesRead >= LOG_BYTES || lines >= LOG_LINES) {
      truncated = true;
      break;
    }
    try {
      const p = await readPrefix(join(logDir, f.name), LOG_BYTES - bytesRead);
      bytesRead += p.buf.length;
      const all = p.buf.toString('utf8').split('\n');
      const take = all.slice(0, LOG_LINES - lines);
      lines += take.length;
      if (p.truncated || take.length < all.length) truncated = true;
      blocks.push({ kind: 'text', title: cleanText(f.name, 256), text: cleanMultiline(take.join('\n'), 64 * 1024) });
    } catch {
      // skipped
    }
  }
  if (!blocks.length) blocks.push({ kind: 'notice', text: 'No log files.' });
  return {
    id: itemId,
    source: 'opencodeLogs.readOnly',
    truncated,
    bytesRead,
    blocks,
    warning: 'OpenCode logs can contain prompts, file paths, and tool output.',
  };
}

/** What OpenCode's own routes do about each table's bytes (the rest has none). */
const TABLE_NOTES: Record<string, string> = {
  event: 'no official route to prune',
  event_sequence: 'no official route to prune',
  part: "goes with its session (OpenCode's delete)",
  message: "goes with its session (OpenCode's delete)",
  session: "OpenCode's delete",
};

/** The database's bytes per table, read through the quiet view (visits every page: on demand only). */
export function previewOpencodeTables(itemId: string, db: string | undefined): Preview {
  if (!db) return notice(itemId, 'opencodeDb.readOnly', 'Rescan OpenCode to see its database by table.');
  const opened = openReadOnly(db);
  if (!opened.ok) return notice(itemId, 'opencodeDb.readOnly', opened.reason);
  try {
    const tables = tableBytes(opened.db);
    if (!tables) return notice(itemId, 'opencodeDb.readOnly', 'This SQLite has no dbstat: the bytes per table cannot be told.');
    return {
      id: itemId,
      source: 'opencodeDb.readOnly',
      truncated: false,
      bytesRead: 0,
      blocks: [tableBytesBlock(tables, TABLE_NOTES)],
      warning: 'Read-only: the database is read through a private view; nothing is changed.',
    };
  } catch (e) {
    return notice(itemId, 'opencodeDb.readOnly', describeSqliteError(e));
  } finally {
    opened.close();
  }
}
