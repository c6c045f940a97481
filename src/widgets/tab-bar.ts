// The top tab bar: number keys 1–6 switch; the current tab is inverse.

import blessed from 'blessed';
import { displayWidth } from '../engine/core/text.js';
import type { Theme } from './theme.js';

export class TabBar {
  readonly box: blessed.Widgets.BoxElement;

  constructor(parent: blessed.Widgets.Node, private theme: Theme) {
    this.box = blessed.box({ parent, top: 0, left: 0, width: '100%', height: 1, tags: true });
  }

  paint(tabs: string[], current: number, right: string): void {
    const parts = tabs.map((t, i) => {
      const label = ` ${i + 1} ${t} `;
      return i === current ? this.theme.inverse(this.theme.bold(label)) : label;
    });
    // The right side's badges are whole words or nothing ("read-onl" read as a typo): the first ones go first.
    // blessed's {|} keeps at least 3 columns before the right side and cuts that side's end when short of room.
    const width = (this.box.width as number) || 80;
    const used = tabs.reduce((w, t, i) => w + displayWidth(` ${i + 1} ${t} `), 0);
    const words = right ? right.split(' ') : [];
    const plain = (x: string): number => displayWidth(x.replace(/\{[^{}]*\}/g, ''));
    while (words.length && used + 3 + words.reduce((w, x) => w + plain(x) + 1, 0) > width) words.shift();
    this.box.setContent(`${parts.join('')}{|}${words.join(' ')} `);
  }
}
