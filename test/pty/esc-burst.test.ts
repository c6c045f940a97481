// Esc as fast typists and slow links send it (#27.6): two Escs in one burst
// are two Escs (blessed reads "\x1b\x1b" as Alt+Esc, which nothing binds), and
// Esc in Sessions peels one filter layer at a time — the typed filter first,
// the age filter stays in the header until the next Esc.

import { expect, it } from 'vitest';
import { KEYS, type TmuxScreen } from '../helpers/app-screen.js';
import { useTmuxDemo } from '../helpers/tmux-demo.js';
import { budget } from '../helpers/budget.js';

const demo = useTmuxDemo();
let s: TmuxScreen;

it(
  '80×24 in tmux: Esc Esc in one burst closes help and then clears the typed filter; the age filter stays',
  async () => {
    s = demo.open();
    await s.waitFor(/Agent \[pi/, 40_000);
    s.press('2');
    await s.waitFor(/ sessions · /, 20_000);
    s.press('/');
    await s.waitSettled();
    s.type('bench');
    s.press(KEYS.enter);
    await s.waitFor(/“bench”\s+\d+ of [\d,]+ sessions/);
    s.press('f');
    await s.waitFor(/last 7 d · “bench”/);
    s.press('?');
    await s.waitFor(/Help/);
    await s.waitSettled();
    s.type('\x1b\x1b');
    const after = await s.waitFor(/last 7 d\s+\d+ of [\d,]+ sessions/);
    expect(after).not.toContain('“bench”');
    expect(after).not.toMatch(/┌─ Help/);
    s.press(KEYS.esc);
    await s.waitFor(/any time\s+[\d,]+ sessions · /);
    s.press('q');
    expect(await s.waitExit(15_000)).toBe(0);
  },
  budget(120_000),
);
