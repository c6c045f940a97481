// Filters and sorts belong to the agent they were set on (#28.3): a round
// trip through another agent brings back the same view, so the same keys
// select the same set; the other agent keeps its own, shown in its header.

import { expect, it } from 'vitest';
import type { TmuxScreen } from '../helpers/app-screen.js';
import { useTmuxDemo } from '../helpers/tmux-demo.js';
import { budget } from '../helpers/budget.js';

const demo = useTmuxDemo();
let s: TmuxScreen;

const header = (): string => s.text().split('\n')[1] ?? '';

it(
  '80×24 in tmux: each agent keeps its own age filter and sort across switches',
  async () => {
    s = demo.open();
    await s.waitFor(/Agent \[pi/, 40_000);
    s.press('2');
    await s.waitFor(/newest first · any time/, 20_000);
    await s.waitForNot(/Scanning…/, 40_000);
    s.press('f');
    await s.waitFor(/newest first · last 7 d/);
    await s.waitSettled();
    const piHeader = header();
    expect(piHeader).toMatch(/^Tree · newest first · last 7 d\s+\d+ of [\d,]+ sessions/);
    s.press(']');
    await s.waitFor(/Agent \[(?!pi)/, 30_000);
    await s.waitFor(/newest first · any time/, 30_000);
    const other = /Agent \[([^\]]+)\]/.exec(s.text())![1]!;
    s.press('S');
    s.press('f', 'f');
    await s.waitFor(/oldest first · last 30 d/);
    s.press('[');
    await s.waitFor(/Agent \[pi\]/, 30_000);
    await s.waitFor(/^Tree · newest first · last 7 d\s+\d+ of/m, 30_000);
    await s.waitSettled();
    expect(header()).toBe(piHeader);
    s.press(']');
    await s.waitFor(new RegExp(`Agent \\[${other}\\]`), 30_000);
    await s.waitFor(/oldest first · last 30 d/, 30_000);
    s.press('q');
    expect(await s.waitExit(15_000)).toBe(0);
  },
  budget(180_000),
);
