// blessed measures and places characters with its own Unicode tables of
// 2013 (lib/unicode.js): 🚀 counts one column, so every cell after it is
// drawn one column left of where the terminal puts it (stale cells, "11d"
// read as "111d"); and its line fitting counts UTF-16 units, so a line with
// a surrogate pair or a combining mark is cut or wrapped early. This module
// makes blessed use the engine's width (engine/text.ts: string-width per
// code point of the display form) everywhere it measures, and passes all
// content through the display form first, so blessed, our layout and the
// terminal agree. Installed once, before the first screen.

import blessed from 'blessed';
import { charWidth, displayForm } from '../engine/core/text.js';

interface BlessedUnicode {
  charWidth(str: string | number, i?: number): number;
  strWidth(str: string): number;
  codePointAt(str: string, i: number): number;
  combining: Record<number, boolean>;
  chars: { all: unknown };
}

type Lines = string[] & { rtof: number[]; ftor: number[][]; fake: string[]; real: string[]; mwidth: number };

interface ElementLike {
  content: string;
  parseTags: boolean;
  align: string | null;
  wrap: boolean;
  shrink: boolean;
  scrollbar: unknown;
  type: string;
  screen: { tabc: string };
}

interface ElementProto {
  setContent(this: ElementLike, content: string, noClear?: boolean, noTags?: boolean): void;
  _wrapContent(this: ElementLike, content: string, width: number): Lines;
}

let installed = false;

// SGR sequences blessed made from our tags; they take no column.
// eslint-disable-next-line no-control-regex
const SGR = /^\x1b\[[\d;]*m/;
// Content whose UTF-16 length is its width (blessed's own fitting is right for it).
const UNIT_PER_COLUMN = /^[^\u{10000}-\u{10ffff}\ud800-\udfff\p{M}\u1160-\u11ff\ud7b0-\ud7ff]*$/u;

/** A code point that joins the cell before it (a combining mark), as blessed's render merges them. */
function joinsPrevious(cp: number): boolean {
  return cp >= 0xa0 && charWidth(cp) === 0;
}

function cpAt(s: string, i: number): number {
  return s.codePointAt(i)!;
}

/** Columns of a line of blessed's internal content (SGR codes, `\x03` after each wide character). */
function columns(line: string): number {
  let w = 0;
  for (let i = 0; i < line.length; ) {
    if (line.charCodeAt(i) === 0x1b) {
      const m = SGR.exec(line.slice(i));
      if (m) {
        i += m[0].length;
        continue;
      }
    }
    const cp = cpAt(line, i);
    i += cp > 0xffff ? 2 : 1;
    if (!joinsPrevious(cp)) w++; // a wide character's second column is its \x03
  }
  return w;
}

/** The unit index at which `line` reaches `width` columns, never splitting a character from its marks or placeholder. */
function cutIndex(line: string, width: number): number {
  let w = 0;
  let i = 0;
  while (i < line.length) {
    if (line.charCodeAt(i) === 0x1b) {
      const m = SGR.exec(line.slice(i));
      if (m) {
        i += m[0].length;
        continue;
      }
    }
    const cp = cpAt(line, i);
    const len = cp > 0xffff ? 2 : 1;
    if (joinsPrevious(cp)) {
      i += len;
      continue;
    }
    const wide = line.charCodeAt(i + len) === 0x03 && charWidth(cp) === 2;
    const cw = wide ? 2 : 1;
    if (w + cw > width) break;
    w += cw;
    i += len + (wide ? 1 : 0);
  }
  // Marks that belong to the last character stay with it.
  while (i < line.length && joinsPrevious(cpAt(line, i))) i += cpAt(line, i) > 0xffff ? 2 : 1;
  return i;
}

function alignLine(el: ElementLike, line: string, width: number, align: string | null): string {
  if (!align) return line;
  // eslint-disable-next-line no-control-regex
  const cline = line.replace(/\x1b\[[\d;]*m/g, '');
  const len = columns(cline);
  let s = el.shrink ? 0 : width - len;
  if (len === 0 || s < 0) return line;
  if (align === 'center') {
    const pad = ' '.repeat((s / 2) | 0);
    return pad + line + pad;
  }
  if (align === 'right') return ' '.repeat(s) + line;
  if (el.parseTags && line.includes('{|}')) {
    const parts = line.split('{|}');
    const cparts = cline.split('{|}');
    s = Math.max(width - columns(cparts[0]!) - columns(cparts[1] ?? ''), 0);
    return parts[0]! + ' '.repeat(s) + (parts[1] ?? '');
  }
  return line;
}

/** blessed's _wrapContent with widths in columns instead of UTF-16 units. */
function wrapByColumns(el: ElementLike, content: string, width: number): Lines {
  const out = [] as unknown as Lines;
  const rtof: number[] = [];
  const ftor: number[][] = [];
  const lines = content.split('\n');
  let margin = 0;
  if (el.scrollbar) margin++;
  if (el.type === 'textarea') margin++;
  if (width > margin) width -= margin;
  let state = el.align;
  main: for (let no = 0; no < lines.length; no++) {
    let line = lines[no]!;
    let align = state;
    ftor.push([]);
    if (el.parseTags) {
      let cap = /^{(left|center|right)}/.exec(line);
      if (cap) {
        line = line.substring(cap[0].length);
        align = state = cap[1] !== 'left' ? cap[1]! : null;
      }
      cap = /{\/(left|center|right)}$/.exec(line);
      if (cap) {
        line = line.slice(0, -cap[0].length);
        state = el.align;
      }
    }
    const push = (part: string): void => {
      out.push(alignLine(el, part, width, align));
      ftor[no]!.push(out.length - 1);
      rtof.push(no);
    };
    while (columns(line) > width) {
      let cut = Math.max(1, cutIndex(line, width));
      if (!el.wrap) {
        // eslint-disable-next-line no-control-regex
        const rest = (line.substring(cut).match(/\x1b\[[^m]*m/g) ?? []).join('');
        push(line.substring(0, cut) + rest);
        continue main;
      }
      for (let j = cut - 1; j > cut - 10 && j > 0; j--) {
        if (line[j] === ' ') {
          cut = j + 1;
          break;
        }
      }
      push(line.substring(0, cut));
      line = line.substring(cut);
      if (line === '') continue main;
      // eslint-disable-next-line no-control-regex
      if (/^(?:\x1b[[\d;]*m)+$/.test(line)) {
        out[out.length - 1] += line;
        continue main;
      }
    }
    push(line);
  }
  out.rtof = rtof;
  out.ftor = ftor;
  out.fake = lines;
  out.real = out;
  out.mwidth = out.reduce((m, l) => Math.max(m, columns(l)), 0);
  return out;
}

/** Replaces blessed's measuring with the engine's (idempotent). */
export function installTerminalWidths(): void {
  if (installed) return;
  installed = true;
  const b = blessed as unknown as { unicode: BlessedUnicode; Element: { prototype: ElementProto } };
  const u = b.unicode;
  const width = (str: string | number, i = 0): number => {
    const cp = typeof str === 'number' ? str : u.codePointAt(str, i);
    if (cp === 0x09) return 8;
    return charWidth(cp);
  };
  u.charWidth = width;
  u.strWidth = (str: string): number => {
    let w = 0;
    for (const ch of str) w += width(ch.codePointAt(0)!);
    return w;
  };
  // Read by render (merge into the cell before) and by isCombining.
  u.combining = new Proxy({} as Record<number, boolean>, {
    get: (_t, p) => (typeof p === 'string' && joinsPrevious(Number(p)) ? true : undefined),
  });
  // parseContent puts a placeholder cell after every wide character: `content.replace(chars.all, '$1\x03')`.
  u.chars.all = {
    [Symbol.replace](s: string, replacement: string): string {
      let out = '';
      for (const ch of s) out += charWidth(ch.codePointAt(0)!) === 2 ? replacement.replace('$1', ch) : ch;
      return out;
    },
  };
  const proto = b.Element.prototype;
  const setContent = proto.setContent;
  proto.setContent = function (content, noClear, noTags) {
    setContent.call(this, displayForm(content || ''), noClear, noTags);
  };
  const wrap = proto._wrapContent;
  proto._wrapContent = function (content, width) {
    return UNIT_PER_COLUMN.test(content) ? wrap.call(this, content, width) : wrapByColumns(this, content, width);
  };
}

installTerminalWidths();
