// Reads the bounded prefix of one pi session file. Only the header, the latest
// session_info name and (when unnamed) a normalized first user message survive;
// every other line is looked at transiently and dropped.

import { cleanText, truncateChars } from '../../engine/text.js';
import { parseObject } from '../jsonl.js';

export const PI_PREFIX_BYTES = 2 * 1024 * 1024;
export const PI_TITLE_CHARS = 96;

export interface PiHeader {
  id: string;
  cwd: string | null;
  timestamp: number | null;
  parentSession: string | null;
}

export type PiReadResult =
  | { ok: true; header: PiHeader; name: string | null; firstUser: string | null }
  | { ok: false; reason: 'empty' | 'unrecognized' };

const ID_MAX = 200;
const NL = 0x0a;
const SESSION_INFO = Buffer.from('"session_info"');
const USER = Buffer.from('"user"');

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
export function readPiSession(buf: Buffer, truncated: boolean): PiReadResult {
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

  // Only the lines that can matter are decoded and parsed, found by byte search:
  // the latest session_info (searching back from the end), then the first user message.
  let name: string | null = null;
  for (let at = end; at > body; ) {
    const i = buf.lastIndexOf(SESSION_INFO, at - 1);
    if (i < body) break;
    const [ls, le] = lineAround(buf, i, body, end);
    const v = parseObject(buf.toString('utf8', ls, le));
    if (v && v.type === 'session_info') {
      const n = typeof v.name === 'string' ? v.name.trim() : '';
      name = n ? n : null;
      break;
    }
    at = ls;
  }
  // A name or message of only controls/escapes cleans to "": it must not become an empty title.
  const cleanName = name === null ? null : cleanText(name, 512) || null;
  let firstUser: string | null = null;
  for (let at = body; cleanName === null && firstUser === null && at < end; ) {
    const i = buf.indexOf(USER, at);
    if (i < 0 || i >= end) break;
    const [ls, le] = lineAround(buf, i, body, end);
    const line = buf.toString('utf8', ls, le);
    if (line.includes('"message"')) {
      const v = parseObject(line);
      if (v && v.type === 'message') firstUser = userText(v.message);
    }
    at = le + 1;
  }
  return {
    ok: true,
    header,
    name: cleanName,
    firstUser: cleanName === null && firstUser !== null ? normalizeTitle(firstUser) || null : null,
  };
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
  if (!Array.isArray(c)) return null;
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
