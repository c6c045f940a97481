// The heart of the promise, as a user meets it: mark, review, type the
// confirmation, watch it go — then prove on disk that exactly the reviewed
// files are gone and every other byte is unchanged.

import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { buildPiFixture, type PiFixtureManifest } from '../../src/adapters/pi/fixture.js';
import { KEYS, openPty, type PtyScreen } from '../helpers/app-screen.js';
import { makeTempEnv, targetAgent, type TempEnv } from '../helpers/temp-env.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';

let t: TempEnv;
let pty: PtyScreen | null = null;
let manifest: PiFixtureManifest;

beforeEach(() => {
  t = makeTempEnv();
  manifest = buildPiFixture({
    agentDir: t.env.PI_CODING_AGENT_DIR!,
    projects: 2,
    sessionsPerProject: 4,
    forkRate: 0,
    config: true,
    cwdRoot: join(t.env.HOME!, 'src'),
  });
  targetAgent(t, 'pi');
});

afterEach(() => {
  t.cleanup();
});

it('removes exactly the reviewed sessions and nothing else', async () => {
  const own = [t.env.CLEANERX_STATE_DIR!, t.env.CLEANERX_CONFIG_DIR!];
  const before = hashTree(t.env.HOME!, own);
  pty = openPty({ args: [], env: t.env, cols: 100, rows: 30 });
  await pty.waitFor('Sessions (');
  pty.press('2');
  await pty.waitForLine(/^\[ \]   /);
  // Cursor on the first project row: move to its first session, mark two.
  pty.press('j', KEYS.space, KEYS.space);
  await pty.waitFor(/2 marked · /);
  const marked = pty
    .lines()
    .filter((l) => l.startsWith('[x]'))
    .map((l) => l.slice(6, 60).trim());
  expect(marked, pty.text()).toHaveLength(2);

  pty.press('x');
  await pty.waitFor('Review cleanup');
  await pty.waitFor('Irreversible');
  for (const m of marked) expect(pty.text()).toContain(m.slice(0, 30));
  // Enter on the untouched confirmation is Cancel: nothing happens.
  pty.press(KEYS.enter);
  await pty.waitForNot('Review cleanup');
  expect(pty.text()).toMatch(/2 marked · /);

  pty.press('x');
  await pty.waitFor('Review cleanup');
  pty.type('nope');
  pty.press(KEYS.enter);
  await pty.waitFor('type delete to confirm');
  for (let i = 0; i < 4; i++) pty.press(KEYS.backspace);
  pty.type('delete');
  pty.press(KEYS.enter);
  await pty.waitFor('Cleanup complete', 15000);
  await pty.waitFor('Removed 2 items');
  pty.press(KEYS.enter);
  await pty.waitFor(/Sessions \(\d+\)/);
  pty.press('q');
  expect(await pty.waitExit()).toBe(0);

  const after = hashTree(t.env.HOME!, own);
  // cleanerx's own state dir (and the parents it created) are the only additions allowed.
  const ownRel = own.map((o) => o.slice(t.env.HOME!.length + 1));
  const diff = treeDiff(before, after).filter((d) => !(d.startsWith('added ') && ownRel.some((o) => o.startsWith(d.slice(6)))));
  expect(diff, diff.join('\n')).toHaveLength(2);
  for (const d of diff) expect(d).toMatch(/^removed \.pi\/agent\/sessions\/--.*\.jsonl$/);
  // The removed files are the two marked sessions: their titles are in the transcripts' first prompts.
  const removedIds = diff.map((d) => d.replace(/^.*_(.*)\.jsonl$/, '$1')).sort();
  const markedIds = marked.map((title) => manifest.sessions.find((s) => (s.name ?? s.firstUser ?? '').startsWith(title.replace(/…$/, '')))!.id).sort();
  expect(removedIds).toEqual(markedIds);
});

it('--read-only offers no cleanup route at all', async () => {
  const before = hashTree(t.env.HOME!);
  pty = openPty({ args: ['--read-only'], env: t.env, cols: 100, rows: 30 });
  await pty.waitFor('Sessions (');
  pty.press('2');
  await pty.waitForLine(/^ -  /);
  pty.press('j', KEYS.space);
  await pty.waitFor('Read-only mode');
  pty.press('x');
  await pty.waitFor('no cleanup route is offered');
  pty.press(KEYS.esc);
  await pty.waitSettled();
  pty.press('q');
  expect(await pty.waitExit()).toBe(0);
  expect(treeDiff(before, hashTree(t.env.HOME!))).toEqual([]);
});
