// What tmux and screen users see. The core journey — every tab, the detail
// pane, help, the review — runs in real tmux under tmux-256color,
// screen-256color, xterm and xterm-256color and in a headless xterm, at
// 80×24, 100×30 and 160×45 (terminals-<size>.test.ts, one file per size); the
// screen invariants (screen-invariants.ts) and the redraw check run after
// every step. Here, in one terminal each: keys typed in one write with the
// key that opens the review, the word `delete` as the only confirmation, a
// terminal too small to review, Ctrl-Z and resume, and the agent the app
// opens on.

import { beforeEach, describe, expect, it } from 'vitest';
import type { PiFixtureManifest } from '../../src/adapters/pi/fixture.js';
import { HEADLESS_100x30, KEYS, openApp, openPty, type ScreenDriver, TMUX_80x24, type TmuxScreen } from '../helpers/app-screen.js';
import { usePiTerminalHome } from '../helpers/core-journey.js';
import { targetAgent, type TempEnv } from '../helpers/temp-env.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';
import { budget } from '../helpers/budget.js';

const home = usePiTerminalHome();
let t: TempEnv;
let s: ScreenDriver | null = null;
let manifest: PiFixtureManifest;

beforeEach(() => {
  t = home.t;
  manifest = home.manifest;
});

describe('keys typed with the key that opens the review', () => {
  it('go to the review: x b delete in one write turns the backup on and fills the confirmation; x 1 Enter deletes nothing', {
    timeout: budget(60_000),
  }, async () => {
    targetAgent(t, 'pi');
    const own = [t.env.CLEANERX_STATE_DIR!, t.env.CLEANERX_CONFIG_DIR!];
    s = openApp({ terminal: TMUX_80x24, args: [], env: t.env });
    await s.waitFor(`Sessions (${manifest.sessions.length})`, 15000);
    const before = hashTree(t.env.HOME!, own);
    s.press('2');
    await s.waitFor(/\d+ sessions\b/);
    s.press('j', KEYS.space);
    await s.waitFor(/1 marked · /);
    s.type('xbdelete');
    await s.waitFor('Backup: on');
    await s.waitFor('│ > delete');
    expect(s.text()).toMatch(/1 marked · /);
    s.press(KEYS.esc);
    await s.waitForNot('Review cleanup');

    // The item count is not a confirmation: 1 is typed into the review, not a tab switch.
    s.type(`x1${KEYS.enter}`);
    await s.waitFor('type delete to confirm');
    await s.waitFor('│ > 1');
    s.press(KEYS.esc);
    await s.waitForNot('Review cleanup');
    expect(treeDiff(before, hashTree(t.env.HOME!, own))).toEqual([]);

    // The whole confirmation in one write, the new backup key's passphrase twice included, runs exactly the reviewed cleanup.
    const pass = 'correct horse battery';
    s.type(`xbdelete${KEYS.enter}${pass}${KEYS.enter}${pass}${KEYS.enter}`);
    await s.waitFor('Cleanup complete', 30000);
    await s.waitFor('Removed 1 item');
    await s.waitFor(/Backup [0-9a-f-]{36} is verified/);
    s.press(KEYS.enter);
    s.press('q');
    expect(await s.waitExit()).toBe(0);
    // Only the reviewed session is gone (beside cleanerx's own key, catalog and backup).
    const diff = treeDiff(before, hashTree(t.env.HOME!, [...own, t.env.CLEANERX_DATA_DIR!])).filter((d) => d !== 'added .local/share');
    expect(diff).toEqual([expect.stringMatching(/^removed .*\.jsonl$/)]);
  });
});

describe('a review on a small terminal', () => {
  it('keeps its warning and confirmation on screen at 80×24 with every session marked, and refuses to confirm below 80×24', {
    timeout: budget(60_000),
  }, async () => {
    targetAgent(t, 'pi');
    const own = [t.env.CLEANERX_STATE_DIR!, t.env.CLEANERX_CONFIG_DIR!];
    s = openApp({ terminal: TMUX_80x24, args: [], env: t.env });
    await s.waitFor(`Sessions (${manifest.sessions.length})`, 15000);
    const before = hashTree(t.env.HOME!, own);
    s.press('2');
    await s.waitFor(/\d+ sessions\b/);
    s.press('a');
    await s.waitFor(/Marked \d+ sessions in all sessions/);
    s.press('x');
    await s.waitFor('Type delete and Enter');
    s.press(KEYS.pageDown, KEYS.pageDown, KEYS.down);
    await s.waitFor(/Items \d+–\d+ of /);
    s.resize(72, 20);
    await s.waitFor('enlarge the terminal to review');
    s.type(`delete${KEYS.enter}`);
    await s.waitFor('enlarge the terminal to review (at least 80×24)');
    expect(treeDiff(before, hashTree(t.env.HOME!, own))).toEqual([]);
    s.resize(80, 24);
    await s.waitFor('│ > delete');
    s.press(KEYS.esc);
    await s.waitForNot('Review cleanup');
    s.press('q');
    expect(await s.waitExit()).toBe(0);
    expect(treeDiff(before, hashTree(t.env.HOME!, own))).toEqual([]);
  });
});

describe('Ctrl-Z', () => {
  it('suspends the app and gives the terminal back; on resume the whole screen is drawn again', { timeout: budget(60_000) }, async () => {
    targetAgent(t, 'pi');
    const tm = openApp({ terminal: TMUX_80x24, args: [], env: t.env }) as TmuxScreen;
    s = tm;
    await s.waitFor(`Sessions (${manifest.sessions.length})`, 15000);
    s.press('2');
    await s.waitFor(/\d+ sessions\b/);
    s.checkInvariants = false;
    s.press(KEYS.ctrlZ);
    // Stopped: the shell got the terminal back (job status 148), the app's frame is gone from the pane.
    for (let i = 0; i < 200 && !tm.stopped(); i++) await new Promise((r) => setTimeout(r, 25));
    expect(tm.stopped()).toBe(true);
    await s.waitForNot('Sessions (');
    tm.resume();
    s.checkInvariants = true;
    await s.waitFor(/\d+ sessions\b/);
    await s.waitFor(/^ Sessions › /m);
    s.press('q');
    expect(await s.waitExit()).toBe(0);
  });
});

describe('the agent the app opens on', () => {
  it('is the one with the most data on a first start, not the first installed one that has none', { timeout: budget(60_000) }, async () => {
    s = openApp({ terminal: HEADLESS_100x30, args: [], env: t.env });
    await s.waitFor(/Agent \[pi\]/, 20000);
    await s.waitFor(`Sessions (${manifest.sessions.length})`);
    s.press('q');
    expect(await s.waitExit()).toBe(0);
  });

  it('is the one --agent names', { timeout: budget(60_000) }, async () => {
    targetAgent(t, 'pi');
    s = openApp({ terminal: HEADLESS_100x30, args: ['--agent', 'claude'], env: t.env });
    await s.waitFor(/Agent \[Claude Code\]/, 15000);
    s.press('q');
    expect(await s.waitExit()).toBe(0);
  });
});

describe('Ctrl-L', () => {
  it('redraws every cell: text another program wrote over the frame is gone', { timeout: budget(60_000) }, async () => {
    targetAgent(t, 'pi');
    const p = openPty({ args: [], env: t.env, cols: 100, rows: 30 });
    s = p;
    await s.waitFor(`Sessions (${manifest.sessions.length})`, 15000);
    s.press('2');
    await s.waitFor(/\d+ sessions\b/);
    // What a background job or a wall(1) message does to a full-screen app: bytes the app never wrote.
    s.checkInvariants = false;
    await new Promise<void>((r) => p.term.write('\x1b[12;20HSTRAY OUTPUT FROM ELSEWHERE\x1b[20;1Hmore stray', r));
    expect(s.text()).toContain('STRAY OUTPUT');
    s.press(KEYS.ctrlL);
    await s.waitForNot('STRAY OUTPUT');
    await s.waitForNot('more stray');
    s.checkInvariants = true;
    await s.waitFor(/^ Sessions › /m);
    s.press('q');
    expect(await s.waitExit()).toBe(0);
  });
});
