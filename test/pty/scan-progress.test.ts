// Rows while the scan runs: a slowed scan (test-only pause) shows a partial,
// read-only view labelled as scanning, refuses marks, and is replaced by the
// complete view when the scan finishes.

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildPiFixture, type PiFixtureManifest } from '../../src/adapters/pi/fixture.js';
import { KEYS, openPty, type PtyScreen } from '../helpers/app-screen.js';
import { fakeAgentBins, makeTempEnv, targetAgent, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
let pty: PtyScreen | null = null;
let manifest: PiFixtureManifest;

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
});

afterEach(() => {
  t.cleanup();
});

describe('first rows during a slow scan', () => {
  it('shows a partial read-only view before the scan finishes, then the complete one', async () => {
    // 600 sessions with a 150 ms pause every 50 files: the scan takes about two seconds.
    pty = openPty({ args: [], env: { ...t.env, CLEANERX_TEST_MODE: '1', CLEANERX_TEST_SCAN_PAUSE_MS: '150' }, cols: 100, rows: 30 });
    await pty.waitFor(/Scanning… partial, read-only/);
    await pty.waitFor(/partial view \(read-only until the scan finishes\)/);
    // Session rows are on screen (not selectable: " -  ") while the tab's count is still provisional.
    await pty.waitForLine(/^ - {4}\S/);
    const tab = pty.text().match(/Sessions \(([\d,]+)…\)/);
    expect(tab).not.toBeNull();
    expect(Number(tab![1]!.replace(/,/g, ''))).toBeLessThan(manifest.sessions.length);
    pty.press('j', KEYS.space);
    await pty.waitFor(/Still scanning: marks are available when the scan finishes/);

    // The final view replaces it: full count, markable rows, no scanning label.
    await pty.waitFor(`Sessions (${manifest.sessions.length})`, 15000);
    await pty.waitForNot(/Scanning… partial/);
    await pty.waitForLine(/^\[ \] /);
    pty.press(KEYS.space);
    await pty.waitFor(/1 marked · /);
    pty.press('q');
    expect(await pty.waitExit()).toBe(0);
  });
});
