// OpenCode snapshot repositories as the pinned OpenCode lays them out (made
// with the system git, hashes recorded in the rows of a store the real
// opencode migrated): every item's bytes, who it serves, the blocked states,
// a leaked tmp_pack held by a running `git`, and git gc through the item
// route shrinking a repository while every snapshot a session refers to and
// every object git can reach stay readable.

import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, openSync, closeSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { applyOpencodeItems } from '../../src/adapters/opencode/compact-item-route.js';
import { opencodeAdapter } from '../../src/adapters/opencode/index.js';
import { gcItemId, heldItemId, leakedItemId, repoItemId, SNAPSHOTS_RUNNING_REASON } from '../../src/adapters/opencode/snapshots.js';
import { KEEP_PREFIX } from '../../src/adapters/opencode/snapshots-gc.js';
import type { ExecuteProgress, Inventory, Item } from '../../src/engine/core/model.js';
import { Engine } from '../../src/engine/api/engine.js';
import { ADAPTERS } from '../../src/adapters/registry.js';
import { cleanupState } from '../../src/modals/progress.js';
import { allocatedBytes, lstatSyncOrNull } from '../../src/engine/host/fsx.js';
import { buildStore, dataDir, installation, makeTemplate, type Template } from '../helpers/opencode.js';
import { fakeProcess, makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';
import { age, allObjects, duBytes, git, looseCount, makeSnapshotRepo, recordSnapshot, treeClosure } from '../peers/opencode-reclaim-store.js';

let template: Template;
beforeAll(async () => {
  template = await makeTemplate();
}, 180_000);
afterAll(() => template?.cleanup());

let t: TempEnv;
let holder: ChildProcess | null = null;
afterEach(() => {
  holder?.kill('SIGKILL');
  holder = null;
  t?.cleanup();
});

const scan = (): Promise<Inventory> => opencodeAdapter.scan(installation(t), t.ctx, () => undefined);
const item = (inv: Inventory, id: string): Item => {
  const i = inv.items.find((x) => x.id === id);
  expect(i, `${id} in ${inv.items.map((x) => x.id).join(', ')}`).toBeTruthy();
  return i!;
};
const bytesOf = (p: string): number => allocatedBytes(lstatSyncOrNull(p)!);

function store() {
  t = makeTempEnv();
  const m = buildStore(t, template, { git: true, messagesPerSession: 2 });
  const p1 = m.projects[0]!;
  const sessions = m.sessions.filter((s) => s.projectId === p1.id);
  const a = makeSnapshotRepo(dataDir(t), p1.id, p1.worktree, 3);
  recordSnapshot(t.env.OPENCODE_DB!, sessions[0]!.id, a.trees[0]!);
  recordSnapshot(t.env.OPENCODE_DB!, sessions[1]!.id, a.trees[1]!);
  const gone = 'f'.repeat(40);
  const b = makeSnapshotRepo(dataDir(t), gone, join(t.root, 'work', 'gone'), 1);
  return { m, p1, sessions, a, b, gone };
}

function leak(repo: string, name: string, bytes: number, hoursOld: number): string {
  const p = join(repo, name);
  writeFileSync(p, Buffer.alloc(bytes, 7));
  age(p, hoursOld);
  return p;
}

describe('OpenCode snapshot repositories', () => {
  it('a database that cannot be read is never evidence of absence: no repository is "no session left", each is blocked with the reason (#25)', async () => {
    const { p1, a, b, gone } = store();
    const db = t.env.OPENCODE_DB!;
    // Unreadable: a file that is no longer SQLite (as a torn copy or a foreign tool leaves it).
    writeFileSync(db, Buffer.alloc(8192, 0x41));
    const inv = await scan();
    expect(inv.sessions).toEqual([]);
    expect(inv.sessionsUnread).toMatch(/not an SQLite database/);
    for (const id of [repoItemId({ projectId: p1.id, hash: a.gitdir.split('/').pop()! }), repoItemId({ projectId: gone, hash: b.gitdir.split('/').pop()! })]) {
      const r = item(inv, id);
      expect(r.label).not.toMatch(/no session left/);
      expect(r.subtitle ?? '').not.toMatch(/No OpenCode session/);
      expect(r.metadata.agentLoses).not.toMatch(/nothing/);
      expect(r.selectable).toBe(false);
      expect(r.blockedReason).toMatch(/^Which OpenCode sessions use these snapshots is unknown: .*not an SQLite database/);
      expect(r.risk).toBe('high');
    }
    for (const i of inv.items) expect(`${i.label} ${i.subtitle ?? ''}`).not.toMatch(/no session left|orphan|empty/i);
  });

  it('lists each repository with its size, project and sessions; leaked temporaries as a safe item; a gc where loose objects are', async () => {
    const { p1, sessions, a, b } = store();
    const stale = [
      leak(a.gitdir, 'objects/pack/tmp_pack_Ab12', 300_000, 2),
      leak(a.gitdir, 'objects/pack/tmp_idx_Ab12', 40_000, 2),
      leak(a.gitdir, 'index.lock', 4096, 3),
    ];
    const fresh = leak(a.gitdir, 'objects/pack/tmp_pack_Cd34', 100_000, 0);
    const inv = await scan();

    const repoA = item(inv, repoItemId({ projectId: p1.id, hash: a.gitdir.split('/').pop()! }));
    expect(repoA.paths).toEqual([a.gitdir]);
    expect(repoA.bytes).toBe(duBytes(a.gitdir));
    expect(repoA.selectable).toBe(true);
    expect(repoA.risk).toBe('high');
    expect(repoA.metadata.snapshotSessions).toBe(sessions.length);
    expect(repoA.metadata.worktree).toBe(p1.worktree);
    expect(repoA.subtitle).toContain(`loses OpenCode's undo of file changes for the ${sessions.length} sessions`);
    expect(repoA.label).toMatch(new RegExp(`undo lost for ${sessions.length} sessions$`));
    expect(repoA.projectId).toBe(inv.sessions.find((s) => s.id === sessions[0]!.id)!.projectId);

    const repoB = item(inv, repoItemId({ projectId: 'f'.repeat(40), hash: b.gitdir.split('/').pop()! }));
    expect(repoB.bytes).toBe(duBytes(b.gitdir));
    expect(repoB.subtitle).toMatch(/^No OpenCode session of .* is left/);
    expect(repoB.risk).toBe('review');
    expect(repoB.metadata.snapshotSessions).toBe(0);

    const leaked = item(inv, leakedItemId({ projectId: p1.id, hash: a.gitdir.split('/').pop()! }));
    expect(leaked.risk).toBe('safe');
    expect(leaked.selectable).toBe(true);
    expect([...leaked.paths].sort()).toEqual([...stale].sort());
    expect(leaked.paths).not.toContain(fresh);
    expect(leaked.bytes).toBe(stale.reduce((n, p) => n + bytesOf(p), 0));

    const gc = item(inv, gcItemId({ projectId: p1.id, hash: a.gitdir.split('/').pop()! }));
    expect(gc.metadata.route).toBe('official');
    expect(gc.metadata.looseObjects).toBe(looseCount(a.gitdir));
    expect(gc.paths).toEqual([]);
    expect(gc.selectable).toBe(true);

    // The fixture's HEAD-only dirs are not repositories: read-only, and the old "reported only" entry is gone.
    expect(inv.items.some((i) => i.id === 'protected:opencode:snapshot')).toBe(false);
    const strays = inv.items.filter((i) => i.id.startsWith('protected:opencode:snapshot:'));
    expect(strays.length).toBeGreaterThan(0);
    for (const s of strays) expect(s.selectable).toBe(false);
  }, 120_000);

  it('lists hostile entries read-only: a linked project dir, a repository with a link inside, a plain file', async () => {
    const { p1, a, gone } = store();
    const root = join(dataDir(t), 'snapshot');
    symlinkSync(join(root, gone), join(root, 'linked'));
    symlinkSync('/etc/passwd', join(a.gitdir, 'objects', 'evil'));
    writeFileSync(join(root, 'stray.txt'), 'x');
    // The scan's read-only connection may rewrite the -shm index; nothing else may change.
    const shm = [`${t.env.OPENCODE_DB!}-shm`];
    const before = hashTree(t.root, shm);
    const inv = await scan();
    const repoA = item(inv, repoItemId({ projectId: p1.id, hash: a.gitdir.split('/').pop()! }));
    expect(repoA.selectable).toBe(false);
    expect(repoA.blockedReason).toMatch(/symbolic link/);
    expect(inv.items.some((i) => i.id === gcItemId({ projectId: p1.id, hash: a.gitdir.split('/').pop()! }) && i.selectable)).toBe(false);
    for (const name of ['linked', 'stray.txt']) {
      const s = item(inv, `protected:opencode:snapshot:${name}`);
      expect(s.selectable).toBe(false);
    }
    expect(inv.items.some((i) => i.id.startsWith('snapshot:opencode:linked'))).toBe(false);
    expect(treeDiff(before, hashTree(t.root, shm))).toEqual([]);
  }, 120_000);

  it('blocks every snapshot item, and the compaction, while OpenCode runs', async () => {
    const { p1, a } = store();
    leak(a.gitdir, 'objects/pack/tmp_pack_Ab12', 10_000, 2);
    fakeProcess(t.procRoot, 4242, 'opencode', ['opencode']);
    const inv = await scan();
    const hash = a.gitdir.split('/').pop()!;
    for (const id of [repoItemId, leakedItemId, gcItemId].map((f) => f({ projectId: p1.id, hash }))) {
      const i = item(inv, id);
      expect(i.selectable, id).toBe(false);
      expect(i.blockedReason).toContain(SNAPSHOTS_RUNNING_REASON);
    }
  }, 120_000);

  it('leaves a leaked tmp_pack alone while a git process holds it open, and offers the others', async () => {
    const { b, gone } = store();
    const held = leak(b.gitdir, 'objects/pack/tmp_pack_Held', 50_000, 2);
    const free = leak(b.gitdir, 'objects/pack/tmp_idx_Free', 8_000, 2);
    // A real process named git (a copy of sleep) holding the file, mirrored into the test's /proc.
    const bin = join(t.root, 'fakebin');
    mkdirSync(bin);
    copyFileSync('/bin/sleep', join(bin, 'git'));
    const fd = openSync(held, 'r');
    holder = spawn(join(bin, 'git'), ['60'], { stdio: ['ignore', fd, 'ignore'] });
    closeSync(fd);
    fakeProcess(t.procRoot, holder.pid!, 'git', ['git', 'index-pack', '--stdin']);
    mkdirSync(join(t.procRoot, String(holder.pid), 'fd'));
    symlinkSync(`/proc/${holder.pid}/fd/1`, join(t.procRoot, String(holder.pid), 'fd', '1'));
    const inv = await scan();
    const hash = b.gitdir.split('/').pop()!;
    const inUse = item(inv, heldItemId({ projectId: gone, hash }));
    expect(inUse.selectable).toBe(false);
    expect(inUse.paths).toEqual([held]);
    expect(inUse.blockedReason).toContain(`git (pid ${holder.pid}) holds objects/pack/tmp_pack_Held open`);
    const offered = item(inv, leakedItemId({ projectId: gone, hash }));
    expect(offered.paths).toEqual([free]);
    expect(offered.selectable).toBe(true);
  }, 120_000);

  it('git gc through the item route: loose objects packed, the repository smaller, every referenced snapshot and every reachable object kept', async () => {
    const { p1, a } = store();
    // More unreferenced loose snapshots, as hours of OpenCode use leave them.
    const more = makeSnapshotRepo(dataDir(t), p1.id, p1.worktree, 3);
    expect(more.gitdir).toBe(a.gitdir);
    const reachableBefore = new Set(
      git(a.gitdir, null, ['rev-list', '--objects', '--all', '--indexed-objects'])
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split(' ')[0]!),
    );
    const keep = [...treeClosure(a.gitdir, a.trees[0]!), ...treeClosure(a.gitdir, a.trees[1]!)];
    const unreferenced = treeClosure(a.gitdir, more.trees[1]!);
    // Hours of use: the loose objects are older than gc's expiry; a temporary pack a running git writes now is not.
    for (const dir of readdirSync(join(a.gitdir, 'objects')).filter((d) => /^[0-9a-f]{2}$/.test(d)))
      for (const f of readdirSync(join(a.gitdir, 'objects', dir))) age(join(a.gitdir, 'objects', dir, f), 3);
    const fresh = leak(a.gitdir, 'objects/pack/tmp_pack_Fresh1', 50_000, 0);
    const before = duBytes(a.gitdir);
    // A read-only connection may rewrite the -shm index (no content); everything else outside the repository stays byte-identical.
    const shm = `${t.env.OPENCODE_DB!}-shm`;
    const outside = hashTree(t.root, [a.gitdir, shm]);
    const id = gcItemId({ projectId: p1.id, hash: a.gitdir.split('/').pop()! });
    const offered = item(await scan(), id);
    expect(offered.selectable).toBe(true);
    expect(offered.metadata.measureTree).toBe(a.gitdir);

    const written: number[] = [];
    const r = await applyOpencodeItems(installation(t), t.ctx, [id], { onProgress: (_, n) => written.push(n) });
    expect(r).toEqual({ applied: [id], failed: [] });
    // Progress is read off the new pack as gc writes it: it ends at the pack's size.
    expect(written.length).toBeGreaterThanOrEqual(2);
    expect(written.at(-1)).toBeGreaterThan(0);
    // The promise is what gc frees, not the loose objects it packs (#25): within 10% of the measured difference.
    const freed = before - duBytes(a.gitdir);
    expect(Math.abs(offered.bytes - freed)).toBeLessThanOrEqual(0.1 * freed);
    // gc keeps what the plan keeps (#25): the fresh temporary pack is still there.
    expect(existsSync(fresh)).toBe(true);
    expect(looseCount(a.gitdir)).toBe(0);
    expect(duBytes(a.gitdir)).toBeLessThan(before);
    const objects = allObjects(a.gitdir);
    for (const o of keep) expect(objects.has(o), `referenced ${o}`).toBe(true);
    for (const o of reachableBefore) expect(objects.has(o), `reachable ${o}`).toBe(true);
    expect(unreferenced.some((o) => !objects.has(o))).toBe(true);
    expect(git(a.gitdir, null, ['for-each-ref', KEEP_PREFIX])).toBe('');
    expect(git(a.gitdir, null, ['fsck', '--no-dangling', '--connectivity-only'])).toBe('');
    expect(treeDiff(outside, hashTree(t.root, [a.gitdir, shm]))).toEqual([]);
    // Applied means the rescan no longer offers it.
    expect((await scan()).items.some((i) => i.id === id)).toBe(false);
  }, 120_000);

  it('a gc through the engine moves the progress box: what git has written so far, while the counts cannot move', async () => {
    const { p1, a } = store();
    for (const dir of readdirSync(join(a.gitdir, 'objects')).filter((d) => /^[0-9a-f]{2}$/.test(d)))
      for (const f of readdirSync(join(a.gitdir, 'objects', dir))) age(join(a.gitdir, 'objects', dir, f), 3);
    const engine = new Engine(ADAPTERS, t.ctx);
    const sum = await engine.scan('opencode');
    const plan = await engine.plan(sum.snapshotId, [gcItemId({ projectId: p1.id, hash: a.gitdir.split('/').pop()! })]);
    const seen: ExecuteProgress[] = [];
    const r = await engine.execute(plan.id, {}, (p) => seen.push(p));
    expect(r.status, r.message).toBe('complete');
    const writing = seen.filter((p) => p.written !== undefined);
    expect(writing.length).toBeGreaterThan(0);
    expect(writing.at(-1)!.written).toBeGreaterThan(0);
    expect(cleanupState(writing.at(-1)!).current).toMatch(/^Compact OpenCode snapshots \(git gc\) · .* · [\d.]+ [KM]?B written so far$/);
  }, 120_000);

  it('refuses git gc while OpenCode runs and for an id that is not a repository, changing nothing', async () => {
    const { p1, a } = store();
    const id = gcItemId({ projectId: p1.id, hash: a.gitdir.split('/').pop()! });
    fakeProcess(t.procRoot, 4343, 'opencode', ['opencode', 'serve']);
    const before = hashTree(t.root);
    const r = await applyOpencodeItems(installation(t), t.ctx, [id]);
    expect(r.applied).toEqual([]);
    expect(r.failed[0]!.reason).toMatch(/^Quit OpenCode before compacting its snapshots/);
    await expect(applyOpencodeItems(installation(t), t.ctx, ['snapshot-gc:opencode:../x'])).rejects.toThrow(/not an OpenCode item/);
    const r2 = await applyOpencodeItems(installation(t), t.ctx, [gcItemId({ projectId: p1.id, hash: 'nothere' })]);
    expect(r2.failed[0]!.reason).toMatch(/no longer a plain directory/);
    expect(treeDiff(before, hashTree(t.root))).toEqual([]);
    expect(existsSync(join(a.gitdir, 'packed-refs'))).toBe(false);
  }, 120_000);
});
