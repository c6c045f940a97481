// The core journey — every tab, the detail pane, help, the review — in one
// terminal of the matrix (app-screen.ts fullMatrix), on a pi home of 3
// projects × 8 sessions with forks. The matrix is split by size over
// test/pty/terminals-<cols>x<rows>.test.ts: one file of fifteen journeys was
// the PTY tier's longest by far, and a file runs in one worker, so the tier
// could end no sooner than that file did.

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildPiFixture, type PiFixtureManifest } from '../../src/adapters/pi/fixture.js';
import { type Config, fullMatrix, KEYS, openApp } from './app-screen.js';
import { fakeAgentBins, makeTempEnv, targetAgent, type TempEnv } from './temp-env.js';

/** The pi home every terminal test starts from (a fresh one per test), with pi and Claude Code installed. */
export function usePiTerminalHome(): { readonly t: TempEnv; readonly manifest: PiFixtureManifest } {
  let t: TempEnv | undefined;
  let manifest: PiFixtureManifest | undefined;
  beforeEach(() => {
    t = makeTempEnv();
    manifest = buildPiFixture({
      agentDir: t.env.PI_CODING_AGENT_DIR!,
      projects: 3,
      sessionsPerProject: 8,
      seed: 5,
      forkRate: 0.5,
      config: true,
      cwdRoot: join(t.env.HOME!, 'src'),
    });
    fakeAgentBins(t, { pi: '0.73.1', claude: '2.1.332 (Claude Code)' });
    mkdirSync(join(t.env.CLAUDE_CONFIG_DIR!, 'projects'), { recursive: true });
  });
  afterEach(() => {
    t?.cleanup();
  });
  return {
    get t(): TempEnv {
      return t!;
    },
    get manifest(): PiFixtureManifest {
      return manifest!;
    },
  };
}

/** The core journey in every terminal of the matrix at `cols`×`rows`. */
export function coreJourneyAt(cols: number, rows: number): void {
  const home = usePiTerminalHome();
  const configs = fullMatrix().filter((c) => c.cols === cols && c.rows === rows);
  if (!configs.length) throw new Error(`no terminal of the matrix is ${cols}×${rows}`);
  describe('the core journey in every terminal', () => {
    for (const c of configs) it(c.name, { timeout: 90_000 }, () => coreJourney(c, home.t, home.manifest));
  });
}

async function coreJourney(c: Config, t: TempEnv, manifest: PiFixtureManifest): Promise<void> {
  targetAgent(t, 'pi');
  const s = openApp({ terminal: c, args: [], env: t.env });
  await s.waitFor(`Sessions (${manifest.sessions.length})`, 15000);
  await s.waitFor(/Agent \[pi\]/);
  s.press('1');
  await s.waitFor('All agents');
  s.press('2');
  await s.waitFor(/\d+ sessions\b/);
  s.press('j', 'j', KEYS.space);
  await s.waitFor(/1 marked · /);
  // The footer follows the focus: Tab to the detail pane, Down scrolls it and the footer still names it.
  s.press(KEYS.tab);
  await s.waitFor(/^ Details › /m);
  s.press(KEYS.down);
  await s.waitFor(/^ Details › /m);
  s.press(KEYS.esc);
  await s.waitFor(/^ Sessions › /m);
  s.press('a');
  await s.waitFor(/Marked \d+ sessions? in all sessions/);
  s.press('3');
  await s.waitFor('pi keeps no automatic memory');
  s.press('4');
  await s.waitFor('pi model catalog cache');
  s.press('5');
  await s.waitFor('Backup key');
  s.press('6');
  await s.waitFor(/OpenCode\s+Not detected/);
  s.press('2');
  await s.waitFor(/^ Sessions › /m);

  // Help scrolls inside its box and is never cut off.
  s.press('?');
  await s.waitFor(/^ Help › /m);
  // Page down until the last section shows (help grows with the keys it lists).
  for (let i = 0; i < 6 && !s.text().includes('Always'); i++) {
    s.press(KEYS.pageDown);
    await s.waitSettled();
  }
  await s.waitFor('Always');
  s.press(KEYS.esc);
  await s.waitForNot('┌─ Help');

  // The review: totals, backup line, warning and confirmation on screen (the invariants check them), the list scrolls.
  s.press('x');
  await s.waitFor('Type delete and Enter');
  await s.waitFor(/^ Review › /m);
  s.press(KEYS.pageDown);
  await s.waitFor(/Items \d+–\d+ of \d+/);
  s.type('del');
  await s.waitFor('│ > del');
  s.press(KEYS.esc);
  await s.waitForNot('Review cleanup');
  s.press('q');
  expect(await s.waitExit()).toBe(0);
}
