// The mutate step's path transaction, point by point (#26 item 5: the
// mutants of engine/cleanup/executor-mutate.ts and executor-mutate-state.ts).
// Real files under a temp home: every crash point in order (a kill test
// relies on each name), the progress reported before each path, a stop
// between operations, and whether a failure came before or after the first
// change (terminated, or failed for recovery).

import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { preflightStep } from '../../src/engine/cleanup/executor-preflight.js';
import { mutateState } from '../../src/engine/cleanup/executor-mutate-state.js';
import { mutateStep } from '../../src/engine/cleanup/executor-mutate.js';
import { type ExecutorDeps, isFailed } from '../../src/engine/cleanup/executor-run.js';
import { journalPath } from '../../src/engine/cleanup/journal.js';
import { buildPlan } from '../../src/engine/cleanup/planner.js';
import { atCrashPoints } from '../../src/engine/core/faults.js';
import type { ArchiveRoute, ItemRoute } from '../../src/engine/core/adapter.js';
import type { CleanupPlan, OperationKind } from '../../src/engine/core/model.js';
import { executorDeps, openStepRun, sessionRecord, snapshotOf } from '../helpers/executor-harness.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
let home: string;
let state: string;
let a: string;
let tree: string;
let c: string;
beforeEach(() => {
  t = makeTempEnv('cleanerx-mutate-rules-');
  home = join(t.root, 'agent');
  state = join(t.root, 'state');
  mkdirSync(join(home, 'sessions', 'b', 'sub'), { recursive: true });
  mkdirSync(state, { recursive: true });
  a = join(home, 'sessions', 'a.jsonl');
  tree = join(home, 'sessions', 'b');
  c = join(home, 'sessions', 'c.jsonl');
  writeFileSync(a, 'aaaa');
  writeFileSync(join(tree, 'one'), '1');
  writeFileSync(join(tree, 'sub', 'two'), '2');
  writeFileSync(c, 'cc');
});
afterEach(() => {
  atCrashPoints(null);
  t.cleanup();
});

/** Session a (a file), b (a file and a tree): one operation; session c its own second one (`kinds`: each operation's kind). */
async function ready(deps: Partial<ExecutorDeps> = {}, kinds?: OperationKind[]) {
  const bFile = join(home, 'sessions', 'b.jsonl');
  writeFileSync(bFile, 'bbb');
  const snap = snapshotOf(home, [
    sessionRecord('a', [a], { bytes: 4 }),
    sessionRecord('b', [bFile, tree], { bytes: 5 }),
    sessionRecord('c', [c], { bytes: 2 }),
  ]);
  const full = { ...executorDeps(t, { home, stateDir: state, snap }), ...deps };
  const base = buildPlan(snap, ['session:a', 'session:b', 'session:c'], { readOnly: false, routeAvailable: true });
  const op = base.operations[0]!;
  const split = (index: number, ids: string[]) => {
    const items = base.items.filter((i) => ids.includes(i.id));
    return {
      ...op,
      index,
      itemIds: ids,
      sessionIds: items.map((i) => i.sessionId!),
      paths: items.flatMap((i) => i.paths),
      bytes: items.reduce((s, i) => s + i.bytes, 0),
    };
  };
  const ops = [split(0, ['session:a', 'session:b']), split(1, ['session:c'])].map((o, i) => ({ ...o, kind: kinds?.[i] ?? o.kind }));
  const plan: CleanupPlan = { ...base, operations: ops };
  const opened = await openStepRun(full, plan);
  const pre = await preflightStep(opened.run);
  if (isFailed(pre)) throw new Error(pre.failed.message);
  const points: string[] = [];
  atCrashPoints((p) => points.push(p));
  opened.events.length = 0;
  return { ...opened, plan, points, bFile, st: mutateState(plan, pre.safety, pre.identities) };
}
const journalOf = (id: string) => JSON.parse(readFileSync(journalPath(state, id), 'utf8'));

describe('mutateStep', () => {
  it('every crash point in order, a tree passing its partial point once; progress names each path before it goes', async () => {
    const { run, st, parents, points, events, plan } = await ready();
    try {
      expect(await mutateStep(run, st)).toBeUndefined();
    } finally {
      parents.close();
    }
    expect(points).toEqual([
      'journal:deleting',
      'mutation:0:running',
      'remove:0:0:before',
      'remove:0:0:after',
      'remove:0:1:before',
      'remove:0:1:after',
      'remove:0:2:before',
      'remove:0:2:partial',
      'remove:0:2:after',
      'mutation:0:applied',
      'mutation:1:running',
      'remove:1:0:before',
      'remove:1:0:after',
      'mutation:1:applied',
    ]);
    expect(plan.operations[0]!.paths[2]).toBe(tree);
    const totals = { total: 3, bytesTotal: plan.estimatedBytes };
    expect(events).toEqual([
      { phase: 'deleting', done: 0, bytesDone: 0, current: 'Title a', ...totals },
      { phase: 'deleting', done: 0, bytesDone: 0, current: 'Title b', ...totals },
      { phase: 'deleting', done: 0, bytesDone: 0, current: 'Title b', ...totals },
      { phase: 'deleting', done: 2, bytesDone: 9, ...totals },
      { phase: 'deleting', done: 2, bytesDone: 9, current: 'Title c', ...totals },
      { phase: 'deleting', done: 3, bytesDone: 11, ...totals },
    ]);
    for (const p of [a, tree, c]) expect(existsSync(p)).toBe(false);
  });

  it('a stop asked after the first operation: the second untouched, the journal failed for recovery', async () => {
    let asked = 0;
    const { run, st, parents } = await ready({ stopRequested: () => asked++ > 0 });
    const r = await mutateStep(run, st);
    parents.close();
    expect(r?.failed.message).toBe('Stopped by you after 2 of 3 items; the rest is untouched.');
    expect(existsSync(c)).toBe(true);
    expect(journalOf(run.j.operationId).status).toBe('failed');
  });

  it('the first path replaced: nothing was changed, so the run is terminated, not left for recovery', async () => {
    const { run, st, parents } = await ready();
    renameSync(a, `${a}.aside`);
    writeFileSync(a, 'not planned');
    const r = await mutateStep(run, st);
    parents.close();
    expect(r?.failed.message).toBe(`Target changed after scan: ${a}. No later item was touched.`);
    expect(run.mutated).toBe(false);
    expect(journalOf(run.j.operationId).status).toBe('terminated');
    expect(readFileSync(a, 'utf8')).toBe('not planned');
  });
});

describe('mutateStep: each kind to its route', () => {
  it('archive and unarchive go to the archive route (archived, then not), nothing removed', async () => {
    const calls: [string[], boolean][] = [];
    const archiveRoute: ArchiveRoute = {
      unarchive: true,
      setArchived: async (_i, _c, ids, archived) => {
        calls.push([[...ids], archived]);
        return { changed: [...ids], failed: [] };
      },
    };
    const { run, st, parents, points } = await ready({ archiveRoute }, ['archive', 'unarchive']);
    try {
      expect(await mutateStep(run, st)).toBeUndefined();
    } finally {
      parents.close();
    }
    expect(calls).toEqual([
      [['a', 'b'], true],
      [['c'], false],
    ]);
    expect(points.filter((p) => p.startsWith('official:'))).toEqual(['official:0:before', 'official:0:after', 'official:1:before', 'official:1:after']);
    for (const p of [a, tree, c]) expect(existsSync(p)).toBe(true);
  });

  it('official items go to the item route by item id, nothing removed by path', async () => {
    const calls: string[][] = [];
    const itemRoute: ItemRoute = {
      applyItems: async (_i, _c, ids) => {
        calls.push([...ids]);
        return { applied: [...ids], failed: [] };
      },
    };
    const { run, st, parents } = await ready({ itemRoute }, ['officialItems', 'officialItems']);
    try {
      expect(await mutateStep(run, st)).toBeUndefined();
    } finally {
      parents.close();
    }
    expect(calls).toEqual([['session:a', 'session:b'], ['session:c']]);
    for (const p of [a, tree, c]) expect(existsSync(p)).toBe(true);
  });
});

describe('mutateState', () => {
  it('session ids only for the paths of sessions; labels for every planned path', () => {
    const plan = {
      items: [
        { id: 'session:s1', label: 'S', paths: ['/h/s1', '/h/s1.d'] },
        { id: 'item:log', label: 'Log', paths: ['/h/log'] },
      ],
    } as unknown as CleanupPlan;
    const st = mutateState(plan, { roots: [], protectedPaths: [], uid: 0 }, []);
    expect([...st.sessionOfPath]).toEqual([
      ['/h/s1', 's1'],
      ['/h/s1.d', 's1'],
    ]);
    expect([...st.labelOf]).toEqual([
      ['/h/s1', 'S'],
      ['/h/s1.d', 'S'],
      ['/h/log', 'Log'],
    ]);
    expect([...st.titleOf]).toEqual([
      ['session:s1', 'S'],
      ['item:log', 'Log'],
    ]);
    expect(st.revisionAfterExport).toBeUndefined();
  });
});
