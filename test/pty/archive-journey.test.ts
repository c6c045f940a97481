// Archive, as a user meets it in tmux at 80×24 on a Claude Code home:
// Sessions → A on a session → the review says "archive — frees 0 B,
// reversible" with no backup line and no delete word → type archive → the
// result; on disk only the session's archive mark changed. Then the archived
// filter (v) shows it, and A on it offers unarchive.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, expect, it } from 'vitest';
import { buildClaudeFixture, type ClaudeFixtureManifest } from '../../src/adapters/claude/fixture.js';
import { KEYS, openApp, TMUX_80x24 } from '../helpers/app-screen.js';
import { fakeAgentBins, makeTempEnv, targetAgent, type TempEnv } from '../helpers/temp-env.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';
import { budget } from '../helpers/budget.js';

let t: TempEnv;
let manifest: ClaudeFixtureManifest;

beforeEach(() => {
  t = makeTempEnv();
  manifest = buildClaudeFixture({ configDir: t.env.CLAUDE_CONFIG_DIR!, projects: 1, sessionsPerProject: 3, seed: 3, cwdRoot: join(t.env.HOME!, 'code') });
  fakeAgentBins(t, { claude: '2.1.332 (Claude Code)' });
  targetAgent(t, 'claude');
  return () => t.cleanup();
});

it(
  'archives the cursor session through the review, then offers unarchive on it',
  async () => {
    const own = [t.env.CLEANERX_STATE_DIR!, t.env.CLEANERX_CONFIG_DIR!, t.env.CLEANERX_DATA_DIR!].filter(Boolean);
    const before = hashTree(t.env.HOME!, own);
    const app = openApp({ env: t.env, terminal: TMUX_80x24 });
    await app.waitFor(/Agent \[Claude Code\]/);
    app.press('2');
    await app.waitFor(/^Roots /m);
    app.press('j');
    await app.waitFor(/Identifier\s+[0-9a-f]{8}-/);
    await app.waitSettled();
    const id = app.text().match(/Identifier\s+([0-9a-f-]{36})/)![1]!;
    const s = manifest.sessions.find((x) => x.id === id)!;
    expect(s.archived).toBe(false);

    app.press('A');
    await app.waitFor('Review archive');
    const review = await app.waitFor('archive — frees 0 B, reversible');
    expect(review).toContain('not needed');
    expect(review).not.toContain('Irreversible');
    expect(review).toContain('Type archive');
    app.type('archive');
    app.press(KEYS.enter);
    await app.waitFor(/Archived 1 session · 0 B freed/);
    await app.waitSettled();

    const mark = join(t.env.CLAUDE_CONFIG_DIR!, 'projects', s.bucket, s.id, 'archived.json');
    expect(existsSync(mark)).toBe(true);
    expect(JSON.parse(readFileSync(mark, 'utf8')).archived).toBe(true);
    const rel = mark.slice(t.env.HOME!.length + 1);
    // cleanerx's own state dir (and the dirs above it it creates) is not the agent's data.
    const ownParents = (l: string): boolean => own.some((d) => l.startsWith('added ') && `${d}/`.startsWith(`${join(t.env.HOME!, l.slice(6))}/`));
    const diff = treeDiff(before, hashTree(t.env.HOME!, own)).filter(
      (l) => l !== `added ${rel}` && l !== `added ${rel.slice(0, -'/archived.json'.length)}` && !ownParents(l),
    );
    expect(diff).toEqual([]);

    // Close the result, show archived rows only: the session is there with its mark; A offers unarchive.
    app.press(KEYS.esc);
    await app.waitSettled();
    app.press('v');
    await app.waitFor('archived only');
    await app.waitSettled();
    app.press('j');
    await app.waitFor(/Identifier\s+[0-9a-f]{8}-/);
    await app.waitSettled();
    app.press('A');
    await app.waitFor('unarchive — frees 0 B, reversible');
    app.press(KEYS.esc);
    await app.waitSettled();
  },
  budget(120_000),
);
