// safeJson searches only the runs of non-ASCII characters for what must be
// escaped; its output must stay byte for byte what one Unicode-property
// replace over the whole JSON text gave (the scan --json contract).

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { safeJson } from '../../src/engine/core/text.js';

const UNSAFE = /[\x7f-\x9f\u2028\u2029\p{Default_Ignorable_Code_Point}\p{Cf}\p{Cs}]/gu;

function wholeTextSafeJson(value: unknown): string {
  return (JSON.stringify(value) ?? 'null').replace(UNSAFE, (c) => {
    let e = '';
    for (let i = 0; i < c.length; i++) e += `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`;
    return e;
  });
}

// Characters near every boundary that matters: ASCII, C1, bidi, zero-width, variation and tag characters, CJK, emoji, lone surrogates.
const tricky = fc.constantFrom(
  'a',
  '"',
  '\\',
  '\x00',
  '\x1f',
  '\x7e',
  '\x7f',
  '\x85',
  '\x9f',
  '\xa0',
  '\xad',
  '\u034f',
  '\u061c',
  '\u200b',
  '\u200d',
  '\u200e',
  '\u2028',
  '\u2029',
  '\u202e',
  '\u2066',
  '\ufe0f',
  '\ufeff',
  '\uffa0',
  '中',
  '文',
  '\u{1f680}',
  '\u{1f44d}\u{1f3fd}',
  '\u{e0041}',
  '\u{1d173}',
  '\ud800',
  '\udc00',
  '·',
  'é',
);
const text = fc.oneof(
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary' }),
  fc.array(tricky, { maxLength: 30 }).map((a) => a.join('')),
);

describe('safeJson', () => {
  it('gives the same bytes as the whole-text replace, for strings and reports', () => {
    fc.assert(
      fc.property(text, (s) => {
        expect(safeJson(s)).toBe(wholeTextSafeJson(s));
        const report = { version: 1, agents: [{ title: s, paths: [s, `/home/${s}`], n: 3 }], note: `${s}${s}` };
        expect(safeJson(report)).toBe(wholeTextSafeJson(report));
      }),
      { numRuns: 2000 },
    );
  });

  it('escapes what a terminal must not see raw and leaves the rest as it was', () => {
    expect(safeJson({ t: 'a\u202eb\u200bc\x85d' })).toBe('{"t":"a\\u202eb\\u200bc\\u0085d"}');
    expect(safeJson({ t: '中文 🚀 é' })).toBe('{"t":"中文 🚀 é"}');
    expect(safeJson('\u{e0041}')).toBe('"\\udb40\\udc41"');
    expect(safeJson(undefined)).toBe('null');
  });

  it('every BMP character the property pattern matches is outside printable ASCII (the runs it searches)', () => {
    for (let cp = 0x20; cp < 0x7f; cp++) expect(UNSAFE.test(String.fromCharCode(cp))).toBe(false);
  });
});
