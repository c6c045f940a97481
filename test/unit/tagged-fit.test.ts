// fitTagged cuts a blessed tag line to a width by grapheme clusters. Printable
// ASCII skips the segmenter (its ICU data cost every start ~17 ms before the
// first frame); the cut must be the one the segmenter gives, for any text.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { displayWidth } from '../../src/engine/core/text.js';
import { fitTagged, taggedWidth } from '../../src/widgets/tagged.js';

const TAG = /\{(?:\/?[a-z0-9-]*|open|close|\|)\}/g;
const seg = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** The cut as it was before the ASCII fast path: every piece through the segmenter. */
function reference(s: string, width: number): string {
  if (taggedWidth(s) <= width) return s;
  if (width <= 0) return '';
  let out = '';
  let w = 0;
  let last = 0;
  const room = width - 1;
  const take = (text: string): boolean => {
    for (const { segment } of seg.segment(text)) {
      const cw = displayWidth(segment);
      if (w + cw > room) return false;
      out += segment;
      w += cw;
    }
    return true;
  };
  for (const m of s.matchAll(TAG)) {
    if (!take(s.slice(last, m.index))) return `${out}…{/}`;
    last = m.index! + m[0].length;
    if (m[0] === '{open}' || m[0] === '{close}') {
      if (w + 1 > room) return `${out}…{/}`;
      w += 1;
    }
    if (m[0] !== '{|}') out += m[0];
  }
  take(s.slice(last));
  return `${out}…{/}`;
}

const piece = fc.oneof(
  fc.string({ unit: fc.constantFrom(...'abc XYZ 012 -_./'.split('')), maxLength: 12 }),
  fc.constantFrom('{bold}', '{/bold}', '{open}', '{close}', '{|}', '{/}', '{red-fg}'),
  fc.constantFrom('日本語', 'é', 'e\u0301', '한국', '\u0915\u093f', '👍', 'Ａ', '中文字符串', '\r\n'),
);

describe('fitTagged', () => {
  it('cuts exactly as the segmenter does, ASCII fast path or not, and never wider than asked', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), fc.integer({ min: 0, max: 40 }), (parts, width) => {
        const s = parts.join('');
        const got = fitTagged(s, width);
        expect(got).toBe(reference(s, width));
        expect(taggedWidth(got)).toBeLessThanOrEqual(width);
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps a combining mark with its letter and a wide character whole', () => {
    expect(fitTagged('abce\u0301fgh', 6)).toBe('abce\u0301f…{/}');
    expect(fitTagged('ab日本語', 5)).toBe('ab日…{/}');
    expect(fitTagged('{bold}abcdefgh{/bold}', 5)).toBe('{bold}abcd…{/}');
  });
});
