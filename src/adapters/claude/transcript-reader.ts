// Reads what the /resume picker shows from one Claude Code transcript: the
// bounded head (2 MiB) and, for a longer file, the last 64 KiB where Claude
// re-appends its title rows. Only id evidence, cwd, entrypoint, the first
// timestamp and the title candidates survive; message bodies never do.

import { cleanText } from '../../engine/text.js';
import { parseObject } from '../jsonl.js';

export const CLAUDE_HEAD_BYTES = 2 * 1024 * 1024;
export const CLAUDE_TAIL_BYTES = 64 * 1024;
const PROMPT_CHARS = 200;

export interface ClaudeTranscriptMeta {
  cwd: string | null;
  entrypoint: string | null;
  createdAt: number | null;
  title: string | null;
  titleSource: 'custom' | 'ai' | 'summary' | 'prompt' | null;
}

export type ClaudeReadResult = { ok: true; meta: ClaudeTranscriptMeta } | { ok: false; reason: 'empty' | 'notJson' | 'foreignId' };

const NL = 0x0a;
const TITLE_ROWS: [string, 'custom' | 'ai' | 'summary' | 'lastPrompt'][] = [
  ['{"type":"custom-title"', 'custom'],
  ['{"type":"ai-title"', 'ai'],
  ['{"type":"summary"', 'summary'],
  ['{"type":"last-prompt"', 'lastPrompt'],
];

interface State {
  custom: string | null;
  ai: string | null;
  summary: string | null;
  lastPrompt: string | null;
  firstPrompt: string | null;
  cwd: string | null;
  entrypoint: string | null;
  createdAt: number | null;
  /** Chain rows still worth parsing (until cwd, entrypoint and first prompt are known). */
  needChain: boolean;
}

/**
 * `head` is the start of the file (cut at `headTruncated`), `tail` the last
 * bytes of a longer file or null. `id` is the UUID from the file name: the
 * transcript counts only when its own rows name that session.
 */
export function readClaudeTranscript(head: Buffer, headTruncated: boolean, tail: Buffer | null, id: string): ClaudeReadResult {
  const end = headTruncated ? Math.max(0, head.lastIndexOf(NL)) : head.length;
  const firstNl = head.indexOf(NL);
  const firstLine = head.toString('utf8', 0, firstNl < 0 || firstNl > end ? end : firstNl).trim();
  if (!firstLine) return { ok: false, reason: head.length === 0 ? 'empty' : 'notJson' };
  if (parseObject(firstLine) === undefined) return { ok: false, reason: 'notJson' };
  const idNeedle = Buffer.from(`"sessionId":"${id}"`);
  const ownsId = head.subarray(0, end).indexOf(idNeedle) >= 0 || (tail !== null && tail.indexOf(idNeedle) >= 0);
  if (!ownsId) return { ok: false, reason: 'foreignId' };

  const st: State = { custom: null, ai: null, summary: null, lastPrompt: null, firstPrompt: null, cwd: null, entrypoint: null, createdAt: null, needChain: true };
  forEachLine(head, 0, end, (s, e) => readRow(head, s, e, st, id, true));
  if (tail) {
    // The first tail line is usually cut; every complete line after it is a candidate title row.
    const start = tail.indexOf(NL) + 1;
    forEachLine(tail, start, tail.length, (s, e) => readRow(tail, s, e, st, id, false));
  }
  const prompt = st.lastPrompt ?? st.firstPrompt;
  let title: string | null = null;
  let titleSource: ClaudeTranscriptMeta['titleSource'] = null;
  for (const [v, src] of [
    [st.custom, 'custom'],
    [st.ai, 'ai'],
    [st.summary, 'summary'],
    [prompt ? cutUnits(prompt, PROMPT_CHARS) : null, 'prompt'],
  ] as const) {
    if (v) {
      title = v;
      titleSource = src;
      break;
    }
  }
  return { ok: true, meta: { cwd: st.cwd, entrypoint: st.entrypoint, createdAt: st.createdAt, title, titleSource } };
}

/** Claude cuts prompts at 200 UTF-16 code units (JS slice); never leave half a surrogate pair. */
function cutUnits(s: string, max: number): string {
  if (s.length <= max) return s;
  let cut = s.slice(0, max);
  const last = cut.charCodeAt(cut.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
  return cut + '…';
}

export function claudeFallbackTitle(id: string): string {
  return `Claude session ${cleanText(id, 64).slice(0, 8)}`;
}

function forEachLine(buf: Buffer, from: number, to: number, fn: (s: number, e: number) => void): void {
  let pos = from;
  while (pos < to) {
    let nl = buf.indexOf(NL, pos);
    if (nl < 0 || nl > to) nl = to;
    if (nl > pos) fn(pos, nl);
    pos = nl + 1;
  }
}

function startsWith(buf: Buffer, s: number, prefix: string): boolean {
  return buf.toString('latin1', s, Math.min(s + prefix.length, buf.length)) === prefix;
}

function readRow(buf: Buffer, s: number, e: number, st: State, id: string, inHead: boolean): void {
  for (const [prefix, kind] of TITLE_ROWS) {
    if (!startsWith(buf, s, prefix)) continue;
    const v = parseObject(buf.toString('utf8', s, e));
    if (!v || (typeof v.sessionId === 'string' && v.sessionId !== id)) return;
    const field = kind === 'custom' ? v.customTitle : kind === 'ai' ? v.aiTitle : kind === 'summary' ? v.summary : v.lastPrompt;
    const text = typeof field === 'string' ? oneLine(field) : '';
    // Last wins for each kind, as in Claude's own reader; a blank value does not clear.
    if (text) st[kind] = text;
    return;
  }
  if (!inHead || !st.needChain || !startsWith(buf, s, '{"parentUuid":')) return;
  const v = parseObject(buf.toString('utf8', s, e));
  if (!v) return;
  // A forked copy keeps the parent's id in session_id: such rows describe the parent.
  if (typeof v.session_id === 'string' && typeof v.sessionId === 'string' && v.session_id !== v.sessionId) return;
  if (typeof v.sessionId === 'string' && v.sessionId !== id) return;
  if (st.cwd === null && typeof v.cwd === 'string' && v.cwd.startsWith('/')) st.cwd = cleanText(v.cwd, 4096) || null;
  if (st.entrypoint === null && typeof v.entrypoint === 'string' && v.entrypoint.trim()) st.entrypoint = cleanText(v.entrypoint, 64);
  if (st.createdAt === null && typeof v.timestamp === 'string') {
    const t = Date.parse(v.timestamp);
    if (!Number.isNaN(t)) st.createdAt = t;
  }
  if (st.firstPrompt === null && v.type === 'user') st.firstPrompt = promptText(v);
  st.needChain = st.cwd === null || st.entrypoint === null || st.firstPrompt === null || st.createdAt === null;
}

/** The first real prompt: not meta, not a compaction summary, not a tool result, not a tag or an interruption. */
function promptText(v: Record<string, unknown>): string | null {
  if (v.isMeta === true || v.isCompactSummary === true) return null;
  const m = v.message as Record<string, unknown> | undefined;
  if (!m || typeof m !== 'object') return null;
  const c = m.content;
  let text = '';
  if (typeof c === 'string') text = c;
  else if (Array.isArray(c)) {
    for (const part of c) {
      if (typeof part === 'string') text += (text ? ' ' : '') + part;
      else if (part && typeof part === 'object') {
        const p = part as Record<string, unknown>;
        if (p.type === 'tool_result') return null;
        if (p.type === 'text' && typeof p.text === 'string') text += (text ? ' ' : '') + p.text;
      }
    }
  }
  const t = text.trimStart();
  if (!t || t.startsWith('<') || t.startsWith('[Request interrupted')) return null;
  return oneLine(t) || null;
}

function oneLine(s: string): string {
  return cleanText(s, 4096);
}
