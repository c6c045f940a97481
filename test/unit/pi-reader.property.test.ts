// Property tests for the pi JSONL prefix reader: hostile bytes never throw,
// and whatever comes out as a title is terminal-safe and bounded.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeTitle, piFallbackTitle, piTitle, readPiSession, type PiReadResult } from '../../src/adapters/pi/session-reader.js';
import { cleanText } from '../../src/engine/core/text.js';

// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const RUNS = { numRuns: 300 };

/** The title the scan shows for a read result (scan.ts composes it the same way). */
function titleOf(r: Extract<PiReadResult, { ok: true }>): string {
  return piTitle(r);
}

function checkTitle(r: PiReadResult): void {
  if (!r.ok) return;
  const title = titleOf(r);
  expect(title).not.toMatch(CONTROL);
  expect(title).not.toContain('\x1b');
  expect(title.length).toBeGreaterThan(0);
  if (r.name !== null) {
    expect(r.name).not.toMatch(CONTROL);
    expect(r.firstUser).toBeNull();
  } else if (r.firstUser !== null) {
    expect(Array.from(r.firstUser).length).toBeLessThanOrEqual(97);
    expect(r.firstUser).toBe(r.firstUser.trim());
    expect(r.firstUser).not.toMatch(/\s\s/);
  }
}

// Text that likes to break terminals: escapes, C0/C1, bidi, astral, CJK, newlines.
const nasty = fc
  .array(
    fc.oneof(
      fc.string({ unit: 'binary', maxLength: 30 }),
      fc.constantFrom(
        '\x1b[31m',
        '\x1b]0;title\x07',
        '\x1b]8;;http://x\x1b\\',
        '\x9b2J',
        '\x1bP1$r\x1b\\',
        '\u202e',
        '\u2066',
        '\r\n',
        '\t',
        '\x00',
        '\x7f',
        '🚀',
        '中文',
        ' ',
        'e\u0301',
      ),
    ),
    { maxLength: 40 },
  )
  .map((parts) => parts.join(''));

const header = fc.record(
  {
    type: fc.constant('session'),
    version: fc.constantFrom(1, 2, 3),
    id: fc.oneof(
      fc.uuid(),
      nasty.filter((s) => s.length > 0),
    ),
    timestamp: fc.oneof(
      fc.date({ min: new Date(0), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString()),
      nasty,
    ),
    cwd: fc.oneof(
      fc.constant('/src/app'),
      nasty.map((s) => `/${s}`),
      fc.constant(null),
    ),
    parentSession: fc.oneof(fc.constant(undefined), nasty),
  },
  { requiredKeys: ['type', 'id'] },
);

const contentArb = fc.oneof(
  nasty,
  fc.array(
    fc.oneof(fc.record({ type: fc.constant('text'), text: nasty }), fc.record({ type: fc.constant('image'), data: fc.base64String() }), fc.jsonValue()),
    {
      maxLength: 4,
    },
  ),
  fc.jsonValue(),
);

const entryArb = fc.oneof(
  fc.record({ type: fc.constant('message'), message: fc.record({ role: fc.constantFrom('user', 'assistant', 'toolResult'), content: contentArb }) }),
  fc.record({ type: fc.constant('session_info'), name: fc.oneof(nasty, fc.constant(''), fc.jsonValue()) }),
  fc.jsonValue(),
);

/** A plausible session: a header, then entries, then maybe junk lines; serialized as JSONL. */
const sessionText = fc
  .tuple(
    header,
    fc.array(
      fc.oneof(
        entryArb.map((e) => JSON.stringify(e)),
        nasty,
      ),
      { maxLength: 12 },
    ),
    fc.constantFrom('\n', '\r\n'),
  )
  .map(([h, lines, eol]) => [JSON.stringify(h), ...lines].join(eol) + eol);

describe('readPiSession properties', () => {
  it('never throws on arbitrary bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 4096 }), fc.boolean(), (bytes, truncated) => {
        const r = readPiSession(Buffer.from(bytes), truncated);
        expect(typeof r.ok).toBe('boolean');
        checkTitle(r);
      }),
      RUNS,
    );
  });

  it('never throws on arbitrary JSON lines', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.jsonValue(), entryArb, header), { maxLength: 20 }), fc.boolean(), (values, truncated) => {
        const text = values.map((v) => JSON.stringify(v) ?? 'null').join('\n');
        const r = readPiSession(Buffer.from(text), truncated);
        checkTitle(r);
      }),
      RUNS,
    );
  });

  it('titles from session-like files never carry controls or ESC, and unnamed ones are ≤ 97 code points', () => {
    fc.assert(
      fc.property(sessionText, (text) => {
        const r = readPiSession(Buffer.from(text), false);
        checkTitle(r);
      }),
      RUNS,
    );
  });

  it('reads a valid header and user message the way pi titles it', () => {
    fc.assert(
      fc.property(fc.uuid(), nasty, (id, text) => {
        const lines = [
          JSON.stringify({ type: 'session', version: 3, id, timestamp: '2026-11-29T14:37:37.577Z', cwd: '/src/app' }),
          JSON.stringify({ type: 'message', id: 'a', parentId: null, message: { role: 'user', content: [{ type: 'text', text }] } }),
        ];
        const r = readPiSession(Buffer.from(lines.join('\n') + '\n'), false);
        expect(r.ok).toBe(true);
        if (!r.ok) return;
        expect(r.header.id).toBe(id);
        expect(r.name).toBeNull();
        expect(r.firstUser).toBe(text ? normalizeTitle(text) || null : null);
        checkTitle(r);
      }),
      RUNS,
    );
  });

  it('truncation at any prefix length never throws and never invents a name', () => {
    fc.assert(
      fc.property(sessionText, fc.double({ min: 0, max: 1, noNaN: true }), (text, frac) => {
        const buf = Buffer.from(text);
        const k = Math.floor(buf.length * frac);
        const full = readPiSession(buf, false);
        const cut = readPiSession(buf.subarray(0, k), k < buf.length);
        checkTitle(cut);
        if (cut.ok) {
          // Whatever a prefix yields as the header is the whole file's header.
          expect(full.ok).toBe(true);
          if (full.ok) expect(cut.header).toEqual(full.header);
          // A name from a prefix is one that a complete session_info line of the file carries,
          // never a cut-off piece of one.
          if (cut.name !== null) {
            const names = text.split(/\r?\n/).flatMap((l) => {
              try {
                const v = JSON.parse(l) as { type?: unknown; name?: unknown } | null;
                return v && v.type === 'session_info' && typeof v.name === 'string' ? [cleanText(v.name.trim(), 512)] : [];
              } catch {
                return [];
              }
            });
            expect(names).toContain(cut.name);
          }
        }
      }),
      RUNS,
    );
  });

  it('any head and tail of a file: never throws, a name is one a whole session_info line carries', () => {
    fc.assert(
      fc.property(sessionText, fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), (text, fh, ft) => {
        const buf = Buffer.from(text);
        const k = Math.floor(buf.length * fh);
        const from = k + Math.floor((buf.length - k) * ft);
        const r = readPiSession(buf.subarray(0, k), k < buf.length, k < buf.length ? buf.subarray(Math.max(0, from - 1)) : null);
        checkTitle(r);
        if (!r.ok || r.name === null) return;
        const lines = text.split('\n');
        const names = lines.flatMap((l) => {
          try {
            const v = JSON.parse(l) as { type?: unknown; name?: unknown } | null;
            return v && v.type === 'session_info' && typeof v.name === 'string' ? [cleanText(v.name.trim(), 512)] : [];
          } catch {
            return [];
          }
        });
        expect(names).toContain(r.name);
      }),
      RUNS,
    );
  });

  it('a cut inside a multi-byte character never throws', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 50 }), fc.nat(), (s, at) => {
        const text = `${JSON.stringify({ type: 'session', id: 'x1', cwd: '/a' })}\n${JSON.stringify({ type: 'message', message: { role: 'user', content: s } })}\n`;
        const buf = Buffer.from(text);
        const k = at % (buf.length + 1);
        checkTitle(readPiSession(buf.subarray(0, k), k < buf.length));
      }),
      RUNS,
    );
  });

  it('the fallback title is terminal-safe for any header id', () => {
    fc.assert(
      fc.property(nasty, fc.option(fc.integer({ min: 0, max: 4_102_444_800_000 }), { nil: null }), (id, ts) => {
        const title = piFallbackTitle(id, ts);
        expect(title).not.toMatch(CONTROL);
        expect(title.startsWith('pi · ')).toBe(true);
      }),
      RUNS,
    );
  });
});
