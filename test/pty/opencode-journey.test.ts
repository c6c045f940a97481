// OpenCode as a user meets it, with the real `opencode` 1.18.33 on PATH:
// mark a root session, review (OpenCode's own route, its descendants
// listed), back up, type delete — the root's subtree leaves through
// OpenCode and nothing else in the database changes; then the Backups tab
// restores the same sessions through `opencode import`.

import { dirname } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { OpencodeFixtureManifest } from '../../src/adapters/opencode/fixture.js';
import { KEYS, openPty, type PtyScreen } from '../helpers/app-screen.js';
import { TEST_PASSPHRASE } from '../helpers/constants.js';
import { buildStore, expectOnlyRemoved, makeTemplate, OPENCODE_BIN, opencodeEnv, sessionRows, type Template } from '../helpers/opencode.js';
import { makeTempEnv, targetAgent, type TempEnv } from '../helpers/temp-env.js';
import { budget } from '../helpers/budget.js';

const PASS = TEST_PASSPHRASE;

let template: Template;
beforeAll(async () => {
  template = await makeTemplate();
}, budget(180_000));
afterAll(() => template?.cleanup());

let t: TempEnv;
let pty: PtyScreen | null = null;
afterEach(() => {
  t?.cleanup();
});

/** The marked root: the removed rows must be exactly one root and its descendants. */
function removedScope(m: OpencodeFixtureManifest, removed: string[]): string {
  const root = removed.find((id) => m.sessions.find((s) => s.id === id)?.parentId === null);
  expect(root, `removed: ${removed.join(', ')}`).toBeTruthy();
  expect([...removed].sort()).toEqual([root!, ...m.descendants.get(root!)!].sort());
  return root!;
}

it(
  'mark a root → review with backup → clean through OpenCode → Backups tab → restore through import',
  async () => {
    t = makeTempEnv('cleanerx-oc-journey-');
    const m = buildStore(t, template, { git: true, projects: 1, rootsPerProject: 3, messagesPerSession: 2 });
    targetAgent(t, 'opencode');
    const env = { ...opencodeEnv(t), PATH: `${dirname(OPENCODE_BIN)}:/usr/bin:/bin`, CLEANERX_TEST_MODE: '1', CLEANERX_SCRYPT_LOG_N: '12' };
    const rows0 = sessionRows(t);

    pty = openPty({ args: [], env: env, cols: 110, rows: 32 });
    await pty.waitFor('Sessions (', 15_000);
    pty.press('2');
    await pty.waitForLine(/^\[ \]   /, 15_000);
    pty.press('j', KEYS.space);
    await pty.waitFor(/1 marked · /);
    const marked = pty.lines().find((l) => l.startsWith('[x]'))!;
    expect(marked, pty.text()).toBeTruthy();

    pty.press('x');
    await pty.waitFor('Review cleanup');
    await pty.waitFor("OpenCode's own delete route");
    pty.press('b');
    await pty.waitFor('Backup: on');
    pty.type('delete');
    pty.press(KEYS.enter);
    await pty.waitFor('New backup key passphrase (8+ characters):');
    pty.type(PASS);
    pty.press(KEYS.enter);
    await pty.waitFor('Repeat the passphrase:');
    pty.type(PASS);
    pty.press(KEYS.enter);
    await pty.waitFor('Cleanup complete', 120_000);
    const backupLine = await pty.waitForLine(/Backup [0-9a-f-]{36} is verified/);
    const backupId = /Backup ([0-9a-f-]{36})/.exec(backupLine)![1]!;

    const rows1 = sessionRows(t);
    const removed = [...rows0.keys()].filter((id) => !rows1.has(id));
    const root = removedScope(m, removed);
    expect(marked).toContain(m.sessions.find((s) => s.id === root)!.title.slice(0, 20));
    expectOnlyRemoved(rows0, rows1, removed);

    pty.press(KEYS.enter);
    await pty.waitForNot('Cleanup complete');
    pty.press('5');
    await pty.waitForLine(new RegExp(`OpenCode\\s+${removed.length}\\s+.*${backupId.slice(0, 8)}`));
    pty.press(KEYS.enter);
    await pty.waitFor('Passphrase to restore:');
    pty.type(PASS);
    pty.press(KEYS.enter);
    await pty.waitFor(new RegExp(`Restore ${removed.length} sessions .* into OpenCode\\? Type restore:`), 30_000);
    expect(sessionRows(t).has(root)).toBe(false);
    pty.type('restore');
    pty.press(KEYS.enter);
    await pty.waitFor('Restore complete', 120_000);
    await pty.waitFor(`${removed.length} sessions are back`);
    const rows2 = sessionRows(t);
    for (const id of removed) expect(rows2.get(id), id).toEqual(rows0.get(id));
    expect(rows2.size).toBe(rows0.size);

    pty.press(KEYS.enter);
    await pty.waitForNot('Restore complete');
    pty.press('q');
    expect(await pty.waitExit()).toBe(0);
  },
  budget(400_000),
);
