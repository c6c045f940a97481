// The Select-by-rules form at 80×24 in real tmux: R on Sessions, choose
// "older than 30 d" for the whole tree, read the count and size before any
// mark, Enter adds exactly those marks, and the review lists them. The
// screen invariants (whole boxes, no wide or wrapped lines, the footer names
// the form) run after every step.

import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildPiFixture } from '../../src/adapters/pi/fixture.js';
import { ADAPTERS } from '../../src/adapters/registry.js';
import { Engine } from '../../src/engine/api/engine.js';
import { formatBytes } from '../../src/engine/core/format.js';
import { KEYS, openApp, type ScreenDriver, TMUX_80x24 } from '../helpers/app-screen.js';
import { fakeAgentBins, makeTempEnv, targetAgent, type TempEnv } from '../helpers/temp-env.js';
import { budget } from '../helpers/budget.js';

let t: TempEnv;
let s: ScreenDriver | null = null;

beforeEach(() => {
  t = makeTempEnv();
  buildPiFixture({
    agentDir: t.env.PI_CODING_AGENT_DIR!,
    projects: 2,
    sessionsPerProject: 6,
    seed: 3,
    forkRate: 0.5,
    config: true,
    now: Date.now(),
    cwdRoot: join(t.env.HOME!, 'src'),
  });
  fakeAgentBins(t, { pi: '0.73.1' });
  targetAgent(t, 'pi');
});

afterEach(() => {
  t.cleanup();
});

describe('Select by rules at 80×24', () => {
  it('older than 30 d: shows the count and size, marks exactly those, the review lists them', { timeout: budget(90_000) }, async () => {
    // What the engine says the rule matches, for the numbers the form must show.
    const engine = new Engine(ADAPTERS, t.ctx);
    const sum = await engine.scan('pi');
    const expected = await engine.matchRules(sum.snapshotId, { olderThanDays: 30 });
    const total = sum.sessionCount;
    await engine.close();
    expect(expected.ids.length).toBeGreaterThan(0);
    expect(expected.ids.length).toBeLessThan(total);

    s = openApp({ terminal: TMUX_80x24, args: [], env: t.env });
    await s.waitFor(/Agent \[pi\]/, 15000);
    s.press('2');
    await s.waitFor(/\d+ sessions · /);
    s.press('R');
    await s.waitFor('Select by rules');
    await s.waitFor(/Choose a rule to see what it matches/);
    expect(s.text()).toMatch(/Select by rules ›/);
    // Nothing is marked by opening the form.
    expect(s.text()).not.toMatch(/\d+ marked/);
    s.press(KEYS.right);
    await s.waitFor(/older than 7 d/);
    s.press(KEYS.right);
    await s.waitFor(/older than 30 d/);
    const counted = await s.waitFor(new RegExp(`Matches ${expected.ids.length} sessions? · ${formatBytes(expected.bytes).replace('.', '\\.')}`));
    expect(counted).not.toMatch(/\d+ marked/);
    s.press(KEYS.enter);
    await s.waitForNot('Select by rules');
    await s.waitFor(new RegExp(`${expected.ids.length} marked · ${formatBytes(expected.bytes).replace('.', '\\.')}`));
    await s.waitFor(new RegExp(`Marked ${expected.ids.length} more sessions? by rules`));

    // Marks only add: opening it again and confirming the same rule adds none.
    s.press('R');
    await s.waitFor('Select by rules');
    s.press(KEYS.right, KEYS.right);
    await s.waitFor(/Matches \d+ session/);
    s.press(KEYS.enter);
    await s.waitFor(/Marked 0 more sessions by rules \(\d+ already marked\)/);
    await s.waitFor(new RegExp(`${expected.ids.length} marked`));

    // The review is the usual one, listing the marked sessions.
    s.press('x');
    await s.waitFor('Review cleanup', 15000);
    await s.waitFor(new RegExp(`${expected.ids.length} (sessions|items)`));
    s.press(KEYS.esc);
    await s.waitForNot('Review cleanup');
  });

  it('Esc closes the form without marking', { timeout: budget(60_000) }, async () => {
    s = openApp({ terminal: TMUX_80x24, args: [], env: t.env });
    await s.waitFor(/Agent \[pi\]/, 15000);
    s.press('2');
    await s.waitFor(/\d+ sessions · /);
    s.press('R');
    await s.waitFor('Select by rules');
    s.press(KEYS.right, KEYS.right);
    await s.waitFor(/Matches \d+ session/);
    // Letters the app binds elsewhere do nothing while the form has the keys.
    s.press('q');
    s.press(KEYS.esc);
    await s.waitForNot('Select by rules');
    expect(s.text()).not.toMatch(/\d+ marked/);
    expect(s.exitCode).toBeNull();
  });
});
