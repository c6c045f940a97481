// Bounded, read-only previews. A thread: thread/read with turns through the
// App Server (it reads the history; it does not resume the thread), else the
// rollout parser as the read-only fallback. Logs: the newest rows of the
// recognized logs table. At most 200 blocks and 512 KiB of text.

import { tableBytes, tableBytesBlock } from '../../engine/host/db-tables.js';
import type { HostContext } from '../../engine/core/adapter.js';
import type { Installation, Preview, PreviewBlock } from '../../engine/core/model.js';
import { cleanMultiline, cleanText } from '../../engine/core/text.js';
import { pendingPreview } from '../shared/pending.js';
import { connectCodex } from './connection.js';
import { CODEX_DB_ROW, LOGS_ITEM } from './items.js';
import { THREAD_ID } from './paths.js';
import { PREVIEW_BYTES, readRolloutText, rolloutMessages } from './rollout-reader.js';
import { lastScan } from './scan.js';
import { columnsOf, openSnapshot } from './sqlite-read.js';

const MAX_BLOCKS = 200;
const MAX_TEXT = 512 * 1024;
const BLOCK_CHARS = 16 * 1024;

function notice(id: string, source: string, text: string): Preview {
  return { id, source, truncated: false, bytesRead: 0, blocks: [{ kind: 'notice', text }] };
}

class Blocks {
  blocks: PreviewBlock[] = [];
  chars = 0;
  truncated = false;
  add(b: PreviewBlock): boolean {
    if (this.blocks.length >= MAX_BLOCKS || this.chars >= MAX_TEXT) {
      this.truncated = true;
      return false;
    }
    const len = b.kind === 'notice' ? b.text.length : b.text.length;
    this.chars += len;
    this.blocks.push(b);
    return true;
  }
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** One thread item as a preview block (null for items without text). */
function itemBlock(item: Record<string, unknown>): PreviewBlock | null {
  const t = (s: string): string => cleanMultiline(s, BLOCK_CHARS);
  switch (item.type) {
    case 'userMessage': {
      const content = Array.isArray(item.content) ? item.content : [];
      const text = content
        .map((c) => (c && typeof c === 'object' ? str((c as Record<string, unknown>).text) : ''))
        .filter(Boolean)
        .join('\n');
      return text ? { kind: 'message', role: 'user', text: t(text) } : null;
    }
    case 'agentMessage':
      return str(item.text) ? { kind: 'message', role: 'assistant', text: t(str(item.text)) } : null;
    case 'plan':
      return str(item.text) ? { kind: 'text', title: 'Plan', text: t(str(item.text)) } : null;
    case 'reasoning': {
      const summary = Array.isArray(item.summary) ? item.summary.map(str).join('\n') : str(item.summary);
      return summary ? { kind: 'text', title: 'Reasoning summary', text: t(summary) } : null;
    }
    case 'commandExecution':
      return { kind: 'text', title: 'Command', text: t(`$ ${str(item.command)}\n\n${str(item.aggregatedOutput)}`) };
    case 'fileChange': {
      const changes = Array.isArray(item.changes) ? item.changes : [];
      return {
        kind: 'text',
        title: 'File changes',
        text: t(changes.map((c) => (c && typeof c === 'object' ? str((c as Record<string, unknown>).path) : '')).join('\n')),
      };
    }
    case 'mcpToolCall':
    case 'dynamicToolCall':
    case 'collabToolCall':
      return {
        kind: 'text',
        title: cleanText(`Tool · ${str(item.tool) || str(item.server) || String(item.type)}`, 120),
        text: t(JSON.stringify(item.arguments ?? item.result ?? '').slice(0, BLOCK_CHARS)),
      };
    case 'webSearch':
      return { kind: 'text', title: 'Web search', text: t(str(item.query)) };
    default:
      return str(item.text) ? { kind: 'text', title: cleanText(String(item.type ?? 'item'), 64), text: t(str(item.text)) } : null;
  }
}

async function previewCodexThread(inst: Installation, paths: string[], itemId: string): Promise<Preview> {
  const threadId = itemId.slice('session:'.length).toLowerCase();
  if (!THREAD_ID.test(threadId)) return notice(itemId, 'none', 'Not a Codex thread id.');
  const scan = lastScan.get(inst.home);
  let serverProblem = 'the App Server is not available';
  if (scan && inst.executable) {
    const ctx: HostContext = {
      env: scan.env,
      uid: typeof process.geteuid === 'function' ? process.geteuid() : -1,
      platform: process.platform,
      now: () => Date.now(),
      procRoot: '/proc',
    };
    try {
      // A preview reads; it never starts an App Server (one that runs is asked, else the rollout is read).
      const conn = await connectCodex(inst, ctx, { initTimeoutMs: 60_000, socketOnly: true });
      try {
        const res = (await conn.client.request('thread/read', { threadId, includeTurns: true }, 30_000)) as Record<string, unknown> | null;
        const thread = res?.thread && typeof res.thread === 'object' ? (res.thread as Record<string, unknown>) : null;
        const turns = thread && Array.isArray(thread.turns) ? thread.turns : [];
        const out = new Blocks();
        outer: for (const turn of turns) {
          const items =
            turn && typeof turn === 'object' && Array.isArray((turn as Record<string, unknown>).items)
              ? ((turn as Record<string, unknown>).items as unknown[])
              : [];
          for (const it of items) {
            if (!it || typeof it !== 'object') continue;
            const b = itemBlock(it as Record<string, unknown>);
            if (b && !out.add(b)) break outer;
          }
        }
        if (!out.blocks.length) out.blocks.push({ kind: 'notice', text: 'No messages in this thread.' });
        return {
          id: itemId,
          source: 'appServer.threadRead',
          truncated: out.truncated,
          bytesRead: out.chars,
          blocks: out.blocks,
          warning: 'Read-only preview through the Codex App Server; the thread was not resumed.',
        };
      } finally {
        await conn.close();
      }
    } catch (e) {
      serverProblem = (e as Error).message.slice(0, 300);
    }
  }
  const rollout = paths.find((p) => /\.jsonl(\.zst)?$/.test(p));
  if (!rollout) return notice(itemId, 'rollout.readOnlyFallback', `No rollout file to preview (${serverProblem}).`);
  try {
    const r = await readRolloutText(rollout, PREVIEW_BYTES);
    const out = new Blocks();
    for (const m of rolloutMessages(r.text)) if (!out.add({ kind: 'message', role: m.role, text: cleanMultiline(m.text, BLOCK_CHARS) })) break;
    if (!out.blocks.length) out.blocks.push({ kind: 'notice', text: 'No messages in the first part of this rollout.' });
    return {
      id: itemId,
      source: 'rollout.readOnlyFallback',
      truncated: r.truncated || out.truncated,
      bytesRead: r.bytesRead,
      blocks: out.blocks,
      warning: `Read from the rollout file because ${serverProblem}.`,
    };
  } catch (e) {
    return notice(itemId, 'rollout.readOnlyFallback', `The rollout could not be read (${(e as Error).message.slice(0, 200)}).`);
  }
}

function previewCodexLogs(itemId: string, path: string): Preview {
  const o = openSnapshot(path, 'The Codex log database');
  if (!o.ok) return notice(itemId, 'codexLogs.readOnly', o.reason);
  try {
    const cols = columnsOf(o.db, 'logs');
    const need = ['id', 'ts', 'level', 'target', 'feedback_log_body'];
    if (need.some((c) => !cols.has(c))) return notice(itemId, 'codexLogs.readOnly', 'The Codex logs schema is not recognized; its contents were not opened.');
    const rows = o.db
      .prepare(`SELECT ts, level, target, substr(feedback_log_body, 1, 4096) AS body FROM logs ORDER BY id DESC LIMIT ${MAX_BLOCKS}`)
      .all() as Record<string, unknown>[];
    const out = new Blocks();
    // Where the file's bytes go comes first: the log rows are most of it, and only they have a route (deleted by age, then compacted).
    const tables = tableBytes(o.db);
    if (tables) out.blocks.push(tableBytesBlock(tables, { logs: 'old rows: the log item, then Compact' }));
    for (const r of rows) {
      const ts = typeof r.ts === 'number' ? new Date(r.ts * 1000).toISOString() : '';
      out.add({ kind: 'text', title: cleanText(`${ts} ${str(r.level)} ${str(r.target)}`, 200), text: cleanMultiline(str(r.body), 4096) });
    }
    if (!out.blocks.length) out.blocks.push({ kind: 'notice', text: 'No log rows.' });
    return {
      id: itemId,
      source: 'codexLogs.readOnly',
      truncated: rows.length >= MAX_BLOCKS,
      bytesRead: out.chars,
      blocks: out.blocks,
      warning: 'Codex logs can contain prompts, file paths, and tool output.',
    };
  } catch {
    return notice(itemId, 'codexLogs.readOnly', 'The Codex log database could not be read.');
  } finally {
    o.close();
  }
}

/** What Codex's own routes (and cleanerx's) do about each table's bytes; the rest has none. */
const CODEX_TABLE_NOTES: Record<string, string> = {
  logs: 'old rows: the log item, then Compact',
  threads: "goes with its thread (Codex's thread/delete)",
  stage1_outputs: 'the memory reset',
};

/** A Codex database row (state, logs, memories): its bytes per table, read through a private view (visits every page: on demand only). */
function previewCodexTables(itemId: string, path: string): Preview {
  const o = openSnapshot(path, 'The Codex database');
  if (!o.ok) return notice(itemId, 'codexDb.readOnly', o.reason);
  try {
    const tables = tableBytes(o.db);
    if (!tables) return notice(itemId, 'codexDb.readOnly', 'This SQLite has no dbstat: the bytes per table cannot be told.');
    return {
      id: itemId,
      source: 'codexDb.readOnly',
      truncated: false,
      bytesRead: 0,
      blocks: [tableBytesBlock(tables, CODEX_TABLE_NOTES)],
      warning: 'Read-only: the database is read through a private view; nothing is changed.',
    };
  } catch {
    return notice(itemId, 'codexDb.readOnly', 'The Codex database could not be read.');
  } finally {
    o.close();
  }
}

export async function previewCodex(inst: Installation, paths: string[], itemId: string): Promise<Preview> {
  if (itemId.startsWith('session:')) return previewCodexThread(inst, paths, itemId);
  if (itemId === LOGS_ITEM && paths[0]) return previewCodexLogs(itemId, paths[0]);
  if (CODEX_DB_ROW.test(itemId) && paths[0]) return previewCodexTables(itemId, paths[0]);
  return pendingPreview(itemId);
}
