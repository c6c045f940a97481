// A centred modal box: a title, lines of text, and the keys that close it.
// While open it takes the keyboard (the app routes keys to it first).

import blessed from 'blessed';
import { displayWidth } from '../engine/text.js';
import type { Theme } from './theme.js';

export class Dialog {
  readonly box: blessed.Widgets.BoxElement;

  constructor(parent: blessed.Widgets.Screen, private theme: Theme, title: string, lines: string[], footer: string) {
    const visible = (l: string): number => displayWidth(l.replace(/\{\/?[a-z-]+\}/g, ''));
    const width = Math.min(Math.max(40, ...lines.map((l) => visible(l) + 4), title.length + 6), Math.max(30, (parent.width as number) - 4));
    const height = Math.min(lines.length + 4, Math.max(6, (parent.height as number) - 2));
    this.box = blessed.box({
      parent,
      top: 'center',
      left: 'center',
      width,
      height,
      tags: true,
      border: { type: 'line' },
      label: ` ${this.theme.bold(title)} `,
      scrollable: true,
      content: [...lines, '', this.theme.dim(footer)].join('\n'),
      style: { border: { fg: theme.color ? 'cyan' : undefined } },
    });
  }

  scroll(n: number): void {
    this.box.scroll(n);
  }

  destroy(): void {
    this.box.destroy();
  }
}
