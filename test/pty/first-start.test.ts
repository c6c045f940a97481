// A first start, several times over in both terminals: the Sessions tab's
// count comes with the scan, its first page a moment later (200–650 ms under
// load). Every step's redraw check waits for the app to settle, and once it
// has, the list shows the rows, never "Nothing matches" with "0 B".

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildPiFixture } from '../../src/adapters/pi/fixture.js';
import { openApp } from '../helpers/app-screen.js';
import { fakeAgentBins, makeTempEnv, targetAgent, type TempEnv } from '../helpers/temp-env.js';
import { budget } from '../helpers/budget.js';

const STARTS = 4;
const temps: TempEnv[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) t.cleanup();
});

describe('a first start shows the first page of sessions', () => {
  for (const terminal of ['headless', 'tmux'] as const) {
    it(`${terminal} 80×24, ${STARTS} starts`, { timeout: budget(120_000) }, async () => {
      for (let i = 0; i < STARTS; i++) {
        const t = makeTempEnv();
        temps.push(t);
        const m = buildPiFixture({
          agentDir: t.env.PI_CODING_AGENT_DIR!,
          projects: 3,
          sessionsPerProject: 8,
          seed: 5 + i,
          forkRate: 0.5,
          config: true,
          cwdRoot: join(t.env.HOME!, 'src'),
        });
        fakeAgentBins(t, { pi: '0.73.1' });
        mkdirSync(join(t.env.CLAUDE_CONFIG_DIR!, 'projects'), { recursive: true });
        targetAgent(t, 'pi');
        const s = openApp({ terminal, env: t.env, cols: 80, rows: 24 });
        // The step after this wait compares the screen with a redraw once the app is idle.
        await s.waitFor(`Sessions (${m.sessions.length})`, 20_000);
        const text = await s.waitSettled();
        expect(text, `start ${i + 1}`).not.toContain('Nothing matches');
        expect(text, `start ${i + 1}`).toMatch(new RegExp(`${m.sessions.length} sessions · (?!0 B)\\d`));
        expect(text, `start ${i + 1}`).toMatch(/▸|▾/);
        s.dispose();
      }
    });
  }
});
