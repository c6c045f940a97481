// Reading a rollout file (`.jsonl`, or zstd `.jsonl.zst`) read-only and
// bounded: its session_meta (for the fork a paginated thread's history still
// depends on) and, as the preview fallback when the App Server is not
// available, the first user and agent messages. Every line is outside data.

import { decompress } from '@mongodb-js/zstd';
import { readPrefix } from '../../engine/host/fsx.js';
import { THREAD_ID } from './paths.js';

const META_BYTES = 1024 * 1024;
export const PREVIEW_BYTES = 2 * 1024 * 1024;
/** A compressed rollout larger than this is not decompressed for a preview. */
const MAX_ZST_BYTES = 16 * 1024 * 1024;
const PREVIEW_LINES = 2000;

interface RolloutText {
  text: string;
  bytesRead: number;
  truncated: boolean;
}

/** The first `max` bytes of the rollout's JSONL text (decompressed when `.zst`). */
export async function readRolloutText(path: string, max: number): Promise<RolloutText> {
  if (path.endsWith('.zst')) {
    const p = await readPrefix(path, MAX_ZST_BYTES);
    if (p.truncated) throw new Error(`the compressed rollout is larger than ${MAX_ZST_BYTES >> 20} MiB`);
    const raw = await decompress(p.buf);
    return { text: raw.subarray(0, max).toString('utf8'), bytesRead: p.buf.length, truncated: raw.length > max };
  }
  const p = await readPrefix(path, max);
  return { text: p.buf.toString('utf8'), bytesRead: p.buf.length, truncated: p.truncated };
}

interface SessionMeta {
  id: string | null;
  forkedFromId: string | null;
  /** The thread whose rollout this (paginated) fork still reads its history from. */
  historyBaseId: string | null;
}

/** The session_meta of the first line; null when the first line is not one. */
export async function readSessionMeta(path: string): Promise<SessionMeta | null> {
  const { text } = await readRolloutText(path, META_BYTES);
  const nl = text.indexOf('\n');
  const first = nl < 0 ? text : text.slice(0, nl);
  let rec: unknown;
  try {
    rec = JSON.parse(first);
  } catch {
    return null;
  }
  const r = rec as Record<string, unknown> | null;
  if (!r || r.type !== 'session_meta' || !r.payload || typeof r.payload !== 'object') return null;
  const p = r.payload as Record<string, unknown>;
  const id = (v: unknown): string | null => (typeof v === 'string' && THREAD_ID.test(v) ? v.toLowerCase() : null);
  const base = p.history_base && typeof p.history_base === 'object' ? (p.history_base as Record<string, unknown>) : null;
  return { id: id(p.id), forkedFromId: id(p.forked_from_id), historyBaseId: base ? id(base.thread_id) : null };
}

interface RolloutMessage {
  role: string;
  text: string;
}

/** Messages of a rollout's first lines: event_msg user/agent messages, else response_item messages. */
export function rolloutMessages(text: string, maxLines = PREVIEW_LINES): RolloutMessage[] {
  const events: RolloutMessage[] = [];
  const items: RolloutMessage[] = [];
  const lines = text.split('\n');
  for (const line of lines.slice(0, maxLines)) {
    if (!line.trim()) continue;
    let rec: unknown;
    try {
      rec = JSON.parse(line);
    } catch {
      continue;
    }
    const r = rec as Record<string, unknown> | null;
    const p = r && r.payload && typeof r.payload === 'object' ? (r.payload as Record<string, unknown>) : null;
    if (!r || !p) continue;
    if (r.type === 'event_msg') {
      if (p.type === 'user_message' && typeof p.message === 'string') events.push({ role: 'user', text: p.message });
      else if (p.type === 'agent_message' && typeof (p.message ?? p.text) === 'string')
        events.push({ role: 'assistant', text: (p.message ?? p.text) as string });
      else if (p.type === 'item_completed' && p.item && typeof p.item === 'object') {
        const it = p.item as Record<string, unknown>;
        const t = itemText(it);
        if (t) events.push({ role: it.type === 'UserMessage' || it.type === 'userMessage' ? 'user' : 'assistant', text: t });
      }
    } else if (r.type === 'response_item' && p.type === 'message' && (p.role === 'user' || p.role === 'assistant')) {
      const t = itemText(p);
      if (t) items.push({ role: p.role as string, text: t });
    }
  }
  return events.length ? events : items;
}

function itemText(it: Record<string, unknown>): string {
  if (typeof it.text === 'string') return it.text;
  if (Array.isArray(it.content)) {
    return it.content
      .map((c) =>
        c && typeof c === 'object' && typeof (c as Record<string, unknown>).text === 'string' ? ((c as Record<string, unknown>).text as string) : '',
      )
      .filter(Boolean)
      .join('\n');
  }
  return '';
}
