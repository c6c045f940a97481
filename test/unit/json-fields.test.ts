// The byte scan of a JSONL line (src/adapters/shared/json-fields.ts) against
// JSON.parse of the decoded line: on every line of a corpus of tricky ones,
// and on generated and mutated ones, both agree on every field, or the scan
// says it is unsure (the caller then parses). The pi reader's use of it is
// held to a JSON.parse reference of pi's activity rule here too.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  JsonLineFields,
  KIND_ARRAY,
  KIND_LITERAL,
  KIND_NONE,
  KIND_NUMBER,
  KIND_OBJECT,
  KIND_STRING,
  LINE_NOT_OBJECT,
  LINE_OBJECT,
  LINE_UNSURE,
} from '../../src/adapters/shared/json-fields.js';
import { parseObject } from '../../src/adapters/shared/jsonl.js';
import { readPiSession } from '../../src/adapters/pi/session-reader.js';

const TOP = ['type', 'timestamp', 'message'];
const NESTED = ['role', 'content', 'timestamp'];
const fields = new JsonLineFields(TOP, 'message', NESTED);

function kindOf(v: unknown): number {
  if (v === undefined) return KIND_NONE;
  if (typeof v === 'string') return KIND_STRING;
  if (typeof v === 'number') return KIND_NUMBER;
  if (Array.isArray(v)) return KIND_ARRAY;
  if (v !== null && typeof v === 'object') return KIND_OBJECT;
  return KIND_LITERAL;
}

const own = (o: Record<string, unknown>, k: string): unknown => (Object.hasOwn(o, k) ? o[k] : undefined);

/** Scans `line` and checks every field against JSON.parse; returns the scan's verdict. */
function agree(line: Buffer): number {
  const r = fields.scan(line, 0, line.length);
  if (r === LINE_UNSURE) return r;
  const v = parseObject(line.toString('utf8'));
  expect(r, `verdict on ${JSON.stringify(line.toString('latin1').slice(0, 200))}`).toBe(v === undefined ? LINE_NOT_OBJECT : LINE_OBJECT);
  if (!v) return r;
  const m = own(v, 'message');
  const nested = m !== null && typeof m === 'object' && !Array.isArray(m) ? (m as Record<string, unknown>) : undefined;
  const want = [...TOP.map((k) => own(v, k)), ...NESTED.map((k) => (nested ? own(nested, k) : undefined))];
  for (let f = 0; f < want.length; f++) {
    expect(fields.kind(f), `field ${f} of ${line.toString('latin1').slice(0, 200)}`).toBe(kindOf(want[f]));
    if (typeof want[f] === 'string') expect(fields.string(f)).toBe(want[f]);
    if (typeof want[f] === 'number') expect(Object.is(fields.number(f), want[f])).toBe(true);
  }
  return r;
}

const b = (s: string): Buffer => Buffer.from(s, 'utf8');
const raw = (...parts: (string | number[])[]): Buffer => Buffer.concat(parts.map((p) => (typeof p === 'string' ? b(p) : Buffer.from(p))));

const VALID = [
  '{"type":"message","message":{"role":"assistant","content":[{"type":"text","text":"hi"}],"timestamp":1779335337314},"timestamp":"2026-05-21T03:48:57.314Z"}',
  '{"type":"message","message":{"role":"user","content":"a prompt"},"id":"00000003","timestamp":"2026-05-21T03:48:57.314Z"}',
  ' \t{ "type" : "message" , "message" : { "role" : "user" , "content" : null } }\r',
];

const CORPUS: Buffer[] = [
  ...VALID.map(b),
  // A key inside a string value, escaped quotes, escaped keys and values.
  b('{"type":"x","note":"\\"type\\":\\"message\\"","message":{"role":"user","content":"a"}}'),
  b('{"note":"{\\"message\\":{\\"role\\":\\"user\\"}}","type":"message"}'),
  b('{"type":"message","text":"he said \\"hi\\\\\\"","message":{"role":"assistant","content":1}}'),
  b('{"typ\\u0065":"message","message":{"rol\\u0065":"user","content":"x"}}'),
  b('{"type":"mess\\u0061ge","timestamp":"2026-01-01T00:00:00\\u005a","message":{"role":"\\u0075ser","content":"\\ud83d\\ude00"}}'),
  b('{"type":"\\ud800","message":{"role":"\\udc00x","content":"\\u0000"}}'),
  b('{"t\\"ype":"message","type\\\\":"x"}'),
  // Repeated keys: JSON.parse keeps the last.
  b('{"type":"message","type":"other"}'),
  b('{"message":{"role":"user","content":1},"message":{"role":"assistant"}}'),
  b('{"message":{"role":"user","content":"x","timestamp":5},"message":5}'),
  b('{"message":{"role":"user","role":"assistant","content":"a","content":[1]}}'),
  b('{"timestamp":"a","message":{"timestamp":1},"timestamp":2}'),
  // Fields at the wrong depth, a message that is no object.
  b('{"message":{"message":{"role":"user","content":"x"}}}'),
  b('{"message":{"x":{"timestamp":5,"role":"user"}},"y":{"type":"message"}}'),
  b('{"message":[{"role":"user","content":"x"}],"type":"message"}'),
  b('{"message":null,"type":"message"}'),
  b('{"message":"{\\"role\\":\\"user\\"}"}'),
  b('{"__proto__":{"type":"message"},"constructor":1}'),
  b('{"message":{"__proto__":{"role":"user"},"content":"x"}}'),
  // Numbers.
  ...['0', '-0', '1e400', '-1e400', '1.5e-7', '1E+2', '123456789012345678901234567890', '0.1', '5e-324', '2e-400'].map((n) =>
    b(`{"message":{"timestamp":${n}},"timestamp":${n}}`),
  ),
  ...['01', '-', '1.', '1e', '.5', '+1', '1e+', '--1', '0x10', 'NaN', 'Infinity', '1.2.3', '00'].map((n) => b(`{"message":{"timestamp":${n}}}`)),
  // Literals and broken literals.
  b('{"type":true,"timestamp":false,"message":{"role":null}}'),
  ...['tru', 'nul', 'fals', 'True', 'nulll', 'undefined'].map((w) => b(`{"type":${w}}`)),
  // Not an object, or not JSON at all.
  b('[{"type":"message"}]'),
  b('"message"'),
  b('null'),
  b('42'),
  b(''),
  b('   '),
  b('{"type":"message"}{"type":"x"}'),
  b('{"type":"message"} x'),
  b('{"type":"message",}'),
  b('{"type":"message",,"a":1}'),
  b('{"type" "message"}'),
  b("{'type':'message'}"),
  b('{"type":"message" /* c */}'),
  b('{type:"message"}'),
  b('{"a":[1,]}'),
  b('{"a":[,1]}'),
  b('{"a":}'),
  b('{"a"}'),
  b('{'),
  b('}'),
  raw([0xef, 0xbb, 0xbf], '{"type":"message"}'),
  // Control bytes: legal only outside strings (tab, CR), never inside.
  b('{"type":"mess\tage"}'),
  b('{"type":"mess\u0001age"}'),
  b('{"type":"message",\t"a":1}'),
  b('{"type":"message"\u0000}'),
  b('{"type":"a\u007fb"}'),
  // Escapes.
  ...['\\x41', '\\u12', '\\u12G4', '\\', '\\u', '\\uD83D', '\\/', '\\b\\f\\n\\r\\t', "\\'"].map((e) => b(`{"type":"${e}"}`)),
  b('{"type":"abc\\"}'),
  // Bytes that are not UTF-8: in strings they decode to U+FFFD; outside, they are no JSON.
  raw('{"type":"message","message":{"role":"user","content":"', [0xff, 0xfe, 0x80], '"}}'),
  raw('{"type":"', [0xe2, 0x82], '","message":{"role":"', [0xf0, 0x9f], '","content":1}}'),
  raw('{"', [0xff], '":1,"type":"x"}'),
  raw('{"ty', [0xc0, 0xaf], 'pe":"x"}'),
  raw('{"type":"', [0xed, 0xa0, 0x80], '"}'),
  raw('{"type":"message"}', [0xff]),
  raw([0xc2, 0xa0], '{"type":"message"}'),
  raw('{"type":"message",', [0xe2, 0x80, 0xa8], '"a":1}'),
  raw('{"type":"', [0xe2, 0x80, 0xa8, 0xe2, 0x80, 0xa9], '"}'),
  b('{"type":"éè 中文 😀","message":{"role":"user","content":"ü"}}'),
  // Deep nesting: beyond what the scan follows it is unsure; JSON.parse decides.
  b(`{"a":${'['.repeat(600)}${']'.repeat(600)},"type":"message"}`),
  b(`{"message":{"content":${'{"a":'.repeat(700)}1${'}'.repeat(700)},"role":"user"}}`),
  b(`{"a":${'['.repeat(100_000)}`),
  b(`{"a":${'['.repeat(300)}${']'.repeat(299)},"type":"x"}`),
  // A huge line.
  b(`{"type":"message","message":{"role":"assistant","content":"${'x'.repeat(3_000_000)}","timestamp":7}}`),
];

describe('JsonLineFields against JSON.parse', () => {
  it('agrees on every line of the tricky corpus, or is unsure', () => {
    const verdicts = CORPUS.map(agree);
    // The corpus holds lines of all three verdicts: the comparison above ran on each kind.
    expect(verdicts).toContain(LINE_OBJECT);
    expect(verdicts).toContain(LINE_NOT_OBJECT);
    expect(verdicts).toContain(LINE_UNSURE);
  });

  it('agrees on every prefix of a valid line (a truncated line is no object)', () => {
    for (const v of VALID) {
      const line = b(v);
      for (let n = 0; n <= line.length; n++) agree(line.subarray(0, n));
    }
  });

  it('agrees on generated objects with the wanted keys at any depth', () => {
    const key = fc.constantFrom('type', 'timestamp', 'message', 'role', 'content', 'typ\\u0065', 'x', '__proto__');
    const leaf = fc.oneof(fc.string({ unit: 'binary', maxLength: 12 }), fc.double(), fc.integer(), fc.boolean(), fc.constant(null), fc.constant('message'));
    const { value } = fc.letrec<{ value: unknown }>((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        leaf,
        fc.array(tie('value'), { maxLength: 3 }),
        fc.array(fc.tuple(key, tie('value')), { maxLength: 5 }).map((kv) => ({ kv })),
      ),
    }));
    /** JSON text with repeated keys kept (JSON.stringify of an object would drop them). */
    const text = (v: unknown): string => {
      if (v && typeof v === 'object' && 'kv' in v) return `{${(v as { kv: [string, unknown][] }).kv.map(([k, x]) => `"${k}":${text(x)}`).join(',')}}`;
      if (Array.isArray(v)) return `[${v.map(text).join(',')}]`;
      return JSON.stringify(v) ?? 'null';
    };
    const line = fc.array(fc.tuple(key, value), { maxLength: 6 }).map((kv) => text({ kv }));
    fc.assert(
      fc.property(line, (l) => void agree(b(l))),
      { numRuns: 1500, seed: 30 },
    );
  });

  it('agrees on valid lines with bytes inserted, removed or replaced', () => {
    const edit = fc.tuple(
      fc.constantFrom(...VALID),
      fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 }), fc.constantFrom('ins', 'del', 'set')), { maxLength: 3 }),
    );
    fc.assert(
      fc.property(edit, ([v, edits]) => {
        const bytes = [...b(v)];
        for (const [at, byte, op] of edits) {
          const i = at % (bytes.length + 1);
          if (op === 'ins') bytes.splice(i, 0, byte);
          else if (op === 'del') bytes.splice(i, 1);
          else if (i < bytes.length) bytes[i] = byte;
        }
        agree(Buffer.from(bytes));
      }),
      { numRuns: 3000, seed: 30 },
    );
  });
});

/** pi's activity rule, by JSON.parse (the reader's rule before the scan). */
function activityRef(line: string): number | null {
  const v = parseObject(line);
  if (v?.type !== 'message') return null;
  const m = v.message as Record<string, unknown> | null;
  if (!m || typeof m !== 'object') return null;
  if (typeof m.role !== 'string' || !('content' in m) || (m.role !== 'user' && m.role !== 'assistant')) return null;
  if (typeof m.timestamp === 'number') return Number.isFinite(m.timestamp) && m.timestamp > 0 ? m.timestamp : null;
  if (typeof v.timestamp !== 'string') return null;
  const t = Date.parse(v.timestamp);
  return Number.isNaN(t) || t <= 0 ? null : t;
}

describe("the pi reader's scanned message lines", () => {
  const header = '{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}';
  const lines = [
    ...CORPUS.filter((l) => l.length < 10_000 && !l.includes(0x0a)),
    b('{"type":"message","message":{"role":"user","content":"x","timestamp":-5},"timestamp":"2026-02-01T00:00:00Z"}'),
    b('{"type":"message","message":{"role":"assistant","content":"x"},"timestamp":"not a date"}'),
    b('{"type":"message","message":{"role":"toolResult","content":"x","timestamp":9}}'),
    b('{"type":"message","message":{"role":"assistant"},"timestamp":"2026-02-01T00:00:00Z"}'),
    b('{"type":"message","message":{"role":"assistant","content":"x","timestamp":"5"},"timestamp":"2026-03-01T00:00:00Z"}'),
    b('{"type":"message","message":{"role":"user","content":[{"type":"text","text":""},{"type":"text","text":""}]}}'),
    b('{"type":"message","message":{"role":"user","content":[{"type":"text","text":""}]}}'),
    b('{"type":"message","message":{"role":"user","content":""}}'),
    b('{"type":"message","message":{"role":"user","content":[{"type":"image"},{"type":"text","text":"see"}]}}'),
  ].filter((l) => l.includes(b('"message"')));

  it('finds the last activity and the first prompt as JSON.parse would', () => {
    let timed = 0;
    for (const l of lines) {
      // The line is both the last message and the only candidate for the first prompt.
      const file = Buffer.concat([b(`${header}\n`), l, b('\n')]);
      const r = readPiSession(file, false);
      expect(r.ok).toBe(true);
      if (!r.ok) continue;
      const want = activityRef(l.toString('utf8'));
      if (want !== null) timed++;
      expect(r.lastActivity, l.toString('latin1').slice(0, 200)).toBe(want);
      const v = parseObject(l.toString('utf8'));
      const m = v?.type === 'message' ? (v.message as Record<string, unknown> | null) : null;
      const c = m && typeof m === 'object' && m.role === 'user' && 'content' in m ? m.content : undefined;
      const text =
        typeof c === 'string'
          ? c || null
          : Array.isArray(c)
            ? c
                .filter((p) => p && p.type === 'text' && typeof p.text === 'string')
                .map((p) => p.text as string)
                .join(' ') || null
            : null;
      // The reader looks only at lines holding the bytes "user" (an escaped role is not searched for, as before).
      expect(r.hasUserMessage, l.toString('latin1').slice(0, 200)).toBe(text !== null && l.includes(b('"user"')));
    }
    expect(timed).toBeGreaterThan(3);
  });
});
