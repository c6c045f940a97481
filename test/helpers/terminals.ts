// The terminals a journey runs in: real tmux with the terminal types tmux and
// screen users have, and a headless xterm; at the sizes people use. One
// journey script runs across the whole matrix; the screen invariants are
// checked after each of its steps by the driver.

import { PtyScreen, type ScreenDriver } from './pty-screen.js';
import { TmuxScreen } from './tmux-screen.js';

export interface TerminalKind {
  kind: 'tmux' | 'headless';
  term: string;
}

export const TERMINALS: TerminalKind[] = [
  { kind: 'tmux', term: 'tmux-256color' },
  { kind: 'tmux', term: 'screen-256color' },
  { kind: 'tmux', term: 'xterm' },
  { kind: 'tmux', term: 'xterm-256color' },
  { kind: 'headless', term: 'xterm-256color' },
];

export const SIZES: [number, number][] = [
  [80, 24],
  [100, 30],
  [160, 45],
];

export interface Config {
  name: string;
  terminal: TerminalKind;
  cols: number;
  rows: number;
}

/** Every terminal at every size. */
export function fullMatrix(): Config[] {
  return TERMINALS.flatMap((terminal) =>
    SIZES.map(([cols, rows]) => ({ name: `${terminal.kind} ${terminal.term} ${cols}×${rows}`, terminal, cols, rows })),
  );
}

export function openScreen(c: Config, args: string[], env: Record<string, string>): ScreenDriver {
  return c.terminal.kind === 'tmux' ? new TmuxScreen(args, env, c.cols, c.rows, c.terminal.term) : new PtyScreen(args, env, c.cols, c.rows, c.terminal.term);
}

export const TMUX_80x24: Config = { name: 'tmux tmux-256color 80×24', terminal: TERMINALS[0]!, cols: 80, rows: 24 };
export const HEADLESS_100x30: Config = { name: 'headless xterm-256color 100×30', terminal: TERMINALS[4]!, cols: 100, rows: 30 };
