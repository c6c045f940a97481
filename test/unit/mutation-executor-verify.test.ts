// The verify step, outcome by outcome (#26 item 5: the mutants of
// engine/cleanup/executor-verify.ts). Real files under a temp home and the
// harness's rescan (a session is listed while all its paths exist): the
// result of each kind of plan, the journal's states and crash points in
// order, the progress reported, and items that are not sessions.

import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { remainingItems, verifyStep } from '../../src/engine/cleanup/executor-verify.js';
import { journalPath } from '../../src/engine/cleanup/journal.js';
import { buildPlan } from '../../src/engine/cleanup/planner.js';
import { atCrashPoints } from '../../src/engine/core/faults.js';
import type { CleanupPlan, Inventory, Item } from '../../src/engine/core/model.js';
import { Snapshot } from '../../src/engine/inventory/snapshot.js';
import { executorHome, executorDeps, openStepRun, sessionRecord, snapshotOf } from '../helpers/executor-harness.js';
import type { TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
let home: string;
let state: string;
let files: string[];
beforeEach(() => {
  ({ t, home, state } = executorHome('cleanerx-verify-rules-', false));
  files = ['a', 'b'].map((n) => {
    const p = join(home, 'sessions', `${n}.jsonl`);
    writeFileSync(p, n);
    return p;
  });
});
afterEach(() => {
  atCrashPoints(null);
  t.cleanup();
});

const journalOf = (id: string) => JSON.parse(readFileSync(journalPath(state, id), 'utf8'));

async function opened(o: { action?: 'archive' | 'unarchive'; sessionState?: 'archived' | 'current' } = {}) {
  const snap = snapshotOf(
    home,
    ['a', 'b'].map((n, i) => sessionRecord(n, [files[i]!], o.sessionState ? { state: o.sessionState } : {})),
  );
  const deps = executorDeps(t, { home, stateDir: state, snap });
  const base = buildPlan(snap, ['session:a', 'session:b'], { readOnly: false, routeAvailable: true });
  const plan: CleanupPlan = o.action ? { ...base, action: o.action } : base;
  const { run, parents, events } = await openStepRun(deps, plan);
  parents.close();
  const points: string[] = [];
  atCrashPoints((p) => points.push(p));
  return { run, events, points, plan };
}

describe('verifyStep', () => {
  it('a delete, all gone, no backup: complete, counted, journaled verifying → verified → complete', async () => {
    const { run, events, points, plan } = await opened();
    for (const f of files) rmSync(f);
    const r = await verifyStep(run, 2, 20, undefined);
    expect(r).toEqual({
      operationId: run.j.operationId,
      status: 'complete',
      message: 'Cleanup complete · 2 items',
      removedItems: 2,
      removedBytes: 20,
      summary: expect.objectContaining({ agent: 'opencode' }),
      backupId: undefined,
      residue: expect.any(Array),
    });
    expect(points).toEqual(['journal:verifying', 'journal:verified', 'journal:complete']);
    expect(journalOf(run.j.operationId).status).toBe('complete');
    const totals = { total: 2, bytesTotal: plan.estimatedBytes };
    expect(events).toEqual([
      { phase: 'verifying', done: 2, bytesDone: 20, ...totals },
      { phase: 'done', done: 2, bytesDone: 20, ...totals },
    ]);
  });

  it('one item left: failed, that item named, journaled verifying → failed with the message', async () => {
    const { run, points } = await opened();
    rmSync(files[1]!);
    const r = await verifyStep(run, 2, 20, 'bk-1');
    expect(r).toMatchObject({ status: 'failed', message: 'OpenCode still lists Title a; no private database repair was attempted.', removedItems: 1 });
    expect(r.residue).toEqual(expect.any(Array));
    expect(points).toEqual(['journal:verifying', 'journal:failed']);
    expect(journalOf(run.j.operationId)).toMatchObject({ status: 'failed', message: r.message });
  });

  for (const [action, want, message] of [
    ['archive', 'archived', 'Archived 2 sessions · 0 B freed'],
    ['unarchive', 'current', 'Unarchived 2 sessions · 0 B freed'],
  ] as const) {
    it(`${action}: every session ${want} is complete, nothing counted as removed, no residue probed`, async () => {
      const { run, points } = await opened({ action, sessionState: want });
      const r = await verifyStep(run, 2, 20, undefined);
      expect(r).toEqual({ operationId: run.j.operationId, status: 'complete', message, removedItems: 0, removedBytes: 0, summary: expect.any(Object) });
      expect(points).toEqual(['journal:verifying', 'journal:verified', 'journal:complete']);
    });

    it(`${action}: a session not ${want} fails the run, said so, no residue probed`, async () => {
      const other = want === 'archived' ? 'current' : 'archived';
      const { run } = await opened({ action, sessionState: other });
      const r = await verifyStep(run, 2, 20, undefined);
      expect(r).toMatchObject({ status: 'failed', message: `OpenCode does not list Title a and 1 more as ${want} after the ${action}.`, removedItems: 0 });
      expect(r.residue).toBeUndefined();
    });
  }
});

describe('remainingItems', () => {
  it('an item that is not a session still listed remains; archiving, a session no longer listed remains', () => {
    const item: Item = {
      id: 'item:log',
      category: 'log',
      label: 'Log',
      paths: [],
      bytes: 0,
      risk: 'safe',
      recoverable: false,
      selectable: true,
      metadata: {},
    };
    const inv: Inventory = { sessions: [], items: [item], projects: [], warnings: [], writers: [] };
    const after = new Snapshot('opencode', snapshotOf(home, []).installation, inv, Date.now(), 0);
    const plan = {
      items: [
        { id: 'item:log', label: 'Log' },
        { id: 'session:a', label: 'A' },
      ],
    } as unknown as CleanupPlan;
    expect(remainingItems(plan, after, null).map((i) => i.id)).toEqual(['item:log']);
    expect(remainingItems(plan, after, 'archived').map((i) => i.id)).toEqual(['item:log', 'session:a']);
  });
});

describe('verifyStep, the states on disk', () => {
  it('each crash point finds the state it names on disk; a backup is named in the message', async () => {
    const { run } = await opened();
    for (const f of files) rmSync(f);
    const seen: [string, string][] = [];
    atCrashPoints((p) => seen.push([p, journalOf(run.j.operationId).status]));
    const r = await verifyStep(run, 2, 20, 'bk-1');
    expect(r.message).toBe('Cleanup complete · 2 items · backup bk-1');
    expect(seen).toEqual([
      ['journal:verifying', 'verifying'],
      ['journal:verified', 'verified'],
      ['journal:complete', 'complete'],
    ]);
  });
});
