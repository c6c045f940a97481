// What must hold on every screen the app draws, read from the terminal as a
// user sees it (tmux's capture or a headless xterm's buffer): no line wider
// than the terminal and none wrapped; no text drawn black on the default
// background; a dialog on screen is whole (its bottom border is there) and
// the review shows its totals, backup line, warning and confirmation line;
// the footer names the focused widget (the dialog, when one is open). The
// redraw check (the screen equals a full redraw of the same state) lives in
// the screen classes, which can send Ctrl-L.

import { LANGUAGES, type MessageKey, t } from '../../src/engine/i18n/index.js';
import { displayWidth } from '../../src/engine/core/text.js';

/**
 * A catalog text in every language as one regular expression source (the
 * invariants hold whichever language the app speaks): `fixed` fills some
 * placeholders; of the rest, the longest literal stretch between the other
 * placeholders and " · " separators is what must be on screen.
 */
function anyLanguage(key: MessageKey, fixed?: Record<string, string>): string {
  const literal = (x: string): string => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const core = (l: (typeof LANGUAGES)[number]): string =>
    t(key, fixed, l)
      .split(/\{\w+\}| · /)
      .map((x) => x.trim())
      .sort((x, y) => y.length - x.length)[0]!;
  return `(?:${LANGUAGES.map((l) => literal(core(l))).join('|')})`;
}
const inAny = (key: MessageKey, fixed?: Record<string, string>): RegExp => new RegExp(anyLanguage(key, fixed));

export interface Grab {
  cols: number;
  rows: number;
  lines: string[];
  /** Rows the terminal wrapped into the next one. */
  wrapped: number[];
  /** Visible characters drawn black (SGR 30, 38;5;0/16, 38;2;0;0;0) on the default background. */
  black: { row: number; col: number; ch: string }[];
  /** Text and attributes of every cell, to compare two grabs. */
  signature: string;
  /** The top row's inverse-video text: the current tab (" 2 Sessions (34) "). */
  currentTab: string;
}

/** Panes inside a screen that may have the keys while its tab is current. */
const PANES = new Set((['sessions.details', 'app.selector'] as const).flatMap((k) => LANGUAGES.map((l) => t(k, undefined, l))));

/** The review's lines that must be visible whenever it is (or its refusal to fit). */
const REVIEW_REQUIRED: [string, RegExp][] = [
  ['totals', inAny('rv.totals')],
  ['backup line', inAny('rv.backup')],
  // Whole, to its last word: a warning cut with … at 80 columns hides what it warns of.
  ['irreversible warning', new RegExp(`${anyLanguage('rv.irreversibleRest')}|${anyLanguage('rv.onlyBackup')}`)],
  ['confirmation', new RegExp(`${anyLanguage('rv.typeToClean', { word: 'delete' })}|${anyLanguage('rv.closes')}`)],
];
const REVIEW_TITLES = new Set(LANGUAGES.map((l) => t('rv.title', undefined, l)));
const TOO_SMALL = inAny('rv.tooSmall');
const TYPE_TO_CLEAN = new RegExp(anyLanguage('rv.typeToClean', { word: 'delete' }));
const DECK_AGENT = new RegExp(`^ ${anyLanguage('deck.agent')} `);

/** A labelled box on screen: "┌─ Title ───┐" and, if it is whole, "└────┘" below at the same columns. */
interface Box {
  label: string;
  top: number;
  bottom: number | null;
  left: number;
}

function boxes(lines: string[]): Box[] {
  const out: Box[] = [];
  lines.forEach((l, top) => {
    for (const m of l.matchAll(/┌─ (.+?) ─*┐/g)) {
      const left = displayWidth(l.slice(0, m.index));
      let bottom: number | null = null;
      for (let r = top + 1; r < lines.length; r++) {
        const row = lines[r]!;
        const at = columnIndex(row, left);
        if (at !== null && row[at] === '└') {
          bottom = r;
          break;
        }
        if (at === null || row[at] !== '│') break;
      }
      out.push({ label: m[1]!.trim(), top, bottom, left });
    }
  });
  return out;
}

/** The string index of the character drawn at display column `col`, if one starts there. */
function columnIndex(s: string, col: number): number | null {
  let w = 0;
  let i = 0;
  for (const ch of s) {
    if (w === col) return i;
    if (w > col) return null;
    w += displayWidth(ch);
    i += ch.length;
  }
  return null;
}

/** The focused widget the footer names: " Sessions › Enter expand …" → "Sessions". */
export function footerFocus(lines: string[]): string | null {
  const m = /^ (.+?) › /.exec(lines[lines.length - 1] ?? '');
  return m ? m[1]! : null;
}

export function screenProblems(g: Grab): string[] {
  const p: string[] = [];
  g.lines.forEach((l, i) => {
    const w = displayWidth(l.replace(/\s+$/, ''));
    if (w > g.cols) p.push(`line ${i + 1} is ${w} columns wide on a ${g.cols}-column terminal`);
  });
  for (const r of g.wrapped) p.push(`line ${r + 1} wrapped into the next`);
  if (g.black.length) {
    const b = g.black[0]!;
    p.push(`${g.black.length} characters drawn black on the default background (first: "${b.ch}" at line ${b.row + 1}, column ${b.col + 1})`);
  }
  const open = boxes(g.lines);
  for (const b of open) if (b.bottom === null) p.push(`the "${b.label}" box has no bottom border on screen (cut off)`);
  const review = open.find((b) => REVIEW_TITLES.has(b.label));
  if (review) {
    const inside = g.lines.slice(review.top, (review.bottom ?? g.rows - 1) + 1).join('\n');
    if (!TOO_SMALL.test(inside)) {
      for (const [name, re] of REVIEW_REQUIRED) if (!re.test(inside)) p.push(`the review does not show its ${name}`);
      if (TYPE_TO_CLEAN.test(inside) && !/│ > /.test(inside)) p.push('the review does not show the confirmation line');
    }
  }
  const focus = footerFocus(g.lines);
  const dialog = open[open.length - 1];
  if (dialog && focus !== null && !dialog.label.startsWith(focus)) p.push(`the footer describes "${focus}" while the "${dialog.label}" dialog has the keys`);
  // The Sessions badge: " (34)" in English, "（34）" in Chinese.
  const tab = /^\s*\d (.+?)(?: \([\d,…]+\)|（[\d,…]+）)?\s*$/.exec(g.currentTab)?.[1];
  if (!dialog && focus !== null && tab && focus !== tab && !PANES.has(focus)) p.push(`the footer describes "${focus}" on the ${tab} tab`);
  if (!DECK_AGENT.test(g.lines[g.rows - 2] ?? '')) p.push('the deck\'s first line ("Agent …") is not on the second-to-last line');
  return p;
}

/** Reads `capture-pane -p -e -N` output (one row per line, SGR escapes inline). */
export function parseTmuxCapture(text: string, joined: string, cols: number, rows: number): Grab {
  const rowsText = text.replace(/\n$/, '').split('\n').slice(0, rows);
  const lines: string[] = [];
  const black: Grab['black'] = [];
  const sig: string[] = [];
  let fg = 'd';
  let bg = 'd';
  let inverse = false;
  let currentTab = '';
  rowsText.forEach((raw, row) => {
    let plain = '';
    let col = 0;
    const cells: string[] = [];
    for (let i = 0; i < raw.length; ) {
      if (raw[i] === '\x1b') {
        const m = /^\x1b\[([0-9;:]*)m/.exec(raw.slice(i));
        if (m) {
          const ps = m[1] === '' ? [0] : m[1]!.split(/[;:]/).map(Number);
          for (let k = 0; k < ps.length; k++) {
            const n = ps[k]!;
            if (n === 0) [fg, bg, inverse] = ['d', 'd', false];
            else if (n === 7) inverse = true;
            else if (n === 27) inverse = false;
            else if ((n >= 30 && n <= 37) || (n >= 90 && n <= 97)) fg = String(n);
            else if (n === 39) fg = 'd';
            else if ((n >= 40 && n <= 47) || (n >= 100 && n <= 107)) bg = String(n);
            else if (n === 49) bg = 'd';
            else if (n === 38 || n === 48) {
              const v = ps[k + 1] === 5 ? `5;${ps[k + 2]}` : `2;${ps[k + 2]};${ps[k + 3]};${ps[k + 4]}`;
              k += ps[k + 1] === 5 ? 2 : 4;
              if (n === 38) fg = v;
              else bg = v;
            }
          }
          i += m[0].length;
          continue;
        }
        const other = /^\x1b(?:\[[0-9;?]*[A-Za-z]|[()][0-9A-Za-z]|.)/.exec(raw.slice(i));
        i += other ? other[0].length : 1;
        continue;
      }
      const ch = String.fromCodePoint(raw.codePointAt(i)!);
      i += ch.length;
      const isBlack = fg === '30' || fg === '5;0' || fg === '5;16' || fg === '2;0;0;0';
      if (isBlack && bg === 'd' && !inverse && ch.trim() !== '') black.push({ row, col, ch });
      plain += ch;
      if (row === 0 && inverse) currentTab += ch;
      cells.push(`${fg}/${bg}${inverse ? '/i' : ''}:${ch}`);
      col += displayWidth(ch);
    }
    // A blank cell at the end of a row reads the same whether a space was written there or nothing.
    while (cells.length && /^d\/d: $/.test(cells[cells.length - 1]!)) cells.pop();
    lines.push(plain);
    sig.push(cells.join(''));
  });
  while (lines.length < rows) lines.push('');
  // capture-pane -J joins a wrapped row with the next: fewer rows than the terminal means a wrap.
  const joinedRows = joined.replace(/\n$/, '').split('\n');
  const wrapped: number[] = [];
  let r = 0;
  for (const j of joinedRows) {
    const w = displayWidth(j.replace(/\s+$/, ''));
    const span = Math.max(1, Math.ceil(w / cols));
    if (span > 1) wrapped.push(r);
    r += span;
  }
  return { cols, rows, lines, wrapped, black, signature: sig.join('\n'), currentTab };
}

/** Formats problems with the screen they were seen on. */
export function describe(problems: string[], g: Grab, where: string): string {
  return `screen invariants broken ${where}:\n  - ${problems.join('\n  - ')}\nscreen (${g.cols}×${g.rows}):\n${g.lines.join('\n')}`;
}
