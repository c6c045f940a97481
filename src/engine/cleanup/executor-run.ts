// One cleanup run as the executor's steps share it: the plan, its snapshot,
// the journal created before anything changes, the progress callback, and
// the two ways a run ends early (failed, or an official route's "unsure").
// The steps (executor-preflight, -backup, -mutate, -verify) take a Run and
// return either their result or the run's failed ExecuteResult.

import { randomUUID } from 'node:crypto';
import type { ArchiveRoute, HostContext, ItemRoute, ResidueProbe, SessionExportEntry, SessionRoute } from '../core/adapter.js';
import type { AgentKind, Category, CleanupPlan, ExecuteProgress, ExecuteResult, ScanSummary, Writer } from '../core/model.js';
import type { BackupKey, ExportProgress, TakeBackup } from './backup-step.js';
import { JournalStore, type Journal } from './journal.js';
import type { ParentHandles } from './path-safety.js';
import type { Snapshot } from '../inventory/snapshot.js';

export interface ExecutorDeps {
  ctx: HostContext;
  stateDir: string;
  snapshot(id: string): Snapshot;
  latestSnapshotId(agent: AgentKind): string | undefined;
  mutationRoots(agent: AgentKind, snap: Snapshot): string[];
  writers(agent: AgentKind, snap: Snapshot): Promise<Writer[]>;
  rescan(agent: AgentKind): Promise<ScanSummary>;
  /** True once the user asked to stop after the current step. */
  stopRequested(): boolean;
  /** The agent's official routes, when it has them. */
  sessionRoute?: SessionRoute;
  itemRoute?: ItemRoute;
  archiveRoute?: ArchiveRoute;
  /** The agent's own surfaces of a session, probed in the verify step. */
  residue?: ResidueProbe;
}

export interface BackupRequest {
  /** The backup code, injected (the engine never imports it). */
  take: TakeBackup;
  dataDir: string;
  key: BackupKey;
  roots: { label: string; dir: string }[];
  retentionDays: number;
  /** Writes the official exports of these session roots into a private dir (OpenCode). */
  exportSessions?: (
    rootIds: readonly string[],
    stagingDir: string,
    onProgress?: ExportProgress,
  ) => Promise<{ exports: SessionExportEntry[]; revision: string }>;
}

type ProgressReport = (p: Partial<ExecuteProgress> & Pick<ExecuteProgress, 'phase'>) => void;

export interface Run {
  readonly plan: CleanupPlan;
  readonly deps: ExecutorDeps;
  readonly snap: Snapshot;
  readonly store: JournalStore;
  readonly j: Journal;
  /** An archive plan changes each session's state, never its presence: that is what the rescan must show. */
  readonly archiveWant: 'archived' | 'current' | null;
  /** Held for the run: the parents of the planned paths, opened once each instead of once per path. */
  readonly parents: ParentHandles;
  /** The backup's warnings (entries it cannot hold) belong to every result after it, failed or not. */
  readonly warnings: string[];
  readonly progress: ProgressReport;
  /** Set once anything of the agent's store may have changed: from then on a failure needs recovery. */
  mutated: boolean;
}

/** A step either hands its result on or ends the run with this. */
export interface Failed {
  failed: ExecuteResult;
}

export function isFailed<T>(x: T | Failed): x is Failed {
  return typeof x === 'object' && x !== null && 'failed' in x;
}

/** The journal's first state: every operation pending, written before any step runs. */
export function newJournal(plan: CleanupPlan, createBackup: boolean, now = new Date().toISOString()): Journal {
  const itemCategories: Record<string, Category> = {};
  for (const i of plan.items) itemCategories[i.id] = i.category;
  return {
    formatVersion: 2,
    operationId: randomUUID(),
    agent: plan.agent,
    snapshotId: plan.snapshotId,
    createdAt: now,
    updatedAt: now,
    createBackup,
    plan,
    itemCategories,
    status: 'planned',
    backupStatus: createBackup ? 'pending' : 'notRequested',
    mutations: plan.operations.map((o) => ({ index: o.index, kind: o.kind, itemIds: o.itemIds, sessionIds: o.sessionIds, status: 'pending' })),
  };
}

/** The run begins: its journal is on disk before any step looks at the store. */
export async function openRun(
  plan: CleanupPlan,
  deps: ExecutorDeps,
  snap: Snapshot,
  onProgress: (p: ExecuteProgress) => void,
  warnings: string[],
  parents: ParentHandles,
  createBackup: boolean,
): Promise<Run> {
  const store = new JournalStore(deps.stateDir);
  const j = newJournal(plan, createBackup);
  await store.create(j);
  const archiveWant = plan.action === 'archive' ? 'archived' : plan.action === 'unarchive' ? 'current' : null;
  const total = plan.items.length;
  const bytesTotal = plan.estimatedBytes;
  const progress: ProgressReport = (p) => onProgress({ done: 0, total, bytesDone: 0, bytesTotal, ...p });
  return { plan, deps, snap, store, j, archiveWant, parents, warnings, progress, mutated: false };
}

/** Ends the run: nothing changed yet (`mutated` false) terminates it; after a change, recovery must look. */
export async function failRun(run: Run, message: string, mutated: boolean): Promise<ExecuteResult> {
  await run.store.transition(
    run.j,
    (x) => {
      x.status = mutated ? 'failed' : 'terminated';
      x.message = message;
    },
    'journal:failed',
  );
  let summary: ScanSummary | undefined;
  if (mutated) summary = await run.deps.rescan(run.plan.agent).catch(() => undefined);
  return { operationId: run.j.operationId, status: 'failed', message, removedItems: 0, removedBytes: 0, summary };
}

/** An official route threw: it promises nothing changed, and the rescan must agree before the journal says so. */
export async function failUnsure(run: Run, message: string): Promise<ExecuteResult> {
  const { plan, deps, snap, archiveWant } = run;
  const summary = await deps.rescan(plan.agent).catch(() => undefined);
  const after = summary ? deps.snapshot(summary.snapshotId) : undefined;
  const changed =
    // Stryker disable next-line OptionalChaining: an archive plan's items are sessions of the plan's own snapshot, so snap.session(i.id) is always there.
    !after || plan.items.some((i) => (archiveWant ? after.session(i.id)?.s.state !== snap.session(i.id)?.s.state : !after.session(i.id) && !after.item(i.id)));
  return failRun(run, message, run.mutated || changed);
}
