// An info notice (the status line's "Marked N sessions…") as a user at
// 80×24 in tmux meets it: it stays through the redraw checks every step
// makes (Ctrl-L keeps it), and it goes by itself about 6 s after it
// appeared, with no key pressed; the screen left is a settled one, which
// waitForNot's redraw check holds.

import { expect, it } from 'vitest';
import type { TmuxScreen } from '../helpers/app-screen.js';
import { budget } from '../helpers/budget.js';
import { useTmuxDemo } from '../helpers/tmux-demo.js';
import { waitUntil } from '../helpers/wait-until.js';

const demo = useTmuxDemo();
let s: TmuxScreen;
const NOTICE = /Marked \d+ sessions? in all sessions/;

it(
  '80×24 in tmux: a notice survives a redraw and fades by itself after about 6 s',
  async () => {
    s = demo.open();
    await s.waitFor(/Agent \[pi/, 40_000);
    s.press('2');
    await s.waitFor(/ sessions · /, 20_000);
    // Marks wait for the scan (a partial view answers "Still scanning"): under load it can outlast the list's first paint.
    await s.waitSettled(40_000);
    s.press('a');
    // Polled without the step checks, so the moment it showed is not taken late.
    await waitUntil(() => NOTICE.test(s.text()), 'the notice', budget(10_000));
    const shown = Date.now();
    // The step's own Ctrl-L redraw comes well inside the 6 s: the notice is still there after it.
    await s.waitFor(NOTICE);
    await s.waitForNot(NOTICE, 20_000);
    // Not at the first paint: seen later than it went, the time can only come out short, never long.
    expect(Date.now() - shown).toBeGreaterThanOrEqual(4_000);
    // The fade is the app's own change, and it says so (the redraw check then knows it for a change, not a stale cell).
    expect(s.selfChanges()).toBe(1);
    s.press('q');
    expect(await s.waitExit(15_000)).toBe(0);
  },
  budget(120_000),
);
