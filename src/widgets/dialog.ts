// A centred modal box: a title, lines of text, and the keys that close it.
// While open it takes the keyboard (the app routes keys to it first). Its
// sentences are word-wrapped to the box (CJK by display width, continuation
// lines under the line's own indent), never cut, and the text scrolls inside
// the box, so a long help is never cut off at the bottom of a small terminal.

import blessed from 'blessed';
import { t } from '../engine/i18n/index.js';
import { displayWidth } from '../engine/core/text.js';
import { fitTagged, taggedWidth } from './tagged.js';
import { wrapTagged } from './wrap.js';
import type { Theme } from './theme.js';

export class Dialog {
  readonly box: blessed.Widgets.BoxElement;
  private offset = 0;

  constructor(
    private parent: blessed.Widgets.Screen,
    private theme: Theme,
    readonly title: string,
    private lines: string[],
    private footer: string,
  ) {
    this.box = blessed.box({
      parent,
      top: 1,
      left: 'center',
      tags: true,
      wrap: false,
      border: { type: 'line' },
      label: ` ${this.theme.bold(title)} `,
      style: { border: { fg: theme.color ? 'cyan' : undefined } },
    });
    this.layout();
  }

  /** Lines of text the box shows at once. */
  page(): number {
    return Math.max(1, (this.box.height as number) - 3);
  }

  scroll(n: number): void {
    this.offset += n;
    this.layout();
  }

  /** Sizes the box to the terminal (also after a resize) and fills it. */
  layout(): void {
    const sw = (this.parent.width as number) || 80;
    const sh = (this.parent.height as number) || 24;
    const widest = this.lines.reduce((w, l) => Math.max(w, taggedWidth(l)), 0);
    const width = Math.max(10, Math.min(Math.max(40, widest + 4, displayWidth(this.title) + 6), sw - 2));
    const inner = width - 2;
    // One column of margin on the right, as the unwrapped lines have.
    const lines = this.lines.flatMap((l) => (taggedWidth(l) <= inner - 1 ? [l] : wrapTagged(l, inner - 1)));
    // The tab bar and the deck (its footer names this dialog's keys) stay visible around it.
    const height = Math.max(4, Math.min(lines.length + 4, sh - 3));
    this.box.width = width;
    this.box.height = height;
    this.box.top = Math.max(1, Math.floor((sh - 2 - height) / 2));
    const room = height - 3;
    const max = Math.max(0, lines.length - room);
    this.offset = Math.max(0, Math.min(this.offset, max));
    const shown = lines.slice(this.offset, this.offset + room);
    const more = max > 0 ? t('dialog.position', { from: this.offset + 1, to: this.offset + shown.length, total: lines.length }) : '';
    const foot = this.theme.dim(fitTagged(`${this.footer}${more}`, inner));
    this.box.setContent([...shown.map((l) => fitTagged(l, inner)), ...Array(room - shown.length).fill(''), foot].join('\n'));
  }

  destroy(): void {
    this.box.destroy();
  }
}
