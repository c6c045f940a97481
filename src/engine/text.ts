// Text that came from an agent's store is attacker-controlled: a title can
// carry escape sequences that would drive the user's terminal. Everything an
// adapter hands over goes through `cleanText`; the widgets run it again.

// CSI, OSC (BEL or ST terminated), DCS/SOS/PM/APC strings and two-byte ESC sequences.
const ESCAPES =
  // eslint-disable-next-line no-control-regex
  /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[PX^_][^\x1b]*(?:\x1b\\)?|\x9b[0-?]*[ -/]*[@-~]|\x1b[@-Z\\-_]|\x1b./gs;
// C0, DEL, C1, and the bidi controls that can reorder what the user reads.
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Strips escape sequences, turns control characters into spaces, collapses runs of spaces. */
export function cleanText(input: string, maxChars = 4096): string {
  let s = input.length > maxChars * 4 ? input.slice(0, maxChars * 4) : input;
  s = s.replace(ESCAPES, ' ').replace(CONTROLS, ' ').replace(/\s+/g, ' ').trim();
  return truncateChars(s, maxChars);
}

/** Same as cleanText but keeps newlines (for previews). */
export function cleanMultiline(input: string, maxChars = 16384): string {
  const lines = input.slice(0, maxChars * 2).split(/\r?\n/);
  const out = lines.map((l) => l.replace(ESCAPES, ' ').replace(/\t/g, '  ').replace(CONTROLS, ' ').trimEnd());
  return truncateChars(out.join('\n'), maxChars);
}

/** Truncates to at most `max` Unicode code points, appending `…` when cut. */
export function truncateChars(s: string, max: number): string {
  const cps = Array.from(s);
  if (cps.length <= max) return s;
  return cps.slice(0, max).join('') + '…';
}

// ---- display width ------------------------------------------------------

// Wide ranges (East Asian Wide/Fullwidth and emoji presentation), sorted.
const WIDE: [number, number][] = [
  [0x1100, 0x115f], [0x231a, 0x231b], [0x2329, 0x232a], [0x23e9, 0x23ec], [0x23f0, 0x23f0],
  [0x23f3, 0x23f3], [0x25fd, 0x25fe], [0x2614, 0x2615], [0x2648, 0x2653], [0x267f, 0x267f],
  [0x2693, 0x2693], [0x26a1, 0x26a1], [0x26aa, 0x26ab], [0x26bd, 0x26be], [0x26c4, 0x26c5],
  [0x26ce, 0x26ce], [0x26d4, 0x26d4], [0x26ea, 0x26ea], [0x26f2, 0x26f3], [0x26f5, 0x26f5],
  [0x26fa, 0x26fa], [0x26fd, 0x26fd], [0x2705, 0x2705], [0x270a, 0x270b], [0x2728, 0x2728],
  [0x274c, 0x274c], [0x274e, 0x274e], [0x2753, 0x2755], [0x2757, 0x2757], [0x2795, 0x2797],
  [0x27b0, 0x27b0], [0x27bf, 0x27bf], [0x2b1b, 0x2b1c], [0x2b50, 0x2b50], [0x2b55, 0x2b55],
  [0x2e80, 0x303e], [0x3041, 0x33ff], [0x3400, 0x4dbf], [0x4e00, 0x9fff], [0xa000, 0xa4cf],
  [0xa960, 0xa97f], [0xac00, 0xd7a3], [0xf900, 0xfaff], [0xfe10, 0xfe19], [0xfe30, 0xfe6f],
  [0xff00, 0xff60], [0xffe0, 0xffe6], [0x16fe0, 0x16fe4], [0x17000, 0x18cff], [0x1b000, 0x1b2ff],
  [0x1f004, 0x1f004], [0x1f0cf, 0x1f0cf], [0x1f18e, 0x1f18e], [0x1f191, 0x1f19a], [0x1f200, 0x1f251],
  [0x1f300, 0x1f64f], [0x1f680, 0x1f6ff], [0x1f7e0, 0x1f7eb], [0x1f90c, 0x1f9ff], [0x1fa70, 0x1faff],
  [0x20000, 0x2fffd], [0x30000, 0x3fffd],
];

function inRanges(cp: number, ranges: [number, number][]): boolean {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [a, b] = ranges[mid]!;
    if (cp < a) hi = mid - 1;
    else if (cp > b) lo = mid + 1;
    else return true;
  }
  return false;
}

/** Columns one code point occupies in a terminal. */
export function charWidth(cp: number): number {
  if (cp === 0) return 0;
  if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) return 0;
  if (cp < 0x300) return 1;
  // Combining marks, zero-width joiners and variation selectors take no column.
  if (
    (cp >= 0x300 && cp <= 0x36f) ||
    (cp >= 0x200b && cp <= 0x200f) ||
    (cp >= 0xfe00 && cp <= 0xfe0f) ||
    (cp >= 0x1ab0 && cp <= 0x1aff) ||
    (cp >= 0x1dc0 && cp <= 0x1dff) ||
    (cp >= 0x20d0 && cp <= 0x20ff) ||
    (cp >= 0xe0100 && cp <= 0xe01ef)
  ) {
    return 0;
  }
  return inRanges(cp, WIDE) ? 2 : 1;
}

export function displayWidth(s: string): number {
  let w = 0;
  for (const ch of s) w += charWidth(ch.codePointAt(0)!);
  return w;
}

/** Cuts `s` to `width` columns, ending with `…` when it had to cut. Never splits a wide char. */
export function fitWidth(s: string, width: number): string {
  if (s.length <= width && isNarrowAscii(s)) return s;
  if (displayWidth(s) <= width) return s;
  if (width <= 0) return '';
  let out = '';
  let w = 0;
  for (const ch of s) {
    const cw = charWidth(ch.codePointAt(0)!);
    if (w + cw > width - 1) break;
    out += ch;
    w += cw;
  }
  return out + '…';
}

/** fitWidth, then pads with spaces to exactly `width` columns. */
export function padWidth(s: string, width: number, align: 'left' | 'right' = 'left'): string {
  const fitted = fitWidth(s, width);
  const pad = width - displayWidth(fitted);
  if (pad <= 0) return fitted;
  return align === 'left' ? fitted + ' '.repeat(pad) : ' '.repeat(pad) + fitted;
}

function isNarrowAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}
