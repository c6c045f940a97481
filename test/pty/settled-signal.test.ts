// The "settled" signal (CLEANERX_SETTLED_FILE): a line arrives after start
// and after each key whose answer comes from the engine, and never while
// that answer is on its way — when a line is there, the screen already
// shows what the engine answered.

import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildPiFixture, type PiFixtureManifest } from '../../src/adapters/pi/fixture.js';
import { PtyScreen } from '../helpers/pty-screen.js';
import { fakeAgentBins, makeTempEnv, targetAgent, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
let pty: PtyScreen | null = null;
let manifest: PiFixtureManifest;
let file: string;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function lines(): string[] {
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('settled '))
    : [];
}

/**
 * Waits for line number `n`; returns the screen as it is right after the
 * line was read (the frame was written before the line).
 */
async function waitLine(n: number, timeout = 15000): Promise<string> {
  const end = Date.now() + timeout;
  for (;;) {
    const got = lines();
    if (got.length >= n) {
      expect(got.slice(0, n)).toEqual(Array.from({ length: n }, (_, i) => `settled ${i + 1}`));
      await sleep(30); // the frame went out before the line; let the pty hand it over
      await pty!.waitFor(/\S/);
      return pty!.text();
    }
    if (Date.now() > end) throw new Error(`no "settled ${n}" line (${got.length} so far); screen:\n${pty!.text()}`);
    await sleep(10);
  }
}

beforeEach(() => {
  t = makeTempEnv();
  manifest = buildPiFixture({
    agentDir: t.env.PI_CODING_AGENT_DIR!,
    projects: 3,
    sessionsPerProject: 200,
    seed: 4,
    forkRate: 0.1,
    bodyBytes: 200,
    cwdRoot: join(t.env.HOME!, 'src'),
  });
  fakeAgentBins(t, { pi: '0.73.1' });
  mkdirSync(join(t.env.CLAUDE_CONFIG_DIR!, 'projects'), { recursive: true });
  targetAgent(t, 'pi');
  file = join(t.root, 'settled.log');
});

afterEach(() => {
  pty?.dispose();
  pty = null;
  t.cleanup();
});

describe('the settled signal', () => {
  it('arrives after start, after a page request and after a rescan, each time with the answer on screen', async () => {
    // A slowed scan (about two seconds): the app is busy long enough to be caught signalling too early.
    const env = { ...t.env, CLEANERX_TEST_MODE: '1', CLEANERX_TEST_SCAN_PAUSE_MS: '150', CLEANERX_SETTLED_FILE: file };
    pty = new PtyScreen([], env, 100, 30);
    pty.checkInvariants = false;

    // Start: nothing while the scan runs (the partial view is on screen, the final one not yet).
    await pty.waitFor(/partial view \(read-only until the scan finishes\)/, 15000);
    expect(lines()).toEqual([]);
    let screen = await waitLine(1);
    expect(screen).toContain(`Sessions (${manifest.sessions.length})`);
    expect(screen).not.toMatch(/Scanning…|Waiting for scan data|Detecting agents…/);
    expect(screen).toMatch(/^\[ \] /m);
    expect(screen).not.toMatch(/^ {2}…/m);
    await sleep(400);
    expect(lines()).toHaveLength(1); // idle stays one line: nothing new was rendered

    // A key that asks the engine for a new page (the flat list): the line comes with the page on screen.
    const tree = pty.text();
    pty.press('t');
    screen = await waitLine(2);
    expect(screen).not.toBe(tree);
    expect(screen).toMatch(/^\[ \] /m);
    expect(screen).not.toMatch(/^ {2}…/m);

    // A rescan: no line while it runs, one when its result is shown.
    pty.press('r');
    await pty.waitFor(/Scanning…/);
    expect(lines()).toHaveLength(2);
    screen = await waitLine(3);
    expect(screen).not.toMatch(/Scanning…/);
    expect(screen).toContain(`Sessions (${manifest.sessions.length})`);
    expect(screen).toMatch(/Last scan /);

    pty.press('q');
    expect(await pty.waitExit()).toBe(0);
  });
});
