// The one busy state of every long operation (a cleanup, a backup's verify,
// a restore's check and its writing, the backup key's unlock): a spinner and
// the seconds so far, what runs now in words, the counts and bytes when there
// are any, and the item under way. While it is open it has the keys: nothing
// typed reaches the screen behind it (a tab key, a second `v`, a passphrase
// typed ahead go nowhere). Esc cancels where that is safe (the operation
// writes nothing), asks to stop after the current step (a cleanup), or says
// why the operation runs to its end.

import blessed from 'blessed';
import { formatBytes } from '../engine/core/format.js';
import { t } from '../engine/i18n/index.js';
import { bar } from '../widgets/bars.js';
import type { KeyContext } from '../widgets/bindings.js';
import { wrapWords } from '../widgets/detail-pane.js';
import { SPIN_MS, SPINNER } from '../widgets/spinner.js';
import { fitTagged } from '../widgets/tagged.js';
import { braces, cell, type Theme } from '../widgets/theme.js';
import type { BusyState } from '../screens/screen.js';
import type { Modal } from './modal.js';

/**
 * What Esc does: `now` cancels at once (the operation writes nothing, its
 * late answer is dropped); `ask` asks first and `y` stops after the current
 * step (a cleanup); `never`: the operation runs to its end, `why` says so.
 */
export type BusyCancel = { kind: 'now'; run(): void } | { kind: 'ask'; run(): void } | { kind: 'never'; why: string };

const HINT_LINES = 2;
/** The phase, the bar, the bytes, the item, the hint, and the border: the box never changes size. */
const BOX_HEIGHT = 4 + HINT_LINES + 2;

export class BusyModal implements Modal {
  readonly box: blessed.Widgets.BoxElement;
  readonly closed = false;
  private state: BusyState;
  private note = '';
  private asking = false;
  private readonly started = Date.now();
  private readonly timer: NodeJS.Timeout;
  private context: KeyContext | null = null;

  constructor(
    private readonly screen: blessed.Widgets.Screen,
    private readonly theme: Theme,
    readonly title: string,
    first: BusyState,
    private readonly cancel: BusyCancel,
  ) {
    this.state = first;
    this.box = blessed.box({
      parent: screen,
      top: 'center',
      left: 'center',
      height: BOX_HEIGHT,
      tags: true,
      border: { type: 'line' },
      label: ` ${title} `,
      wrap: false,
    });
    // The spinner and the seconds move even while the operation has nothing new to say (scrypt, a rescan).
    this.timer = setInterval(() => screen.emit('cleanerx:repaint'), SPIN_MS);
    this.timer.unref();
  }

  update(s: BusyState): void {
    this.state = s;
  }

  /** Why Ctrl-C does not quit now, or undefined (an operation that writes nothing may be left). */
  quitBlocked(): string | undefined {
    if (this.cancel.kind === 'now') return undefined;
    return this.cancel.kind === 'ask' ? t('app.quitBlocked') : this.cancel.why;
  }

  paint(): void {
    const th = this.theme;
    const sw = (this.screen.width as number) || 80;
    const sh = (this.screen.height as number) || 24;
    const W = Math.min(80, Math.max(30, sw - 4));
    this.box.width = W;
    this.box.top = Math.max(1, Math.floor((sh - 2 - BOX_HEIGHT) / 2));
    const inner = W - 4;
    const s = this.state;
    const elapsed = Math.floor((Date.now() - this.started) / 1000);
    const spin = SPINNER[Math.floor((Date.now() - this.started) / SPIN_MS) % SPINNER.length]!;
    const total = s.total ?? 0;
    const bytesTotal = s.bytesTotal ?? 0;
    const counts = total > 0 ? `${s.done ?? 0}/${total}` : '';
    // The bar follows the counts, or the bytes when there is nothing to count.
    const [value, max] = total > 0 ? [s.done ?? 0, total] : [s.bytesDone ?? 0, bytesTotal];
    const barLine = max > 0 ? `${th.accent(bar(value, max, Math.max(4, inner - counts.length - 2)))}${counts ? ` ${counts}` : ''}` : '';
    const bytesLine = bytesTotal > 0 ? t('pg.bytes', { done: formatBytes(s.bytesDone ?? 0), total: formatBytes(bytesTotal) }) : '';
    // The hint is a sentence: two lines of it, whole at 80 columns in either language.
    const hint = wrapWords(this.note || this.hint(), inner).slice(0, HINT_LINES);
    while (hint.length < HINT_LINES) hint.push('');
    this.box.setContent(
      [
        `${th.accent(spin)} ${th.bold(braces(s.phase))} ${th.dim(`· ${t('busy.elapsed', { s: elapsed })}`)}`,
        barLine,
        bytesLine,
        s.current ? cell(s.current, inner) : '',
        ...hint.map((l) => th.dim(braces(l))),
      ]
        .map((l) => fitTagged(` ${l}`, W - 2))
        .join('\n'),
    );
    this.box.setFront();
  }

  private hint(): string {
    if (this.cancel.kind === 'now') return t('busy.hint.cancel');
    if (this.cancel.kind === 'ask') return t('pg.journal');
    return t('busy.hint.never');
  }

  /** Every key goes here while the operation runs; only Esc (and y after the question) does anything. */
  keyContext(): KeyContext {
    const c = this.cancel;
    const bindings: KeyContext['bindings'] =
      c.kind === 'now'
        ? [{ keys: ['escape'], does: t('busy.key.cancel'), footer: t('busy.footer.cancel'), run: () => c.run() }]
        : c.kind === 'ask'
          ? [
              { keys: ['escape', 'q', 'C-c'], label: 'Esc q Ctrl-C', does: t('pg.key.ask'), footer: t('pg.footer.stop'), run: () => this.ask() },
              { keys: ['y'], does: t('pg.key.stop'), run: () => this.answer(true) },
            ]
          : [{ keys: ['escape'], does: t('busy.key.wait'), disabled: () => c.why, run: () => undefined }];
    this.context ??= {
      title: this.title,
      modal: true,
      bindings,
      text: {
        does: c.kind === 'ask' ? t('pg.key.other') : t('busy.key.other'),
        run: () => (c.kind === 'ask' ? this.answer(false) : undefined),
      },
    };
    return this.context;
  }

  private ask(): void {
    if (this.asking) return this.answer(false);
    this.asking = true;
    this.note = t('pg.ask');
  }

  private answer(stop: boolean): void {
    if (!this.asking || this.cancel.kind !== 'ask') return;
    this.asking = false;
    if (stop) {
      this.cancel.run();
      this.note = t('pg.stopping');
    } else this.note = t('pg.continuing');
  }

  destroy(): void {
    clearInterval(this.timer);
    this.box.destroy();
  }
}
