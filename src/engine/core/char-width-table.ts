// string-width's width of one code point, read from the generated table
// (char-widths.ts) instead of loading string-width at start-up.

import { WIDTH_RUNS } from './char-widths.js';

/** The first code point the table covers; text.ts answers everything below it. */
export const TABLE_FIRST = 0xa0;

let starts: Uint32Array | null = null;
let runWidths: Uint8Array | null = null;

function decode(): void {
  const parts = WIDTH_RUNS.split(',');
  starts = new Uint32Array(parts.length);
  runWidths = new Uint8Array(parts.length);
  let at = TABLE_FIRST;
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    at += Number.parseInt(p.slice(0, -1) || '0', 36);
    starts[i] = at;
    runWidths[i] = p.charCodeAt(p.length - 1) - 48;
  }
}

/** Columns of code point `cp` (≥ U+00A0) as string-width measures it alone; what is not a code point throws, as String.fromCodePoint does. */
export function tableWidth(cp: number): number {
  if (!Number.isInteger(cp) || cp < 0 || cp > 0x10ffff) String.fromCodePoint(cp);
  if (cp < TABLE_FIRST) throw new RangeError(String(cp));
  if (!starts) decode();
  const s = starts!;
  let lo = 0;
  let hi = s.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (s[mid]! <= cp) lo = mid;
    else hi = mid - 1;
  }
  return runWidths![lo]!;
}
