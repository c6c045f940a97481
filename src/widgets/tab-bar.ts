// The top tab bar: one cell per screen, its digit key and its label; the current tab is inverse.

import blessed from 'blessed';
import { displayWidth, fitWidth } from '../engine/core/text.js';
import type { Theme } from './theme.js';

/** One tab: the digit that switches to it, its label, and the shorter form it takes when the labels do not fit. */
export interface TabEntry {
  key: string;
  label: string;
  short: string;
}

export class TabBar {
  readonly box: blessed.Widgets.BoxElement;

  constructor(
    parent: blessed.Widgets.Node,
    private theme: Theme,
  ) {
    this.box = blessed.box({ parent, top: 0, left: 0, width: '100%', height: 1, tags: true, wrap: false }); // fitTabs lets the last cell's closing pad fall off the edge: cut, never wrapped
  }

  paint(entries: readonly TabEntry[], current: number, right: string): void {
    const width = (this.box.width as number) || 80;
    const tabs = fitTabEntries(entries, current, width);
    const parts = tabs.map((t, i) => {
      const label = ` ${entries[i]!.key} ${t} `;
      return i === current ? this.theme.inverse(this.theme.bold(label)) : label;
    });
    // The right side's badges are whole words or nothing ("read-onl" read as a typo): the first ones go first.
    // Padded by hand, not with blessed's {|}: with a column or two to spare, {|} drew a stray "{" after the last tab.
    const used = Math.min(width, cellsWidth(tabs));
    const words = right ? right.split(' ') : [];
    const plain = (x: string): number => displayWidth(x.replace(/\{[^{}]*\}/g, ''));
    while (words.length && used + 3 + words.reduce((w, x) => w + plain(x) + 1, 0) > width) words.shift();
    const rightText = words.length ? `${words.join(' ')} ` : '';
    const gap = Math.max(0, width - used - plain(rightText));
    this.box.setContent(`${parts.join('')}${rightText ? ' '.repeat(gap) + rightText : ''}`);
  }
}

/**
 * The labels that fit `width`: whole when they all fit, else short forms in
 * place of the whole labels (the largest saving first) until they do, and
 * only then cut by display width (a Chinese character takes two columns).
 */
export function fitTabEntries(entries: readonly TabEntry[], current: number, width: number): string[] {
  const out = entries.map((e) => e.label);
  const saving = (i: number): number => displayWidth(out[i]!) - displayWidth(entries[i]!.short);
  while (cellsWidth(out) > width + 1) {
    let best = -1;
    for (let i = 0; i < out.length; i++) if (saving(i) > 0 && (best < 0 || saving(i) > saving(best))) best = i;
    if (best < 0) break;
    out[best] = entries[best]!.short;
  }
  return fitTabs(out, current, width);
}

/** The width of the ` n name ` cells (tab n has digit n: the app derives them in order). */
const cellsWidth = (names: readonly string[]): number => names.reduce((w, t, i) => w + displayWidth(` ${i + 1} ${t} `), 0);

/** The tab names cut (widest first, the current one kept longest) until the ` n name ` cells fit `width`. */
export function fitTabs(names: readonly string[], current: number, width: number): string[] {
  const out = [...names];
  // The last cell's closing pad may fall off the edge (it always could): a name is cut only when its text would.
  while (cellsWidth(out) > width + 1) {
    let widest = -1;
    for (let i = 0; i < out.length; i++) {
      const w = displayWidth(out[i]!);
      if (w <= 1) continue;
      if (widest < 0 || w > displayWidth(out[widest]!) || (widest === current && w === displayWidth(out[widest]!))) widest = i;
    }
    if (widest < 0) break;
    out[widest] = fitWidth(out[widest]!, displayWidth(out[widest]!) - 1);
  }
  return out;
}
