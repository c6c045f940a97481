// Widths of blessed tag strings ("{bold}x{/bold}", "{open}" for a brace):
// what a line occupies on screen, and the same line cut to a width with an
// ellipsis, so that no line a widget draws ever wraps.

import { displayWidth } from '../engine/core/text.js';

/** A blessed tag: `{bold}`, `{/bold}`, `{/}`, `{open}` (a brace), `{|}`. */
export const TAG = /\{(?:\/?[a-z0-9-]*|open|close|\|)\}/g;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
// Made on the first cut of text that is not printable ASCII: building a grapheme
// segmenter loads ICU's break data (~17 ms of CPU), which every start paid before its first frame.
let segmenter: Intl.Segmenter | null = null;

/** The text's grapheme clusters; printable ASCII is one per character, so it needs no segmenter. */
function graphemes(text: string): Iterable<string> {
  if (PRINTABLE_ASCII.test(text)) return text;
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  return Array.from(segmenter.segment(text), (g) => g.segment);
}

/** Columns a tagged line takes on screen. */
export function taggedWidth(s: string): number {
  return displayWidth(s.replace(TAG, (t) => (t === '{open}' || t === '{close}' ? '{' : '')));
}

/** The tagged line cut to `width` columns, ending in "…" and closing every tag when cut. */
export function fitTagged(s: string, width: number): string {
  if (taggedWidth(s) <= width) return s;
  if (width <= 0) return '';
  let out = '';
  let w = 0;
  let last = 0;
  const room = width - 1;
  const take = (text: string): boolean => {
    for (const segment of graphemes(text)) {
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
