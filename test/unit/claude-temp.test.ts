// Claude Code's temp roots through the engine: the temporary item and a
// session's own temp folder are removed by the path transaction, and nothing
// else under HOME (the Claude home, the rest of the temp roots) changes byte
// for byte; while a Claude process lives, both are blocked.

import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, symlinkSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FINISHED_TASKS_PREFIX } from '../../src/adapters/claude/scan.js';
import { claudeTempRootPaths } from '../../src/adapters/claude/temp-roots.js';
import { CLAUDE_RUNNING_REASON } from '../../src/adapters/claude/writers.js';
import { ADAPTERS } from '../../src/adapters/registry.js';
import { backupService } from '../../src/backup/service.js';
import { buildClaudeFixture, claudeSlug, type ClaudeFixtureManifest } from '../../src/adapters/claude/fixture.js';
import { Engine } from '../../src/engine/api/engine.js';
import { fakeProcess, makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';

let t: TempEnv;
let holder: ChildProcess | null = null;
afterEach(() => {
  holder?.kill('SIGKILL');
  holder = null;
  t?.cleanup();
});

interface Built {
  m: ClaudeFixtureManifest;
  sid: string;
  sessionTemp: string;
  tasksRoot: string;
  daemonRoot: string;
}

function build(): Built {
  t = makeTempEnv();
  const m = buildClaudeFixture({ configDir: t.env.CLAUDE_CONFIG_DIR!, cwdRoot: join(t.env.HOME!, 'code'), projects: 2, sessionsPerProject: 2 });
  const s = m.sessions.find((x) => x.cwd)!;
  const [tasksRoot, daemonRoot] = claudeTempRootPaths(t.ctx) as [string, string];
  const slug = claudeSlug(s.cwd!);
  const sessionTemp = join(tasksRoot, slug, s.id);
  const files = {
    [join(sessionTemp, 'tasks', 'a1.output')]: 'task output\n',
    [join(sessionTemp, 'scratchpad', 'plan.md')]: 'scratch\n',
    [join(tasksRoot, slug, 'tasks', 'old.output')]: 'older layout\n',
    [join(tasksRoot, 'other-project', 'tasks', 'x.output')]: 'x\n',
    [join(daemonRoot, 'daemon.log')]: 'daemon\n',
  };
  for (const [p, body] of Object.entries(files)) {
    mkdirSync(dirname(p), { recursive: true, mode: 0o700 });
    writeFileSync(p, body);
  }
  // Sparse: sized by lstat (the tree hash below reads it whole, so it stays small).
  truncateSync(join(tasksRoot, slug, 'tasks', 'old.output'), 64 * 1024 ** 2);
  return { m, sid: s.id, sessionTemp, tasksRoot, daemonRoot };
}

describe('Claude temp roots through the engine', () => {
  it('removes the temporary item and a session with its temp folder; everything else under HOME is byte for byte unchanged', async () => {
    const b = build();
    const engine = new Engine(ADAPTERS, t.ctx);
    const sum = await engine.scan('claude');
    const snap = engine.snapshot(sum.snapshotId);
    const temp = snap.item('claude-temp')!;
    expect(temp.selectable).toBe(true);
    const session = snap.forest.nodeById.get(b.sid)!.s;
    expect(session.paths).toContain(b.sessionTemp);
    const planned = [...temp.paths, ...session.paths];
    const state = [t.env.CLEANERX_STATE_DIR!, t.env.CLEANERX_DATA_DIR!, t.env.CLEANERX_CONFIG_DIR!];
    const before = hashTree(t.env.HOME!, state);
    const plan = await engine.plan(sum.snapshotId, ['claude-temp', session.itemId]);
    expect(plan.blockers).toEqual([]);
    const r = await engine.execute(plan.id);
    expect(r.status, r.message).toBe('complete');
    for (const p of planned) expect(existsSync(p), p).toBe(false);
    // Every change lies inside a planned path (or is a folder the removal emptied above one).
    const inside = (rel: string): boolean => {
      const abs = join(t.env.HOME!, rel);
      return planned.some((p) => abs === p || abs.startsWith(p + '/') || p.startsWith(abs + '/'));
    };
    const changes = treeDiff(before, hashTree(t.env.HOME!, state));
    expect(changes.length).toBeGreaterThan(0);
    expect(changes.filter((c) => !inside(c.replace(/^(removed|changed|added) /, '')))).toEqual([]);
    expect(changes.every((c) => c.startsWith('removed '))).toBe(true);
    // The roots themselves stay, and so does every other session.
    expect(existsSync(b.tasksRoot)).toBe(true);
    expect(existsSync(b.daemonRoot)).toBe(true);
    const after = engine.snapshot((await engine.scan('claude')).snapshotId);
    expect(after.forest.nodes.length).toBe(snap.forest.nodes.length - 1);
    expect(after.item('claude-temp')).toBeUndefined();
    expect(relative(t.env.HOME!, b.tasksRoot).startsWith('..')).toBe(false);
  });

  it("while Claude runs, a session's finished task output is an item of its own: exactly those files go, nothing else changes (#25)", async () => {
    const b = build();
    const transcript = b.m.sessions.find((x) => x.id === b.sid)!.file;
    const hour = 3600;
    const now = Date.now() / 1000;
    utimesSync(transcript, now - hour, now - hour);
    const done = join(b.sessionTemp, 'tasks', 'a1.output');
    utimesSync(done, now - 2 * hour, now - 2 * hour);
    // Written after the session's last activity: a task may still be running.
    const running = join(b.sessionTemp, 'tasks', 'a2.output');
    writeFileSync(running, 'still going\n');
    // Open in a process: left alone, however old.
    const held = join(b.sessionTemp, 'tasks', 'a3.output');
    writeFileSync(held, 'held\n');
    utimesSync(held, now - 3 * hour, now - 3 * hour);
    const fd = openSync(held, 'r');
    holder = spawn('sleep', ['60'], { stdio: ['ignore', fd, 'ignore'] });
    closeSync(fd);
    fakeProcess(t.procRoot, holder.pid!, 'sleep', ['sleep', '60']);
    mkdirSync(join(t.procRoot, String(holder.pid), 'fd'));
    symlinkSync(`/proc/${holder.pid}/fd/1`, join(t.procRoot, String(holder.pid), 'fd', '1'));
    fakeProcess(t.procRoot, 4242, 'claude', ['claude']);

    const engine = new Engine(ADAPTERS, t.ctx);
    const sum = await engine.scan('claude');
    const snap = engine.snapshot(sum.snapshotId);
    expect(snap.forest.nodeById.get(b.sid)!.s.selectable).toBe(false);
    const id = `${FINISHED_TASKS_PREFIX}${b.sid}`;
    const item = snap.item(id)!;
    expect(item).toMatchObject({ category: 'temporary', selectable: true, paths: [done] });
    expect(item.metadata.agentLoses).toMatch(/can no longer read it back/);
    const state = [t.env.CLEANERX_STATE_DIR!, t.env.CLEANERX_DATA_DIR!, t.env.CLEANERX_CONFIG_DIR!];
    const before = hashTree(t.env.HOME!, state);
    const plan = await engine.plan(sum.snapshotId, [id]);
    expect(plan.blockers).toEqual([]);
    const r = await engine.execute(plan.id);
    expect(r.status, r.message).toBe('complete');
    expect(treeDiff(before, hashTree(t.env.HOME!, state))).toEqual([`removed ${relative(t.env.HOME!, done)}`]);
    expect(engine.snapshot((await engine.scan('claude')).snapshotId).item(id)).toBeUndefined();
  });

  it('a mixed plan (a session and the temp item) backs up the session and says what it leaves out; the restore brings the session back (#25)', async () => {
    const b = build();
    const engine = new Engine(ADAPTERS, t.ctx, undefined, backupService(t.ctx.env));
    const sum = await engine.scan('claude');
    const snap = engine.snapshot(sum.snapshotId);
    const session = snap.forest.nodeById.get(b.sid)!.s;
    const temp = snap.item('claude-temp')!;
    const plan = await engine.plan(sum.snapshotId, ['claude-temp', session.itemId]);
    expect(plan.backupEligible).toBe(true);
    expect(plan.backupNotCovered).toMatch(/leaves out 1 item/);
    expect(plan.backupUncoveredIds).toEqual(['claude-temp']);
    expect(plan.estimatedBackupBytes).toBe(plan.items.find((i) => i.id === session.itemId)!.bytes);
    const r = await engine.execute(plan.id, { backup: true, passphrase: 'correct horse battery' });
    expect(r.status, r.message).toBe('complete');
    expect(r.backupId).toBeTruthy();
    for (const p of [...temp.paths, ...session.paths]) expect(existsSync(p), p).toBe(false);
    const restored = await engine.backupRestore(r.backupId!, 'correct horse battery');
    // Only the session's files were in the backup: they are back, the temp item's are not.
    for (const p of session.paths) expect(existsSync(p), p).toBe(true);
    for (const p of restored.paths)
      expect(
        temp.paths.some((q) => p === q || p.startsWith(`${q}/`)),
        p,
      ).toBe(false);
    for (const p of temp.paths) expect(existsSync(p), p).toBe(false);
  });

  it('is blocked while a Claude Code process lives', async () => {
    build();
    fakeProcess(t.procRoot, 4242, 'claude', ['claude']);
    const engine = new Engine(ADAPTERS, t.ctx);
    const sum = await engine.scan('claude');
    const temp = engine.snapshot(sum.snapshotId).item('claude-temp')!;
    expect(temp).toMatchObject({ selectable: false, blockedReason: expect.stringContaining(CLAUDE_RUNNING_REASON) });
  });
});
