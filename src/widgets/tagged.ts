// Widths of blessed tag strings ("{bold}x{/bold}", "{open}" for a brace):
// what a line occupies on screen, and the same line cut to a width with an
// ellipsis, so that no line a widget draws ever wraps.

import { displayWidth } from '../engine/core/text.js';

const TAG = /\{(?:\/?[a-z0-9-]*|open|close|\|)\}/g;
const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

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
    for (const { segment } of segmenter.segment(text)) {
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
