// The residue result in the app (#29.1), under real tmux at 80×24
// (TERM=tmux-256color) with the real `opencode` 1.18.33: a session deleted
// through OpenCode's own route leaves its storage/session_diff/<id>.json, and
// the result dialog says so — the counts line, then "PARTIAL <title>:
// session_diff file (offered as an item now)", wrapped inside 80 columns,
// never cut.

import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { KEYS, openTmux, type TmuxScreen } from '../helpers/app-screen.js';
import { buildStore, dataDir, makeTemplate, OPENCODE_BIN, opencodeEnv, type Template } from '../helpers/opencode.js';
import { makeTempEnv, targetAgent, type TempEnv } from '../helpers/temp-env.js';
import { budget } from '../helpers/budget.js';
import { dialogText } from '../helpers/dialog-text.js';

let template: Template;
beforeAll(async () => {
  template = await makeTemplate();
}, budget(180_000));
afterAll(() => template?.cleanup());

let t: TempEnv;
let s: TmuxScreen;
afterEach(() => {
  s?.dispose();
  t?.cleanup();
});

const literal = (x: string): string => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

it(
  '80×24 in tmux: a cleanup whose agent leaves a surface behind shows PARTIAL naming it, inside 80 columns',
  async () => {
    t = makeTempEnv('cleanerx-res-dialog-');
    const m = buildStore(t, template, { projects: 1, rootsPerProject: 3, messagesPerSession: 2 });
    targetAgent(t, 'opencode');
    const leaf = m.sessions.find((x) => x.kind === 'root' && m.descendants.get(x.id)!.length === 0 && /^[\x20-\x7e]{8,}$/.test(x.title))!;
    expect(leaf, 'a root session without descendants').toBeTruthy();
    const diffs = join(dataDir(t), 'storage', 'session_diff');
    mkdirSync(diffs, { recursive: true });
    writeFileSync(join(diffs, `${leaf.id}.json`), '[{"file":"a.ts","additions":1,"deletions":0}]\n');
    const env = { ...opencodeEnv(t), PATH: `${dirname(OPENCODE_BIN)}:/usr/bin:/bin`, CLEANERX_TEST_MODE: '1' };

    s = openTmux({ args: [], env, cols: 80, rows: 24, term: 'tmux-256color' });
    await s.waitFor('Sessions (', 90_000);
    s.press('2');
    await s.waitForLine(/^\[ \] {3}/, 60_000);
    // Down to the session: the detail pane's first line is then its title.
    const title = new RegExp(`^${literal(leaf.title.slice(0, 40))}`);
    const on = (): boolean => s.lines().some((l) => title.test(l.trim()));
    for (let i = 0; i < 40 && !on(); i++) {
      s.press('j');
      await s.waitSettled(30_000);
    }
    expect(on(), s.text()).toBe(true);
    s.press(KEYS.space);
    await s.waitFor(/1 marked/);
    s.press('x');
    await s.waitFor('Review cleanup', 60_000);
    s.type('delete');
    s.press(KEYS.enter);
    const screen = await s.waitFor('Cleanup complete', 180_000);
    await s.waitFor(/Residue check/, 30_000);
    const lines = s.lines();
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(80);
    const flat = dialogText(lines);
    expect(flat, screen).toContain('Residue check: 0 complete, 1 partial.');
    expect(flat, screen).toMatch(new RegExp(`PARTIAL ${literal(leaf.title.slice(0, 20))}.*: session_diff file \\(offered as an item now\\)`));
    expect(flat).not.toMatch(/session_diff fi…|offered as an i…/);
    s.press(KEYS.enter);
    await s.waitForNot('Cleanup complete');
    s.press('q');
    expect(await s.waitExit(15_000)).toBe(0);
  },
  budget(420_000),
);
