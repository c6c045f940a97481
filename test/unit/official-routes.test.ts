// The executor's official-route operations, independent of any agent: an
// agent's own delete for the minimal roots, then only the leftovers of
// sessions proven deleted; a route that throws leaves a terminated journal
// when a rescan shows nothing changed; a partial result leaves a failed
// journal for recovery; official items go through the item route.

import { mkdirSync, writeFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ItemRoute, SessionRoute } from '../../src/engine/core/adapter.js';
import { executePlan, type ExecutorDeps } from '../../src/engine/cleanup/executor.js';
import type { ExecuteProgress, Installation, Inventory, SessionRecord } from '../../src/engine/core/model.js';
import { buildPlan } from '../../src/engine/cleanup/planner.js';
import { Snapshot } from '../../src/engine/inventory/snapshot.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
let home: string;
let state: string;
beforeEach(() => {
  t = makeTempEnv();
  home = join(t.root, 'agent');
  state = join(t.root, 'state');
  mkdirSync(join(home, 'media'), { recursive: true });
  mkdirSync(state, { recursive: true });
});
afterEach(() => t.cleanup());

const inst = (): Installation => ({
  agent: 'codex',
  displayName: 'Codex',
  memoryNotice: '',
  state: 'installed',
  home,
  homeSource: 'env',
  executable: '/bin/true',
  version: '1',
  warnings: [],
});

function session(id: string, parentId: string | null, descendants: string[], paths: string[] = []): SessionRecord {
  return {
    id,
    itemId: `session:${id}`,
    title: `Title ${id}`,
    named: true,
    cwd: null,
    projectId: null,
    parentId,
    deletionDescendantIds: descendants,
    state: 'current',
    source: 'test',
    createdAt: 1,
    updatedAt: 1,
    bytes: 10,
    paths,
    recoverable: false,
    selectable: true,
    metadata: { routeRevision: 'rev-1' },
  };
}

/** A store of sessions a (with child a1) and b (with media), plus a memory item cleaned by an official call. */
function store(): { sessions: Map<string, SessionRecord>; memory: boolean } {
  const media = join(home, 'media', 'b.png');
  writeFileSync(media, 'png');
  const s = new Map<string, SessionRecord>();
  s.set('a', session('a', null, ['a1']));
  s.set('a1', session('a1', 'a', []));
  s.set('b', session('b', null, [], [media]));
  return { sessions: s, memory: true };
}

function inventory(st: { sessions: Map<string, SessionRecord>; memory: boolean }): Inventory {
  return {
    sessions: [...st.sessions.values()].map((x) => ({ ...x, deletionDescendantIds: x.deletionDescendantIds.filter((d) => st.sessions.has(d)) })),
    items: st.memory
      ? [
          {
            id: 'memory:global',
            category: 'memory',
            label: 'Memories',
            paths: [],
            bytes: 5,
            risk: 'high',
            recoverable: false,
            selectable: true,
            metadata: { route: 'official' },
          },
        ]
      : [],
    projects: [],
    warnings: [],
    writers: [],
  };
}

function harness(st: ReturnType<typeof store>, route: SessionRoute, itemRoute?: ItemRoute) {
  const snaps = new Map<string, Snapshot>();
  let latest = '';
  const rescan = async () => {
    const snap = new Snapshot('codex', inst(), inventory(st), Date.now(), 0);
    snaps.set(snap.id, snap);
    latest = snap.id;
    return snap.summary();
  };
  const deps: ExecutorDeps = {
    ctx: t.ctx,
    stateDir: state,
    snapshot: (id) => snaps.get(id)!,
    latestSnapshotId: () => latest,
    mutationRoots: () => [home],
    writers: async () => [],
    rescan,
    stopRequested: () => false,
    sessionRoute: route,
    itemRoute,
  };
  return { deps, rescan, snap: () => snaps.get(latest)! };
}

const journals = (): { status: string; mutations: { kind: string; status: string }[] }[] =>
  existsSync(join(state, 'operations'))
    ? readdirSync(join(state, 'operations')).map((f) => JSON.parse(readFileSync(join(state, 'operations', f), 'utf8')))
    : [];

describe('official session delete in the executor', () => {
  it('calls the route once with the minimal roots and the scan revision, then removes only leftovers of deleted sessions', async () => {
    const st = store();
    const calls: { roots: readonly string[]; rev?: string }[] = [];
    const route: SessionRoute = {
      async deleteSessions(_i, _c, roots, opts) {
        calls.push({ roots, rev: opts?.expectedRevision });
        for (const r of roots) for (const id of [r, ...(st.sessions.get(r)?.deletionDescendantIds ?? [])]) st.sessions.delete(id);
        const deleted = roots.flatMap((r) => (r === 'a' ? ['a', 'a1'] : [r]));
        return { route: 'cli', roots: [...roots], deleted, failed: [], stopped: false, durationMs: 1 };
      },
    };
    const h = harness(st, route);
    await h.rescan();
    const plan = buildPlan(h.snap(), ['session:a', 'session:a1', 'session:b'], { readOnly: false, routeAvailable: true, officialSessions: true });
    expect(plan.operations.map((o) => o.kind)).toEqual(['officialDelete']);
    expect(plan.operations[0]!.rootSessionIds).toEqual(['a', 'b']);
    expect(plan.items.map((i) => i.id)).toEqual(['session:a', 'session:a1', 'session:b']);
    expect(plan.backupEligible).toBe(false);
    expect(plan.backupWhyNot).toMatch(/Codex has no import route/);
    expect(plan.routeNotes[0]).toMatch(/Codex's own delete route \(2 roots/);
    const r = await executePlan(plan, h.deps, () => undefined);
    expect(r.status, r.message).toBe('complete');
    expect(calls).toEqual([{ roots: ['a', 'b'], rev: 'rev-1' }]);
    expect(existsSync(join(home, 'media', 'b.png'))).toBe(false);
    expect(journals().map((j) => j.status)).toEqual(['complete']);
  });

  it('while the agent deletes session by session, the progress moves in items and bytes (#27.2: not "29/73 · 0 B of 356 KB")', async () => {
    const st = store();
    const route: SessionRoute = {
      async deleteSessions(_i, _c, roots, opts) {
        roots.forEach((r, n) => {
          for (const id of [r, ...(st.sessions.get(r)?.deletionDescendantIds ?? [])]) st.sessions.delete(id);
          opts?.onProgress?.(n + 1, roots.length, r);
        });
        return { route: 'cli', roots: [...roots], deleted: ['a', 'a1', 'b'], failed: [], stopped: false, durationMs: 1 };
      },
    };
    const h = harness(st, route);
    await h.rescan();
    const plan = buildPlan(h.snap(), ['session:a', 'session:a1', 'session:b'], { readOnly: false, routeAvailable: true, officialSessions: true });
    const seen: ExecuteProgress[] = [];
    const r = await executePlan(plan, h.deps, (p) => seen.push(p));
    expect(r.status, r.message).toBe('complete');
    const during = seen.filter((p) => p.phase === 'deleting');
    // The step opens at 0 (the clock's first report), then half the roots gone: half the items and half the bytes, before the op ends.
    expect(during[0]).toMatchObject({ done: 0, total: 3, bytesDone: 0 });
    expect(during.find((p) => p.done > 0)).toMatchObject({
      done: 2,
      total: 3,
      bytesDone: Math.round(plan.estimatedBytes / 2),
      bytesTotal: plan.estimatedBytes,
    });
    expect(during.at(-1)).toMatchObject({ done: 3, bytesDone: plan.estimatedBytes });
    for (let i = 1; i < during.length; i++) expect(during[i]!.bytesDone).toBeGreaterThanOrEqual(during[i - 1]!.bytesDone);
  });

  it('a route that throws before changing anything ends the operation (terminated); leftovers stay', async () => {
    const st = store();
    const route: SessionRoute = {
      async deleteSessions() {
        throw new Error('Codex holds this thread loaded.');
      },
    };
    const h = harness(st, route);
    await h.rescan();
    const plan = buildPlan(h.snap(), ['session:b'], { readOnly: false, routeAvailable: true, officialSessions: true });
    const r = await executePlan(plan, h.deps, () => undefined);
    expect(r.status).toBe('failed');
    expect(r.message).toMatch(/Codex holds this thread loaded/);
    expect(existsSync(join(home, 'media', 'b.png'))).toBe(true);
    expect(journals().map((j) => j.status)).toEqual(['terminated']);
  });

  it('a partial result fails the operation for recovery and removes media only of the session that went', async () => {
    const st = store();
    const mediaA = join(home, 'media', 'a.png');
    writeFileSync(mediaA, 'a');
    st.sessions.set('a', { ...st.sessions.get('a')!, paths: [mediaA] });
    const route: SessionRoute = {
      async deleteSessions(_i, _c, roots) {
        st.sessions.delete('b');
        return {
          route: 'cli',
          roots: [...roots],
          deleted: ['b'],
          failed: [{ id: 'a', reason: 'the App Server answered an error' }],
          stopped: false,
          durationMs: 1,
        };
      },
    };
    const h = harness(st, route);
    await h.rescan();
    const plan = buildPlan(h.snap(), ['session:b', 'session:a'], { readOnly: false, routeAvailable: true, officialSessions: true });
    const r = await executePlan(plan, h.deps, () => undefined);
    expect(r.status).toBe('failed');
    expect(r.message).toMatch(/did not delete Title a: the App Server answered an error/);
    expect(existsSync(join(home, 'media', 'b.png'))).toBe(false);
    expect(existsSync(mediaA)).toBe(true);
    expect(journals().map((j) => j.status)).toEqual(['failed']);
  });

  it('official items go through the item route after the sessions, and the rescan proves them gone', async () => {
    const st = store();
    const applied: string[][] = [];
    const itemRoute: ItemRoute = {
      async applyItems(_i, _c, ids) {
        applied.push([...ids]);
        st.memory = false;
        return { applied: [...ids], failed: [] };
      },
    };
    const route: SessionRoute = {
      async deleteSessions(_i, _c, roots) {
        for (const r of roots) st.sessions.delete(r);
        return { route: 'cli', roots: [...roots], deleted: [...roots], failed: [], stopped: false, durationMs: 1 };
      },
    };
    const h = harness(st, route, itemRoute);
    await h.rescan();
    const plan = buildPlan(h.snap(), ['memory:global', 'session:b'], { readOnly: false, routeAvailable: true, officialSessions: true });
    expect(plan.operations.map((o) => o.kind)).toEqual(['officialDelete', 'officialItems']);
    const r = await executePlan(plan, h.deps, () => undefined);
    expect(r.status, r.message).toBe('complete');
    expect(applied).toEqual([['memory:global']]);
  });

  it('an item route that applies but leaves the item listed fails verification', async () => {
    const st = store();
    const itemRoute: ItemRoute = { applyItems: async (_i, _c, ids) => ({ applied: [...ids], failed: [] }) };
    const route: SessionRoute = { deleteSessions: async () => ({ route: 'cli', roots: [], deleted: [], failed: [], stopped: false, durationMs: 0 }) };
    const h = harness(st, route, itemRoute);
    await h.rescan();
    const plan = buildPlan(h.snap(), ['memory:global'], { readOnly: false, routeAvailable: true, officialSessions: true });
    const r = await executePlan(plan, h.deps, () => undefined);
    expect(r.status).toBe('failed');
    expect(r.message).toMatch(/still lists Memories/);
  });
});
