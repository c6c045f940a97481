// Property tests for the Claude Code transcript reader (head + tail, as the
// scan hands them over): hostile bytes never throw, titles are terminal-safe,
// a torn last line adds no title, and titles follow an independent model of
// the Agent SDK's listSessions() order (custom and ai titles tail then head,
// lastPrompt and summary from the tail only, then the head's first prompt).

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { claudeFallbackTitle, readClaudeTranscript, type ClaudeReadResult } from '../../src/adapters/claude/transcript-reader.js';
import { cleanText } from '../../src/engine/core/text.js';

// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const RUNS = { numRuns: 300 };
const ID = '4f4091a2-1111-4222-8333-444455556666';
const OTHER = '9e8d7c6b-aaaa-4bbb-8ccc-dddddddddddd';
const TS = '2026-11-29T14:33:04.476Z';

type Kind = 'custom' | 'ai' | 'summary' | 'last';
const KINDS: readonly Kind[] = ['custom', 'ai', 'summary', 'last'];
const FIELD: Record<Kind, string> = { custom: 'customTitle', ai: 'aiTitle', summary: 'summary', last: 'lastPrompt' };

/** A title row with Claude's key order (so the reader's prefix test sees it). */
function titleRow(kind: Kind, value: unknown, sid: string | null = ID): string {
  const type = { custom: 'custom-title', ai: 'ai-title', summary: 'summary', last: 'last-prompt' }[kind];
  return JSON.stringify({
    type,
    [FIELD[kind]]: value,
    ...(kind === 'summary' ? { leafUuid: 'x' } : {}),
    ...(kind === 'last' ? { leafUuid: '' } : {}),
    ...(sid === null ? {} : { sessionId: sid }),
  });
}
const modeRow = (sid = ID): string => JSON.stringify({ type: 'permission-mode', permissionMode: 'default', sessionId: sid });
function userRow(content: unknown, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    parentUuid: null,
    isSidechain: false,
    type: 'user',
    message: { role: 'user', content },
    uuid: 'u',
    timestamp: TS,
    userType: 'external',
    entrypoint: 'cli',
    cwd: '/src/app',
    sessionId: ID,
    ...extra,
  });
}

// Text that likes to break terminals: escapes, C0/C1, bidi, astral, CJK, newlines, lone surrogates.
const nasty = fc
  .array(
    fc.oneof(
      fc.string({ unit: 'binary', maxLength: 20 }),
      fc.constantFrom(
        '\x1b[31m',
        '\x1b]0;pwned\x07',
        '\x1b]8;;http://x\x1b\\',
        '\x9b2J',
        '\x1bP1$r\x1b\\',
        '\u202e',
        '\u2066',
        '\r\n',
        '\n',
        '\t',
        '\x00',
        '\x7f',
        '🚀',
        '中文',
        ' ',
        'e\u0301',
        '<tag>',
        '[Request interrupted',
        '\ud83d',
        'word',
      ),
    ),
    { maxLength: 30 },
  )
  .map((parts) => parts.join(''));

const kindArb = fc.constantFrom<Kind>(...KINDS);
/** Lines of a plausible transcript: title rows (sometimes foreign or non-string), user rows, junk. */
const lineArb = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .tuple(kindArb, fc.oneof({ weight: 5, arbitrary: nasty }, fc.jsonValue()), fc.constantFrom<string | null>(ID, ID, ID, OTHER, null))
      .map(([k, v, sid]) => titleRow(k, v, sid)),
  },
  {
    weight: 3,
    arbitrary: fc
      .tuple(
        fc.oneof(
          nasty,
          fc.array(fc.oneof(fc.record({ type: fc.constant('text'), text: nasty }), fc.record({ type: fc.constant('tool_result'), content: nasty })), {
            maxLength: 3,
          }),
        ),
        fc.boolean(),
        fc.boolean(),
      )
      .map(([c, meta, compact]) => userRow(c, { ...(meta ? { isMeta: true } : {}), ...(compact ? { isCompactSummary: true } : {}) })),
  },
  { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v) ?? 'null') },
  { weight: 1, arbitrary: nasty.map((s) => s.replace(/\n/g, ' ')) },
);
const sessionLines = fc.array(lineArb, { maxLength: 14 }).map((ls) => [modeRow(), ...ls]);

function check(r: ClaudeReadResult): void {
  if (!r.ok) {
    expect(['empty', 'notJson', 'foreignId', 'sidechain']).toContain(r.reason);
    return;
  }
  const title = r.meta.title ?? claudeFallbackTitle(ID);
  expect(title.length).toBeGreaterThan(0);
  expect(title).not.toMatch(CONTROL);
  expect(title).not.toContain('\x1b');
  expect(title).toBe(title.trim());
  expect(r.meta.title === null).toBe(r.meta.titleSource === null);
  if (r.meta.cwd !== null) {
    expect(r.meta.cwd).not.toMatch(CONTROL);
  }
  if (r.meta.entrypoint !== null) expect(r.meta.entrypoint).not.toMatch(CONTROL);
}

/** Claude's 200-unit prompt cut (trimmed, then `…`), never half a surrogate pair. */
function cut200(p: string): string {
  if (p.length <= 200) return p;
  const hi = p.charCodeAt(199);
  return `${p.slice(0, hi >= 0xd800 && hi <= 0xdbff ? 199 : 200).trim()}…`;
}

const parse = (line: string): Record<string, unknown> | undefined => {
  try {
    const v: unknown = JSON.parse(line);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
};

/** The last row (any type unless given) holding a string under key; an empty string counts. */
function latest(lines: string[], key: string, type?: string): string | undefined {
  for (let i = lines.length - 1; i >= 0; i--) {
    const o = parse(lines[i]!);
    if (o && (type === undefined || o.type === type) && typeof o[key] === 'string') return o[key] as string;
  }
  return undefined;
}

/** The SDK's first prompt: user rows, no tool results, no meta or compaction; slash commands only as a fallback. */
function firstPromptOf(lines: string[]): string {
  let command = '';
  for (const line of lines) {
    if (!line.includes('"type":"user"') || line.includes('"tool_result"') || line.includes('"isMeta":true') || line.includes('"isCompactSummary":true'))
      continue;
    const o = parse(line);
    if (!o || o.type !== 'user' || o.isMeta === true || o.isCompactSummary === true) continue;
    const content = (o.message as { content?: unknown } | undefined)?.content;
    const texts: string[] = [];
    let tool = false;
    if (typeof content === 'string') texts.push(content);
    else if (Array.isArray(content)) {
      for (const part of content as Record<string, unknown>[]) {
        if (!part || typeof part !== 'object') continue;
        if (part.type === 'tool_result') tool = true;
        else if (part.type === 'text' && typeof part.text === 'string') texts.push(part.text);
      }
    }
    if (tool) continue;
    for (const t of texts) {
      const c = t.split('\n').join(' ').trim();
      if (!c) continue;
      const cmd = /<command-name>(.*?)<\/command-name>/.exec(c);
      if (cmd) {
        command ||= cmd[1]!;
        continue;
      }
      const bash = /<bash-input>([\s\S]*?)<\/bash-input>/.exec(c);
      if (bash) return `! ${bash[1]!.trim()}`;
      if (/^\s*<[a-z][\w-]*[\s>]/.test(c) || /^\[Request interrupted by user[^\]]*\]/.test(c)) continue;
      return cut200(c);
    }
  }
  return command;
}

/**
 * An independent model of listSessions()'s display title (Claude Agent SDK):
 * custom title (tail, head), ai title (tail, head), the tail's last
 * lastPrompt, the tail's last summary, the head's first prompt; then cleaned.
 */
function oracle(head: string[], tail: string[] = head): string | null {
  const raws = [
    latest(tail, 'customTitle', 'custom-title') || latest(head, 'customTitle', 'custom-title'),
    latest(tail, 'aiTitle', 'ai-title') || latest(head, 'aiTitle', 'ai-title'),
    latest(tail, 'lastPrompt'),
    latest(tail, 'summary'),
    firstPromptOf(head),
  ];
  // cleanerx passes over a value that cleans to nothing (Claude would show it blank).
  for (const raw of raws) if (raw && cleanText(raw, 4096)) return cleanText(raw, 4096);
  return null;
}

const linesOf = (buf: Buffer): string[] => buf.toString('utf8').split('\n');

describe('readClaudeTranscript properties', () => {
  it('never throws on arbitrary bytes, in the head or the tail', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 4096 }), fc.boolean(), fc.option(fc.uint8Array({ maxLength: 2048 })), (head, truncated, tail) => {
        check(readClaudeTranscript(Buffer.from(head), truncated, tail ? Buffer.from(tail) : null, ID));
      }),
      RUNS,
    );
  });

  it('never throws on byte soup that starts like a transcript', () => {
    fc.assert(
      fc.property(sessionLines, fc.uint8Array({ maxLength: 512 }), fc.nat(), fc.boolean(), (lines, junk, at, truncated) => {
        const text = Buffer.from(lines.join('\n') + '\n');
        const pos = at % (text.length + 1);
        const buf = Buffer.concat([text.subarray(0, pos), Buffer.from(junk), text.subarray(pos)]);
        check(readClaudeTranscript(buf, truncated, truncated ? Buffer.concat([Buffer.from(junk), text]) : null, ID));
      }),
      RUNS,
    );
  });

  it('titles are terminal-safe and equal the SDK model on complete files', () => {
    fc.assert(
      fc.property(sessionLines, (lines) => {
        const buf = Buffer.from(lines.join('\n') + '\n');
        const r = readClaudeTranscript(buf, false, null, ID);
        check(r);
        expect(r.ok).toBe(true);
        if (r.ok) expect(r.meta.title).toBe(oracle(linesOf(buf)));
      }),
      RUNS,
    );
  });

  it('first-prompt titles are cut at 200 UTF-16 units, never in half a surrogate pair; a lastPrompt row is not cut', () => {
    const longText = fc
      .array(
        fc.oneof(fc.constantFrom('a', 'word ', '🚀', '中', 'é', ' ', '\t', '\n', '\x1b[31m', '\u202e', '𝒳'), fc.string({ unit: 'binary', maxLength: 4 })),
        { minLength: 50, maxLength: 400 },
      )
      .map((p) => `x${p.join('')}`);
    fc.assert(
      fc.property(longText, fc.boolean(), (p, viaLastPrompt) => {
        const lines = viaLastPrompt ? [modeRow(), userRow('first'), titleRow('last', p)] : [modeRow(), userRow(p)];
        const r = readClaudeTranscript(Buffer.from(lines.join('\n') + '\n'), false, null, ID);
        check(r);
        expect(r.ok).toBe(true);
        if (!r.ok) return;
        const title = r.meta.title;
        if (title === null) return; // nothing visible left after cleaning: the fallback name
        expect(r.meta.titleSource).toBe('prompt');
        if (viaLastPrompt) {
          expect(title).toBe(cleanText(p, 4096));
          return;
        }
        const one = p.split('\n').join(' ').trim();
        if (one.length > 200) {
          const hi = one.charCodeAt(199);
          const body = one.slice(0, hi >= 0xd800 && hi <= 0xdbff ? 199 : 200);
          expect(body.length === 200 || body.length === 199).toBe(true);
          expect(title).toBe(cleanText(`${body.trim()}…`, 4096));
        } else expect(title).toBe(cleanText(one, 4096));
      }),
      RUNS,
    );
  });

  it('a head cut at any offset never throws and titles only from its complete lines', () => {
    fc.assert(
      fc.property(sessionLines, fc.double({ min: 0, max: 1, noNaN: true }), (lines, frac) => {
        const buf = Buffer.from(lines.join('\n') + '\n');
        const k = Math.floor(buf.length * frac);
        const cut = buf.subarray(0, k);
        const r = readClaudeTranscript(cut, k < buf.length, null, ID);
        check(r);
        const complete = cut.subarray(0, cut.lastIndexOf(0x0a) + 1);
        const whole = readClaudeTranscript(complete, false, null, ID);
        // A last line that is whole but for its newline is a row, for Claude as for cleanerx.
        if (complete.length === 0 || parse(cut.subarray(complete.length).toString('utf8')) !== undefined) return;
        // A torn last line adds no title (it is not JSON): the title is what the complete lines give.
        expect(r.ok).toBe(whole.ok);
        if (r.ok && whole.ok) expect(r.meta.title).toBe(whole.meta.title);
        if (r.ok) expect(r.meta.title).toBe(oracle(linesOf(complete)));
      }),
      RUNS,
    );
  });

  it('a torn title row at the cut is never the title', () => {
    fc.assert(
      fc.property(
        kindArb,
        fc.string({ minLength: 1, maxLength: 30 }).map((s) => `torn ${s.replace(/[^a-z]/gi, '')}`),
        fc.nat(),
        (kind, value, at) => {
          const row = titleRow(kind, value);
          const keep = 1 + (at % (row.length - 1)); // strictly inside the row
          const head = Buffer.from(`${modeRow()}\n${userRow('the prompt')}\n${row.slice(0, keep)}`);
          const r = readClaudeTranscript(head, true, null, ID);
          expect(r.ok).toBe(true);
          if (r.ok) expect(r.meta.title).toBe('the prompt');
        },
      ),
      RUNS,
    );
  });

  it('tail title rows override head rows of the same kind; the last one wins; a cut first tail line never counts', () => {
    const rowsArb = fc.array(fc.tuple(kindArb, fc.stringMatching(/^[a-z]{1,8}$/)), { maxLength: 8 });
    const torn = titleRow('custom', 'torn first tail line').slice(7);
    fc.assert(
      fc.property(
        rowsArb,
        rowsArb,
        fc.oneof(
          fc.constant(''),
          nasty.map((s) => s.replace(/\n/g, '')),
          fc.constant(torn),
        ),
        (headRows, tailRows, fragment) => {
          const head = Buffer.from([modeRow(), userRow('first prompt'), ...headRows.map(([k, v]) => titleRow(k, `head ${v}`))].join('\n') + '\n');
          const tail = Buffer.from(`${fragment}\n${tailRows.map(([k, v]) => titleRow(k, `tail ${v}`)).join('\n')}\n`);
          const r = readClaudeTranscript(head, true, tail, ID);
          expect(r.ok).toBe(true);
          if (!r.ok) return;
          const last = (rows: typeof headRows, k: Kind, where: string): string | undefined => {
            const v = rows.filter(([x]) => x === k).at(-1)?.[1];
            return v === undefined ? undefined : `${where} ${v}`;
          };
          // Custom and ai titles: tail, then head. lastPrompt and summary rows count only in the tail.
          const expected =
            last(tailRows, 'custom', 'tail') ??
            last(headRows, 'custom', 'head') ??
            last(tailRows, 'ai', 'tail') ??
            last(headRows, 'ai', 'head') ??
            last(tailRows, 'last', 'tail') ??
            last(tailRows, 'summary', 'tail') ??
            'first prompt';
          expect(r.meta.title).toBe(expected);
          expect(r.meta.title).not.toBe('torn first tail line');
        },
      ),
      RUNS,
    );
  });

  it('with nasty values, foreign rows and blanks, head + tail titles follow the same model', () => {
    fc.assert(
      fc.property(
        sessionLines,
        fc.array(lineArb, { maxLength: 8 }),
        fc.string({ maxLength: 40 }).map((s) => s.replace(/\n/g, '')),
        (headLines, tailLines, fragment) => {
          const head = Buffer.from(headLines.join('\n') + '\n');
          const tailBody = tailLines.join('\n') + '\n';
          const tail = Buffer.from(`${fragment}\n${tailBody}`);
          const r = readClaudeTranscript(head, true, tail, ID);
          check(r);
          expect(r.ok).toBe(true);
          if (!r.ok) return;
          // The tail's first line is cut in a real file; here it is junk (never a title row).
          expect(r.meta.title).toBe(oracle(linesOf(head), linesOf(tail)));
        },
      ),
      RUNS,
    );
  });
});
