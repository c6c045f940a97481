// A user's journey through the real binary on a Claude Code home: open on
// the fixture, Sessions, move to a session and see its detail, preview its
// transcript, switch to Memory and preview a project's memory, quit.

import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildClaudeFixture, type ClaudeFixtureManifest } from '../../src/adapters/claude/fixture.js';
import { KEYS, openPty, type PtyScreen } from '../helpers/app-screen.js';
import { fakeAgentBins, makeTempEnv, targetAgent, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
let pty: PtyScreen | null = null;
let manifest: ClaudeFixtureManifest;

beforeEach(() => {
  t = makeTempEnv();
  manifest = buildClaudeFixture({
    configDir: t.env.CLAUDE_CONFIG_DIR!,
    projects: 4,
    sessionsPerProject: 3,
    seed: 5,
    hostile: true,
    cwdRoot: join(t.env.HOME!, 'code'),
  });
  fakeAgentBins(t, { claude: '2.1.332 (Claude Code)' });
  targetAgent(t, 'claude');
});

afterEach(() => {
  t.cleanup();
});

describe('Claude Code journey at 100×30', () => {
  it('browses sessions, shows a detail and a transcript preview, then a project memory, and quits', async () => {
    pty = openPty({ args: [], env: t.env, cols: 100, rows: 30 });
    await pty.waitFor(/Agent \[Claude Code\]/);
    await pty.waitFor(`Sessions (${manifest.sessions.length})`);

    pty.press('2');
    await pty.waitFor(/\d+ sessions · /);
    // The cursor starts on the first project (its detail shows); the next row is a session of it.
    await pty.waitFor('Project id');
    pty.press('j');
    await pty.waitFor(/Identifier\s+[0-9a-f]{8}-/);
    const shownId = pty.text().match(/Identifier\s+([0-9a-f-]{36})/)![1]!;
    const shown = manifest.sessions.find((s) => s.id === shownId)!;
    expect(shown).toBeDefined();
    // The row under the cursor carries the title /resume would show.
    expect(pty.text()).toContain(shown.expectedTitle.slice(0, 8));
    // Tab focuses the detail pane; j scrolls it down to the session's working dir.
    pty.press(KEYS.tab);
    await pty.waitFor(/^ Details › /m);
    for (let i = 0; i < 20 && !pty.text().includes('Working dir'); i++) {
      pty.press('j');
      await pty.waitSettled();
    }
    const detail = await pty.waitFor('Working dir');
    const cwd = (shown.cwd ?? 'No working directory').slice(0, 30);
    expect(detail.split('\n').find((l) => l.startsWith('Working dir'))).toMatch(new RegExp(`^Working dir\\s+${cwd.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));

    // The pane's table has no p: back to the list, whose p opens the preview.
    pty.press(KEYS.esc);
    await pty.waitFor(/^ Sessions › /m);
    pty.press('p');
    await pty.waitFor('Preview · the Claude transcript, read-only');

    pty.press('3');
    const mem = manifest.buckets.filter((b) => b.memory).length;
    await pty.waitFor('Automatic memory of Claude Code');
    await pty.waitForLine(/^\[ \] memory\s+\S.* memory\s+high\s/);
    const rows = pty.lines().filter((l) => /^\[ \] memory\s+\S.* memory\s+high\s/.test(l));
    expect(rows).toHaveLength(mem);
    expect(rows.some((l) => /Unlinked Claude project memory/.test(l))).toBe(true);
    pty.press('p');
    await pty.waitFor('MEMORY.md');
    await pty.waitFor('Preview · the memory file, read-only');

    pty.press('q');
    expect(await pty.waitExit()).toBe(0);
    const tail = pty.raw.slice(-400);
    expect(tail).toContain('\x1b[?1049l');
    expect(tail).toContain('\x1b[?25h');
  });

  it('shows an escape-laden title as inert text and filters to it', async () => {
    pty = openPty({ args: [], env: t.env, cols: 100, rows: 30 });
    await pty.waitFor(`Sessions (${manifest.sessions.length})`);
    pty.press('2');
    await pty.waitFor(/\d+ sessions · /);
    pty.press('/');
    pty.type('evil');
    pty.press(KEYS.enter);
    const line = await pty.waitForLine(/evil RED/);
    expect(line).toMatch(/evil RED title/);
    expect(pty.raw).not.toContain('\x1b]0;pwned');
    expect(pty.raw).not.toContain('\x1b[31mRED');
    expect(pty.titles.some((x) => x.includes('pwned'))).toBe(false);
    pty.press('q');
    expect(await pty.waitExit()).toBe(0);
  });
});
