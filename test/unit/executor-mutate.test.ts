// The executor's mutate step (executor-mutate.ts, executor-official.ts):
// operations in plan order, each journaled running then applied; a stop
// asked before an operation leaves it and every later one untouched; a
// path replaced after the preflight stops the run there, nothing later
// touched, the journal failed for recovery; an official delete removes the
// leftovers only of sessions the agent proved deleted, and a route's
// failure or its absence ends the run in one sentence.

import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionRoute } from '../../src/engine/core/adapter.js';
import { preflightStep } from '../../src/engine/cleanup/executor-preflight.js';
import { mutateState } from '../../src/engine/cleanup/executor-mutate-state.js';
import { mutateStep } from '../../src/engine/cleanup/executor-mutate.js';
import { isFailed, type ExecutorDeps } from '../../src/engine/cleanup/executor-run.js';
import { journalPath } from '../../src/engine/cleanup/journal.js';
import { buildPlan } from '../../src/engine/cleanup/planner.js';
import type { CleanupPlan } from '../../src/engine/core/model.js';
import { executorDeps, openStepRun, sessionRecord, snapshotOf } from '../helpers/executor-harness.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
let home: string;
let state: string;
let files: string[];
beforeEach(() => {
  t = makeTempEnv('cleanerx-exec-mutate-');
  home = join(t.root, 'agent');
  state = join(t.root, 'state');
  mkdirSync(join(home, 'sessions'), { recursive: true });
  mkdirSync(state, { recursive: true });
  files = ['a', 'b', 'c'].map((n) => {
    const p = join(home, 'sessions', `${n}.jsonl`);
    writeFileSync(p, n.repeat(10));
    return p;
  });
});
afterEach(() => t.cleanup());

/** The planner's one removal, as one operation per item (a, b, c). */
function perItem(p: CleanupPlan): CleanupPlan {
  const op = p.operations[0]!;
  const operations = p.items.map((it, index) => ({ ...op, index, itemIds: [it.id], sessionIds: [it.sessionId!], paths: it.paths, bytes: it.bytes }));
  return { ...p, operations };
}

/** Preflight passed on a plan of a, b, c (each its own operation, in that order); the mutate state ready. */
async function ready(o: { deps?: Partial<ExecutorDeps>; plan?: (p: CleanupPlan) => CleanupPlan } = {}) {
  const snap = snapshotOf(
    home,
    ['a', 'b', 'c'].map((n, i) => sessionRecord(n, [files[i]!], { bytes: 10 })),
  );
  const deps = { ...executorDeps(t, { home, stateDir: state, snap }), ...o.deps };
  const base = perItem(buildPlan(snap, ['session:a', 'session:b', 'session:c'], { readOnly: false, routeAvailable: true }));
  const plan = o.plan ? o.plan(base) : base;
  const opened = await openStepRun(deps, plan);
  const pre = await preflightStep(opened.run);
  if (isFailed(pre)) throw new Error(pre.failed.message);
  return { ...opened, plan, st: mutateState(plan, pre.safety, pre.identities) };
}
const journalOf = (id: string) => JSON.parse(readFileSync(journalPath(state, id), 'utf8'));

describe('mutateState', () => {
  it('labels by path and by item, session ids by path, counters at zero', () => {
    const snap = snapshotOf(home, [sessionRecord('a', [files[0]!])]);
    const plan = buildPlan(snap, ['session:a'], { readOnly: false, routeAvailable: true });
    const st = mutateState(plan, { roots: [home], protectedPaths: [], uid: 0 }, [[]], 'rev');
    expect(st.labelOf.get(files[0]!)).toBe('Title a');
    expect(st.titleOf.get('session:a')).toBe('Title a');
    expect(st.sessionOfPath.get(files[0]!)).toBe('a');
    expect([st.done, st.bytesDone, st.revisionAfterExport]).toEqual([0, 0, 'rev']);
  });
});

describe('mutateStep: the path transaction', () => {
  it('every operation in order, journaled running then applied; the counters add up', async () => {
    const { run, st, parents, plan } = await ready();
    try {
      expect(plan.operations.map((o) => o.paths)).toEqual(files.map((f) => [f]));
      expect(await mutateStep(run, st)).toBeUndefined();
    } finally {
      parents.close();
    }
    for (const f of files) expect(existsSync(f)).toBe(false);
    expect(journalOf(run.j.operationId).status).toBe('deleting');
    // The marks reach the disk with the next transition (journal.ts holds them back); the run's journal has them all.
    expect(run.j.mutations.map((m) => m.status)).toEqual(['applied', 'applied', 'applied']);
    expect(run.j.mutations.every((m) => m.startedAt && m.appliedAt)).toBe(true);
    expect([st.done, st.bytesDone, run.mutated]).toEqual([3, plan.operations.reduce((s, o) => s + o.bytes, 0), true]);
  });

  it('a stop asked before the first operation: nothing removed, the journal terminated', async () => {
    const { run, st, parents } = await ready({ deps: { stopRequested: () => true } });
    const r = await mutateStep(run, st);
    parents.close();
    expect(r?.failed.message).toBe('Stopped by you after 0 of 3 items; the rest is untouched.');
    for (const f of files) expect(existsSync(f)).toBe(true);
    expect(journalOf(run.j.operationId).status).toBe('terminated');
  });

  it('the second path replaced after the preflight: the first gone, the replacement and the third kept, journal failed', async () => {
    const { run, st, parents } = await ready();
    renameSync(files[1]!, `${files[1]}.aside`);
    writeFileSync(files[1]!, 'not planned');
    const r = await mutateStep(run, st);
    parents.close();
    expect(r?.failed.message).toMatch(/No later item was touched\.$/);
    expect(existsSync(files[0]!)).toBe(false);
    expect(readFileSync(files[1]!, 'utf8')).toBe('not planned');
    expect(existsSync(files[2]!)).toBe(true);
    const j = journalOf(run.j.operationId);
    expect(j.status).toBe('failed');
    expect(j.mutations.map((m: { status: string }) => m.status)).toEqual(['applied', 'running', 'pending']);
  });
});

describe('mutateStep: official deletes', () => {
  const official = (p: CleanupPlan): CleanupPlan => ({
    ...p,
    operations: p.operations.map((o) => ({ ...o, kind: 'officialDelete', rootSessionIds: o.sessionIds })),
  });

  it('no session route: one sentence, nothing removed', async () => {
    const { run, st, parents } = await ready({ plan: official });
    const r = await mutateStep(run, st);
    parents.close();
    expect(r?.failed.message).toBe('OpenCode has no official session route in this version.');
    for (const f of files) expect(existsSync(f)).toBe(true);
  });

  it('leftovers go only for the sessions the route deleted; its first failure is named, nothing later touched', async () => {
    const calls: string[][] = [];
    const route: SessionRoute = {
      deleteSessions: async (_i: unknown, _c: unknown, roots: readonly string[]) => {
        calls.push([...roots]);
        const base = { route: 'test', roots: [...roots], stopped: false, durationMs: 1 };
        return roots[0] === 'b' ? { ...base, deleted: [], failed: [{ id: 'b', reason: 'busy' }] } : { ...base, deleted: [...roots], failed: [] };
      },
    } as unknown as SessionRoute;
    const { run, st, parents } = await ready({ plan: official, deps: { sessionRoute: route } });
    const r = await mutateStep(run, st);
    parents.close();
    expect(calls).toEqual([['a'], ['b']]);
    expect(r?.failed.message).toBe('OpenCode did not delete Title b: busy. No later item was touched.');
    expect(existsSync(files[0]!)).toBe(false);
    expect(existsSync(files[1]!)).toBe(true);
    expect(existsSync(files[2]!)).toBe(true);
    expect(journalOf(run.j.operationId).status).toBe('failed');
  });

  it('a route that throws before changing anything: unsure, the rescan shows nothing changed, journal terminated', async () => {
    const route = {
      deleteSessions: async () => {
        throw new Error('The agent refused.');
      },
    } as unknown as SessionRoute;
    const { run, st, parents } = await ready({ plan: official, deps: { sessionRoute: route } });
    const r = await mutateStep(run, st);
    parents.close();
    expect(r?.failed.message).toBe('The agent refused. Nothing later was touched.');
    expect(journalOf(run.j.operationId).status).toBe('terminated');
    for (const f of files) expect(existsSync(f)).toBe(true);
  });
});
