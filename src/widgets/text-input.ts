// A one-line editor that takes over the keyboard while open: printable
// characters insert, Backspace deletes, Ctrl-U clears, Enter submits, Esc
// cancels. It draws itself into whatever line the owner gives it.

import { dispatch, type KeyContext, type KeyEvent } from './bindings.js';
import { braces } from './theme.js';
import { fitWidth } from '../engine/core/text.js';
import { t } from '../engine/i18n/index.js';

export interface TextInputOptions {
  label: string;
  value?: string;
  /** 0: a line that only waits for Enter or Esc (typed characters go nowhere). */
  maxLength?: number;
  /** Show • for each character (passphrases). */
  mask?: boolean;
  /** Shown in a box above while the input is open: why a prompt asks again. */
  note?: { title: string; text: string; footer?: string };
  onChange?(value: string): void;
  onSubmit(value: string): void;
  onCancel(): void;
}

// The key event lives with the bindings (which read it); re-exported for the app's imports.
export type { KeyEvent };

export class TextInput {
  value: string;

  constructor(readonly opts: TextInputOptions) {
    this.value = opts.value ?? '';
  }

  /** Returns true when the key was consumed (always, while open). */
  handle(ch: string | undefined, key: KeyEvent): boolean {
    dispatch([this.keyContext()], ch, key);
    return true;
  }

  private context: KeyContext | null = null;

  /** The same keys as handle(), as a table for the footer and help. */
  keyContext(): KeyContext {
    this.context ??= {
      title: this.opts.label.replace(/[:：]$/, ''),
      modal: true,
      bindings: [
        { keys: ['enter'], does: t('key.submit'), footer: t('footer.submit'), run: () => this.opts.onSubmit(this.value) },
        { keys: ['escape'], does: t('key.cancel'), footer: t('footer.cancel'), run: () => this.opts.onCancel() },
        { keys: ['backspace'], does: t('key.deleteLast'), run: () => this.set(Array.from(this.value).slice(0, -1).join('')) },
        { keys: ['C-u'], does: t('key.clear'), run: () => this.set('') },
        { keys: ['space'], does: t('key.typeSpace'), run: () => this.insert(' ') },
      ],
      text: { does: t(this.opts.mask ? 'key.typeMasked' : 'key.type'), run: (ch) => this.insert(ch) },
    };
    return this.context;
  }

  private insert(ch: string): void {
    const max = this.opts.maxLength ?? 512;
    if (Array.from(this.value).length < max) this.set(this.value + ch);
  }

  private set(v: string): void {
    this.value = v;
    this.opts.onChange?.(v);
  }

  render(width: number): string {
    const label = `${this.opts.label} `;
    const room = Math.max(1, width - label.length - 2);
    const shown = this.opts.mask ? Array.from('•'.repeat(Array.from(this.value).length)) : Array.from(this.value);
    const tail = fitWidth(shown.slice(Math.max(0, shown.length - room)).join(''), room);
    return `{bold}${braces(label)}{/bold}${braces(tail)}{inverse} {/inverse}`;
  }
}
