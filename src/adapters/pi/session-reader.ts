// Reads the bounded prefix of one pi session file and, for a longer file, a
// bounded tail (where a late rename and the last message are). Only the
// header, the latest session_info name, the last message's time and (when
// unnamed) a normalized first user message survive; every other line is
// looked at transiently and dropped.

import { cleanText, truncateChars } from '../../engine/core/text.js';
import { JsonLineFields, KIND_ARRAY, KIND_NONE, KIND_NUMBER, KIND_OBJECT, KIND_STRING, LINE_OBJECT, LINE_UNSURE } from '../shared/json-fields.js';
import { parseObject } from '../shared/jsonl.js';

export const PI_PREFIX_BYTES = 2 * 1024 * 1024;
export const PI_TAIL_BYTES = 256 * 1024;
const PI_TITLE_CHARS = 96;
/** What pi's lister shows for a session without a user message that has text. */
const PI_NO_MESSAGES = '(no messages)';

interface PiHeader {
  id: string;
  cwd: string | null;
  timestamp: number | null;
  parentSession: string | null;
}

export type PiReadResult =
  | {
      ok: true;
      header: PiHeader;
      name: string | null;
      firstUser: string | null;
      /** Unnamed and no user message with text was read: pi's firstMessage is "(no messages)". */
      noMessages: boolean;
      /** The last user/assistant message's time, as pi's `modified` takes it; null when none was read. */
      lastActivity: number | null;
      /** A user message with text was read (true), the whole file was read and held none (false), or unknown (null). */
      hasUserMessage: boolean | null;
    }
  | { ok: false; reason: 'empty' | 'unrecognized' };

const ID_MAX = 200;
const NL = 0x0a;
const SESSION_INFO = Buffer.from('"session_info"');
const USER = Buffer.from('"user"');
const MESSAGE = Buffer.from('"message"');

/** Bounds [start, end) of the line holding byte i, clamped to [lo, hi). */
function lineAround(buf: Buffer, i: number, lo: number, hi: number): [number, number] {
  const s = Math.max(lo, buf.lastIndexOf(NL, i) + 1);
  let e = buf.indexOf(NL, i);
  if (e < 0 || e > hi) e = hi;
  return [s, e];
}
// eslint-disable-next-line no-control-regex
const HAS_CONTROL = /[\x00-\x1f\x7f]/;

/**
 * Parses what pi's own lister parses: the first line that is JSON decides
 * whether this is a session (malformed lines before it are skipped, as pi
 * does); then the latest `session_info` name and the first user message text.
 */
export function readPiSession(buf: Buffer, truncated: boolean, tail: Buffer | null = null): PiReadResult {
  // The last line was cut by the prefix bound: it is not evidence of anything.
  let end = buf.length;
  if (truncated) end = Math.max(0, buf.lastIndexOf(NL));
  let pos = 0;
  let header: PiHeader | null = null;
  let anyText = false;
  while (pos < end) {
    let nl = buf.indexOf(NL, pos);
    if (nl < 0 || nl > end) nl = end;
    const line = buf.toString('utf8', pos, nl);
    pos = nl + 1;
    if (!line.trim()) continue;
    anyText = true;
    const v = parseObject(line);
    if (v === undefined) continue;
    header = toHeader(v);
    if (!header) return { ok: false, reason: 'unrecognized' };
    break;
  }
  if (!header) return { ok: false, reason: anyText ? 'unrecognized' : 'empty' };
  const body = pos;
  // The tail's first line is usually cut (or the rest of the prefix's cut line): only whole lines after it count.
  const tailStart = tail ? tail.indexOf(NL) + 1 : 0;
  const windows: [Buffer, number, number][] =
    tail && tailStart > 0
      ? [
          [tail, tailStart, tail.length],
          [buf, body, end],
        ]
      : [[buf, body, end]];

  // Only the lines that can matter are decoded and parsed, found by byte search, latest first
  // (the tail, then the prefix): the latest session_info, the last message, then the first user message.
  let name: string | null = null;
  for (const [b, lo, hi] of windows) {
    const v = lastLineWith(b, SESSION_INFO, lo, hi, (v) => v.type === 'session_info');
    if (!v) continue;
    const n = typeof v.name === 'string' ? v.name.trim() : '';
    name = n ? n : null;
    break;
  }
  let lastActivity: number | null = null;
  for (const [b, lo, hi] of windows) {
    lastActivity = lastMessageTime(b, lo, hi);
    if (lastActivity !== null) break;
  }
  // A name or message of only controls/escapes cleans to "": it must not become an empty title.
  const cleanName = name === null ? null : cleanText(name, 512) || null;
  let firstUser: string | null = null;
  // Named sessions are searched too: retention's --empty rule asks whether any user message exists.
  for (let at = body; firstUser === null && at < end; ) {
    const i = buf.indexOf(USER, at);
    if (i < 0 || i >= end) break;
    const [ls, le] = lineAround(buf, i, body, end);
    const m = buf.indexOf(MESSAGE, ls);
    if (m >= 0 && m + MESSAGE.length <= le) firstUser = userMessageText(buf, ls, le);
    at = le + 1;
  }
  return {
    ok: true,
    header,
    name: cleanName,
    firstUser: cleanName === null && firstUser !== null ? normalizeTitle(firstUser) || null : null,
    // Only an unnamed session's title needs it; a named one's messages are not searched.
    noMessages: cleanName === null && firstUser === null,
    lastActivity,
    hasUserMessage: firstUser !== null ? true : truncated || tail ? null : false,
  };
}

/** The last complete line in [lo, hi) of `b` that holds `needle` and passes `accept`, parsed. */
function lastLineWith(b: Buffer, needle: Buffer, lo: number, hi: number, accept: (v: Record<string, unknown>) => boolean): Record<string, unknown> | null {
  for (let at = hi; at > lo; ) {
    const i = b.lastIndexOf(needle, at - 1);
    if (i < lo) break;
    const [ls, le] = lineAround(b, i, lo, hi);
    const v = parseObject(b.toString('utf8', ls, le));
    if (v && accept(v)) return v;
    at = ls;
  }
  return null;
}

/** The fields of a message line the scan reads without parsing it (pi's entry and its `message`). */
const LINE = new JsonLineFields(['type', 'timestamp', 'message'], 'message', ['role', 'content', 'timestamp']);
const TYPE = 0;
const TIMESTAMP = 1;
const MESSAGE_FIELD = 2;
const ROLE = 3;
const CONTENT = 4;
const MESSAGE_TIMESTAMP = 5;

/** Whether the scanned line is a `message` entry whose message (an object) has a role and content; the role, or null. */
function scannedMessageRole(): string | null {
  if (LINE.string(TYPE) !== 'message' || LINE.kind(MESSAGE_FIELD) !== KIND_OBJECT || LINE.kind(CONTENT) === KIND_NONE) return null;
  return LINE.string(ROLE) ?? null;
}

/**
 * The last user/assistant message's time in [lo, hi), latest line first, or null. Only the bytes of each
 * line are scanned (role and times); a line the scan is unsure of is parsed, with the same rule.
 */
function lastMessageTime(b: Buffer, lo: number, hi: number): number | null {
  for (let at = hi; at > lo; ) {
    const i = b.lastIndexOf(MESSAGE, at - 1);
    if (i < lo) break;
    const [ls, le] = lineAround(b, i, lo, hi);
    const r = LINE.scan(b, ls, le);
    let t: number | null = null;
    if (r === LINE_UNSURE) {
      const v = parseObject(b.toString('utf8', ls, le));
      t = v && v.type === 'message' ? activityTime(v) : null;
    } else if (r === LINE_OBJECT) {
      const role = scannedMessageRole();
      if (role === 'user' || role === 'assistant') t = scannedActivityTime();
    }
    if (t !== null) return t;
    at = ls;
  }
  return null;
}

/** activityTime of the line just scanned, once its role and content are known to count. */
function scannedActivityTime(): number | null {
  if (LINE.kind(MESSAGE_TIMESTAMP) === KIND_NUMBER) {
    const n = LINE.number(MESSAGE_TIMESTAMP)!;
    return Number.isFinite(n) && n > 0 ? n : null;
  }
  const ts = LINE.string(TIMESTAMP);
  if (ts === undefined) return null;
  const t = Date.parse(ts);
  return Number.isNaN(t) || t <= 0 ? null : t;
}

/** A user message's text from one line (null: no such message, or no text); only its content is parsed. */
function userMessageText(b: Buffer, ls: number, le: number): string | null {
  const r = LINE.scan(b, ls, le);
  if (r === LINE_UNSURE) {
    const v = parseObject(b.toString('utf8', ls, le));
    return v && v.type === 'message' ? userText(v.message) : null;
  }
  if (r !== LINE_OBJECT || scannedMessageRole() !== 'user') return null;
  if (LINE.kind(CONTENT) === KIND_STRING) return LINE.string(CONTENT) || null;
  if (LINE.kind(CONTENT) !== KIND_ARRAY) return null;
  const [s, e] = LINE.span(CONTENT);
  return partsText(JSON.parse(b.toString('utf8', s, e)) as unknown[]);
}

/**
 * pi's activity time of one message entry: a user or assistant message with
 * content counts, by its numeric `message.timestamp`, else the entry's
 * `timestamp` (0.73 takes only a string there, 1.x anything Date accepts; pi
 * writes an ISO string, so both agree on pi's own files).
 */
function activityTime(v: Record<string, unknown>): number | null {
  const m = v.message;
  if (!m || typeof m !== 'object') return null;
  const msg = m as Record<string, unknown>;
  if (typeof msg.role !== 'string' || !('content' in msg) || (msg.role !== 'user' && msg.role !== 'assistant')) return null;
  if (typeof msg.timestamp === 'number') return Number.isFinite(msg.timestamp) && msg.timestamp > 0 ? msg.timestamp : null;
  if (typeof v.timestamp !== 'string') return null;
  const t = Date.parse(v.timestamp);
  return Number.isNaN(t) || t <= 0 ? null : t;
}

/**
 * The row title, as pi's lister has it (`name ?? firstMessage`, "(no messages)"
 * without a user message), except where pi's would be blank (a text of only
 * controls or spaces): there the fallback "pi · date · id8" keeps the row readable.
 */
export function piTitle(r: { header: PiHeader; name: string | null; firstUser: string | null; noMessages: boolean }): string {
  return r.name ?? r.firstUser ?? (r.noMessages ? PI_NO_MESSAGES : piFallbackTitle(r.header.id, r.header.timestamp));
}

/** pi's title rule: control characters as spaces, whitespace collapsed, 96 characters then `…`. */
export function normalizeTitle(s: string): string {
  return truncateChars(cleanText(s, PI_TITLE_CHARS * 4), PI_TITLE_CHARS);
}

function toHeader(v: Record<string, unknown>): PiHeader | null {
  if (v.type !== 'session') return null;
  const id = v.id;
  if (typeof id !== 'string' || !id || id.length > ID_MAX || HAS_CONTROL.test(id)) return null;
  const cwd = typeof v.cwd === 'string' && v.cwd.startsWith('/') && !HAS_CONTROL.test(v.cwd) ? v.cwd : null;
  let timestamp: number | null = null;
  if (typeof v.timestamp === 'string') {
    const t = Date.parse(v.timestamp);
    timestamp = Number.isNaN(t) ? null : t;
  }
  const ps = v.parentSession;
  const parentSession = typeof ps === 'string' && ps.trim() && !HAS_CONTROL.test(ps) ? ps : null;
  return { id, cwd, timestamp, parentSession };
}

function userText(message: unknown): string | null {
  if (!message || typeof message !== 'object') return null;
  const m = message as Record<string, unknown>;
  if (m.role !== 'user' || !('content' in m)) return null;
  const c = m.content;
  if (typeof c === 'string') return c || null;
  return Array.isArray(c) ? partsText(c) : null;
}

/** The text parts of a content array, joined by spaces; null when there are none. */
function partsText(c: unknown[]): string | null {
  const parts: string[] = [];
  for (const b of c) {
    if (b && typeof b === 'object' && (b as Record<string, unknown>).type === 'text') {
      const t = (b as Record<string, unknown>).text;
      if (typeof t === 'string') parts.push(t);
    }
  }
  const joined = parts.join(' ');
  return joined || null;
}

export function piFallbackTitle(id: string, timestamp: number | null): string {
  // The id may carry C1/bidi controls (only C0 is refused in the header): clean it like any title.
  const short = cleanText(Array.from(id).slice(0, 8).join(''), 8);
  if (timestamp !== null) {
    const d = new Date(timestamp).toISOString();
    return `pi · ${d.slice(0, 10)} ${d.slice(11, 16)} UTC · ${short}`;
  }
  return `pi · ${short}`;
}
