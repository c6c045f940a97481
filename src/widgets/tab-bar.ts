// The top tab bar: number keys 1–6 switch; the current tab is inverse.

import blessed from 'blessed';
import { displayWidth, fitWidth } from '../engine/core/text.js';
import type { Theme } from './theme.js';

export class TabBar {
  readonly box: blessed.Widgets.BoxElement;

  constructor(
    parent: blessed.Widgets.Node,
    private theme: Theme,
  ) {
    this.box = blessed.box({ parent, top: 0, left: 0, width: '100%', height: 1, tags: true, wrap: false }); // fitTabs lets the last cell's closing pad fall off the edge: cut, never wrapped
  }

  paint(names: string[], current: number, right: string): void {
    const width = (this.box.width as number) || 80;
    // Labels are cut by display width when all of them cannot fit (a Chinese character takes two columns); the current one last.
    const tabs = fitTabs(names, current, width);
    const parts = tabs.map((t, i) => {
      const label = ` ${i + 1} ${t} `;
      return i === current ? this.theme.inverse(this.theme.bold(label)) : label;
    });
    // The right side's badges are whole words or nothing ("read-onl" read as a typo): the first ones go first.
    // Padded by hand, not with blessed's {|}: with a column or two to spare, {|} drew a stray "{" after the last tab.
    const used = Math.min(
      width,
      tabs.reduce((w, t, i) => w + displayWidth(` ${i + 1} ${t} `), 0),
    );
    const words = right ? right.split(' ') : [];
    const plain = (x: string): number => displayWidth(x.replace(/\{[^{}]*\}/g, ''));
    while (words.length && used + 3 + words.reduce((w, x) => w + plain(x) + 1, 0) > width) words.shift();
    const rightText = words.length ? `${words.join(' ')} ` : '';
    const gap = Math.max(0, width - used - plain(rightText));
    this.box.setContent(`${parts.join('')}${rightText ? ' '.repeat(gap) + rightText : ''}`);
  }
}

/** The tab names cut (widest first, the current one kept longest) until the ` n name ` cells fit `width`. */
export function fitTabs(names: readonly string[], current: number, width: number): string[] {
  const out = [...names];
  const total = (): number => out.reduce((w, t, i) => w + displayWidth(` ${i + 1} ${t} `), 0);
  // The last cell's closing pad may fall off the edge (it always could): a name is cut only when its text would.
  while (total() > width + 1) {
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
