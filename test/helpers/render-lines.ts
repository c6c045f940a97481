// Reading what a screen's pure render drew, without a terminal: the text a
// tagged line shows, and its width on screen.

import { expect } from 'vitest';
import { TAG, taggedWidth } from '../../src/widgets/tagged.js';
import { makeTheme } from '../../src/widgets/theme.js';

/** The colour theme (tags on) and the NO_COLOR one (bold and inverse only). */
export const colour = makeTheme({});
export const plainTheme = makeTheme({ NO_COLOR: '1' });

/** The text a tagged line shows: tags dropped, {open} and {close} back to braces. */
export function shown(line: string): string {
  return line.replace(TAG, (t) => (t === '{open}' ? '{' : t === '{close}' ? '}' : ''));
}

/** Every line fits `width` columns on screen and carries no control character (an agent's escape sequence never reaches the terminal). */
export function expectDrawable(lines: readonly string[], width: number): void {
  for (const l of lines) {
    expect(taggedWidth(l), JSON.stringify(shown(l))).toBeLessThanOrEqual(width);
    expect(l).not.toMatch(/[\x00-\x1f\x7f-\x9f]/);
  }
}
