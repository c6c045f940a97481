// The demo as a tmux user meets it (80×24, TERM=tmux-256color), one fresh
// temp home per test: the lifecycle every demo journey under tmux shares.

import { afterEach, beforeEach } from 'vitest';
import { openTmux, type TmuxScreen } from './app-screen.js';
import { makeTempEnv, type TempEnv } from './temp-env.js';

export interface TmuxDemo {
  /** Starts `cleanerx --demo …args` in tmux; disposed after the test. */
  open(args?: string[]): TmuxScreen;
  readonly temp: TempEnv;
}

export function useTmuxDemo(): TmuxDemo {
  let t: TempEnv | undefined;
  let s: TmuxScreen | undefined;
  beforeEach(() => {
    t = makeTempEnv();
  });
  afterEach(() => {
    s?.dispose();
    s = undefined;
    t?.cleanup();
  });
  return {
    open(args: string[] = []): TmuxScreen {
      const temp = t!;
      s = openTmux({ args: ['--demo', ...args], env: { ...temp.env, TMPDIR: temp.root }, cols: 80, rows: 24, term: 'tmux-256color' });
      return s;
    },
    get temp(): TempEnv {
      return t!;
    },
  };
}
