// Text that came from outside (an agent's store, /proc, settings, error
// messages) is attacker-controlled: it can carry escape sequences that drive
// the user's terminal (set the title, write the clipboard through tmux) and
// invisible characters that shift every column after them. Everything an
// adapter hands over goes through `cleanText`; the widgets run it again; the
// CLI prints only `SafeText`, which nothing but this file can make.
//
// Display form (one rule for the sanitizer and the width): terminals disagree
// on clusters (tmux 3.3 draws a ZWJ family in 2 columns, xterm in 6; VS16
// makes ❤ wide in some and not in others; a skin-tone emoji is 2 or 4), so
// text is reduced to a form every terminal draws at the same width:
//   - bidi controls (U+061C, U+200E/F, U+202A–202E, U+2066–2069) become a
//     space, like other control characters: they reorder what the user reads;
//   - other invisible characters (default-ignorable and format characters:
//     U+00AD, U+200B–U+200D, U+2060–U+2064, U+FEFF, variation selectors, tag
//     characters, Hangul fillers, …) and emoji skin-tone modifiers are
//     removed: a ZWJ sequence shows as its parts side by side, an emoji with
//     VS16 in its default presentation (❤ narrow, 🚀 wide);
//   - a lone regional indicator (half a flag) becomes its letter; a pair
//     stays a flag, two columns everywhere;
//   - unassigned code points and lone surrogates become U+FFFD;
//   - NFC (Hangul jamo compose into syllables, e + ◌́ into é); a combining
//     mark with no base before it, or after a wide character (tmux 3.3 drops
//     those, xterm draws them), is dropped.
// Widths then come per code point from string-width (`charWidth`), the same
// function the TUI's blessed uses (widgets/terminal-width.ts).

import { tableWidth } from './char-width-table.js';

// CSI, OSC (BEL or ST terminated), DCS/SOS/PM/APC strings and two-byte ESC sequences, in their 7-bit and 8-bit (C1) forms.
const ESCAPES =
  // eslint-disable-next-line no-control-regex
  /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[PX^_][^\x1b]*(?:\x1b\\)?|\x9b[0-?]*[ -/]*[@-~]|[\x90\x98\x9d-\x9f][^\x07\x1b\x9c]*(?:\x07|\x9c|\x1b\\)?|\x1b[@-Z\\-_]|\x1b./gs;
// C0, DEL, C1, and the bidi controls that can reorder what the user reads.
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
// The same without newline and tab, for multi-line text and laid-out content.
// eslint-disable-next-line no-control-regex
const CONTROLS_BUT_LAYOUT = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
// Invisible: default-ignorable and format characters (bidi controls are gone by now), skin-tone modifiers.
const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Emoji_Modifier}]/gu;
const UNASSIGNED = /[\p{Cn}\p{Cs}]/gu;
// Runs of white space collapse to one space; U+FEFF (which \s includes) is an invisible character instead.
const SPACES = /[^\S\ufeff]+/g;
const LONE_MARKS = /(^|[\s\n])\p{M}+/gu;
const MARK = /\p{M}/u;
const MARKED_WIDE = /([\u1100-\u{10ffff}])\p{M}+/gu;
const REGIONAL = /\p{Regional_Indicator}/u;
const REGIONAL_RUN = /\p{Regional_Indicator}+/gu;
// Fast path: printable ASCII (and layout whitespace) needs none of the work below.
// eslint-disable-next-line no-control-regex
const PLAIN = /^[\x20-\x7e\n\t]*$/;
// Printable ASCII words with single spaces between them: what cleanText would return unchanged (before its bound).
const WORDS = /^[\x21-\x7e]+(?: [\x21-\x7e]+)*$/;

/**
 * The display form of already control-free text (see the header): invisible
 * characters removed, lone half-flags as letters, NFC. Idempotent.
 */
function visibleForm(s: string): string {
  // Stryker disable next-line ConditionalExpression: fast path; the long way leaves plain ASCII as it is
  if (PLAIN.test(s)) return s;
  let out = s.replace(INVISIBLE, '').replace(UNASSIGNED, '\ufffd').normalize('NFC');
  // Stryker disable next-line ConditionalExpression: the replace finds no run without a regional indicator
  if (REGIONAL.test(out)) {
    // Pairs from the start of each run are flags; an odd one out is shown as its letter.
    out = out.replace(REGIONAL_RUN, (run) => {
      const cps = Array.from(run);
      if (cps.length % 2 === 0) return run;
      const last = cps.pop()!;
      return cps.join('') + String.fromCharCode(0x41 + last.codePointAt(0)! - 0x1f1e6);
    });
  }
  out = out.replace(LONE_MARKS, '$1');
  // tmux draws a wide character without the marks after it, xterm with them: no terminal gets them.
  // Stryker disable next-line ConditionalExpression: the replace finds nothing to drop without a mark
  if (MARK.test(out)) out = out.replace(MARKED_WIDE, (m, base: string) => (charWidth(base.codePointAt(0)!) === 2 ? base : m));
  return out;
}

/**
 * The last line of defence before the screen library: laid-out content
 * (newlines and blessed tags kept) with escapes, control characters and
 * invisible characters gone. Idempotent; cleaned text passes unchanged.
 */
export function displayForm(s: string): string {
  // Stryker disable next-line ConditionalExpression: fast path; the long way leaves plain ASCII as it is
  if (PLAIN.test(s)) return s;
  return visibleForm(s.replace(ESCAPES, ' ').replace(CONTROLS_BUT_LAYOUT, ' '));
}

/** Strips escape sequences, turns control characters into spaces, collapses runs of spaces; the display form. */
export function cleanText(input: string, maxChars = 4096): string {
  // Stryker disable next-line ConditionalExpression,EqualityOperator,ArithmeticOperator: slicing an input no longer than the cap changes nothing
  let s = input.length > maxChars * 4 ? input.slice(0, maxChars * 4) : input;
  // Most titles, paths and labels: none of the replacements below would change a character (a scan cleans 10k+).
  // Stryker disable next-line ConditionalExpression: fast path; the long way returns these words unchanged
  if (WORDS.test(s)) return truncateChars(s, maxChars);
  s = s.replace(ESCAPES, ' ').replace(CONTROLS, ' ');
  s = visibleForm(s.replace(SPACES, ' ')).replace(SPACES, ' ').trim();
  return truncateChars(s, maxChars);
}

/** Same as cleanText but keeps newlines (for previews). */
export function cleanMultiline(input: string, maxChars = 16384): string {
  const lines = input.slice(0, maxChars * 2).split(/\r?\n/);
  const out = lines.map((l) => visibleForm(l.replace(ESCAPES, ' ').replace(/\t/g, '  ').replace(CONTROLS, ' ')).trimEnd());
  return truncateChars(out.join('\n'), maxChars);
}

/** Truncates to at most `max` Unicode code points, appending `…` when cut; never leaves half a flag. */
export function truncateChars(s: string, max: number): string {
  // No more UTF-16 units than `max` is no more code points either: nothing to cut, no array of them to build.
  // Stryker disable next-line ConditionalExpression,EqualityOperator: fast path; the code point count below gives the same answer
  if (s.length <= max) return s;
  const cps = Array.from(s);
  if (cps.length <= max) return s;
  const kept = cps.slice(0, max);
  let ri = 0;
  // Stryker disable next-line ConditionalExpression,EqualityOperator: past the start kept[-1] is undefined, no regional indicator, so the loop stops anyway
  while (ri < kept.length && REGIONAL.test(kept[kept.length - 1 - ri]!)) ri++;
  if (ri % 2 === 1) kept.pop();
  return kept.join('') + '…';
}

// ---- safe text: the only strings the CLI prints ---------------------------

declare const safeBrand: unique symbol;
/** A string that has been through the sanitizer (or is a literal of ours). Only this file makes one. */
export type SafeText = string & { readonly [safeBrand]: true };

function messageOf(x: unknown): string {
  if (x === null || x === undefined) return '';
  if (x instanceof Error) return x.message;
  return String(x);
}

/** Any value as one clean line (escapes and controls out, spaces collapsed, display form). */
export function safeText(x: unknown, maxChars = 4096): SafeText {
  return cleanText(messageOf(x), maxChars) as SafeText;
}

/** Any value as clean lines (newlines kept). */
export function safeLines(x: unknown, maxChars = 65536): SafeText {
  return cleanMultiline(messageOf(x), maxChars) as SafeText;
}

/** Cleans one interpolated value but keeps its spacing (padded columns stay aligned). */
function safeInline(x: unknown): string {
  const s = messageOf(x);
  // Stryker disable next-line ConditionalExpression,StringLiteral: fast path (or it turned off); the long way leaves plain one-line ASCII as it is
  if (PLAIN.test(s) && !s.includes('\n') && !s.includes('\t')) return s;
  return visibleForm(s.replace(ESCAPES, ' ').replace(CONTROLS, ' '));
}

/**
 * Template tag: the literal parts are ours, every interpolated value is
 * cleaned onto one line. `safe\`  home ${path}\``.
 */
export function safe(strings: TemplateStringsArray, ...values: unknown[]): SafeText {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += safeInline(values[i]) + strings[i + 1]!;
  return out as SafeText;
}

export function joinSafe(parts: readonly SafeText[], sep: SafeText): SafeText {
  return parts.join(sep) as SafeText;
}

// JSON keeps the data exact for machine readers; only the encoding changes so
// that no control, C1, bidi or invisible character reaches a terminal raw.
const JSON_UNSAFE = /[\x7f-\x9f\u2028\u2029\p{Default_Ignorable_Code_Point}\p{Cf}\p{Cs}]/gu;
const HAS_JSON_UNSAFE = /[\x7f-\x9f\u2028\u2029\p{Default_Ignorable_Code_Point}\p{Cf}\p{Cs}]/u;
// Every unsafe character lies outside printable ASCII, so only runs of such characters are searched: the property
// pattern over a whole report cost ~6 ms per MB (a tenth of a 10k-session `scan --json`). A run ends at an ASCII
// character, never inside a surrogate pair, so the pattern sees the same code points as over the whole text.
const NON_ASCII_RUN = /[^\x00-\x7e]+/g;

function escapeUnits(c: string): string {
  let e = '';
  for (let i = 0; i < c.length; i++) e += `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return e;
}

/** JSON.stringify whose output carries no raw control, C1, bidi or invisible character (they are \u escapes). */
export function safeJson(value: unknown): SafeText {
  return safeJsonText(JSON.stringify(value) ?? 'null');
}

/** safeJson for text JSON.stringify already made (a streamed report's pieces: split between tokens, escaped alike). */
export function safeJsonText(json: string): SafeText {
  let out = '';
  let last = -1;
  NON_ASCII_RUN.lastIndex = 0;
  for (let m = NON_ASCII_RUN.exec(json); m !== null; m = NON_ASCII_RUN.exec(json)) {
    // Stryker disable next-line ConditionalExpression: a run with nothing unsafe is copied unchanged by the replace
    if (!HAS_JSON_UNSAFE.test(m[0])) continue;
    out += json.slice(Math.max(last, 0), m.index) + m[0].replace(JSON_UNSAFE, escapeUnits);
    last = m.index + m[0].length;
  }
  return (last < 0 ? json : out + json.slice(last)) as SafeText;
}

// ---- display width ------------------------------------------------------

const widths = new Map<number, number>();

/**
 * Columns one code point of display-form text occupies, from string-width
 * (its answers tabled in char-widths.ts: loading it costs ~20 ms at start-up).
 * A regional indicator is one column (a flag is two of them: two columns in
 * tmux, which joins them, and in xterm, which does not); Hangul medial and
 * final jamo take none (they join the syllable before them, as wcwidth has it).
 */
export function charWidth(cp: number): number {
  if (cp >= 0x20 && cp < 0x7f) return 1;
  // Stryker disable next-line ConditionalExpression,EqualityOperator: 0x20 and 0x20–0x7e returned 1 on the line before
  if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) return 0;
  if (cp >= 0x1f1e6 && cp <= 0x1f1ff) return 1;
  // Stryker disable next-line EqualityOperator: U+1160 is 0 columns in the table too
  if ((cp >= 0x1160 && cp <= 0x11ff) || (cp >= 0xd7b0 && cp <= 0xd7ff)) return 0;
  let w = widths.get(cp);
  // Stryker disable next-line ConditionalExpression: the cache only saves time; the table gives the same width
  if (w === undefined) {
    w = tableWidth(cp);
    widths.set(cp, w);
  }
  return w;
}

/** Columns `s` occupies once in display form (the sum of its code points, as blessed counts them). */
export function displayWidth(s: string): number {
  // Stryker disable next-line ConditionalExpression: fast path; the sum of narrow ASCII widths is the length
  if (isNarrowAscii(s)) return s.length;
  let w = 0;
  for (const ch of s) w += charWidth(ch.codePointAt(0)!);
  return w;
}

/** Cuts `s` to `width` columns, ending with `…` when it had to cut. Never splits a wide char. */
export function fitWidth(s: string, width: number): string {
  // Stryker disable next-line ConditionalExpression,EqualityOperator: fast path; displayWidth gives the same verdict
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
  // Stryker disable next-line EqualityOperator: a pad of 0 adds an empty string
  if (pad <= 0) return fitted;
  return align === 'left' ? fitted + ' '.repeat(pad) : ' '.repeat(pad) + fitted;
}

// Stryker disable next-line BlockStatement: a wrong answer only sends text down the long way, which counts it the same
function isNarrowAscii(s: string): boolean {
  // Stryker disable next-line EqualityOperator: charCodeAt past the end is NaN, which fails both tests
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // Stryker disable next-line ConditionalExpression,EqualityOperator: only sends more strings down the long way, which counts them the same
    if (c < 0x20 || c > 0x7e) return false;
  }
  // Stryker disable next-line BooleanLiteral: only sends every string down the long way, which counts it the same
  return true;
}
