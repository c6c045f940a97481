// The agent's own sweep in the detail pane at 80×24 in real tmux: a Claude
// session's detail says on which date Claude deletes its transcript
// (cleanupPeriodDays from settings.json), wrapped inside the pane; the
// screen invariants run after every step. settings.json is left as it was.

import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatDate } from '../../src/engine/core/format.js';
import { KEYS, openApp, type ScreenDriver, TMUX_80x24 } from '../helpers/app-screen.js';
import { fakeAgentBins, makeTempEnv, targetAgent, type TempEnv } from '../helpers/temp-env.js';
import { budget } from '../helpers/budget.js';

const DAY = 86_400_000;
const SETTINGS = '{\n  "model": "opus",\n  "cleanupPeriodDays": 21\n}\n';
let t: TempEnv;
let s: ScreenDriver | null = null;
let due = '';

beforeEach(() => {
  t = makeTempEnv();
  const home = t.env.CLAUDE_CONFIG_DIR!;
  const proj = join(home, 'projects', '-work-app');
  mkdirSync(proj, { recursive: true });
  const id = randomUUID();
  const file = join(proj, `${id}.jsonl`);
  writeFileSync(file, JSON.stringify({ type: 'user', sessionId: id, cwd: '/work/app', message: { role: 'user', content: 'tidy the build' } }) + '\n');
  const mtime = Math.floor((Date.now() - 5 * DAY) / 60_000) * 60_000;
  utimesSync(file, mtime / 1000, mtime / 1000);
  due = formatDate(mtime + 21 * DAY);
  writeFileSync(join(home, 'settings.json'), SETTINGS);
  fakeAgentBins(t, { claude: '2.1.332 (Claude Code)' });
  targetAgent(t, 'claude');
});

afterEach(() => {
  t.cleanup();
});

describe("Claude's own sweep in the detail pane", () => {
  it('80×24: "Claude deletes this transcript on DATE"', { timeout: budget(60_000) }, async () => {
    s = openApp({ terminal: TMUX_80x24, args: [], env: t.env });
    await s.waitFor(/Agent \[Claude Code\]/, 15000);
    s.press('2');
    await s.waitFor(/\d+ sessions? · /);
    s.press('j');
    await s.waitFor(/Identifier/);
    s.press(KEYS.tab);
    await s.waitFor(/^ Details › /m);
    for (let i = 0; i < 30 && !/Agent's own cleanup/.test(s.text()); i++) {
      s.press('j');
      await s.waitSettled();
    }
    await s.waitFor("Agent's own cleanup");
    for (let i = 0; i < 6; i++) {
      s.press('j');
      await s.waitSettled();
    }
    // The sentence wraps inside the pane: join the pane's lines and look for it whole.
    const flat = s.text().replace(/\s+/g, ' ');
    expect(flat).toContain('Claude deletes this transcript on');
    expect(flat).toContain(due.slice(0, 10));
    expect(flat).toContain('cleanupPeriodDays 21 in settings.json');
    expect(readFileSync(join(t.env.CLAUDE_CONFIG_DIR!, 'settings.json'), 'utf8')).toBe(SETTINGS);
  });
});
