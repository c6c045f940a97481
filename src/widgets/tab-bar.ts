// The top tab bar: number keys 1–6 switch; the current tab is inverse.

import blessed from 'blessed';
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
    this.box.setContent(`${parts.join('')}{|}${right} `);
  }
}
