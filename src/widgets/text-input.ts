// A one-line editor that takes over the keyboard while open: printable
// characters insert, Backspace deletes, Ctrl-U clears, Enter submits, Esc
// cancels. It draws itself into whatever line the owner gives it.

import { braces } from './theme.js';
import { fitWidth } from '../engine/text.js';

export interface TextInputOptions {
  label: string;
  value?: string;
  maxLength?: number;
  /** Show • for each character (passphrases). */
  mask?: boolean;
  onChange?(value: string): void;
  onSubmit(value: string): void;
  onCancel(): void;
}

export interface KeyEvent {
  name?: string;
  full?: string;
  ctrl?: boolean;
  meta?: boolean;
  shift?: boolean;
}

export class TextInput {
  value: string;

  constructor(readonly opts: TextInputOptions) {
    this.value = opts.value ?? '';
  }

  /** Returns true when the key was consumed (always, while open). */
  handle(ch: string | undefined, key: KeyEvent): boolean {
    const name = key.name;
    if (name === 'enter') {
      this.opts.onSubmit(this.value);
    } else if (name === 'escape') {
      this.opts.onCancel();
    } else if (name === 'backspace') {
      this.set(Array.from(this.value).slice(0, -1).join(''));
    } else if (key.ctrl && name === 'u') {
      this.set('');
    } else if (ch && !key.ctrl && !key.meta && ch >= ' ' && ch !== '\x7f') {
      const max = this.opts.maxLength ?? 512;
      if (Array.from(this.value).length < max) this.set(this.value + ch);
    }
    return true;
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
