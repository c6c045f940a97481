// One review for everything marked (#28.1), as a user meets it under real
// tmux at 80×24 (TERM=tmux-256color): a home with Codex (the real pinned
// App Server on PATH), Claude Code and pi; a session marked in each, the
// agents switched back and forth (the marks stay, a visited agent is not
// scanned again), one review with the three groups, one confirmation, one
// result naming the three agents. Then on disk: exactly the marked sessions
// are gone and every other byte is the same.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { buildClaudeFixture } from '../../src/adapters/claude/fixture.js';
import { buildPiFixture } from '../../src/adapters/pi/fixture.js';
import { KEYS, openTmux, type TmuxScreen } from '../helpers/app-screen.js';
import { buildStore, CODEX_BIN, rawClient, serverListing } from '../helpers/codex.js';
import { fakeAgentBins, makeTempEnv, targetAgent, type TempEnv } from '../helpers/temp-env.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';
import { budget } from '../helpers/budget.js';

let t: TempEnv;
let s: TmuxScreen | null = null;
afterEach(() => {
  s?.dispose();
  s = null;
  t?.cleanup();
});

/** How many scans the app started (its perf log: one `scanStart` line each). */
const scansStarted = (log: string): number =>
  readFileSync(log, 'utf8')
    .split('\n')
    .filter((l) => l.includes('"e":"scanStart"')).length;

/** The id in the detail pane of the row under the cursor (the end of it, as the pane shows it at 80 columns). */
const shownId = (screen: TmuxScreen): string => /(?:Identifier|Id)\s+(\S+)/.exec(screen.text())?.[1] ?? '';

/** Marks the first session of the first project and returns its detail pane's id. */
async function markFirst(screen: TmuxScreen): Promise<string> {
  await screen.waitForLine(/^\[ \]/, 60_000);
  screen.press('g', 'j');
  await screen.waitFor(/(Identifier|Id)\s+\S+/, 30_000);
  await screen.waitSettled();
  const id = shownId(screen);
  screen.press(KEYS.space);
  await screen.waitFor(/^\[x\]/m);
  return id;
}

it('80×24 in tmux: marks in three agents survive switching, one review groups them, one confirmation, one result; exactly the marked are gone', {
  timeout: budget(420_000),
}, async () => {
  t = makeTempEnv('cleanerx-review-all-');
  const codex = buildStore(t, { threads: 4, subagentRate: 0, archivedRate: 0, malformed: false, extras: false });
  buildClaudeFixture({ configDir: t.env.CLAUDE_CONFIG_DIR!, projects: 2, sessionsPerProject: 2, seed: 5, cwdRoot: join(t.env.HOME!, 'code') });
  buildPiFixture({ agentDir: t.env.PI_CODING_AGENT_DIR!, projects: 2, sessionsPerProject: 2, forkRate: 0, config: true, cwdRoot: join(t.env.HOME!, 'src') });
  fakeAgentBins(t, { claude: '2.1.332 (Claude Code)' });
  targetAgent(t, 'pi');
  const perf = join(t.root, 'perf.jsonl');
  const env = { ...t.env, PATH: `${dirname(CODEX_BIN)}:${t.env.PATH}`, CLEANERX_PERF_LOG: perf, TMPDIR: t.root };
  const own = [t.env.CLEANERX_STATE_DIR!, t.env.CLEANERX_CONFIG_DIR!, t.env.CLEANERX_DATA_DIR!];
  // Codex's App Server keeps its own state beside the rollouts (its database, logs, the index it rewrites on a delete):
  // those are checked through Codex's own listing below; every rollout file is held to its bytes.
  const codexHome = t.env.CODEX_HOME!;
  const codexOwn = ['sqlite', 'state_5.sqlite', 'logs_2.sqlite', 'log', 'session_index.jsonl', '.tmp', 'tmp', 'shell_snapshots'].map((p) => join(codexHome, p));
  const before = hashTree(t.env.HOME!, [...own, ...codexOwn]);

  s = openTmux({ args: [], env, cols: 80, rows: 24, term: 'tmux-256color' });
  await s.waitFor(/Agent \[pi[\] ]/, 60_000);
  s.press('2');
  const piId = await markFirst(s);
  await s.waitFor(/1 marked · /);

  s.press(']');
  await s.waitFor(/Agent \[Codex[\] ]/, 30_000);
  const codexId = await markFirst(s);
  await s.waitFor(/2 marked in 2 agents/, 30_000);

  s.press(']');
  await s.waitFor(/Agent \[Claude Code[\] ]/, 30_000);
  const claudeId = await markFirst(s);
  await s.waitFor(/3 marked in 3 agents/, 30_000);
  await s.waitSettled();
  const scans = scansStarted(perf);
  expect(scans, 'each agent scanned once so far').toBe(3);

  // Back to Codex and to pi: the kept scan and the marks at once, no scan started (a Codex scan is seconds).
  for (const [name, id] of [
    ['Codex', codexId],
    ['pi', piId],
  ] as const) {
    s.press('[');
    await s.waitFor(new RegExp(`Agent \\[${name}[\\] ]`), 30_000);
    await s.waitFor(/^\[x\]/m, 10_000);
    await s.waitSettled();
    expect(s.text()).not.toMatch(/Scanning/);
    expect(s.text()).toMatch(/1 marked · .* · 3 marked in 3 agents/);
    expect(id.length, s.text()).toBeGreaterThan(3);
  }
  expect(scansStarted(perf), 'no visited agent was scanned again').toBe(scans);

  s.press('x');
  await s.waitFor('Review cleanup', 60_000);
  await s.waitFor(/│ 3 agents · 3 items · estimated reclaimed/);
  const review: string[] = [s.text()];
  // The groups scroll between the fixed lines at 80×24: page through them.
  for (let i = 0; i < 3; i++) {
    s.press(KEYS.pageDown);
    await s.waitSettled();
    review.push(s.text());
  }
  const seen = review.join('\n');
  for (const name of ['Codex', 'Claude Code', 'pi']) expect(seen, seen).toMatch(new RegExp(`│ ${name} · 1 item · estimated reclaimed`));
  expect(seen).toMatch(/Irreversible/);
  s.type('delete');
  s.press(KEYS.enter);
  await s.waitFor('Cleanup complete', 240_000);
  const result = s.text();
  for (const name of ['Codex', 'Claude Code', 'pi']) expect(result, result).toMatch(new RegExp(`${name}: Removed 1 item`));
  s.press(KEYS.enter);
  await s.waitForNot('Cleanup complete');
  await s.waitFor(/Agent \[pi[\] ]/);
  expect(s.text()).not.toMatch(/marked/);
  s.press('q');
  expect(await s.waitExit(15_000)).toBe(0);

  const after = hashTree(t.env.HOME!, [...own, ...codexOwn]);
  const ownRel = own.map((o) => o.slice(t.env.HOME!.length + 1));
  // Added: cleanerx's own dirs, and what Codex's App Server creates for itself on its first start (its databases, skills).
  const diff = treeDiff(before, after).filter(
    (d) => !(d.startsWith('added ') && (ownRel.some((o) => o.startsWith(d.slice(6))) || d.startsWith('added .codex/'))),
  );
  // Only removals, each of one of the three marked sessions.
  const tail = (id: string): string => id.replace(/^…/, '');
  for (const d of diff) expect(d, diff.join('\n')).toMatch(/^removed /);
  const ofSession = (id: string): string[] => diff.filter((d) => d.includes(tail(id)));
  expect(ofSession(piId), diff.join('\n')).toHaveLength(1);
  // Codex's own delete takes the thread's rollout and its attachments; Claude's route the transcript and its sidecars.
  expect(
    ofSession(codexId).filter((d) => /^removed \.codex\/sessions\/.*rollout-.*\.jsonl$/.test(d)),
    diff.join('\n'),
  ).toHaveLength(1);
  expect(
    ofSession(claudeId).filter((d) => /^removed \.claude\/projects\/.*\.jsonl$/.test(d)),
    diff.join('\n'),
  ).toHaveLength(1);
  expect(diff.filter((d) => ![piId, codexId, claudeId].some((id) => d.includes(tail(id))))).toEqual([]);

  // Codex's own listing: the marked thread gone, every other one still there.
  const c = await rawClient(t);
  try {
    const left = new Set((await serverListing(c)).map((x) => x.id));
    const gone = codex.threads.filter((x) => !left.has(x.id));
    expect(gone.map((x) => x.id)).toHaveLength(1);
    expect(gone[0]!.id).toContain(tail(codexId));
  } finally {
    await c.close();
  }
});
