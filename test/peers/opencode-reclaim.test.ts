// Reclaim on a store the pinned opencode 1.18.33 made, through the real
// `cleanerx` binary: a snapshot repository whose project has no session left
// and the leaked temporaries of another are removed by the path transaction
// (everything else byte-identical); after OpenCode's own deletes of real
// sessions, opencode.db has free pages and the Compact item gives them back
// (blocked while OpenCode runs; rows and every other file unchanged).

import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { opencodeAdapter } from '../../src/adapters/opencode/index.js';
import { COMPACT_ITEM_ID, COMPACT_RUNNING_REASON } from '../../src/adapters/opencode/compact-item.js';
import { leakedItemId, repoItemId } from '../../src/adapters/opencode/snapshots.js';
import { readDbSpace } from '../../src/engine/host/db-space.js';
import { CLI } from '../helpers/constants.js';
import {
  buildStore,
  dataDir,
  expectOnlyRemoved,
  installation,
  makeTemplate,
  OPENCODE_BIN,
  opencodeEnv,
  sessionRows,
  type Template,
} from '../helpers/opencode.js';
import { fakeProcess, makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';
import { age, makeSnapshotRepo, recordSnapshot } from './opencode-reclaim-store.js';
import { budget } from '../helpers/budget.js';

let template: Template;
beforeAll(async () => {
  template = await makeTemplate();
}, budget(180_000));
afterAll(() => template?.cleanup());

let t: TempEnv;
afterEach(() => t?.cleanup());

function cleanerx(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const env = { ...opencodeEnv(t), PATH: `${dirname(OPENCODE_BIN)}:/usr/bin:/bin`, CLEANERX_TEST_MODE: '1' };
  const r = spawnSync(process.execPath, [CLI, ...args], { env, encoding: 'utf8', timeout: budget(240_000), killSignal: 'SIGKILL' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Everything a cleanup may not change: all but the named paths, the database's side files and cleanerx's own dirs. */
function outside(except: string[]): Map<string, string> {
  const db = t.env.OPENCODE_DB!;
  return hashTree(t.root, [
    ...except,
    `${db}-shm`,
    t.env.XDG_STATE_HOME!,
    join(t.env.XDG_DATA_HOME!, 'cleanerx'),
    join(t.root, 'tmp'),
    join(dataDir(t), 'log'),
  ]);
}

describe('OpenCode reclaim through cleanerx clean', () => {
  it(
    'removes a repository no session uses and the leaked temporaries of another; nothing else changes',
    async () => {
      t = makeTempEnv();
      const m = buildStore(t, template, { git: true, messagesPerSession: 2 });
      const p1 = m.projects[0]!;
      const s1 = m.sessions.find((s) => s.projectId === p1.id)!;
      const a = makeSnapshotRepo(dataDir(t), p1.id, p1.worktree, 2);
      recordSnapshot(t.env.OPENCODE_DB!, s1.id, a.trees[1]!);
      const leaked = join(a.gitdir, 'objects', 'pack', 'tmp_pack_Zx9');
      writeFileSync(leaked, Buffer.alloc(200_000, 1));
      age(leaked, 2);
      const gone = 'e'.repeat(40);
      const b = makeSnapshotRepo(dataDir(t), gone, join(t.root, 'work', 'gone'), 2);
      const repoId = repoItemId({ projectId: gone, hash: b.gitdir.split('/').pop()! });
      const leakId = leakedItemId({ projectId: p1.id, hash: a.gitdir.split('/').pop()! });
      const rows0 = sessionRows(t);
      const files0 = outside([b.gitdir, leaked]);

      const r = cleanerx(['clean', '--agent', 'opencode', '--id', repoId, '--id', leakId, '--yes']);
      expect(r.status, r.stderr + r.stdout).toBe(0);
      expect(r.stdout).toMatch(/Cleanup complete · 2 items/);
      expect(existsSync(b.gitdir)).toBe(false);
      expect(existsSync(leaked)).toBe(false);
      expect(existsSync(a.gitdir)).toBe(true);
      expect(treeDiff(files0, outside([b.gitdir, leaked]))).toEqual([]);
      expect(sessionRows(t)).toEqual(rows0);
    },
    budget(300_000),
  );

  it(
    'after OpenCode deletes real sessions, compacts opencode.db: free pages 0, every remaining row unchanged, blocked while OpenCode runs',
    async () => {
      t = makeTempEnv();
      const m = buildStore(t, template, { git: true, messagesPerSession: 6 });
      const db = t.env.OPENCODE_DB!;
      const roots = m.sessions.filter((s) => s.kind === 'root' && m.descendants.get(s.id)!.length === 0).slice(0, 4);
      expect(roots.length).toBeGreaterThan(1);
      const del = cleanerx(['clean', '--agent', 'opencode', ...roots.flatMap((s) => ['--id', s.id]), '--yes']);
      expect(del.status, del.stderr + del.stdout).toBe(0);
      const space = readDbSpace(db);
      expect(space.state).toBe('ok');
      expect(space.freePages).toBeGreaterThan(0);

      // Offered with the figures, and blocked while an OpenCode process runs.
      const inv = await opencodeAdapter.scan(installation(t), t.ctx, () => undefined);
      const c = inv.items.find((i) => i.id === COMPACT_ITEM_ID)!;
      expect(c, inv.items.map((i) => i.id).join(', ')).toBeTruthy();
      expect(c.metadata.freePages).toBe(space.freePages);
      expect(c.metadata.fileBytes).toBe(space.fileBytes);
      expect(c.metadata.walBytes).toBe(space.walBytes);
      expect(c.bytes).toBe(space.reclaimableBytes! + space.walBytes);
      expect(c.selectable).toBe(true);
      fakeProcess(t.procRoot, 5151, 'opencode', ['opencode']);
      const blocked = (await opencodeAdapter.scan(installation(t), t.ctx, () => undefined)).items.find((i) => i.id === COMPACT_ITEM_ID)!;
      expect(blocked.selectable).toBe(false);
      expect(blocked.blockedReason).toContain(COMPACT_RUNNING_REASON);
      spawnSync('rm', ['-rf', join(t.procRoot, '5151')]);

      // One plan: more roots (four or more: OpenCode's bulk route, cleanerx's private server) and then the compaction,
      // which runs only once that server has stopped.
      const more = m.sessions.filter((s) => (s.kind === 'root' || s.kind === 'archived') && !roots.includes(s)).slice(0, 4);
      expect(more.length).toBe(4);
      const scope = more.flatMap((s) => [s.id, ...m.descendants.get(s.id)!]);
      const rows0 = sessionRows(t);
      const files0 = outside([db, `${db}-wal`]);
      const r = cleanerx(['clean', '--agent', 'opencode', ...more.flatMap((s) => ['--id', s.id]), '--id', COMPACT_ITEM_ID, '--yes']);
      expect(r.status, r.stderr + r.stdout).toBe(0);
      expect(r.stdout).toContain(`Cleanup complete · ${scope.length + 1} items`);
      const after = readDbSpace(db);
      expect(after.freePages).toBe(0);
      expect(after.fileBytes).toBeLessThan(space.fileBytes);
      expectOnlyRemoved(rows0, sessionRows(t), scope);
      expect(treeDiff(files0, outside([db, `${db}-wal`]))).toEqual([]);
      // Right after the compaction, before OpenCode runs again (#25): cleanerx and the real OpenCode list every remaining session.
      const remaining = [...rows0.keys()].filter((id) => !scope.includes(id)).sort();
      const rescan = await opencodeAdapter.scan(installation(t), t.ctx, () => undefined);
      expect(rescan.warnings.map((w) => w.reason).join('\n')).not.toMatch(/missing|not listed/);
      expect(rescan.sessions.map((x) => x.id).sort()).toEqual(remaining);
      let checked = 0;
      for (const p of m.projects) {
        const listed = spawnSync(OPENCODE_BIN, ['session', 'list', '--format', 'json', '-n', '1000'], {
          cwd: p.worktree,
          env: opencodeEnv(t),
          encoding: 'utf8',
          timeout: budget(120_000),
        });
        expect(listed.status, listed.stderr).toBe(0);
        const theirs = (listed.stdout.trim() ? (JSON.parse(listed.stdout) as { id: string }[]) : []).map((x) => x.id).sort();
        const ours = m.sessions.filter((x) => x.projectId === p.id && x.parentId === null && remaining.includes(x.id) && x.kind === 'root').map((x) => x.id);
        for (const id of ours) expect(theirs, `${p.id}: ${id}`).toContain(id);
        for (const id of theirs) expect(remaining, id).toContain(id);
        checked += ours.length;
      }
      expect(checked).toBeGreaterThan(0);
    },
    budget(300_000),
  );
});
