// Reads what Claude Code's own session lister shows from one transcript. The
// rules follow listSessions() of @anthropic-ai/claude-agent-sdk (0.3.333),
// Anthropic's own code, checked by test/peers/claude-sdk.test.ts:
//   - only the first and the last 64 KiB are read (one read when the file is
//     smaller); a garbage line anywhere, the first one too, is just skipped;
//   - a file whose first line is a sidechain (subagent) row is no session;
//   - title: the last custom-title (tail, the custom-title.json sidecar, head), the last ai-title
//     (tail, then head), the last `lastPrompt` row of the tail, the last
//     `summary` of the tail (a legacy summary row at the head of a long file
//     does not count), the first real prompt of the head (a slash command
//     when there is nothing else), then "Image"/"Document";
//   - a session with none of these is not listed by Claude; cleanerx still
//     lists it (its data can be cleaned) when one of its rows names it;
//   - created is the first "timestamp" of the head, cwd the last relocation
//     of the tail or the first "cwd" of the head.
// Message bodies never survive; every kept string goes through cleanText.

import { cleanText } from '../../engine/core/text.js';

export const CLAUDE_HEAD_BYTES = 64 * 1024;
export const CLAUDE_TAIL_BYTES = 64 * 1024;
const PROMPT_UNITS = 200;

interface ClaudeTranscriptMeta {
  cwd: string | null;
  entrypoint: string | null;
  createdAt: number | null;
  title: string | null;
  titleSource: 'custom' | 'ai' | 'summary' | 'prompt' | null;
  /** False when Claude's own lister hides it (no title candidate); cleanerx shows it with its fallback title. */
  listedByClaude: boolean;
  /** A `user` row was read (true), the whole file was read and held none (false), or unknown (null). */
  hasUserMessage: boolean | null;
}

export type ClaudeReadResult = { ok: true; meta: ClaudeTranscriptMeta } | { ok: false; reason: 'empty' | 'notJson' | 'foreignId' | 'sidechain' };

const COMMAND = /<command-name>(.*?)<\/command-name>/;
const BASH_INPUT = /<bash-input>([\s\S]*?)<\/bash-input>/;
const NOT_A_PROMPT = /^(?:\s*<[a-z][\w-]*[\s>]|\[Request interrupted by user[^\]]*\])/;

/**
 * Searching runs on a latin1 view `s` (one char per byte, so an index is a
 * byte offset); a matched range is decoded as UTF-8 straight from the bytes `b`.
 */
interface Text {
  s: string;
  b: Buffer;
}
const utf8 = (x: Text, from: number, to: number): string => x.b.toString('utf8', from, to);

/**
 * `head` is the start of the file (cut at `headTruncated`), `tail` the last
 * CLAUDE_TAIL_BYTES of a longer file, or null when the head is the whole file.
 * `id` is the UUID from the file name: it is the session's id, as for Claude.
 * `sidecarTitle` is `<bucket>/<id>/custom-title.json`'s title (see scan.ts):
 * it ranks after the tail's custom-title rows and before the head's.
 */
export function readClaudeTranscript(head: Buffer, headTruncated: boolean, tail: Buffer | null, id: string, sidecarTitle?: string): ClaudeReadResult {
  if (head.length === 0) return { ok: false, reason: 'empty' };
  const h: Text = { s: head.toString('latin1'), b: head };
  // Without a tail the head is the whole file: a search of the tail would repeat one of the head.
  const t: Text = tail ? { s: tail.toString('latin1'), b: tail } : h;
  const nl = h.s.indexOf('\n');
  const firstLine = nl < 0 ? h.s : h.s.slice(0, nl);
  if (firstLine.includes('"isSidechain":true') || firstLine.includes('"isSidechain": true')) return { ok: false, reason: 'sidechain' };

  // Claude's own order. A value that cleans to nothing (an escape-only title)
  // is passed over, so the title is never blank; Claude would show it blank.
  const candidates: [() => string | undefined, NonNullable<ClaudeTranscriptMeta['titleSource']>][] = [
    [() => typed(t, 'custom-title', 'customTitle') || sidecarTitle || (tail ? typed(h, 'custom-title', 'customTitle') : undefined), 'custom'],
    [() => typed(t, 'ai-title', 'aiTitle') || (tail ? typed(h, 'ai-title', 'aiTitle') : undefined), 'ai'],
    [() => lastField(t, 'lastPrompt'), 'prompt'],
    [() => lastField(t, 'summary'), 'summary'],
    [() => firstPrompt(h) || attachmentTitle(h), 'prompt'],
  ];
  let title: string | null = null;
  let titleSource: ClaudeTranscriptMeta['titleSource'] = null;
  let listedByClaude = false;
  for (const [get, src] of candidates) {
    const raw = get();
    if (!raw) continue;
    listedByClaude = true;
    const text = cleanText(raw, 4096);
    if (text) {
      [title, titleSource] = [text, src];
      break;
    }
  }
  if (!listedByClaude && !namesSession(h, id) && !(tail && namesSession(t, id))) {
    return { ok: false, reason: anyJsonRow(h) || (tail && anyJsonRow(t)) ? 'foreignId' : 'notJson' };
  }
  const cwd = typedRow(t, 'relocated', 'relocatedCwd') || firstString(h, 'cwd');
  const entrypoint = firstString(h, 'entrypoint');
  const ts = firstString(h, 'timestamp');
  const created = ts ? Date.parse(ts) : NaN;
  return {
    ok: true,
    meta: {
      cwd: cwd ? cleanText(cwd, 4096) || null : null,
      entrypoint: entrypoint?.trim() ? cleanText(entrypoint, 64) : null,
      createdAt: Number.isNaN(created) ? null : created,
      title,
      titleSource,
      listedByClaude,
      hasUserMessage: userMessageFact(h, tail ? t : null, tail === null && !headTruncated),
    },
  };
}

/**
 * Whether the transcript holds a `user` row, from the bytes already read: any
 * such marker counts (a tool result too, which errs toward keeping). "None"
 * is said only of a file read whole whose every line parsed; a garbage line
 * might have been one.
 */
function userMessageFact(h: Text, t: Text | null, whole: boolean): boolean | null {
  if (hasUserType(h.s) || (t && hasUserType(t.s))) return true;
  if (!whole) return null;
  for (let pos = 0; pos <= h.s.length; ) {
    let end = h.s.indexOf('\n', pos);
    if (end < 0) end = h.s.length;
    const from = pos;
    pos = end + 1;
    // Blank in the latin1 view, as before (a lone 0xA0 byte is blank there, not in UTF-8).
    if (!h.s.slice(from, end).trim()) continue;
    try {
      const v: unknown = JSON.parse(utf8(h, from, end));
      if (v && typeof v === 'object' && (v as Record<string, unknown>).type === 'user') return true;
    } catch {
      return null;
    }
  }
  return false;
}

export function claudeFallbackTitle(id: string): string {
  return `Claude session ${cleanText(id, 64).slice(0, 8)}`;
}

/** JSON's verdict on one line: a string field, undefined (parsed, no such string), or null (not JSON). */
function fieldOf(line: string, key: string, type: string | undefined): string | undefined | null {
  try {
    const v: unknown = JSON.parse(line);
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
    const o = v as Record<string, unknown>;
    if (type !== undefined && o.type !== type) return undefined;
    return typeof o[key] === 'string' ? (o[key] as string) : undefined;
  } catch {
    return null;
  }
}

/**
 * The last line (from the end) that has `"key":` and, when given, one of the
 * type markers, and whose JSON holds a string there. With `glued`, a line that
 * is not JSON is tried again from its last `{"type":"…"` (a row written after
 * a cut line). An empty string is a value: it hides older rows.
 */
function lastValue(x: Text, key: string, types: string[] | undefined, type: string | undefined, glued: boolean): string | undefined {
  // Most keys are in no line at all: a search of the raw bytes for a rare part of the needle says so first.
  if (x.b.indexOf(rarePart(key)) < 0) return undefined;
  const needle = `"${key}":`;
  const text = x.s;
  // Only the lines that hold the needle are cut out, found from the end by one string search each
  // (slicing every line of 128 KiB, seven times per transcript, was most of a scan's garbage).
  // The needle holds no newline, so a match before `end` (a newline, or the text's end) lies in a whole line.
  let end = text.length;
  while (end > 0) {
    const i = text.lastIndexOf(needle, end - 1);
    if (i < 0) break;
    const nl = text.lastIndexOf('\n', i);
    let le = text.indexOf('\n', i);
    if (le < 0 || le > end) le = end;
    const line = text.slice(nl + 1, le);
    end = nl;
    if (!types || types.some((m) => line.includes(m))) {
      const u = utf8(x, nl + 1, le);
      let v = fieldOf(u, key, type);
      if (v === null && glued && types) {
        const s = u.lastIndexOf(`{${types[0]}`);
        v = s > 0 && !':,['.includes(u.charAt(s - 1)) ? fieldOf(u.slice(s), key, type) : null;
      }
      if (typeof v === 'string') return v;
    }
    if (nl < 0) break;
  }
  return undefined;
}

const RARE = new Map<string, Buffer>();
/**
 * The end of `"key":` from the key's last capital letter (else its last five
 * letters): JSON is full of quotes, and a needle that starts with one is
 * searched several times slower than one that starts with a rare byte.
 */
function rarePart(key: string): Buffer {
  let b = RARE.get(key);
  if (!b) {
    let i = key.length - 1;
    while (i >= 0 && !(key[i]! >= 'A' && key[i]! <= 'Z')) i--;
    b = Buffer.from(`${key.slice(i >= 0 ? i : Math.max(0, key.length - 5))}":`, 'latin1');
    RARE.set(key, b);
  }
  return b;
}

const typed = (text: Text, type: string, key: string): string | undefined => lastValue(text, key, [`"type":"${type}"`, `"type": "${type}"`], type, true);
const typedRow = (text: Text, type: string, key: string): string | undefined => lastValue(text, key, [`"type":"${type}"`], type, false);
const lastField = (text: Text, key: string): string | undefined => lastValue(text, key, undefined, undefined, false);

/** The first `"key":"…"` anywhere in the text, raw (any row, nested too), JSON-unescaped. */
function firstString(x: Text, key: string): string | undefined {
  const text = x.s;
  for (const marker of [`"${key}":"`, `"${key}": "`]) {
    const s = text.indexOf(marker);
    if (s < 0) continue;
    const from = s + marker.length;
    for (let i = from; i < text.length; i++) {
      if (text[i] === '\\') {
        i++;
        continue;
      }
      if (text[i] === '"') {
        const raw = utf8(x, from, i);
        if (!raw.includes('\\')) return raw;
        try {
          return JSON.parse(`"${raw}"`) as string;
        } catch {
          return raw;
        }
      }
    }
  }
  return undefined;
}

const hasUserType = (line: string): boolean => line.includes('"type":"user"') || line.includes('"type": "user"');
const isMetaRow = (line: string): boolean => line.includes('"isMeta":true') || line.includes('"isMeta": true');

/** The first real prompt of the head; else the first slash command; else ''. */
function firstPrompt(x: Text): string {
  const h = x.s;
  const fallback = { command: '' };
  let pos = 0;
  while (pos < h.length) {
    const start = pos;
    const nl = h.indexOf('\n', pos);
    const line = nl < 0 ? h.slice(pos) : h.slice(pos, nl);
    pos = nl < 0 ? h.length : nl + 1;
    if (!hasUserType(line) || line.includes('"tool_result"') || isMetaRow(line)) continue;
    if (line.includes('"isCompactSummary":true') || line.includes('"isCompactSummary": true')) continue;
    let v: unknown;
    try {
      v = JSON.parse(utf8(x, start, start + line.length));
    } catch {
      continue;
    }
    const p = promptOf(v, fallback);
    if (p !== undefined) return p;
  }
  return fallback.command;
}

function promptOf(v: unknown, fallback: { command: string }): string | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const row = v as Record<string, unknown>;
  if (row.type !== 'user' || row.isMeta === true || row.isCompactSummary === true) return undefined;
  const m = row.message as Record<string, unknown> | undefined;
  if (!m || typeof m !== 'object') return undefined;
  const texts: string[] = [];
  if (typeof m.content === 'string') texts.push(m.content);
  else if (Array.isArray(m.content)) {
    for (const part of m.content as unknown[]) {
      if (!part || typeof part !== 'object') continue;
      const p = part as Record<string, unknown>;
      if (p.type === 'tool_result') return undefined;
      if (p.type === 'text' && typeof p.text === 'string') texts.push(p.text);
    }
  }
  for (const raw of texts) {
    let c = unpaste(raw).replaceAll('\n', ' ').trim();
    if (!c) continue;
    const cmd = COMMAND.exec(c);
    if (cmd?.[1] !== undefined) {
      if (!fallback.command) fallback.command = cmd[1];
      continue;
    }
    const bash = BASH_INPUT.exec(c);
    if (bash?.[1] !== undefined) return `! ${bash[1].trim()}`;
    if (NOT_A_PROMPT.test(c)) continue;
    if (c.length > PROMPT_UNITS) c = cutUnits(c, PROMPT_UNITS).trim() + '…';
    return c;
  }
  return undefined;
}

/**
 * A prompt with pasted blocks (`<pasted_content id="abcd">\n…\n</pasted_content id="abcd">`)
 * is titled from the pasted text itself, the tags and up to two newlines on either side gone.
 */
function unpaste(text: string): string {
  const OPEN = '<pasted_content id="';
  let out = '';
  let kept = 0;
  let from = 0;
  for (;;) {
    const o = text.indexOf(OPEN, from);
    if (o < 0) break;
    const idAt = o + OPEN.length;
    const id = text.slice(idAt, idAt + 4);
    if (!/^[0-9a-f]{4}$/.test(id) || !text.startsWith('">\n', idAt + 4)) {
      from = idAt;
      continue;
    }
    const body = idAt + 4 + 3;
    const close = `</pasted_content id="${id}">`;
    const c = text.indexOf(`\n${close}`, body - 1) + 1;
    if (c === 0) break;
    let p = o;
    for (let k = 0; k < 2 && p > kept && text[p - 1] === '\n'; k++) p--;
    out += text.slice(kept, p) + text.slice(body, c - 1);
    kept = c + close.length;
    for (let k = 0; k < 2 && text[kept] === '\n'; k++) kept++;
    from = kept;
  }
  return kept === 0 ? text : out + text.slice(kept);
}

/** A prompt of only an image or a document is titled so by Claude. */
function attachmentTitle(x: Text): string {
  for (const line of x.s.split('\n')) {
    if (!hasUserType(line) || line.includes('"tool_result"') || isMetaRow(line)) continue;
    if (line.includes('"type":"image"') || line.includes('"type": "image"')) return 'Image';
    if (line.includes('"type":"document"') || line.includes('"type": "document"')) return 'Document';
  }
  return '';
}

/** Claude cuts prompts at 200 UTF-16 code units; never leave half a surrogate pair. */
function cutUnits(s: string, max: number): string {
  if (s.length <= max) return s;
  const cut = s.slice(0, max);
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}

function namesSession(x: Text, id: string): boolean {
  const text = x.s;
  return text.includes(`"sessionId":"${id}"`) || text.includes(`"sessionId":"${id.toLowerCase()}"`);
}

function anyJsonRow(x: Text): boolean {
  let pos = 0;
  for (const line of x.s.split('\n')) {
    if (line.startsWith('{') && fieldOf(utf8(x, pos, pos + line.length), 'type', undefined) !== null) return true;
    pos += line.length + 1;
  }
  return false;
}
