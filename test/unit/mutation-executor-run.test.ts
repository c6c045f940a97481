// The run every executor step shares, field by field (#26 item 5: the
// mutants of engine/cleanup/executor-run.ts). Real files under a temp home
// and the harness's rescan: the journal a run starts with, what an archive
// plan wants the rescan to show, and how an official route's failure is
// judged when the rescan fails, finds a state changed, or an item gone.

import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ExecutorDeps, failRun, failUnsure, isFailed, newJournal } from '../../src/engine/cleanup/executor-run.js';
import { journalPath } from '../../src/engine/cleanup/journal.js';
import { buildPlan } from '../../src/engine/cleanup/planner.js';
import { atCrashPoints } from '../../src/engine/core/faults.js';
import type { CleanupPlan, Inventory, Item, SessionRecord } from '../../src/engine/core/model.js';
import { Snapshot } from '../../src/engine/inventory/snapshot.js';
import { executorHome, executorDeps, openStepRun, sessionRecord, snapshotOf } from '../helpers/executor-harness.js';
import type { TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
let home: string;
let state: string;
let a: string;
beforeEach(() => {
  ({ t, home, state, a } = executorHome('cleanerx-run-rules-'));
});
afterEach(() => t.cleanup());

const onDisk = (id: string) => JSON.parse(readFileSync(journalPath(state, id), 'utf8'));

/** A run over session a (in `sessionState`), with a rescan that lists what `listed` returns. */
async function runOf(
  o: { action?: CleanupPlan['action']; sessionState?: 'archived' | 'current'; listed?: () => SessionRecord[]; rescanFails?: boolean; items?: Item[] } = {},
) {
  const rec = sessionRecord('a', [a], o.sessionState ? { state: o.sessionState } : {});
  const inv: Inventory = { sessions: [rec], items: o.items ?? [], projects: [], warnings: [], writers: [] };
  const snap = new Snapshot('opencode', snapshotOf(home, []).installation, inv, Date.now(), 0);
  const base = executorDeps(t, { home, stateDir: state, snap });
  const snaps = new Map<string, Snapshot>([[snap.id, snap]]);
  const deps: ExecutorDeps = {
    ...base,
    snapshot: (id) => snaps.get(id)!,
    rescan: async () => {
      if (o.rescanFails) throw new Error('rescan failed');
      const next = new Snapshot('opencode', snap.installation, { ...inv, sessions: o.listed ? o.listed() : [rec] }, Date.now(), 0);
      snaps.set(next.id, next);
      return next.summary();
    },
  };
  const ids = ['session:a', ...(o.items ?? []).map((i) => i.id)];
  const built = buildPlan(snap, ids, { readOnly: false, routeAvailable: true });
  const plan: CleanupPlan = o.action ? { ...built, action: o.action } : built;
  const opened = await openStepRun(deps, plan);
  opened.parents.close();
  return { ...opened, rec, plan };
}

describe('newJournal', () => {
  it('the plan, its agent and snapshot, the time given, every operation pending with its items', () => {
    const snap = snapshotOf(home, [sessionRecord('a', [a])]);
    const plan = buildPlan(snap, ['session:a'], { readOnly: false, routeAvailable: true });
    const j = newJournal(plan, true, '2026-02-02T00:00:00.000Z');
    expect(j).toEqual({
      formatVersion: 2,
      operationId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      agent: 'opencode',
      snapshotId: snap.id,
      createdAt: '2026-02-02T00:00:00.000Z',
      updatedAt: '2026-02-02T00:00:00.000Z',
      createBackup: true,
      plan,
      itemCategories: { 'session:a': 'session' },
      status: 'planned',
      backupStatus: 'pending',
      mutations: plan.operations.map((op) => ({ index: op.index, kind: op.kind, itemIds: op.itemIds, sessionIds: op.sessionIds, status: 'pending' })),
    });
    expect(Date.parse(newJournal(plan, false).createdAt)).toBeGreaterThan(Date.parse('2026-01-01'));
  });
});

describe('openRun', () => {
  it('what the rescan must show: archived for an archive, current for an unarchive, nothing for a delete', async () => {
    expect((await runOf({ action: 'archive' })).run.archiveWant).toBe('archived');
    expect((await runOf({ action: 'unarchive' })).run.archiveWant).toBe('current');
    expect((await runOf()).run.archiveWant).toBeNull();
  });
});

describe('isFailed', () => {
  it('only an object with a failed field', () => {
    expect([isFailed({ failed: {} }), isFailed(null), isFailed(undefined), isFailed('failed'), isFailed({ safety: 1 })]).toEqual([
      true,
      false,
      false,
      false,
      false,
    ]);
  });
});

describe('failRun', () => {
  it('after a change whose rescan fails: failed, without a summary', async () => {
    const { run } = await runOf({ rescanFails: true });
    const r = await failRun(run, 'Half.', true);
    expect(r).toEqual({ operationId: run.j.operationId, status: 'failed', message: 'Half.', removedItems: 0, removedBytes: 0, summary: undefined });
    expect(onDisk(run.j.operationId).status).toBe('failed');
  });

  it('the ended journal is on disk at the journal:failed crash point (a kill test stops there)', async () => {
    const { run } = await runOf();
    const seen: [string, string][] = [];
    atCrashPoints((p) => seen.push([p, onDisk(run.j.operationId).status]));
    try {
      await failRun(run, 'Nothing yet.', false);
    } finally {
      atCrashPoints(null);
    }
    expect(seen).toEqual([['journal:failed', 'terminated']]);
  });
});

describe('failUnsure', () => {
  it('a rescan that fails proves nothing: failed, for recovery', async () => {
    const { run } = await runOf({ rescanFails: true });
    await failUnsure(run, 'Route threw.');
    expect(onDisk(run.j.operationId)).toMatchObject({ status: 'failed', message: 'Route threw.' });
  });

  it('a run already marked changed stays failed whatever the rescan shows', async () => {
    const { run } = await runOf();
    run.mutated = true;
    await failUnsure(run, 'Route threw.');
    expect(onDisk(run.j.operationId).status).toBe('failed');
  });

  it('archiving: the same state is nothing changed; another state, or the session gone, is a change', async () => {
    const same = await runOf({ action: 'archive', sessionState: 'current' });
    await failUnsure(same.run, 'Route threw.');
    expect(onDisk(same.run.j.operationId).status).toBe('terminated');
    const moved = await runOf({ action: 'archive', sessionState: 'current', listed: () => [sessionRecord('a', [a], { state: 'archived' })] });
    await failUnsure(moved.run, 'Route threw.');
    expect(onDisk(moved.run.j.operationId).status).toBe('failed');
    const gone = await runOf({ action: 'archive', sessionState: 'current', listed: () => [] });
    await failUnsure(gone.run, 'Route threw.');
    expect(onDisk(gone.run.j.operationId).status).toBe('failed');
  });

  it('an item that is not a session still listed is nothing changed; the session gone is', async () => {
    const log = join(home, 'log.txt');
    writeFileSync(log, 'l');
    const item: Item = {
      id: 'item:log',
      category: 'log',
      label: 'Log',
      paths: [log],
      bytes: 1,
      risk: 'safe',
      recoverable: false,
      selectable: true,
      metadata: {},
    };
    const kept = await runOf({ items: [item] });
    await failUnsure(kept.run, 'Route threw.');
    expect(onDisk(kept.run.j.operationId).status).toBe('terminated');
    const gone = await runOf({ items: [item], listed: () => [] });
    rmSync(a);
    await failUnsure(gone.run, 'Route threw.');
    expect(onDisk(gone.run.j.operationId).status).toBe('failed');
  });
});
