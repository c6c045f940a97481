// The executor's run (executor-run.ts): the journal is on disk, every
// operation pending, before any step looks at the store; a run that ends
// before any change terminates its journal without a rescan, one that ends
// after a change leaves it failed for recovery with the rescan's summary;
// an official route that threw ends "unsure" and the rescan decides.

import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { failRun, failUnsure, newJournal } from '../../src/engine/cleanup/executor-run.js';
import { journalPath } from '../../src/engine/cleanup/journal.js';
import { buildPlan } from '../../src/engine/cleanup/planner.js';
import { executorHome, executorDeps, openStepRun, sessionRecord, snapshotOf } from '../helpers/executor-harness.js';
import type { TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
let home: string;
let state: string;
beforeEach(() => {
  ({ t, home, state } = executorHome('cleanerx-exec-run-', false));
});
afterEach(() => t.cleanup());

function setup() {
  const a = join(home, 'sessions', 'a.jsonl');
  const b = join(home, 'sessions', 'b.jsonl');
  writeFileSync(a, 'a');
  writeFileSync(b, 'b');
  const snap = snapshotOf(home, [sessionRecord('a', [a]), sessionRecord('b', [b])]);
  let rescans = 0;
  const base = executorDeps(t, { home, stateDir: state, snap });
  const deps = {
    ...base,
    rescan: async (agent: Parameters<typeof base.rescan>[0]) => {
      rescans++;
      return base.rescan(agent);
    },
  };
  const plan = buildPlan(snap, ['session:a', 'session:b'], { readOnly: false, routeAvailable: true });
  return { a, b, plan, deps, rescans: () => rescans };
}

const onDisk = (state: string, id: string) => JSON.parse(readFileSync(journalPath(state, id), 'utf8'));

describe('the run and its journal', () => {
  it('newJournal: every operation pending, the categories of every item, the backup pending only when asked', () => {
    const { plan } = setup();
    const j = newJournal(plan, false, '2026-01-01T00:00:00.000Z');
    expect(j.status).toBe('planned');
    expect(j.backupStatus).toBe('notRequested');
    expect(j.mutations.map((m) => m.status)).toEqual(plan.operations.map(() => 'pending'));
    expect(j.itemCategories).toEqual({ 'session:a': 'session', 'session:b': 'session' });
    expect(newJournal(plan, true).backupStatus).toBe('pending');
    expect(newJournal(plan, true).operationId).not.toBe(j.operationId);
  });

  it('openRun writes the journal before any step runs, and reports progress with the plan totals', async () => {
    const { plan, deps } = setup();
    const { run, events, parents } = await openStepRun(deps, plan);
    parents.close();
    expect(onDisk(state, run.j.operationId).status).toBe('planned');
    expect(run.mutated).toBe(false);
    run.progress({ phase: 'preflight' });
    expect(events).toEqual([{ phase: 'preflight', done: 0, total: 2, bytesDone: 0, bytesTotal: plan.estimatedBytes }]);
  });

  it('failRun before any change: terminated, no rescan; after a change: failed, rescanned', async () => {
    const s = setup();
    const first = await openStepRun(s.deps, s.plan);
    first.parents.close();
    const r = await failRun(first.run, 'No.', false);
    expect(r).toMatchObject({ status: 'failed', message: 'No.', removedItems: 0, removedBytes: 0, summary: undefined });
    expect(onDisk(state, first.run.j.operationId)).toMatchObject({ status: 'terminated', message: 'No.' });
    expect(s.rescans()).toBe(0);

    rmSync(join(state, 'operations'), { recursive: true });
    const second = await openStepRun(s.deps, s.plan);
    second.parents.close();
    const r2 = await failRun(second.run, 'Half.', true);
    expect(onDisk(state, second.run.j.operationId)).toMatchObject({ status: 'failed', message: 'Half.' });
    expect(s.rescans()).toBe(1);
    expect(r2.summary?.snapshotId).toBeTruthy();
  });

  it('failUnsure: the rescan shows nothing changed → terminated; an item gone → failed, for recovery', async () => {
    const s = setup();
    const first = await openStepRun(s.deps, s.plan);
    first.parents.close();
    await failUnsure(first.run, 'Route threw.');
    expect(onDisk(state, first.run.j.operationId).status).toBe('terminated');

    rmSync(join(state, 'operations'), { recursive: true });
    const second = await openStepRun(s.deps, s.plan);
    second.parents.close();
    rmSync(s.a);
    await failUnsure(second.run, 'Route threw.');
    expect(onDisk(state, second.run.j.operationId).status).toBe('failed');
    expect(existsSync(s.b)).toBe(true);
  });
});
