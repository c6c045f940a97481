// The Sessions views, the warnings view and the colours as a tmux user sees
// them: the real binary on the demo home inside real tmux, under the terminal
// types people use over SSH. After every step the pane (with its escapes) is
// checked for black text and for lines wider than the terminal.

import { spawnSync } from 'node:child_process';
import { buildPiFixture } from '../../src/adapters/pi/fixture.js';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI, KEYS, openTmux, type TmuxScreen } from '../helpers/app-screen.js';
import { TEST_PASSPHRASE } from '../helpers/constants.js';
import { makeTempEnv, targetAgent, type TempEnv } from '../helpers/temp-env.js';
import { budget } from '../helpers/budget.js';

let t: TempEnv;
let s: TmuxScreen;

beforeEach(() => {
  t = makeTempEnv();
});

afterEach(() => {
  t.cleanup();
});

/** The app in tmux; the demo home goes into the test's own temp dir. */
function start(term: string, cols: number, rows: number, extra: Record<string, string> = {}, args = ['--demo']): void {
  s = openTmux({ args, env: { ...t.env, TMPDIR: t.root, ...extra }, cols, rows, term });
}

const plain = (): string => s.text();
const styled = (): string => s.styled();
const waitFor = (pattern: RegExp, timeout = 15_000): Promise<string> => s.waitFor(pattern, timeout);
const waitForNot = (pattern: RegExp, timeout = 15_000): Promise<void> => s.waitForNot(pattern, timeout);

/** Escape, then the dialog gone. */
async function closeDialog(): Promise<void> {
  s.press(KEYS.esc);
  await waitForNot(/Warnings \(\d+\)/);
}

/** Waits until the app has quit, so the demo home is gone before cleanup. */
async function quit(): Promise<void> {
  s.press('q');
  expect(await s.waitExit(15_000)).toBe(0);
}

/** What every step must hold: no black foreground, no line wider than the pane. */
function checkInvariants(cols: number, noColor: boolean): void {
  const s = styled();
  expect(s.match(/\x1b\[[\d;]*\b(30|38;5;0)m/g) ?? []).toEqual([]);
  if (noColor) expect(s.match(/\x1b\[[\d;]*\b(3[0-7]|9[0-7]|4[0-7]|10[0-7])m/g) ?? []).toEqual([]);
  for (const l of plain().split('\n')) expect([...l].length).toBeLessThanOrEqual(cols);
}

async function journey(cols: number, _rows: number, noColor: boolean): Promise<void> {
  const check = (): void => checkInvariants(cols, noColor);
  await waitFor(/Agent \[pi/, 40_000);
  await waitFor(/\d+ sessions · /);
  check();
  // Overview: the warning count in the singular/plural, and w for the whole list.
  s.press('1');
  await waitFor(/\d+ warnings? — first: .* w lists them all/);
  check();
  s.press('w');
  const dialog = await waitFor(/Warnings \(\d+\)/);
  const n = Number(/Warnings \((\d+)\)/.exec(dialog)![1]);
  expect(n).toBeGreaterThan(1);
  check();
  // Scroll to the end of the list: the last warning is there, not only the first.
  for (let i = 0; i < 3 * n; i++) s.press('j');
  await waitFor(new RegExp(`(^|\\D)${n}\\. Skipped`, 'm'));
  check();
  await closeDialog();
  await waitFor(/Storage by category/);
  // Sessions: reverse sort and its direction in the header.
  s.press('2');
  await waitFor(/newest first/);
  s.press('S');
  await waitFor(/oldest first/);
  check();
  // A filter: the header shows the matches and their size; the flat view says Session.
  s.press('/');
  await s.waitSettled();
  s.type('bench');
  s.press(KEYS.enter);
  const filtered = await waitFor(/\d+ of [\d,]+ sessions · [\d.]+ [KMG]?B/);
  expect(filtered).toContain('Project / session');
  check();
  s.press('t');
  const flat = await waitFor(/^List /m);
  expect(flat).toMatch(/^ {4}Session\s/m);
  expect(flat).not.toContain('Project / session');
  check();
  s.press('w');
  await waitFor(/Warnings \(\d+\)/);
  await closeDialog();
  for (const tab of ['3', '4', '5', '6']) {
    s.press(tab);
    await s.waitSettled();
    check();
  }
  // Settings lays out its own lines: no path broken onto a line of its own.
  const settings = await waitFor(/backup key/);
  expect(settings).not.toMatch(/^[^ ]\S*\/\S*$/m);
  await quit();
}

describe('sessions views in tmux', () => {
  const terms = ['tmux-256color', 'screen-256color', 'xterm', 'xterm-256color'];
  for (const term of terms) {
    it(
      `80×24 under TERM=${term}: warnings view, reverse sort, filtered totals, no black text`,
      async () => {
        start(term, 80, 24);
        await journey(80, 24, false);
      },
      budget(90_000),
    );
  }

  it(
    '100×30 with NO_COLOR under tmux-256color: no colour at all',
    async () => {
      start('tmux-256color', 100, 30, { NO_COLOR: '1' });
      await journey(100, 30, true);
    },
    budget(90_000),
  );
});

describe('Backups tab in tmux', () => {
  it(
    'a verify that ends leaves its outcome in the footer, not "Verifying…"',
    async () => {
      const PASS = TEST_PASSPHRASE;
      const test = { CLEANERX_TEST_MODE: '1', CLEANERX_SCRYPT_LOG_N: '12' };
      const manifest = buildPiFixture({
        agentDir: t.env.PI_CODING_AGENT_DIR!,
        projects: 1,
        sessionsPerProject: 3,
        forkRate: 0,
        config: true,
        cwdRoot: join(t.env.HOME!, 'src'),
      });
      targetAgent(t, 'pi');
      const victim = manifest.sessions.find((x) => x.kind === 'root')!;
      const clean = spawnSync(process.execPath, [CLI, 'clean', '--agent', 'pi', '--backup', '--yes', '--id', victim.id], {
        env: { ...t.env, ...test },
        input: `${PASS}\n`,
        encoding: 'utf8',
        timeout: budget(60_000),
      });
      expect(clean.status, clean.stderr).toBe(0);
      start('tmux-256color', 80, 24, test, []);
      await waitFor(/Agent \[pi/, 40_000);
      s.press('5');
      await waitFor(/^ {4}\d{4}-\d\d-\d\d .* pi /m);
      s.press('v');
      await waitFor(/Passphrase to verify/);
      s.type(PASS);
      s.press(KEYS.enter);
      const done = await waitFor(/Backup verified/, 30_000);
      expect(done).toMatch(/The 1 entry|All \d+ entries/);
      expect(done).not.toMatch(/Verifying/);
      expect(done).toMatch(/Backup [0-9a-f]{8} verified\./);
      checkInvariants(80, false);
      s.press(KEYS.esc);
      await waitForNot(/Backup verified\s/);
      expect(plain()).not.toMatch(/Verifying/);
      await quit();
    },
    budget(120_000),
  );
});
