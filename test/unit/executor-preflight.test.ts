// The executor's preflight (executor-preflight.ts): a writer holding the
// store, a path outside the mutation roots or under a protected item, an
// item changed since the scan — each refuses the run before anything is
// touched, the journal terminated; an item's revision speaks before its
// paths' safety; on success every mutation's pre-state is in the journal.

import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { captureOperations, preflightStep, safetyContext } from '../../src/engine/cleanup/executor-preflight.js';
import { isFailed } from '../../src/engine/cleanup/executor-run.js';
import { journalPath } from '../../src/engine/cleanup/journal.js';
import { buildPlan } from '../../src/engine/cleanup/planner.js';
import { executorDeps, openStepRun, sessionRecord, snapshotOf } from '../helpers/executor-harness.js';
import { hashTree } from '../helpers/tree-hash.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
let home: string;
let state: string;
beforeEach(() => {
  t = makeTempEnv('cleanerx-exec-preflight-');
  home = join(t.root, 'agent');
  state = join(t.root, 'state');
  mkdirSync(join(home, 'sessions'), { recursive: true });
  mkdirSync(state, { recursive: true });
});
afterEach(() => t.cleanup());

const file = (name: string, text = name): string => {
  const p = join(home, 'sessions', name);
  writeFileSync(p, text);
  return p;
};
const journalOf = (id: string) => JSON.parse(readFileSync(journalPath(state, id), 'utf8'));

describe('captureOperations', () => {
  it('one identity per planned path, per operation, in plan order', () => {
    const a = file('a.jsonl');
    const b = file('b.jsonl');
    const snap = snapshotOf(home, [sessionRecord('a', [a]), sessionRecord('b', [b])]);
    const plan = buildPlan(snap, ['session:a', 'session:b'], { readOnly: false, routeAvailable: true });
    const ids = captureOperations(plan, snap, { roots: [home], protectedPaths: [], uid: t.ctx.uid }, t.ctx.uid);
    expect(ids.map((op) => op.map((i) => i.path))).toEqual(plan.operations.map((o) => o.paths));
  });

  it('a path outside the mutation roots is refused', () => {
    const a = file('a.jsonl');
    const snap = snapshotOf(home, [sessionRecord('a', [a])]);
    const plan = buildPlan(snap, ['session:a'], { readOnly: false, routeAvailable: true });
    expect(() => captureOperations(plan, snap, { roots: [join(t.root, 'elsewhere')], protectedPaths: [], uid: t.ctx.uid }, t.ctx.uid)).toThrow();
  });

  it('an item whose revision moved since the scan is refused, and that refusal speaks before its path is found unsafe', () => {
    const a = file('a.jsonl');
    const snap = snapshotOf(home, [sessionRecord('a', [a], { metadata: { sourceRevision: 'not-the-revision' } })]);
    const plan = buildPlan(snap, ['session:a'], { readOnly: false, routeAvailable: true });
    const safety = { roots: [home], protectedPaths: [], uid: t.ctx.uid };
    expect(() => captureOperations(plan, snap, safety, t.ctx.uid)).toThrow('session:a changed after the inventory scan; rescan and review again.');
    expect(() => captureOperations(plan, snap, { ...safety, roots: [join(t.root, 'elsewhere')] }, t.ctx.uid)).toThrow(/changed after the inventory scan/);
  });
});

describe('preflightStep', () => {
  it('the safety context: the mutation roots, and every protected item’s paths', async () => {
    const a = file('a.jsonl');
    const snap = snapshotOf(home, [sessionRecord('a', [a])]);
    const deps = executorDeps(t, { home, stateDir: state, snap });
    const plan = buildPlan(snap, ['session:a'], { readOnly: false, routeAvailable: true });
    const { run, parents } = await openStepRun(deps, plan);
    parents.close();
    expect(safetyContext(run)).toEqual({ roots: [home], protectedPaths: [], uid: t.ctx.uid });
  });

  it('a running writer with an operation that needs the agent stopped: refused, journal terminated, nothing touched', async () => {
    const a = file('a.jsonl');
    const snap = snapshotOf(home, [sessionRecord('a', [a])]);
    const deps = executorDeps(t, { home, stateDir: state, snap, writers: [{ pid: 42, name: 'agent', command: 'agent', evidence: 'test' }] });
    const free = buildPlan(snap, ['session:a'], { readOnly: false, routeAvailable: true });
    // A writer blocks only an operation that needs the agent stopped.
    const opened = await openStepRun(deps, { ...free, operations: free.operations.map((o) => ({ ...o, requiresAgentExit: false })) });
    opened.parents.close();
    expect(isFailed(await preflightStep(opened.run))).toBe(false);
    rmSync(join(state, 'operations'), { recursive: true });
    const plan = { ...free, operations: free.operations.map((o) => ({ ...o, requiresAgentExit: true })) };
    const before = hashTree(home);
    const { run, parents, events } = await openStepRun(deps, plan);
    parents.close();
    const r = await preflightStep(run);
    expect(isFailed(r) && r.failed.message).toMatch(/^Quit OpenCode and retry this cleanup plan \(running: /);
    expect(journalOf(run.j.operationId).status).toBe('terminated');
    expect(hashTree(home)).toEqual(before);
    expect(events.map((e) => e.phase)).toEqual(['preflight']);
  });

  it('a planned path swapped for a symlink out of the roots: refused with nothing removed', async () => {
    const a = file('a.jsonl');
    const snap = snapshotOf(home, [sessionRecord('a', [a])]);
    const deps = executorDeps(t, { home, stateDir: state, snap });
    const plan = buildPlan(snap, ['session:a'], { readOnly: false, routeAvailable: true });
    const outside = join(t.root, 'outside.txt');
    writeFileSync(outside, 'keep');
    rmSync(a);
    symlinkSync(outside, a);
    const { run, parents } = await openStepRun(deps, plan);
    parents.close();
    const r = await preflightStep(run);
    expect(isFailed(r)).toBe(true);
    expect(journalOf(run.j.operationId).status).toBe('terminated');
    expect(readFileSync(outside, 'utf8')).toBe('keep');
  });

  it('success: every mutation’s pre-state (path, dev, ino, size, revision) is journaled', async () => {
    const a = file('a.jsonl', 'aaaa');
    const snap = snapshotOf(home, [sessionRecord('a', [a])]);
    const deps = executorDeps(t, { home, stateDir: state, snap });
    const plan = buildPlan(snap, ['session:a'], { readOnly: false, routeAvailable: true });
    const { run, parents } = await openStepRun(deps, plan);
    parents.close();
    const r = await preflightStep(run);
    if (isFailed(r)) throw new Error(r.failed.message);
    expect(r.identities[0]!.map((i) => i.path)).toEqual([a]);
    const pre = journalOf(run.j.operationId).mutations[0].pre;
    expect(pre).toHaveLength(1);
    expect(Object.keys(pre[0]).sort()).toEqual(['dev', 'ino', 'path', 'revision', 'size']);
    expect(pre[0]).toMatchObject({ path: a, size: 4, ino: r.identities[0]![0]!.ino });
  });
});
