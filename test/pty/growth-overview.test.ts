// The Overview's growth column and trend at 80×24 in real tmux, in colour and
// under NO_COLOR: the screen invariants (no wrapped or cut lines, the footer)
// run after every step; the trend is block characters, so it is there without
// colour too.

import { appendFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildPiFixture } from '../../src/adapters/pi/fixture.js';
import { ADAPTERS } from '../../src/adapters/registry.js';
import { Engine } from '../../src/engine/api/engine.js';
import { openApp, type ScreenDriver, TMUX_80x24 } from '../helpers/app-screen.js';
import { fakeAgentBins, makeTempEnv, targetAgent, type TempEnv } from '../helpers/temp-env.js';
import { budget } from '../helpers/budget.js';

const DAY = 86_400_000;
let t: TempEnv;
let s: ScreenDriver | null = null;

beforeEach(async () => {
  t = makeTempEnv();
  buildPiFixture({
    agentDir: t.env.PI_CODING_AGENT_DIR!,
    projects: 2,
    sessionsPerProject: 4,
    seed: 3,
    forkRate: 0,
    config: true,
    cwdRoot: join(t.env.HOME!, 'src'),
  });
  fakeAgentBins(t, { pi: '0.73.1' });
  // Two earlier scans (3 and 2 days ago), then a session grows by 250 kB.
  for (const ago of [3, 2]) {
    const engine = new Engine(ADAPTERS, { ...t.ctx, now: () => Date.now() - ago * DAY });
    await engine.scan('pi');
    await engine.close();
  }
  const dir = join(t.env.PI_CODING_AGENT_DIR!, 'sessions');
  const proj = readdirSync(dir).filter((d) => statSync(join(dir, d)).isDirectory())[0]!;
  const file = readdirSync(join(dir, proj)).find((f) => f.endsWith('.jsonl'))!;
  appendFileSync(join(dir, proj, file), (JSON.stringify({ type: 'custom', data: 'x'.repeat(990) }) + '\n').repeat(250));
});

afterEach(() => {
  t.cleanup();
});

describe('growth on the Overview at 80×24', () => {
  for (const noColor of [false, true]) {
    it(noColor ? 'NO_COLOR' : 'colour', { timeout: budget(60_000) }, async () => {
      targetAgent(t, 'pi');
      s = openApp({ terminal: TMUX_80x24, args: [], env: noColor ? { ...t.env, NO_COLOR: '1' } : t.env });
      await s.waitFor(/Agent \[pi\]/, 15000);
      s.press('1');
      await s.waitFor(/change since \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
      const sessions = await s.waitForLine(/^\s+Sessions\s/);
      expect(sessions).toMatch(/\+25\d\.\d kB|\+2\d\d kB|\+25\d kB/i);
      const trend = await s.waitForLine(/^\s+Trend\s/);
      expect(trend).toMatch(/[▁▂▃▄▅▆▇█]{3}/);
      expect(trend).toMatch(/over 3 scans since \d{4}-\d\d-\d\d/);
      for (const l of s.lines()) expect([...l].length).toBeLessThanOrEqual(80);
    });
  }
});
