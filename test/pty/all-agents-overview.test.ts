// The Overview's all-agents view (#28.2) under real tmux at 80×24 with
// TERM=tmux-256color, on the demo's data: the agents not yet scanned are
// scanned in the background (their rows say so until their figures come),
// every agent's bytes on disk, reclaimable and suggested fit the screen, and
// S marks the suggested plan and opens the one review; confirming it frees
// the Claude temp output the plan named and nothing the plan did not.

import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createDemoHome } from '../../src/demo/demo-home.js';
import { KEYS, openTmux, type TmuxScreen } from '../helpers/app-screen.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';
import { writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { CLI } from '../helpers/constants.js';
import { budget } from '../helpers/budget.js';

let t: TempEnv;
let s: TmuxScreen | null = null;
afterEach(() => {
  s?.dispose();
  s = null;
  t?.cleanup();
});

it('scans every agent in the background, fits 80×24, and S reviews the suggested plan', { timeout: budget(300_000) }, async () => {
  t = makeTempEnv('cleanerx-all-agents-');
  const tmp = join(t.root, 'tmp');
  mkdirSync(tmp);
  const demo = await createDemoHome(Date.now(), undefined, tmp);
  // The app opens on Claude Code, whose temp output is the suggested plan's largest row.
  writeFileSync(join(demo.env.CLEANERX_CONFIG_DIR!, 'config.json'), JSON.stringify({ version: 1, targetAgent: 'claude', homeOverrides: {} }));
  const env = { ...t.env, ...demo.env, PATH: '/usr/bin:/bin' };
  const scan = spawnSync(process.execPath, [CLI, 'scan', '--agent', 'claude', '--json'], { env, encoding: 'utf8', timeout: budget(120_000) });
  expect(scan.status, scan.stderr).toBe(0);
  const temp = (JSON.parse(scan.stdout).agents[0].items as { id: string; paths: string[] }[]).find((i) => i.id === 'claude-temp')!;
  expect(temp.paths.length).toBeGreaterThan(0);

  s = openTmux({ args: [], env, cols: 80, rows: 24 });
  await s.waitFor(/Agent \[Claude Code/, 60_000);
  await s.waitFor('Sessions (', 60_000);
  s.press('1');
  await s.waitSettled();
  s.press('a');
  await s.waitFor(/All agents · /, 30_000);
  // Until its figures come, an agent's row says it is being scanned (or waits its turn).
  await s.waitForNot(/scanning in the background|waiting for its scan/, 180_000);
  await s.waitSettled(60_000);
  const view = s.text();
  for (const name of ['Codex', 'Claude Code', 'OpenCode', 'pi']) expect(view).toMatch(new RegExp(`^ ${name} +[\\d.]+ [KMG]?B +[\\d.]+ [KMG]?B`, 'm'));
  expect(view).toMatch(/All agents · on disk [\d.]+ [KMG]?B · reclaimable now [\d.]+ [KMG]?B · suggested [\d.]+ [KMG]?B/);
  expect(view).toMatch(/Suggested plan: the safe and regenerable bytes/);
  expect(view).toMatch(/Claude Code +Claude Code temp files +[\d.]+ MB regenerable/);
  expect(view).toMatch(/Largest across agents/);
  // The footer names the keys of this view.
  expect(view).toMatch(/a all agents +S suggested plan/);

  const before = hashTree(demo.root, [demo.env.XDG_STATE_HOME!, join(demo.root, 'run')]);
  s.press('S');
  await s.waitFor('Review cleanup', 60_000);
  // One review of the suggested items of every agent (the agents the app had not scanned itself are fetched first).
  expect(s.text()).toMatch(/[234] agents · \d+ items · estimated reclaimed/);
  s.type('delete');
  s.press(KEYS.enter);
  const result = await s.waitFor('Cleanup complete', 120_000);
  expect(result).toMatch(/Claude Code: Removed \d+ items?/);
  s.press(KEYS.enter);
  await s.waitForNot('Cleanup complete');
  for (const p of temp.paths) expect(existsSync(p)).toBe(false);
  // What changed lies in the agents' homes and Claude's temp root, nowhere else (never a project's source tree).
  const rel = (p: string): string => p.slice(demo.root.length + 1);
  const homes = [demo.env.CLAUDE_CONFIG_DIR!, demo.env.CODEX_HOME!, demo.env.PI_CODING_AGENT_DIR!, join(demo.env.XDG_DATA_HOME!, 'opencode')].map(rel);
  const tempRoot = temp.paths.map(rel);
  const changed = treeDiff(before, hashTree(demo.root, [demo.env.XDG_STATE_HOME!, join(demo.root, 'run')])).map((d) => d.replace(/^\w+ /, ''));
  expect(changed.length).toBeGreaterThan(0);
  expect(changed.filter((c) => !homes.some((h) => c.startsWith(`${h}/`)) && !tempRoot.some((r) => c === r || c.startsWith(`${r}/`)))).toEqual([]);
  // The view's figures follow the cleanup: the temp output is no longer suggested.
  await s.waitForNot(/Claude Code +Claude Code temp files/, 60_000);
});
