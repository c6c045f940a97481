// Colours as blessed tags, with NO_COLOR honoured (inverse and bold only)
// and only the 8 basic colours used, so an old terminal looks the same.
// Secondary text keeps the terminal's own foreground: blessed has no faint
// attribute, and every grey it offers reduces to black (SGR 30) under the
// 8-colour terminfo of tmux-256color, screen-256color, xterm and the Linux
// console, or to bright black (90), which some dark themes draw as the
// background. Every agent-supplied string reaches a tag string through `esc`.

import { cleanText, padWidth } from '../engine/core/text.js';

export interface Theme {
  color: boolean;
  dim(s: string): string;
  bold(s: string): string;
  accent(s: string): string;
  warn(s: string): string;
  danger(s: string): string;
  ok(s: string): string;
  inverse(s: string): string;
  cursor(s: string): string;
}

export function makeTheme(env: Readonly<Record<string, string | undefined>>): Theme {
  const color = !env.NO_COLOR;
  const wrap = (tag: string) => (s: string) => (s ? `{${tag}}${s}{/${tag}}` : s);
  const plain = (s: string) => s;
  return {
    color,
    dim: plain,
    bold: wrap('bold'),
    accent: color ? wrap('cyan-fg') : wrap('bold'),
    warn: color ? wrap('yellow-fg') : plain,
    danger: color ? wrap('red-fg') : wrap('bold'),
    ok: color ? wrap('green-fg') : plain,
    inverse: wrap('inverse'),
    // Inverse, not black on cyan: tmux redraws that as a bare SGR 30, which vanishes where cyan is not drawn.
    cursor: wrap('inverse'),
  };
}

/** Makes already-laid-out text inert for blessed's tag parser. */
export function braces(s: string): string {
  return s.replace(/[{}]/g, (c) => (c === '{' ? '{open}' : '{close}'));
}

/** Agent text: control characters and escapes stripped, braces made inert. */
export function esc(s: string): string {
  return braces(cleanText(s, 8192));
}

/** Agent text fitted to exactly `width` columns, then made inert. */
export function cell(s: string, width: number, align: 'left' | 'right' = 'left'): string {
  return braces(padWidth(cleanText(s, 4096), width, align));
}
