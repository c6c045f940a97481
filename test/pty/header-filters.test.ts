// The header says the filters and the sort of the agent on screen (#28.3),
// whole, at 80 columns: with every filter on (sort, age, state, typed text)
// the view's name and then the size give way, never a filter.

import { afterEach, beforeEach, expect, it } from 'vitest';
import { KEYS, openTmux, type TmuxScreen } from '../helpers/app-screen.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { budget } from '../helpers/budget.js';

let t: TempEnv;
let s: TmuxScreen;

beforeEach(() => {
  t = makeTempEnv();
});

afterEach(() => {
  s?.dispose();
  t.cleanup();
});

const header = (): string => s.text().split('\n')[1] ?? '';

it(
  '80×24 in tmux: sort, age, state and typed filter all in the header, none cut',
  async () => {
    s = openTmux({ args: ['--demo'], env: { ...t.env, TMPDIR: t.root }, cols: 80, rows: 24, term: 'tmux-256color' });
    await s.waitFor(/Agent \[pi/, 40_000);
    s.press('2');
    await s.waitFor(/newest first · any time/, 20_000);
    await s.waitForNot(/Scanning…/, 40_000);
    s.press('s');
    await s.waitFor(/largest first/);
    s.press('S');
    await s.waitFor(/smallest first/);
    s.press('f', 'f', 'f', 'f');
    await s.waitFor(/older than 90 d/);
    s.press('v');
    await s.waitSettled();
    s.press('/');
    s.type('auth');
    s.press(KEYS.enter);
    await s.waitFor(/“auth”/);
    await s.waitSettled();
    const h = header();
    expect(h, s.text()).toMatch(/^smallest first · older than 90 d · (archived|current) only · “auth”\s+[\d,]+ of [\d,]+ sessions$/);
    expect(h).not.toContain('…');
    s.press('q');
    expect(await s.waitExit(15_000)).toBe(0);
  },
  budget(180_000),
);
