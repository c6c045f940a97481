// The anchored removal's own checks, at the moment between a target's last
// revalidation and its removal (#26): whatever is at the planned name must
// still be the very entry captured before the run (device and inode), and a
// planned tree is removed only while every entry in it is on the root's
// filesystem. The race is made exact: directly (revalidate, then the swap or
// the mount, then removeAnchored), and through the executor, whose
// `remove:<op>:<k>:before` crash point runs the test's function in-process
// (atCrashPoints) at exactly that moment. The mount cases need mount(2):
// they skip, saying so, only where mounting is not permitted.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { executePlan } from '../../src/engine/cleanup/executor.js';
import { captureIdentity, ParentHandles, removeAnchored, revalidate, type SafetyContext } from '../../src/engine/cleanup/path-safety.js';
import { buildPlan } from '../../src/engine/cleanup/planner.js';
import { atCrashPoints } from '../../src/engine/core/faults.js';
import { executorDeps, sessionRecord, snapshotOf } from '../helpers/executor-harness.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { tmpfsMountRefusal } from '../helpers/tmpfs-probe.js';

let t: TempEnv;
let home: string;
let state: string;
let ctx: SafetyContext;
const mounts: string[] = [];
beforeEach(() => {
  t = makeTempEnv('cleanerx-last-moment-');
  home = join(t.root, 'agent');
  state = join(t.root, 'state');
  mkdirSync(join(home, 'sessions'), { recursive: true });
  mkdirSync(state, { recursive: true });
  ctx = { roots: [home], protectedPaths: [], uid: t.ctx.uid };
});
afterEach(() => {
  atCrashPoints(null);
  // Unmounted before the temp dir goes: its removal would otherwise stop at the mount.
  for (const m of mounts.splice(0).reverse()) spawnSync('umount', [m]).status === 0 || spawnSync('umount', ['-l', m]);
  t.cleanup();
});

const write = (p: string, s: string): void => {
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, s);
};

/** Puts something else at `path`: the original moves to `<path>.aside`, a new file or directory (with a file in it) takes its name. */
function swap(path: string, dir: boolean): void {
  renameSync(path, `${path}.aside`);
  if (dir) write(join(path, 'decoy.txt'), 'not planned');
  else writeFileSync(path, 'not planned');
}

/** The state of a path after a refused removal: the decoy still in place, the original moved aside untouched. */
function expectDecoyAndOriginalKept(path: string, dir: boolean, original: string): void {
  expect(readFileSync(dir ? join(path, 'decoy.txt') : path, 'utf8')).toBe('not planned');
  expect(readFileSync(dir ? join(`${path}.aside`, 'f.txt') : `${path}.aside`, 'utf8')).toBe(original);
}

describe('the target swapped between its revalidation and its removal', () => {
  for (const dir of [false, true]) {
    for (const held of [false, true]) {
      it(`${dir ? 'a directory' : 'a file'}${held ? ', its parent held open for the run' : ''}: refused, the entry now there is left alone`, () => {
        const path = join(home, 'sessions', dir ? 'tree' : 'a.jsonl');
        if (dir) write(join(path, 'f.txt'), 'planned');
        else write(path, 'planned');
        const id = captureIdentity(path, ctx);
        const parents = held ? new ParentHandles() : undefined;
        try {
          revalidate(id, ctx, parents);
          swap(path, dir);
          expect(() => removeAnchored(id, ctx, undefined, parents)).toThrow(/was replaced after the scan; nothing more was removed/);
        } finally {
          parents?.close();
        }
        expectDecoyAndOriginalKept(path, dir, 'planned');
      });
    }
  }

  it('through the executor: the swap at remove:0:0:before stops the run there, the swapped-in entry and every later path kept', async () => {
    const a = join(home, 'sessions', 'a.jsonl');
    const b = join(home, 'sessions', 'b.jsonl');
    write(a, 'planned a');
    write(b, 'planned b');
    const snap = snapshotOf(home, [sessionRecord('a', [a]), sessionRecord('b', [b])]);
    const plan = buildPlan(snap, ['session:a', 'session:b'], { readOnly: false, routeAvailable: true });
    const first = plan.operations[0]!.paths[0]!;
    const points: string[] = [];
    atCrashPoints((name) => {
      points.push(name);
      if (name === 'remove:0:0:before') swap(first, false);
    });
    const r = await executePlan(plan, executorDeps(t, { home, stateDir: state, snap }), () => undefined);
    expect(points).toContain('remove:0:0:before');
    expect(r.status).toBe('failed');
    expect(r.message).toMatch(/was replaced after the scan; nothing more was removed/);
    expectDecoyAndOriginalKept(first, false, first === a ? 'planned a' : 'planned b');
    const other = first === a ? b : a;
    expect(readFileSync(other, 'utf8')).toBe(first === a ? 'planned b' : 'planned a');
  });
});

// ---- a filesystem mounted inside a planned tree ----------------------------

let mountWhy: string | null = null;
beforeAll(() => {
  mountWhy = tmpfsMountRefusal();
});

/** Mounts a small tmpfs on `dir` (an existing directory) with one file in it; unmounted after the test. */
function mountInside(dir: string): string {
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  mounts.push(dir);
  const inside = join(dir, 'on-another-fs.txt');
  writeFileSync(inside, 'not this filesystem');
  return inside;
}

/** A planned tree with a subdirectory deep inside it that will be the mount point. */
function tree(): { path: string; sub: string } {
  const path = join(home, 'sessions', 'tree');
  for (const f of ['a.txt', 'b/c.txt', 'b/sub/d.txt', 'z.txt']) write(join(path, f), f);
  return { path, sub: join(path, 'b', 'sub') };
}

describe('a filesystem mounted inside a planned tree after its revalidation', () => {
  for (const held of [false, true]) {
    it(`removeAnchored stops at the mount and removes nothing on it${held ? ' (parent held open)' : ''}`, (c) => {
      if (mountWhy) c.skip(`mount(2) is not permitted here (${mountWhy}); this test needs to mount a tmpfs`);
      const { path, sub } = tree();
      const id = captureIdentity(path, ctx);
      const parents = held ? new ParentHandles() : undefined;
      let inside = '';
      try {
        revalidate(id, ctx, parents);
        inside = mountInside(sub);
        expect(() => removeAnchored(id, ctx, undefined, parents)).toThrow(/is on another filesystem; the removal stopped there/);
      } finally {
        parents?.close();
      }
      expect(readFileSync(inside, 'utf8')).toBe('not this filesystem');
    });
  }

  it('through the executor: the mount at remove:0:0:before fails the run there, the mounted file kept, nothing outside the plan changed', async (c) => {
    if (mountWhy) c.skip(`mount(2) is not permitted here (${mountWhy}); this test needs to mount a tmpfs`);
    const { path, sub } = tree();
    const other = join(home, 'sessions', 'other.jsonl');
    write(other, 'not planned');
    const snap = snapshotOf(home, [sessionRecord('t', [path]), sessionRecord('o', [other])]);
    const plan = buildPlan(snap, ['session:t'], { readOnly: false, routeAvailable: true });
    let inside = '';
    atCrashPoints((name) => {
      if (name === 'remove:0:0:before') inside = mountInside(sub);
    });
    const before = hashTree(join(home, 'sessions'), [path]);
    const r = await executePlan(plan, executorDeps(t, { home, stateDir: state, snap }), () => undefined);
    expect(inside).not.toBe('');
    expect(r.status).toBe('failed');
    expect(r.message).toMatch(/is on another filesystem; the removal stopped there/);
    expect(readFileSync(inside, 'utf8')).toBe('not this filesystem');
    expect(existsSync(sub)).toBe(true);
    expect(treeDiff(before, hashTree(join(home, 'sessions'), [path]))).toEqual([]);
  });
});
