// The mutate step's agent routes, one operation at a time (#26 item 5: the
// mutants of engine/cleanup/executor-official.ts), with the routes stubbed:
// what each route is asked (ids, direction, the scan's revision only when it
// is a string, stop and progress), the progress and crash points around it,
// and how each outcome ends: no route, a throw ("unsure"), a reported
// failure (terminated before any change, failed after one), a stop.

import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
// The agents' names come from the registry (the mutation run's vitest config has no setup file that loads it).
import '../../src/adapters/registry.js';
import type { ArchiveRoute, ItemRoute, SessionRoute } from '../../src/engine/core/adapter.js';
import { executePlan } from '../../src/engine/cleanup/executor.js';
import { archiveOp, officialDeleteOp, officialItemsOp } from '../../src/engine/cleanup/executor-official.js';
import { mutateState } from '../../src/engine/cleanup/executor-mutate-state.js';
import type { ExecutorDeps } from '../../src/engine/cleanup/executor-run.js';
import { journalPath } from '../../src/engine/cleanup/journal.js';
import type { SafetyContext } from '../../src/engine/cleanup/path-safety.js';
import { buildPlan, type PlanOptions } from '../../src/engine/cleanup/planner.js';
import { atCrashPoints } from '../../src/engine/core/faults.js';
import type { Inventory, Item } from '../../src/engine/core/model.js';
import { Snapshot } from '../../src/engine/inventory/snapshot.js';
import { executorDeps, executorHome, openStepRun, sessionRecord, snapshotOf } from '../helpers/executor-harness.js';
import type { TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
let home: string;
let state: string;
let points: string[];
beforeEach(() => {
  ({ t, home, state } = executorHome('cleanerx-mut-official-', false));
  points = [];
  atCrashPoints((p) => points.push(p));
});
afterEach(() => {
  atCrashPoints(null);
  vi.useRealTimers();
  t.cleanup();
});

const memory: Item = {
  id: 'item:mem',
  category: 'memory',
  label: 'Memories',
  paths: [],
  bytes: 5,
  risk: 'high',
  recoverable: false,
  selectable: true,
  metadata: { route: 'official' },
};

/** Sessions a and b (revision `rev`) and an official item; one run opened on the plan of `ids`, its journal on disk. */
async function opened(ids: string[], opts: Partial<PlanOptions>, deps: Partial<ExecutorDeps>, rev: unknown = 'rev-1') {
  const meta = { routeRevision: rev } as Record<string, string>;
  const inv: Inventory = {
    sessions: [sessionRecord('a', [], { metadata: meta }), sessionRecord('b', [], { metadata: meta })],
    items: [memory],
    projects: [],
    warnings: [],
    writers: [],
  };
  const snap = new Snapshot('opencode', snapshotOf(home, []).installation, inv, Date.now(), 0);
  const full: ExecutorDeps = { ...executorDeps(t, { home, stateDir: state, snap }), ...deps };
  const plan = buildPlan(snap, ids, { readOnly: false, routeAvailable: true, ...opts });
  const o = await openStepRun(full, plan);
  o.parents.close();
  const st = mutateState(
    plan,
    {} as SafetyContext,
    plan.operations.map(() => []),
  );
  points.length = 0;
  return { ...o, plan, st, op: plan.operations[0]!, snap, deps: full };
}
const statusOf = (id: string): string => JSON.parse(readFileSync(journalPath(state, id), 'utf8')).status;

describe('archiveOp', () => {
  const ARCHIVE = { action: 'archive', archive: { archive: true, unarchive: true } } as const;
  const route = (r: Partial<Awaited<ReturnType<ArchiveRoute['setArchived']>>> = {}, calls: unknown[][] = []): ArchiveRoute => ({
    unarchive: true,
    setArchived: async (...args) => {
      calls.push(args);
      return { changed: [], failed: [], ...r };
    },
  });

  it('without the route: refused, nothing changed (terminated)', async () => {
    const { run, st, op } = await opened(['session:a'], ARCHIVE, {});
    const r = await archiveOp(run, st, op);
    expect(r?.message).toBe('OpenCode has no official archive route in this version.');
    expect(statusOf(run.j.operationId)).toBe('terminated');
  });

  it('archives (or unarchives) the op’s sessions at the scan’s revision, between its crash points, after one progress report', async () => {
    for (const [kind, archived] of [
      ['archive', true],
      ['unarchive', false],
    ] as const) {
      const calls: unknown[][] = [];
      const o = await opened(['session:a', 'session:b'], ARCHIVE, { archiveRoute: route({ changed: ['a', 'b'] }, calls) });
      const { run, st, events, snap, deps } = o;
      const op = { ...o.op, kind };
      expect(await archiveOp(run, st, op)).toBeUndefined();
      expect(calls).toEqual([[snap.installation, deps.ctx, ['a', 'b'], archived, { expectedRevision: 'rev-1' }]]);
      expect(events.at(-1)).toEqual({ phase: 'deleting', done: 0, total: 2, bytesDone: 0, bytesTotal: run.plan.estimatedBytes, current: 'Title a' });
      expect(points).toEqual([`official:${op.index}:before`, `official:${op.index}:after`]);
      expect(run.mutated).toBe(true);
    }
  });

  it('a revision that is not a string is not passed on', async () => {
    const calls: unknown[][] = [];
    const { run, st, op } = await opened(['session:a'], ARCHIVE, { archiveRoute: route({ changed: ['a'] }, calls) }, 7);
    await archiveOp(run, st, op);
    expect(calls[0]?.[4]).toEqual({ expectedRevision: undefined });
  });

  it('a route that throws: unsure, the rescan decides (nothing changed: terminated)', async () => {
    const { run, st, op } = await opened(['session:a'], ARCHIVE, {
      archiveRoute: {
        unarchive: true,
        setArchived: async () => {
          throw new Error('The store moved.');
        },
      },
    });
    const r = await archiveOp(run, st, op);
    expect(r?.message).toBe('The store moved. Nothing later was touched.');
    expect(statusOf(run.j.operationId)).toBe('terminated');
  });

  it('reported failures: the first by title, how many more; terminated before any change, failed after one', async () => {
    const two = [
      { id: 'a', reason: 'busy' },
      { id: 'b', reason: 'gone' },
    ];
    let o = await opened(['session:a', 'session:b'], ARCHIVE, { archiveRoute: route({ failed: two }) });
    let r = await archiveOp(o.run, o.st, o.op);
    expect(r?.message).toBe('OpenCode did not archive Title a: busy (and 1 more).');
    expect([o.run.mutated, statusOf(o.run.j.operationId)]).toEqual([false, 'terminated']);
    o = await opened(['session:a', 'session:b'], ARCHIVE, { archiveRoute: route({ changed: ['a'], failed: [two[1]!] }) });
    r = await archiveOp(o.run, o.st, o.op);
    expect(r?.message).toBe('OpenCode did not archive Title b: gone.');
    expect([o.run.mutated, statusOf(o.run.j.operationId)]).toEqual([true, 'failed']);
  });
});

describe('officialItemsOp', () => {
  const route = (r: Partial<Awaited<ReturnType<ItemRoute['applyItems']>>> = {}, calls: unknown[][] = []): ItemRoute => ({
    applyItems: async (inst, ctx, ids, opts) => {
      calls.push([inst, ctx, ids]);
      opts?.onProgress?.('item:mem', 42);
      return { applied: [], failed: [], ...r };
    },
  });

  it('without the route: refused, terminated', async () => {
    const { run, st, op } = await opened(['item:mem'], {}, {});
    expect((await officialItemsOp(run, st, op))?.message).toBe('OpenCode has no official item route in this version.');
    expect(statusOf(run.j.operationId)).toBe('terminated');
  });

  it('applies the op’s items between its crash points; progress names the item and what the route wrote', async () => {
    const calls: unknown[][] = [];
    const { run, st, op, events, snap, deps } = await opened(['item:mem'], {}, { itemRoute: route({ applied: ['item:mem'] }, calls) });
    expect(await officialItemsOp(run, st, op)).toBeUndefined();
    expect(calls).toEqual([[snap.installation, deps.ctx, ['item:mem']]]);
    const base = { phase: 'deleting', done: 0, total: 1, bytesDone: 0, bytesTotal: 5, current: 'Memories' };
    expect(events).toEqual([base, { ...base, written: 42 }]);
    expect(points).toEqual([`official:${op.index}:before`, `official:${op.index}:after`]);
    expect(run.mutated).toBe(true);
  });

  it('a route that throws: unsure; a reported failure: its reason, terminated before any change, failed after one', async () => {
    let o = await opened(
      ['item:mem'],
      {},
      {
        itemRoute: {
          applyItems: async () => {
            throw new Error('A writer appeared.');
          },
        },
      },
    );
    expect((await officialItemsOp(o.run, o.st, o.op))?.message).toBe('A writer appeared. No later item was touched.');
    o = await opened(['item:mem'], {}, { itemRoute: route({ failed: [{ id: 'item:mem', reason: 'gc failed.' }] }) });
    expect((await officialItemsOp(o.run, o.st, o.op))?.message).toBe('gc failed. No later item was touched.');
    expect([o.run.mutated, statusOf(o.run.j.operationId)]).toEqual([false, 'terminated']);
    o = await opened(['item:mem'], {}, { itemRoute: route({ applied: ['item:mem'], failed: [{ id: 'item:mem', reason: 'half.' }] }) });
    expect((await officialItemsOp(o.run, o.st, o.op))?.message).toBe('half. No later item was touched.');
    expect([o.run.mutated, statusOf(o.run.j.operationId)]).toEqual([true, 'failed']);
  });
});

describe('officialDeleteOp', () => {
  const OFFICIAL = { officialSessions: true } as const;
  type Res = Awaited<ReturnType<SessionRoute['deleteSessions']>>;
  const route = (r: Partial<Res> = {}, seen: { args?: unknown[]; stop?: boolean } = {}): SessionRoute =>
    ({
      deleteSessions: async (inst, ctx, roots, opts) => {
        seen.args = [inst, ctx, roots, { expectedRevision: opts?.expectedRevision }];
        seen.stop = opts?.shouldStop?.();
        opts?.onProgress?.(1, roots.length, 'a');
        return { deleted: [], failed: [], stopped: false, ...r };
      },
    }) as SessionRoute;

  it('without the route: refused, terminated', async () => {
    const { run, st, op } = await opened(['session:a'], OFFICIAL, {});
    expect((await officialDeleteOp(run, st, op))?.message).toBe('OpenCode has no official session route in this version.');
    expect(statusOf(run.j.operationId)).toBe('terminated');
  });

  it('the roots at the scan’s revision (a string only), the user’s stop passed through, between its crash points; the clock stops', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const seen: { args?: unknown[]; stop?: boolean } = {};
    const { run, st, op, events, snap, deps } = await opened(['session:a'], OFFICIAL, {
      sessionRoute: route({ deleted: ['a'] }, seen),
      stopRequested: () => true,
    });
    expect(await officialDeleteOp(run, st, op)).toBeUndefined();
    expect(seen).toEqual({ args: [snap.installation, deps.ctx, ['a'], { expectedRevision: 'rev-1' }], stop: true });
    expect(events.at(-1)).toMatchObject({ phase: 'deleting', done: 1, current: 'Title a' });
    expect(points).toEqual([`official:${op.index}:before`, `official:${op.index}:after`]);
    const n = events.length;
    vi.advanceTimersByTime(5000);
    expect(events.length).toBe(n);
    const numeric = await opened(['session:a'], OFFICIAL, { sessionRoute: route({ deleted: ['a'] }, seen) }, 7);
    await officialDeleteOp(numeric.run, numeric.st, numeric.op);
    expect(seen.args?.[3]).toEqual({ expectedRevision: undefined });
  });

  it('the revision an export left wins over the scan’s; an op without roots asks for none', async () => {
    const seen: { args?: unknown[] } = {};
    const o = await opened(['session:a'], OFFICIAL, { sessionRoute: route({}, seen) });
    await officialDeleteOp(o.run, { ...o.st, revisionAfterExport: 'rev-9' }, o.op);
    expect(seen.args?.[3]).toEqual({ expectedRevision: 'rev-9' });
    await officialDeleteOp(o.run, o.st, { ...o.op, rootSessionIds: undefined });
    expect(seen.args?.slice(2)).toEqual([[], { expectedRevision: undefined }]);
  });

  it('a stop after some: says how many went; failures: the first by title and how many more; terminated before any change', async () => {
    let o = await opened(['session:a', 'session:b'], OFFICIAL, { sessionRoute: route({ deleted: ['a'], stopped: true }) });
    expect((await officialDeleteOp(o.run, o.st, o.op))?.message).toBe('Stopped by you after 1 sessions; the rest is untouched.');
    expect([o.run.mutated, statusOf(o.run.j.operationId)]).toEqual([true, 'failed']);
    const two = [
      { id: 'a', reason: 'busy' },
      { id: 'b', reason: 'locked' },
    ];
    o = await opened(['session:a', 'session:b'], OFFICIAL, { sessionRoute: route({ failed: two }) });
    expect((await officialDeleteOp(o.run, o.st, o.op))?.message).toBe('OpenCode did not delete Title a: busy (and 1 more). No later item was touched.');
    expect([o.run.mutated, statusOf(o.run.j.operationId)]).toEqual([false, 'terminated']);
    o = await opened(['session:a', 'session:b'], OFFICIAL, { sessionRoute: route({ deleted: ['a'], failed: [two[1]!] }) });
    expect((await officialDeleteOp(o.run, o.st, o.op))?.message).toBe('OpenCode did not delete Title b: locked. No later item was touched.');
  });
});

describe('officialDeleteOp: what the agent leaves behind', () => {
  /** Session b owns a media folder the agent's delete leaves; the whole run through executePlan, with real preflight identities. */
  async function leftBehind(onDelete: (media: string) => void = () => undefined) {
    const media = join(home, 'media', 'b');
    mkdirSync(media, { recursive: true });
    writeFileSync(join(media, 'one.png'), 'png');
    const snap = snapshotOf(home, [sessionRecord('a', []), sessionRecord('b', [media])]);
    const route = {
      deleteSessions: async (_i: unknown, _c: unknown, roots: readonly string[]) => {
        onDelete(media);
        return { deleted: [...roots], failed: [], stopped: false };
      },
    } as unknown as SessionRoute;
    const deps = { ...executorDeps(t, { home, stateDir: state, snap }), sessionRoute: route };
    const plan = buildPlan(snap, ['session:b'], { readOnly: false, routeAvailable: true, officialSessions: true });
    return { media, r: await executePlan(plan, deps, () => undefined) };
  }

  it('a deleted session’s folder goes, between its crash points, the first entry’s removal marked', async () => {
    const { media, r } = await leftBehind();
    expect(r.status, r.message).toBe('complete');
    expect(existsSync(media)).toBe(false);
    expect(points.filter((p) => p.startsWith('official:') || p.startsWith('remove:'))).toEqual([
      'official:0:before',
      'official:0:after',
      'remove:0:0:before',
      'remove:0:0:partial',
      'remove:0:0:after',
    ]);
  });

  it('a folder swapped after the preflight is refused: nothing of it removed, the run failed for recovery', async () => {
    const { media, r } = await leftBehind((m) => {
      renameSync(m, `${m}.old`);
      mkdirSync(m);
      writeFileSync(join(m, 'other.png'), 'other');
    });
    expect(r.status).toBe('failed');
    // revalidate's sentence: the removal's own check (another sentence) is not what refused it.
    expect(r.message).toBe(`Target changed after scan: ${media}. No later item was touched.`);
    expect(readFileSync(join(media, 'other.png'), 'utf8')).toBe('other');
    expect(points).not.toContain('remove:0:0:before');
    const j = JSON.parse(readFileSync(journalPath(state, r.operationId), 'utf8'));
    expect(j.status).toBe('failed');
  });
});
