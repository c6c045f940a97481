// Issue #27 parts 1 and 2, under real tmux at 80×24 (TERM=tmux-256color):
//
// 1. A refused passphrase asks again. At "New backup key passphrase", a
//    too-short one, then a repeat that differs, then a third refusal: each
//    brings the prompt back at once with a box saying why, the third gives up
//    on the status line. What the user types as the retry — in the same burst
//    as the Enter that was refused, as fast typists do — goes into the masked
//    prompt: the secret appears in no frame the app ever drew, the app stays on
//    its tab with nothing filtered and nothing more marked, and `q` typed ahead
//    does not quit.
// 2. Long operations hold the keys. A cleanup with a backup, a verify with a
//    wrong passphrase (asked again, never "failed verification"), a verify, a
//    restore's check and the restore itself each run in the busy box (spinner,
//    phase, counts that move; the cleanup never reads 0/0): keys typed meanwhile
//    — a tab number, a second `v` — do nothing: the tab does not change and no
//    second prompt opens.

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { buildPiFixture, type PiFixtureManifest } from '../../src/adapters/pi/fixture.js';
import { CLI, KEYS, openTmux, type TmuxScreen } from '../helpers/app-screen.js';
import { TEST_PASSPHRASE } from '../helpers/constants.js';
import { makeTempEnv, targetAgent, type TempEnv } from '../helpers/temp-env.js';
import { budget } from '../helpers/budget.js';

const PASS = TEST_PASSPHRASE;
const SECRET = 'MySecretPass';

let t: TempEnv;
let manifest: PiFixtureManifest;

beforeEach(() => {
  t = makeTempEnv('cleanerx-prompt-busy-');
  manifest = buildPiFixture({
    agentDir: t.env.PI_CODING_AGENT_DIR!,
    projects: 1,
    sessionsPerProject: 4,
    forkRate: 0,
    config: true,
    cwdRoot: join(t.env.HOME!, 'src'),
  });
  targetAgent(t, 'pi');
});

afterEach(() => {
  t.cleanup();
});

/**
 * Every frame the test reads (each wait polls the pane), plus one taken
 * every 25 ms in between: what `seen(re)` finds in any of them.
 */
function watch(s: TmuxScreen): { frames: string[]; seen(re: RegExp | string): string | undefined; stop(): void } {
  const frames: string[] = [];
  const timer = setInterval(() => {
    if (s.exitCode === null) frames.push(s.text());
  }, 25);
  return {
    frames,
    seen: (re) => frames.find((f) => (typeof re === 'string' ? f.includes(re) : re.test(f))),
    stop: () => clearInterval(timer),
  };
}

/** The deck's last line: the open prompt, or the focused widget and its keys. */
const inputLine = (s: TmuxScreen): string => s.lines()[s.rows - 1] ?? '';

it('a refused new-key passphrase asks again, three times, and what is typed as the retry appears nowhere', { timeout: budget(120_000) }, async () => {
  // A cheaper scrypt, honoured only in test mode.
  const s = openTmux({ env: { ...t.env, CLEANERX_TEST_MODE: '1', CLEANERX_SCRYPT_LOG_N: '12' }, cols: 80, rows: 24 });
  const w = watch(s);
  try {
    await s.waitFor('Sessions (', 20_000);
    s.press('2');
    await s.waitForLine(/^\[ \]   /, 20_000);
    s.press('j', KEYS.space);
    await s.waitFor(/1 marked · /);
    s.press('x');
    await s.waitFor('Review cleanup');
    s.press('b');
    await s.waitFor('Backup: on');
    s.type('delete');
    s.press(KEYS.enter);
    await s.waitFor('New backup key passphrase (8+ characters):');
    const tab = (await s.grab()).currentTab;
    expect(tab).toMatch(/Sessions/);

    // Too short; the retry typed at once behind the Enter, beginning with the filter's key.
    s.type(`short\r/${SECRET}`);
    await s.waitFor(new RegExp(`try 2 of 3|${SECRET}`));
    await s.waitSettled();
    expect(w.seen(SECRET), 'the retry reached the screen behind the prompt').toBeUndefined();
    expect(s.text()).toContain('New backup key passphrase (8+ characters) · try 2 of 3:');
    expect(s.text()).toContain('Passphrase refused');
    expect(s.text().replace(/\s*│\s*/g, ' ')).toMatch(/at least 8 characters/);
    expect(inputLine(s)).toContain('•'.repeat(SECRET.length + 1));

    // Long enough now; the repeat differs: both asked again.
    s.press(KEYS.enter);
    await s.waitFor('Repeat the passphrase · try 2 of 3:');
    s.type('another secret\r');
    await s.waitFor('try 3 of 3');
    await s.waitFor('The two passphrases differ.');
    // The third refusal, with `q` (quit) and `a` (mark all) typed ahead.
    s.type('tiny\rqa');
    await s.waitFor('Refused 3 times. Cleanup cancelled; nothing was removed. (Enter or Esc)');
    await s.waitSettled();
    expect(s.exitCode).toBeNull();
    s.press(KEYS.enter);
    await s.waitForNot('(Enter or Esc)');
    await s.waitFor('Refused 3 times. Cleanup cancelled; nothing was removed.');
    await s.waitSettled();

    // Still on the same tab, nothing filtered, nothing more marked; nothing removed, no key made.
    const g = await s.grab();
    expect(g.currentTab).toBe(tab);
    expect(s.text()).toMatch(/1 marked · /);
    expect(s.lines()[1]).not.toMatch(/“/);
    expect(s.text()).not.toContain('Filter (title or cwd)');
    for (const x of manifest.sessions) expect(existsSync(x.file)).toBe(true);
    expect(existsSync(join(t.env.CLEANERX_DATA_DIR!, 'identity.age'))).toBe(false);
    expect(w.seen(SECRET)).toBeUndefined();
    expect(s.raw()).not.toContain(SECRET);
    s.press('q');
    expect(await s.waitExit()).toBe(0);
  } finally {
    w.stop();
  }
});

it("a cleanup with a backup runs in the busy box: the key's making is said in words, never 0/0, and keys typed meanwhile do nothing", {
  timeout: budget(120_000),
}, async () => {
  // scrypt at 2^17 (still below a real key's 2^18): the key takes a second or more to make, long enough to type into.
  const s = openTmux({ env: { ...t.env, CLEANERX_TEST_MODE: '1', CLEANERX_SCRYPT_LOG_N: '17' }, cols: 80, rows: 24 });
  const w = watch(s);
  try {
    await s.waitFor('Sessions (', 20_000);
    s.press('2');
    await s.waitForLine(/^\[ \]   /, 20_000);
    s.press('j', KEYS.space);
    await s.waitFor(/1 marked · /);
    s.press('x');
    await s.waitFor('Review cleanup');
    s.press('b');
    await s.waitFor('Backup: on');
    s.type('delete');
    s.press(KEYS.enter);
    await s.waitFor('New backup key passphrase (8+ characters):');
    s.type(`${PASS}\r`);
    await s.waitFor('Repeat the passphrase:');
    // A tab key in the same burst as the Enter, and more once the box says what runs.
    s.type(`${PASS}\r1`);
    await s.waitFor('Opening the backup key', 20_000);
    s.type('3v');
    await s.waitFor('Cleanup complete', 60_000);
    await s.waitSettled();
    expect((await s.grab()).currentTab).toMatch(/Sessions/);
    // Nothing to count is said in words, not as zeros.
    expect(w.seen(/ 0\/0\b|0 B of 0 B/)).toBeUndefined();
    expect(manifest.sessions.filter((x) => !existsSync(x.file))).toHaveLength(1);
    expect(w.seen(PASS)).toBeUndefined();
    s.press(KEYS.enter);
    await s.waitForNot('Cleanup complete');
    s.press('q');
    expect(await s.waitExit()).toBe(0);
  } finally {
    w.stop();
  }
});

/** A backup made by the command line (the key made at 2^17: each unlock takes a second or more, long enough to type into). */
function cliBackup(env: Record<string, string>): PiFixtureManifest['sessions'][number] {
  const victim = manifest.sessions.find((x) => x.kind === 'root' && !manifest.sessions.some((y) => y.parentId === x.id))!;
  const clean = spawnSync(process.execPath, [CLI, 'clean', '--agent', 'pi', '--backup', '--yes', '--id', victim.id], {
    env,
    encoding: 'utf8',
    input: `${PASS}\n`,
    timeout: budget(60_000),
  });
  expect(clean.status, clean.stderr).toBe(0);
  expect(existsSync(victim.file)).toBe(false);
  return victim;
}

/** scrypt at 2^17, still below a real key's 2^18. */
const slowKey = (): Record<string, string> => ({ ...t.env, CLEANERX_TEST_MODE: '1', CLEANERX_SCRYPT_LOG_N: '17' });

it('a verify with a wrong passphrase asks again (never "failed verification"); keys typed during the verify do nothing', {
  timeout: budget(120_000),
}, async () => {
  const env = slowKey();
  cliBackup(env);
  const s = openTmux({ env, cols: 80, rows: 24 });
  const w = watch(s);
  try {
    await s.waitFor('Sessions (', 20_000);
    s.press('5');
    await s.waitForLine(/pi\s+1\s+/, 20_000);

    // A wrong passphrase, and a tab key and a second v in the same burst: asked again, on the same tab.
    s.press('v');
    await s.waitFor('Passphrase to verify:');
    s.type('not the passphrase\r1v2');
    await s.waitFor(/Passphrase to verify · try 2 of 3:|failed verification/, 30_000);
    await s.waitSettled();
    expect(w.seen('failed verification')).toBeUndefined();
    expect((await s.grab()).currentTab).toMatch(/Backups/);
    expect(s.text()).toContain('Passphrase to verify · try 2 of 3:');
    expect(s.text()).toContain('Wrong passphrase');
    expect(s.text().replace(/\s*│\s*/g, ' ')).toContain('This passphrase does not unlock the backup key.');
    // What was typed during the unlock went nowhere, not even into the prompt asked again.
    expect(inputLine(s)).not.toContain('•');

    // The right one: the busy box, and keys typed while it is up do nothing.
    s.type(`${PASS}\r`);
    await s.waitFor('Verifying backup', 20_000);
    s.type('1v');
    await s.waitFor('Backup verified', 30_000);
    await s.waitSettled();
    expect((await s.grab()).currentTab).toMatch(/Backups/);
    expect(s.text()).not.toContain('Passphrase to verify');
    for (const phase of ['Unlocking the backup key', 'Verifying backup']) expect(w.seen(phase), `${phase} was never on screen`).toBeDefined();
    expect(w.seen(PASS)).toBeUndefined();
    s.press(KEYS.enter);
    await s.waitForNot('Backup verified');
    s.press('q');
    expect(await s.waitExit()).toBe(0);
  } finally {
    w.stop();
  }
});

it("a restore's check and the restore run in the busy box; keys typed during each do nothing", { timeout: budget(120_000) }, async () => {
  const env = slowKey();
  const victim = cliBackup(env);
  const s = openTmux({ env, cols: 80, rows: 24 });
  const w = watch(s);
  try {
    await s.waitFor('Sessions (', 20_000);
    s.press('5');
    await s.waitForLine(/pi\s+1\s+/, 20_000);

    // The check: a tab key and a second v in the same burst as the Enter.
    s.press(KEYS.enter);
    await s.waitFor('Passphrase to restore:');
    s.type(`${PASS}\r1v`);
    await s.waitFor(/Restore 1 file .* into pi\? Type restore:/, 30_000);
    await s.waitSettled();
    expect((await s.grab()).currentTab).toMatch(/Backups/);
    // Nothing typed during the check went into the confirm.
    expect(inputLine(s)).toMatch(/Type restore:\s*$/);
    // The restore: keys typed while the box is up, Esc included, do nothing.
    s.type('restore\r');
    await s.waitFor('Restoring backup', 20_000);
    s.type('1v');
    s.press(KEYS.esc);
    await s.waitFor('Restore complete', 30_000);
    await s.waitSettled();
    expect((await s.grab()).currentTab).toMatch(/Backups/);
    expect(s.text()).not.toContain('Passphrase to');
    expect(existsSync(victim.file)).toBe(true);
    for (const phase of ['Unlocking the backup key', 'Checking backup', 'Restoring backup'])
      expect(w.seen(phase), `${phase} was never on screen`).toBeDefined();
    expect(w.seen(PASS)).toBeUndefined();
    s.press(KEYS.enter);
    await s.waitForNot('Restore complete');
    s.press('q');
    expect(await s.waitExit()).toBe(0);
  } finally {
    w.stop();
  }
});
