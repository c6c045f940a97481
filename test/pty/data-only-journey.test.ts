// A server where Claude Code and OpenCode were uninstalled but left their
// data (the likeliest thing to clean): pi is installed, the app opens on it,
// and `]` still reaches both. A Claude session goes by its path route; the
// OpenCode session delete, which needs OpenCode's own program, is shown
// disabled with its reason and the install command; the OpenCode cache (a
// path route) is cleaned. Under real tmux at 80×24 with TERM=tmux-256color.

import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { buildClaudeFixture } from '../../src/adapters/claude/fixture.js';
import { buildPiFixture } from '../../src/adapters/pi/fixture.js';
import { KEYS, openTmux, type TmuxScreen } from '../helpers/app-screen.js';
import { buildStore, cacheDir, makeTemplate, sessionRows, type Template } from '../helpers/opencode.js';
import { fakeAgentBins, makeTempEnv, targetAgent, type TempEnv } from '../helpers/temp-env.js';
import { budget } from '../helpers/budget.js';

let template: Template;
beforeAll(async () => {
  template = await makeTemplate();
}, budget(180_000));
afterAll(() => template?.cleanup());

let t: TempEnv;
let s: TmuxScreen | null = null;
afterEach(() => {
  s?.dispose();
  s = null;
  t?.cleanup();
});

it('reaches Claude Code and OpenCode by their data alone: a Claude session and the OpenCode cache are cleaned, the OpenCode session delete says why not', {
  timeout: budget(240_000),
}, async () => {
  t = makeTempEnv('cleanerx-dataonly-');
  buildPiFixture({
    agentDir: t.env.PI_CODING_AGENT_DIR!,
    projects: 1,
    sessionsPerProject: 2,
    seed: 3,
    forkRate: 0,
    config: true,
    cwdRoot: join(t.env.HOME!, 'src'),
  });
  const claude = buildClaudeFixture({
    configDir: t.env.CLAUDE_CONFIG_DIR!,
    projects: 1,
    sessionsPerProject: 2,
    seed: 4,
    hostile: false,
    cwdRoot: join(t.env.HOME!, 'code'),
  });
  buildStore(t, template, { projects: 1, rootsPerProject: 2, messagesPerSession: 1 });
  mkdirSync(join(cacheDir(t), 'bin'), { recursive: true });
  writeFileSync(join(cacheDir(t), 'bin', 'tool'), 'x'.repeat(8192));
  // Only pi is on PATH: claude and opencode are not installed.
  fakeAgentBins(t, { pi: '0.73.1' });
  targetAgent(t, 'pi');
  const rows0 = sessionRows(t);

  s = openTmux({ args: [], env: t.env, cols: 80, rows: 24 });
  await s.waitFor(/Agent \[pi\]/, 20_000);
  s.press(']');
  await s.waitFor(/Agent \[Claude Code \(data only\)\]/, 20_000);
  await s.waitFor('Sessions (', 20_000);
  s.press('2');
  await s.waitForLine(/^\[ \]   /, 20_000);
  s.press('j', KEYS.space);
  await s.waitFor(/1 marked · /);
  s.press('x');
  await s.waitFor('Review cleanup');
  s.type('delete');
  s.press(KEYS.enter);
  await s.waitFor('Cleanup complete', 30_000);
  s.press(KEYS.enter);
  await s.waitForNot('Cleanup complete');
  const gone = claude.sessions.filter((x) => !existsSync(x.file));
  expect(gone).toHaveLength(1);

  s.press(']');
  await s.waitFor(/Agent \[OpenCode \(data only\)\]/, 20_000);
  await s.waitFor('Sessions (', 20_000);
  s.press('2');
  // Not selectable: the row's mark column is "-", and the detail names the reason and the install command.
  await s.waitForLine(/^ -  /, 20_000);
  s.press('j');
  await s.waitFor('opencode executable was not found', 10_000);
  await s.waitSettled();
  s.press(KEYS.tab);
  for (let i = 0; i < 12 && !/npm i -g\s+opencode-ai/.test(s.text().replace(/\s+/g, ' ')); i++) {
    s.press('j');
    await s.waitSettled();
  }
  expect(s.text().replace(/\s+/g, ' ')).toMatch(/npm i -g opencode-ai/);
  s.press(KEYS.esc);
  s.press('4');
  await s.waitFor('OpenCode cache');
  // Move the cursor until the detail pane's title (a line of its own) is the cache, then mark it.
  const onCache = (): boolean => s!.lines().some((l) => l.trim() === 'OpenCode cache');
  s.press('g');
  await s.waitSettled();
  for (let i = 0; i < 30 && !onCache(); i++) {
    s.press('j');
    await s.waitSettled();
  }
  s.press(KEYS.space);
  await s.waitFor(/^\[x\].*OpenCode cache/m);
  expect(s.text()).toMatch(/^\[x\].*OpenCode cache/m);
  s.press('x');
  await s.waitFor('Review cleanup');
  s.type('delete');
  s.press(KEYS.enter);
  await s.waitFor('Cleanup complete', 30_000);
  expect(readdirSync(cacheDir(t))).toEqual([]);
  // The sessions, which only OpenCode may delete, are untouched.
  expect(sessionRows(t)).toEqual(rows0);
  s.press(KEYS.enter);
  s.press('q');
  expect(await s.waitExit()).toBe(0);
});
