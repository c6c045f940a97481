// The generated width table (src/engine/core/char-widths.ts) answers exactly
// what string-width answers, for every code point: the start-up no longer
// loads string-width, so this is what keeps the widths the same.

import { readFileSync } from 'node:fs';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { TABLE_FIRST, tableWidth } from '../../src/engine/core/char-width-table.js';
import { STRING_WIDTH_VERSION } from '../../src/engine/core/char-widths.js';
import { charWidth } from '../../src/engine/core/text.js';

describe('char width table', () => {
  it('was generated from the installed string-width (else run scripts/gen-char-widths.mjs)', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../node_modules/string-width/package.json', import.meta.url), 'utf8')) as { version: string };
    expect(STRING_WIDTH_VERSION).toBe(pkg.version);
  });

  it('agrees with string-width on every code point from U+00A0 to U+10FFFF', () => {
    const wrong: string[] = [];
    for (let cp = TABLE_FIRST; cp <= 0x10ffff; cp++) {
      const want = stringWidth(String.fromCodePoint(cp));
      if (tableWidth(cp) !== want && wrong.length < 20) wrong.push(`U+${cp.toString(16)}: ${tableWidth(cp)} ≠ ${want}`);
    }
    expect(wrong).toEqual([]);
  }, 120_000);

  it('charWidth keeps its own rules around the table', () => {
    expect(charWidth(0x41)).toBe(1);
    expect(charWidth(0x07)).toBe(0);
    expect(charWidth(0x4e2d)).toBe(2); // 中
    expect(charWidth(0x1f680)).toBe(2); // 🚀
    expect(charWidth(0x0301)).toBe(0); // combining acute
    expect(charWidth(0x1f1e6)).toBe(1); // half a flag
    expect(charWidth(0x1161)).toBe(0); // Hangul medial
  });

  it('refuses what is not a code point, as String.fromCodePoint does', () => {
    expect(() => tableWidth(0x110000)).toThrow(RangeError);
    expect(() => tableWidth(-1)).toThrow(RangeError);
    expect(() => tableWidth(1.5)).toThrow(RangeError);
    expect(() => tableWidth(0x41)).toThrow(RangeError);
  });
});
