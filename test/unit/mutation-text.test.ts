// The sanitizer's and the width's edges (#26 item 5: the mutants of
// engine/core/text.ts that text.test.ts, safe-json and tagged-fit let
// through): each bound of charWidth's own ranges against the table it
// shortcuts, controls turned into spaces in every form, the input caps that
// apply before cleaning, half flags, marks after narrow and wide letters,
// and the helpers no test called.

import { describe, expect, it } from 'vitest';
import {
  charWidth,
  cleanMultiline,
  cleanText,
  displayForm,
  displayWidth,
  fitWidth,
  joinSafe,
  padWidth,
  type SafeText,
  safe,
  safeLines,
  safeText,
  truncateChars,
} from '../../src/engine/core/text.js';

const US = '\u{1F1FA}\u{1F1F8}';
const F = '\u{1F1EB}';

describe('charWidth at the bounds of its own ranges', () => {
  it('controls 0, printable ASCII 1, C1 0, then the table; regional indicators 1; Hangul medial and final jamo 0', () => {
    const cases: [number, number][] = [
      [0x00, 0],
      [0x1f, 0],
      [0x20, 1],
      [0x7e, 1],
      [0x7f, 0],
      [0x80, 0],
      [0x9f, 0],
      [0xa0, 1],
      [0x1f1e5, 1],
      [0x1f1e6, 1],
      [0x1f1ff, 1],
      [0x1f200, 2],
      [0x1160, 0],
      [0x11a0, 0],
      [0x11ff, 0],
      [0x1200, 1],
      [0xd7af, 1],
      [0xd7b0, 0],
      [0xd7ff, 0],
    ];
    // Twice: the second answer comes from the cache.
    for (let pass = 0; pass < 2; pass++) expect(cases.map(([cp]) => [cp, charWidth(cp)])).toEqual(cases);
  });

  it('displayWidth and fitWidth count controls and non-ASCII by code point, ASCII by length', () => {
    expect(displayWidth('a\x01b')).toBe(2);
    expect(displayWidth('\x01\x02')).toBe(0);
    expect(displayWidth('a\x7fb')).toBe(2);
    expect(displayWidth('~ ~')).toBe(3);
    expect(displayWidth('漢字')).toBe(4);
    expect(displayWidth('a漢')).toBe(3);
    expect(fitWidth('漢字', 3)).toBe('漢…');
    expect(fitWidth('abcd', 3)).toBe('ab…');
    expect(fitWidth('abc', 3)).toBe('abc');
    expect(padWidth('漢', 2)).toBe('漢');
    expect(padWidth('漢', 3, 'right')).toBe(' 漢');
    // A negative width pads nothing (and does not throw).
    expect(padWidth('x', -1)).toBe('');
  });
});

describe('controls become one space in every form', () => {
  it('displayForm, cleanMultiline, safeLines and safe`` (a tab included) leave a space where a control was', () => {
    expect(displayForm('a\x01b\né')).toBe('a b\né');
    expect(cleanMultiline('a\x01b\nc')).toBe('a b\nc');
    expect(safeLines('a\x1b[31mb\x01c\nd')).toBe('a b c\nd');
    expect(safeLines(new Error('line one\nline\x07two'))).toBe('line one\nline two');
    expect(safeLines(undefined)).toBe('');
    expect(safe`[${'a\tb'}] [${'a\nb'}] [${'  padded'}]`).toBe('[a b] [a b] [  padded]');
  });

  it('null and undefined are empty, not the words', () => {
    expect(safeText(null)).toBe('');
    expect(safeText(undefined)).toBe('');
    expect(safe`<${null}>`).toBe('<>');
  });

  it('joinSafe joins with the separator', () => {
    expect(joinSafe(['a', 'b', 'c'] as SafeText[], ', ' as SafeText)).toBe('a, b, c');
  });
});

describe('the caps before cleaning', () => {
  it('cleanText reads at most 4 × maxChars of its input (text past that never shows)', () => {
    expect(cleanText(`${' '.repeat(8)}abc`, 2)).toBe('');
    expect(cleanText(`${' '.repeat(7)}abc`, 2)).toBe('a');
    expect(cleanText(`\x01${'a'.repeat(20)}`, 2)).toBe('aa…');
  });

  it('cleanMultiline reads at most 2 × maxChars of its input', () => {
    expect(cleanMultiline(`${'\x01'.repeat(8)}abc`, 4)).toBe('');
    expect(cleanMultiline('abcdefgh', 4)).toBe('abcd…');
  });
});

describe('flags and marks', () => {
  it('a pair of regional indicators stays a flag; the odd one out becomes its letter', () => {
    expect(cleanText(US)).toBe(US);
    expect(cleanText(`${US}${F}`)).toBe(`${US}F`);
    expect(cleanText(`x ${F} ${US}`)).toBe(`x F ${US}`);
  });

  it('truncateChars keeps a whole flag at the cut and drops a half one', () => {
    expect(truncateChars(`ab${US}${F}\u{1F1F7}x`, 4)).toBe(`ab${US}…`);
    expect(truncateChars(`ab${US}${F}\u{1F1F7}x`, 5)).toBe(`ab${US}…`);
    expect(truncateChars(`${US}${US}`, 3)).toBe(`${US}…`);
  });

  it('a mark after a narrow letter beyond U+1100 stays; after a wide one it goes', () => {
    expect(cleanText('\u1401\u0301')).toBe('\u1401\u0301');
    expect(cleanText('漢\u0301')).toBe('漢');
  });
});
