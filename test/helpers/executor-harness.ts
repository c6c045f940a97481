// The executor on a hand-made store: sessions (files or directories under a
// temp home) as a snapshot, and the executor's dependencies around it, with
// a rescan that lists the sessions whose paths are all still there. For
// tests of the path transaction itself, without an agent's scanner.

import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExecutorDeps } from '../../src/engine/cleanup/executor.js';
import { openRun, type Run } from '../../src/engine/cleanup/executor-run.js';
import { ParentHandles } from '../../src/engine/cleanup/path-safety.js';
import type { AgentKind, CleanupPlan, ExecuteProgress, Installation, Inventory, SessionRecord, Writer } from '../../src/engine/core/model.js';
import { Snapshot } from '../../src/engine/inventory/snapshot.js';
import { makeTempEnv, type TempEnv } from './temp-env.js';

/** A temp env with an agent home (`sessions/` in it) and a state dir; `a` is one session file written there when `withA`. */
export function executorHome(prefix: string, withA = true): { t: TempEnv; home: string; state: string; a: string } {
  const t = makeTempEnv(prefix);
  const home = join(t.root, 'agent');
  const state = join(t.root, 'state');
  mkdirSync(join(home, 'sessions'), { recursive: true });
  mkdirSync(state, { recursive: true });
  const a = join(home, 'sessions', 'a.jsonl');
  if (withA) writeFileSync(a, 'a');
  return { t, home, state, a };
}

export function sessionRecord(id: string, paths: string[], o: Partial<SessionRecord> = {}): SessionRecord {
  return {
    id,
    itemId: `session:${id}`,
    title: `Title ${id}`,
    named: true,
    cwd: null,
    projectId: null,
    parentId: null,
    deletionDescendantIds: [],
    state: 'current',
    source: 'test',
    createdAt: 1,
    updatedAt: 1,
    bytes: 16,
    paths,
    recoverable: false,
    selectable: true,
    metadata: {},
    ...o,
  };
}

/** An installed agent at `home` (no executable, no version unless `o` says). */
export function installationOf(home: string, agent: AgentKind = 'pi', o: Partial<Installation> = {}): Installation {
  return { agent, displayName: agent, memoryNotice: '', state: 'installed', home, homeSource: 'env', executable: null, version: null, warnings: [], ...o };
}

export function snapshotOf(home: string, sessions: SessionRecord[], agent: AgentKind = 'opencode'): Snapshot {
  const inst = installationOf(home, agent, { executable: '/bin/true', version: '1' });
  const inv: Inventory = { sessions, items: [], projects: [], warnings: [], writers: [] };
  return new Snapshot(agent, inst, inv, Date.now(), 0);
}

/** The executor's view: the plan's snapshot, and a rescan that lists the sessions whose paths are all still there. */
export function executorDeps(t: TempEnv, o: { home: string; stateDir: string; snap: Snapshot; writers?: Writer[] }): ExecutorDeps {
  const snaps = new Map<string, Snapshot>([[o.snap.id, o.snap]]);
  let latest: string = o.snap.id;
  return {
    ctx: t.ctx,
    stateDir: o.stateDir,
    snapshot: (id) => snaps.get(id)!,
    latestSnapshotId: () => latest,
    mutationRoots: () => [o.home],
    writers: async () => o.writers ?? [],
    rescan: async () => {
      const left = o.snap.forest.nodes.map((n) => n.s).filter((x) => x.paths.every((p) => existsSync(p)));
      const kept = new Set(left.map((x) => x.id));
      const next = snapshotOf(
        o.home,
        left.map((x) => ({ ...x, deletionDescendantIds: x.deletionDescendantIds.filter((d) => kept.has(d)) })),
        o.snap.agent,
      );
      snaps.set(next.id, next);
      latest = next.id;
      return next.summary();
    },
    stopRequested: () => false,
  };
}

/** One executor run opened on a plan (its journal on disk), for tests of a single step; `events` logs every progress report. */
export async function openStepRun(
  deps: ExecutorDeps,
  plan: CleanupPlan,
  o: { createBackup?: boolean } = {},
): Promise<{ run: Run; events: ExecuteProgress[]; parents: ParentHandles }> {
  const events: ExecuteProgress[] = [];
  const parents = new ParentHandles();
  const run = await openRun(plan, deps, deps.snapshot(plan.snapshotId), (p) => events.push(p), [], parents, o.createBackup ?? false);
  return { run, events, parents };
}
