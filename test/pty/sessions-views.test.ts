// The Sessions views, the warnings view and the colours as a tmux user sees
// them: the real binary on the demo home inside real tmux, under the terminal
// types people use over SSH. After every step the pane (with its escapes) is
// checked for black text and for lines wider than the terminal.

import { execFileSync, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { buildPiFixture } from '../../src/demo/fixtures/pi.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI } from '../helpers/pty-screen.js';
import { makeTempEnv, targetAgent, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
let sock = '';

beforeEach(() => {
  t = makeTempEnv();
  sock = `cx-u2-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
});

afterEach(() => {
  spawnSync('tmux', ['-L', sock, 'kill-server'], { stdio: 'ignore' });
  // tmux leaves its socket file behind a killed server.
  rmSync(join(process.env.TMUX_TMPDIR ?? '/tmp', `tmux-${process.getuid!()}`, sock), { force: true });
  t.cleanup();
});

function tmux(...args: string[]): string {
  return execFileSync('tmux', ['-L', sock, ...args], { encoding: 'utf8', env: { ...t.env, TMUX: '' } });
}

function start(term: string, cols: number, rows: number, extra: Record<string, string> = {}, args = ['--demo']): void {
  const env = { ...t.env, TMPDIR: t.root, TERM: term, LANG: 'C.UTF-8', ...extra };
  const assign = Object.entries(env).map(([k, v]) => `${k}=${shellQuote(v)}`);
  tmux('-f', '/dev/null', 'new-session', '-d', '-s', 's', '-x', String(cols), '-y', String(rows), `env -i ${assign.join(' ')} ${shellQuote(process.execPath)} ${shellQuote(CLI)} ${args.map(shellQuote).join(' ')}`);
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

const plain = (): string => tmux('capture-pane', '-p', '-t', 's');
const styled = (): string => tmux('capture-pane', '-p', '-e', '-t', 's');
const keys = (...k: string[]): void => void tmux('send-keys', '-t', 's', ...k);

async function waitFor(pattern: RegExp, timeout = 15_000): Promise<string> {
  const end = Date.now() + timeout;
  for (;;) {
    const text = plain();
    if (pattern.test(text)) return text;
    if (Date.now() > end) throw new Error(`timed out waiting for ${pattern}; screen:\n${text}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function waitForNot(pattern: RegExp, timeout = 15_000): Promise<void> {
  const end = Date.now() + timeout;
  while (pattern.test(plain())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${pattern} to go; screen:\n${plain()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Escape alone (a key right behind it would read as Alt-key), then the dialog gone. */
async function closeDialog(): Promise<void> {
  keys('Escape');
  await waitForNot(/Warnings \(\d+\)/);
}

/** Waits until the app has quit (tmux ends with its only pane), so the demo home is gone before cleanup. */
async function quit(): Promise<void> {
  keys('q');
  const end = Date.now() + 15_000;
  while (spawnSync('tmux', ['-L', sock, 'has-session', '-t', 's'], { stdio: 'ignore' }).status === 0) {
    if (Date.now() > end) throw new Error(`cleanerx did not quit; screen:\n${plain()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** What every step must hold: no black foreground, no line wider than the pane. */
function checkInvariants(cols: number, noColor: boolean): void {
  const s = styled();
  expect(s.match(/\x1b\[[\d;]*\b(30|38;5;0)m/g) ?? []).toEqual([]);
  if (noColor) expect(s.match(/\x1b\[[\d;]*\b(3[0-7]|9[0-7]|4[0-7]|10[0-7])m/g) ?? []).toEqual([]);
  for (const l of plain().split('\n')) expect([...l].length).toBeLessThanOrEqual(cols);
}

async function journey(cols: number, rows: number, noColor: boolean): Promise<void> {
  const check = (): void => checkInvariants(cols, noColor);
  await waitFor(/Agent \[pi/, 40_000);
  await waitFor(/\d+ sessions · /);
  check();
  // Overview: the warning count in the singular/plural, and w for the whole list.
  keys('1');
  await waitFor(/\d+ warnings? — first: .* w lists them all/);
  check();
  keys('w');
  const dialog = await waitFor(/Warnings \(\d+\)/);
  const n = Number(/Warnings \((\d+)\)/.exec(dialog)![1]);
  expect(n).toBeGreaterThan(1);
  check();
  // Scroll to the end of the list: the last warning is there, not only the first.
  for (let i = 0; i < 3 * n; i++) keys('j');
  await waitFor(new RegExp(`(^|\\D)${n}\\. Skipped`, 'm'));
  check();
  await closeDialog();
  await waitFor(/Storage by category/);
  // Sessions: reverse sort and its direction in the header.
  keys('2');
  await waitFor(/newest first/);
  keys('S');
  await waitFor(/oldest first/);
  check();
  // A filter: the header shows the matches and their size; the flat view says Session.
  keys('/');
  await new Promise((r) => setTimeout(r, 200));
  keys('-l', 'bench');
  keys('Enter');
  const filtered = await waitFor(/\d+ of [\d,]+ sessions · [\d.]+ [KMG]?B/);
  expect(filtered).toContain('Project / session');
  check();
  keys('t');
  const flat = await waitFor(/^List /m);
  expect(flat).toMatch(/^ {4}Session\s/m);
  expect(flat).not.toContain('Project / session');
  check();
  keys('w');
  await waitFor(/Warnings \(\d+\)/);
  await closeDialog();
  for (const tab of ['3', '4', '5', '6']) {
    keys(tab);
    await new Promise((r) => setTimeout(r, 300));
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
    it(`80×24 under TERM=${term}: warnings view, reverse sort, filtered totals, no black text`, async () => {
      start(term, 80, 24);
      await journey(80, 24, false);
    }, 90_000);
  }

  it('100×30 with NO_COLOR under tmux-256color: no colour at all', async () => {
    start('tmux-256color', 100, 30, { NO_COLOR: '1' });
    await journey(100, 30, true);
  }, 90_000);
});

describe('Backups tab in tmux', () => {
  it('a verify that ends leaves its outcome in the footer, not "Verifying…"', async () => {
    const PASS = 'correct horse battery staple';
    const test = { CLEANERX_TEST_MODE: '1', CLEANERX_SCRYPT_LOG_N: '12' };
    const manifest = buildPiFixture({ agentDir: t.env.PI_CODING_AGENT_DIR!, projects: 1, sessionsPerProject: 3, forkRate: 0, config: true, cwdRoot: join(t.env.HOME!, 'src') });
    targetAgent(t, 'pi');
    const victim = manifest.sessions.find((x) => x.kind === 'root')!;
    const clean = spawnSync(process.execPath, [CLI, 'clean', '--agent', 'pi', '--backup', '--yes', '--id', victim.id], { env: { ...t.env, ...test }, input: `${PASS}\n`, encoding: 'utf8', timeout: 60_000 });
    expect(clean.status, clean.stderr).toBe(0);
    start('tmux-256color', 80, 24, test, []);
    await waitFor(/Agent \[pi/, 40_000);
    keys('5');
    await waitFor(/^ {4}\d{4}-\d\d-\d\d .* pi /m);
    keys('v');
    await waitFor(/Passphrase to verify/);
    keys('-l', PASS);
    keys('Enter');
    const done = await waitFor(/Backup verified/, 30_000);
    expect(done).toMatch(/The 1 entry|All \d+ entries/);
    expect(done).not.toMatch(/Verifying/);
    expect(done).toMatch(/Backup [0-9a-f]{8} verified\./);
    checkInvariants(80, false);
    keys('Escape');
    await waitForNot(/Backup verified\s/);
    expect(plain()).not.toMatch(/Verifying/);
    await quit();
  }, 120_000);
});
