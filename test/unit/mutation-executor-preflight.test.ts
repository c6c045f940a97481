// The preflight, check by check (#26 item 5: the mutants of
// engine/cleanup/executor-preflight.ts). Real files under a temp home: the
// revision an item recorded at scan time, for a session of one path, of
// several, and for an item that is not a session; which refusal speaks when
// a path is also unsafe; the protected paths the run must keep away from.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { captureOperations, preflightStep, safetyContext } from '../../src/engine/cleanup/executor-preflight.js';
import { buildPlan } from '../../src/engine/cleanup/planner.js';
import type { Inventory, Item } from '../../src/engine/core/model.js';
import { isFailed } from '../../src/engine/cleanup/executor-run.js';
import { atCrashPoints } from '../../src/engine/core/faults.js';
import { walkOwned } from '../../src/engine/inventory/revision.js';
import { Snapshot } from '../../src/engine/inventory/snapshot.js';
import { executorDeps, openStepRun, sessionRecord, snapshotOf } from '../helpers/executor-harness.js';
import { lstatsDuring } from '../helpers/lstat-spy.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

// This Linux machine always anchors; the refusal for systems that cannot is switched on per test.
const anchors = vi.hoisted(() => ({ supported: true }));
vi.mock('../../src/engine/host/anchored-fs.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/engine/host/anchored-fs.js')>();
  return {
    ...real,
    assertAnchoredSupported: () => {
      if (!anchors.supported) throw new Error('No anchored handles on this system; nothing was changed.');
      real.assertAnchoredSupported();
    },
  };
});

let t: TempEnv;
let home: string;
beforeEach(() => {
  t = makeTempEnv('cleanerx-preflight-rules-');
  home = join(t.root, 'agent');
  mkdirSync(join(home, 'sessions'), { recursive: true });
});
afterEach(() => {
  anchors.supported = true;
  t.cleanup();
});

const file = (name: string, text = name): string => {
  const p = join(home, 'sessions', name);
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, text);
  return p;
};
const revisionOf = (paths: string[]): string => walkOwned(paths, { uid: t.ctx.uid }).revision!;
const safety = () => ({ roots: [home], protectedPaths: [], uid: t.ctx.uid });

/** How often `p` was lstat'ed while `f` ran. */
async function lstatsOf(p: string, f: () => unknown): Promise<number> {
  const { paths } = await lstatsDuring(async () => f());
  return paths.filter((x) => x === p).length;
}

function item(id: string, paths: string[], o: Partial<Item> = {}): Item {
  return { id, category: 'log', label: id, paths, bytes: 1, risk: 'safe', recoverable: false, selectable: true, metadata: {}, ...o };
}
function snapWithItems(items: Item[]): Snapshot {
  const inv: Inventory = { sessions: [], items, projects: [], warnings: [], writers: [] };
  return new Snapshot('opencode', snapshotOf(home, []).installation, inv, Date.now(), 0);
}

describe('the recorded revision', () => {
  it('a session of several paths: the revision of all of them together must still hold', () => {
    const a = file('a.jsonl');
    const b = file('a/part.json');
    const good = snapshotOf(home, [
      sessionRecord('a', [a, join(home, 'sessions', 'a')], { metadata: { sourceRevision: revisionOf([a, join(home, 'sessions', 'a')]) } }),
    ]);
    const plan = buildPlan(good, ['session:a'], { readOnly: false, routeAvailable: true });
    expect(captureOperations(plan, good, safety(), t.ctx.uid)[0]!.map((i) => i.path)).toEqual(plan.operations[0]!.paths);
    writeFileSync(b, 'changed since the scan');
    expect(() => captureOperations(plan, good, safety(), t.ctx.uid)).toThrow('session:a changed after the inventory scan; rescan and review again.');
  });

  it('a session of one path: its capture is the revision', async () => {
    const a = file('a.jsonl');
    const snap = snapshotOf(home, [sessionRecord('a', [a], { metadata: { sourceRevision: revisionOf([a]) } })]);
    const plan = buildPlan(snap, ['session:a'], { readOnly: false, routeAvailable: true });
    expect(captureOperations(plan, snap, safety(), t.ctx.uid)[0]![0]!.revision).toBe(revisionOf([a]));
    // Not walked a second time for the revision check.
    expect(await lstatsOf(a, () => captureOperations(plan, snap, safety(), t.ctx.uid))).toBe(1);
  });

  it('an item that is not a session: its recorded revision is checked too', () => {
    const p = file('log.txt');
    const good = snapWithItems([item('item:log', [p], { metadata: { sourceRevision: revisionOf([p]) } })]);
    const plan = buildPlan(good, ['item:log'], { readOnly: false, routeAvailable: true });
    expect(captureOperations(plan, good, safety(), t.ctx.uid)[0]!.map((i) => i.path)).toEqual([p]);
    const moved = snapWithItems([item('item:log', [p], { metadata: { sourceRevision: 'another' } })]);
    const plan2 = buildPlan(moved, ['item:log'], { readOnly: false, routeAvailable: true });
    expect(() => captureOperations(plan2, moved, safety(), t.ctx.uid)).toThrow('item:log changed after the inventory scan; rescan and review again.');
  });

  it('an unchanged item whose one path is unsafe: the path refusal speaks, not the revision', () => {
    const a = file('a.jsonl');
    const snap = snapshotOf(home, [sessionRecord('a', [a], { metadata: { sourceRevision: revisionOf([a]) } })]);
    const plan = buildPlan(snap, ['session:a'], { readOnly: false, routeAvailable: true });
    const elsewhere = join(t.root, 'elsewhere');
    expect(() => captureOperations(plan, snap, { ...safety(), roots: [elsewhere] }, t.ctx.uid)).toThrow(`${a} is outside the allowed roots.`);
  });

  it('a path planned twice in one operation is captured once and given for both', async () => {
    const a = file('a.jsonl');
    const snap = snapshotOf(home, [sessionRecord('a', [a])]);
    const base = buildPlan(snap, ['session:a'], { readOnly: false, routeAvailable: true });
    const plan = { ...base, operations: base.operations.map((o) => ({ ...o, paths: [a, a] })) };
    const [ids] = captureOperations(plan, snap, safety(), t.ctx.uid);
    expect(ids).toHaveLength(2);
    expect(ids![0]).toBe(ids![1]);
    expect(await lstatsOf(a, () => captureOperations(plan, snap, safety(), t.ctx.uid))).toBe(1);
  });
});

describe('a system where handles cannot anchor a removal', () => {
  it('a plan with any path to remove is refused before a capture; one of route operations only is not asked', () => {
    const a = file('a.jsonl');
    const snap = snapshotOf(home, [sessionRecord('a', [a]), sessionRecord('b', [])]);
    const base = buildPlan(snap, ['session:a', 'session:b'], { readOnly: false, routeAvailable: true });
    const op = base.operations[0]!;
    const routeOnly = { ...op, index: 0, kind: 'officialDelete' as const, itemIds: ['session:b'], sessionIds: ['b'], paths: [] };
    const removal = { ...op, index: 1, itemIds: ['session:a'], sessionIds: ['a'], paths: [a] };
    anchors.supported = false;
    expect(captureOperations({ ...base, operations: [routeOnly] }, snap, safety(), t.ctx.uid)).toEqual([[]]);
    expect(() => captureOperations({ ...base, operations: [routeOnly, removal] }, snap, safety(), t.ctx.uid)).toThrow(
      'No anchored handles on this system; nothing was changed.',
    );
    anchors.supported = true;
    expect(captureOperations({ ...base, operations: [routeOnly, removal] }, snap, safety(), t.ctx.uid)[1]!.map((i) => i.path)).toEqual([a]);
  });
});

describe('the safety context', () => {
  it('protected paths are those of protected items only', async () => {
    const a = file('a.jsonl');
    const keep = file('keep/config.json');
    const inv: Inventory = {
      sessions: [sessionRecord('a', [a])],
      items: [item('item:keep', [keep], { category: 'protected', selectable: false }), item('item:log', [file('log.txt')])],
      projects: [],
      warnings: [],
      writers: [],
    };
    const snap = new Snapshot('opencode', snapshotOf(home, []).installation, inv, Date.now(), 0);
    const deps = executorDeps(t, { home, stateDir: join(t.root, 'state'), snap });
    const { run, parents } = await openStepRun(deps, buildPlan(snap, ['session:a'], { readOnly: false, routeAvailable: true }));
    parents.close();
    expect(safetyContext(run)).toEqual({ roots: [home], protectedPaths: [keep], uid: t.ctx.uid });
  });
});

describe('preflightStep', () => {
  it('one operation of several that needs the agent stopped is enough to refuse while it runs; success passes journal:preflight', async () => {
    const a = file('a.jsonl');
    const b = file('b.jsonl');
    const snap = snapshotOf(home, [sessionRecord('a', [a]), sessionRecord('b', [b])]);
    const writers = [{ pid: 42, name: 'agent', command: 'agent', evidence: 'test' }];
    const base = buildPlan(snap, ['session:a', 'session:b'], { readOnly: false, routeAvailable: true });
    const op = base.operations[0]!;
    const two = {
      ...base,
      operations: [
        { ...op, index: 0, paths: [a], requiresAgentExit: false },
        { ...op, index: 1, paths: [b], requiresAgentExit: true },
      ],
    };
    const busy = await openStepRun(executorDeps(t, { home, stateDir: join(t.root, 'state'), snap, writers }), two);
    busy.parents.close();
    const r = await preflightStep(busy.run);
    expect(isFailed(r) && r.failed.message).toMatch(/^Quit OpenCode and retry/);
    const points: string[] = [];
    const free = await openStepRun(executorDeps(t, { home, stateDir: join(t.root, 'state2'), snap }), two);
    free.parents.close();
    atCrashPoints((p) => points.push(p));
    try {
      expect(isFailed(await preflightStep(free.run))).toBe(false);
    } finally {
      atCrashPoints(null);
    }
    expect(points).toEqual(['journal:preflight']);
  });
});
