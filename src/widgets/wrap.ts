// Sentences that matter are wrapped, never cut: a dialog's or the review's
// line breaks at spaces, and between two wide (CJK) characters, by display
// width, its blessed tags closed at each break and opened again on the next
// line. A status line instead drops whole fields, the least important first,
// so a count is never shown in half ("3 war…", "6.…").

import { charWidth, displayWidth } from '../engine/core/text.js';
import { TAG } from './tagged.js';

/** Lines no wrapped sentence grows past (a hostile 1 MB message stays a bounded box). */
const MAX_LINES = 200;
// Chinese punctuation that closes a phrase never starts a line, and one that opens a phrase never ends one.
// (As code points: punctuation, not words for the catalog: ，。、；：？！）」』》】〉…·’”% and （「『《【〈‘“.)
const NO_START = new Set(
  [0xff0c, 0x3002, 0x3001, 0xff1b, 0xff1a, 0xff1f, 0xff01, 0xff09, 0x300d, 0x300f, 0x300b, 0x3011, 0x3009, 0x2026, 0xb7, 0x2019, 0x201d, 0x25].map((c) =>
    String.fromCodePoint(c),
  ),
);
const NO_END = new Set([0xff08, 0x300c, 0x300e, 0x300a, 0x3010, 0x3008, 0x2018, 0x201c].map((c) => String.fromCodePoint(c)));

interface Atom {
  raw: string;
  width: number;
  tag: boolean;
}

/** A run that is never broken inside, and the spaces before it (dropped at a break). */
interface Piece {
  gap: string;
  atoms: Atom[];
  width: number;
}

function atomsOf(s: string): Atom[] {
  const out: Atom[] = [];
  let last = 0;
  const text = (part: string): void => {
    for (const ch of part) out.push({ raw: ch, width: charWidth(ch.codePointAt(0)!), tag: false });
  };
  for (const m of s.matchAll(TAG)) {
    text(s.slice(last, m.index));
    last = m.index! + m[0].length;
    const brace = m[0] === '{open}' || m[0] === '{close}';
    out.push({ raw: m[0], width: brace ? 1 : 0, tag: !brace });
  }
  text(s.slice(last));
  return out;
}

function piecesOf(atoms: Atom[]): Piece[] {
  const out: Piece[] = [];
  let cur: Piece = { gap: '', atoms: [], width: 0 };
  let prev: Atom | null = null;
  const flush = (): void => {
    if (cur.atoms.length || cur.gap) out.push(cur);
  };
  for (const a of atoms) {
    if (!a.tag && a.raw === ' ') {
      if (cur.atoms.some((x) => !x.tag)) {
        flush();
        cur = { gap: '', atoms: [], width: 0 };
      }
      cur.gap += ' ';
      prev = a;
      continue;
    }
    // A wide character may start a new piece (Chinese has no spaces between words), unless punctuation binds it.
    const wideBreak = !a.tag && prev && !prev.tag && prev.raw !== ' ' && (a.width === 2 || prev.width === 2) && !NO_START.has(a.raw) && !NO_END.has(prev.raw);
    if (wideBreak && cur.atoms.some((x) => !x.tag)) {
      flush();
      cur = { gap: '', atoms: [], width: 0 };
    }
    cur.atoms.push(a);
    cur.width += a.width;
    if (!a.tag) prev = a;
  }
  flush();
  return out;
}

/** Tags still open after `raw` was emitted on top of `open` ({/} closes all, {/x} the last x). */
function track(open: string[], raw: string): void {
  if (raw === '{/}') open.length = 0;
  else if (raw.startsWith('{/')) {
    const name = raw.slice(2, -1);
    const i = open.lastIndexOf(`{${name}}`);
    if (i >= 0) open.splice(i, 1);
  } else if (raw !== '{|}') open.push(raw);
}

/**
 * The tagged line word-wrapped to `width` columns. Continuation lines are
 * indented by `hang` columns (by default the line's own leading spaces); a
 * word wider than a whole line is broken where it must be.
 */
export function wrapTagged(s: string, width: number, hang?: number): string[] {
  const lead = /^ */.exec(s)![0].length;
  const indent = Math.max(0, Math.min(hang ?? lead, width - 4));
  if (width <= 0) return [''];
  const lines: string[] = [];
  const open: string[] = [];
  let line = '';
  let lw = 0;
  let fresh = true;
  const breakLine = (): void => {
    lines.push(open.length ? `${line}{/}` : line);
    line = ' '.repeat(indent) + open.join('');
    lw = indent;
    fresh = true;
  };
  const emit = (a: Atom): void => {
    if (!a.tag && lw + a.width > width && !fresh) breakLine();
    line += a.raw;
    lw += a.width;
    if (a.tag) track(open, a.raw);
    else fresh = false;
  };
  for (const p of piecesOf(atomsOf(s))) {
    if (lines.length >= MAX_LINES) break;
    const gap = fresh && lines.length > 0 ? '' : p.gap;
    if (lw + gap.length + p.width > width && !fresh) {
      breakLine();
    } else {
      line += gap;
      lw += gap.length;
      if (gap) fresh = false;
    }
    // Too wide for any line: broken by character (only a path or an id is that long).
    for (const a of p.atoms) emit(a);
  }
  lines.push(line);
  return lines;
}

/** One field of a status line; the higher `rank`, the sooner it goes when the line is short. */
export interface Field {
  text: string;
  rank: number;
}

/** The fields that fit in `width` columns joined by `sep`, in their order; whole fields are dropped, highest rank first. */
export function dropFields(fields: readonly Field[], width: number, sep: string): string {
  const kept = fields.filter((f) => f.text !== '');
  const total = (): number => kept.reduce((w, f, i) => w + displayWidth(f.text) + (i ? displayWidth(sep) : 0), 0);
  while (kept.length && total() > width) {
    let worst = 0;
    for (let i = 1; i < kept.length; i++) if (kept[i]!.rank >= kept[worst]!.rank) worst = i;
    kept.splice(worst, 1);
  }
  return kept.map((f) => f.text).join(sep);
}

/** A catalog sentence of ` · `-separated parts as fields, the later parts dropped first. */
export function ranked(s: string): Field[] {
  return s.split(FIELD_SEP).map((text, rank) => ({ text, rank }));
}

/** How the deck's fields are joined, in both languages. */
export const FIELD_SEP = ' · ';
