// The Overview's sentences that say what to do (Claude's coming sweep, a
// running writer, space held by deleted files) are wrapped at 80×24, never
// cut with "…" (#27.3).

import { expect, it } from 'vitest';
import type { TmuxScreen } from '../helpers/app-screen.js';
import { useTmuxDemo } from '../helpers/tmux-demo.js';
import { budget } from '../helpers/budget.js';

const demo = useTmuxDemo();
let s: TmuxScreen;

it(
  "80×24 in tmux: Claude's sweep forecast is whole on the Overview",
  async () => {
    s = demo.open(['--agent', 'claude']);
    await s.waitFor(/Agent \[Claude/, 40_000);
    s.press('1');
    const screen = await s.waitFor(/at its next start/, 40_000);
    const lines = screen.split('\n');
    const start = lines.findIndex((l) => /Claude deletes \d+ sessions?/.test(l));
    expect(start).toBeGreaterThan(0);
    const sentence = lines
      .slice(start, start + 3)
      .map((l) => l.trim())
      .join(' ');
    expect(sentence).toMatch(/cleanupPeriodDays 30 in settings\.json\); f in Sessions lists them\./);
    for (const l of lines.slice(start, start + 3)) expect(l.trimEnd().endsWith('…')).toBe(false);
    s.press('q');
    expect(await s.waitExit(15_000)).toBe(0);
  },
  budget(120_000),
);
