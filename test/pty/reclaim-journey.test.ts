// The reclaim pass a user makes on a full disk (#25), with the real
// `opencode` 1.18.33 on PATH, under real tmux at 80×24 with
// TERM=tmux-256color: compact opencode.db, then git gc a snapshot repository,
// then read the Items tab again. After both, the live project's repository is
// still labelled with the undo its sessions would lose (the database is read
// after the compaction, never taken for empty), the gc promised what it
// freed, and every session is still there.

import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { KEYS, openTmux, type TmuxScreen } from '../helpers/app-screen.js';
import { buildStore, dataDir, makeTemplate, OPENCODE_BIN, opencodeEnv, sessionRows, type Template } from '../helpers/opencode.js';
import { makeTempEnv, targetAgent, type TempEnv } from '../helpers/temp-env.js';
import { age, duBytes, looseCount, makeSnapshotRepo, recordSnapshot } from '../peers/opencode-reclaim-store.js';
import { budget } from '../helpers/budget.js';
import { dialogText } from '../helpers/dialog-text.js';

let template: Template;
beforeAll(async () => {
  template = await makeTemplate();
}, budget(180_000));
afterAll(() => template?.cleanup());

let t: TempEnv;
let s: TmuxScreen | null = null;
let mounted: string | null = null;
afterEach(() => {
  s?.dispose();
  s = null;
  if (mounted) spawnSync('umount', [mounted]);
  mounted = null;
  t?.cleanup();
});

const UNIT: Record<string, number> = { B: 1, KB: 1e3, MB: 1e6, GB: 1e9 };
const bytes = (v: string): number => {
  const [n, u] = v.split(' ');
  return Number(n) * UNIT[u!]!;
};

/** Moves the cursor until the detail pane's title line is `title`, then marks it and runs the review. */
async function clean(screen: TmuxScreen, title: RegExp): Promise<string> {
  const on = (): boolean => screen.lines().some((l) => title.test(l.trim()));
  screen.press('g');
  await screen.waitSettled();
  for (let i = 0; i < 40 && !on(); i++) {
    screen.press('j');
    await screen.waitSettled();
  }
  expect(on(), screen.text()).toBe(true);
  screen.press(KEYS.space);
  await screen.waitFor(/1 marked/);
  screen.press('x');
  await screen.waitFor('Review cleanup');
  screen.type('delete');
  screen.press(KEYS.enter);
  await screen.waitFor('Cleanup complete', 120_000);
  const result = screen.text();
  screen.press(KEYS.enter);
  await screen.waitForNot('Cleanup complete');
  return result;
}

it('compact, then gc a snapshot repository: the live repository still says whose undo it holds', { timeout: budget(300_000) }, async () => {
  t = makeTempEnv('cleanerx-reclaim-');
  // A filesystem of its own when root, so what the disk gave back is ours alone (other tests write to /tmp meanwhile).
  mkdirSync(dataDir(t), { recursive: true });
  if (process.getuid?.() === 0 && spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=256m,mode=0700', 'tmpfs', dataDir(t)]).status === 0) mounted = dataDir(t);
  const m = buildStore(t, template, { git: true, projects: 1, rootsPerProject: 5, messagesPerSession: 40 });
  const p1 = m.projects[0]!;
  const live = m.sessions.filter((x) => x.projectId === p1.id);
  // Free pages, as OpenCode's own delete leaves them: two childless roots go (their rows cascade).
  const gone = live.filter((x) => x.kind === 'root' && m.descendants.get(x.id)!.length === 0).slice(0, 2);
  expect(gone).toHaveLength(2);
  const d = new Database(t.env.OPENCODE_DB!);
  d.pragma('foreign_keys = ON');
  for (const g of gone) d.prepare('DELETE FROM session WHERE id = ?').run(g.id);
  d.close();
  const left = live.filter((x) => !gone.includes(x));
  // The project's snapshots: two referenced by live sessions, the rest loose and hours old.
  const repo = makeSnapshotRepo(dataDir(t), p1.id, p1.worktree, 6);
  recordSnapshot(t.env.OPENCODE_DB!, left[0]!.id, repo.trees[0]!);
  recordSnapshot(t.env.OPENCODE_DB!, left[1]!.id, repo.trees[1]!);
  for (const dir of readdirSync(join(repo.gitdir, 'objects')).filter((n) => /^[0-9a-f]{2}$/.test(n)))
    for (const f of readdirSync(join(repo.gitdir, 'objects', dir))) age(join(repo.gitdir, 'objects', dir, f), 3);
  // What OpenCode's last close leaves: everything checkpointed into the file, whose header then counts the free pages.
  const c = new Database(t.env.OPENCODE_DB!);
  c.pragma('wal_checkpoint(TRUNCATE)');
  expect(c.pragma('freelist_count', { simple: true })).toBeGreaterThan(0);
  c.close();
  const rows0 = sessionRows(t);
  targetAgent(t, 'opencode');
  const env = { ...opencodeEnv(t), PATH: `${dirname(OPENCODE_BIN)}:/usr/bin:/bin`, CLEANERX_TEST_MODE: '1' };

  s = openTmux({ args: [], env, cols: 80, rows: 24 });
  await s.waitFor(/Agent \[OpenCode/, 30_000);
  await s.waitFor('Sessions (', 30_000);
  s.press('4');
  await s.waitFor('OpenCode logs', 30_000);
  await clean(s, /^Compact the OpenCode database/);

  const before = duBytes(repo.gitdir);
  const gcResult = await clean(s, /^Compact OpenCode snapshots \(git gc\)/);
  // The promise is what the repository gave back (within 10%), measured in the repository itself.
  // The result dialog wraps its sentences: read them as one text, without the box.
  const flat = dialogText(gcResult.split('\n'));
  const figures = /Promised ([\d.]+ [KMG]?B) · freed ([\d.]+ [KMG]?B) on disk \(measured; removed data took ([\d.]+ [KMG]?B)\)/.exec(flat);
  expect(figures, gcResult).toBeTruthy();
  const [promised, freed, took] = figures!.slice(1).map(bytes);
  expect(Math.abs(promised! - took!)).toBeLessThanOrEqual(0.1 * took!);
  // On a filesystem nothing else writes, the disk agrees, and no other process is blamed.
  if (mounted) {
    expect(Math.abs(took! - freed!)).toBeLessThanOrEqual(0.1 * freed!);
    expect(gcResult).not.toMatch(/another process/i);
  }
  expect(looseCount(repo.gitdir)).toBe(0);
  expect(duBytes(repo.gitdir)).toBeLessThan(before);

  // The rescan after both: the repository of the live project names the undo its sessions would lose.
  const label = new RegExp(`undo lost for ${left.length} sessions`);
  s.press('g');
  await s.waitSettled();
  const seen = (): boolean => label.test(s!.text());
  for (let i = 0; i < 40 && !seen(); i++) {
    s.press('j');
    await s.waitSettled();
  }
  expect(s.text(), s.text()).toMatch(label);
  expect(s.text()).not.toMatch(/no session left|sessions unknown/);
  // Every session is still there, byte for byte in its rows.
  expect(sessionRows(t)).toEqual(rows0);
  s.press('q');
  expect(await s.waitExit()).toBe(0);
});
