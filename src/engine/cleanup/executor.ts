// Executes a reviewed plan: journal → preflight → (backup) → mutate →
// verify. The journal is created before anything changes and every
// transition is written before execution continues; operations run in
// order and none is skipped; a final rescan is the only proof of success.

import { agentName } from '../core/agents.js';
import { randomUUID } from 'node:crypto';
import type { ArchiveRoute, HostContext, ItemRoute, ResidueProbe, SessionExportEntry, SessionRoute } from '../core/adapter.js';
import { acquireAgentLock, AgentLockError, liveLockHolder } from './agent-lock.js';
import { assertAnchoredSupported } from '../host/anchored-fs.js';
import { crashPoint } from '../core/faults.js';
import { lstatSyncOrNull } from '../host/fsx.js';
import { JournalStore, listJournals, TERMINAL, type Journal } from './journal.js';
import {
  describeWriters,
  type AgentKind,
  type Category,
  type CleanupPlan,
  type ExecuteProgress,
  type ExecuteResult,
  type ScanSummary,
  type Writer,
} from '../core/model.js';
import { captureIdentity, ParentHandles, removeAnchored, revalidate, type CaptureMemo, type FileIdentity, type SafetyContext } from './path-safety.js';
import { planBlockers } from './planner.js';
import { proveResidue } from './residue.js';
import { walkOwned } from '../inventory/revision.js';
import { stepClock } from '../core/step-clock.js';
import type { BackupKey, ExportProgress, TakeBackup } from './backup-step.js';
import type { Snapshot } from '../inventory/snapshot.js';
import { RequestError } from '../core/validate.js';
import { t } from '../core/i18n/index.js';

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

/**
 * Refuses to start while an unknown journal exists, or an unfinished one for
 * this agent. A cleanup that is still running holds the agent's lock and its
 * journal is unfinished: that is "running (pid)", never "needs recovery".
 */
export async function assertNoPendingJournal(stateDir: string, agent: AgentKind): Promise<void> {
  for (const e of await listJournals(stateDir)) {
    if (e.kind === 'unknown') throw new RequestError(`An unrecognized cleanup journal blocks all cleanup: ${e.path} (${e.reason})`);
    if (e.journal.agent === agent && !TERMINAL.includes(e.journal.status)) {
      const running = liveLockHolder(stateDir, agent);
      // Our own lock (the executor holds it while it checks) is no other cleanup.
      if (running && running.pid !== process.pid) {
        throw new AgentLockError(
          t('lock.running', { agent: agentName(agent), pid: String(running.pid), started: String(running.startedAt), command: String(running.command) }),
          running,
        );
      }
      throw new RequestError(`An unfinished ${agentName(agent)} cleanup needs recovery first (operation ${e.journal.operationId}).`);
    }
  }
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

export async function executePlan(
  plan: CleanupPlan,
  deps: ExecutorDeps,
  onProgress: (p: ExecuteProgress) => void,
  backup?: BackupRequest,
): Promise<ExecuteResult> {
  if (deps.latestSnapshotId(plan.agent) !== plan.snapshotId) throw new RequestError('This plan belongs to an older scan; review it again.');
  const blockers = planBlockers(plan);
  if (blockers.length) throw new RequestError(`The plan has blockers: ${blockers[0]}`);
  // Two cleanups of one agent would each trust a preflight the other invalidates.
  const lock = acquireAgentLock(deps.stateDir, plan.agent);
  try {
    return await executeLocked(plan, deps, onProgress, backup);
  } finally {
    lock.release();
  }
}

async function executeLocked(plan: CleanupPlan, deps: ExecutorDeps, onProgress: (p: ExecuteProgress) => void, backup?: BackupRequest): Promise<ExecuteResult> {
  // The backup's warnings (entries it cannot hold) belong to every result after it, failed or not.
  const warnings: string[] = [];
  // Held for the run: the parents of the planned paths, opened once each instead of once per path.
  const parents = new ParentHandles();
  let r: ExecuteResult;
  try {
    r = await executeSteps(plan, deps, onProgress, warnings, parents, backup);
  } finally {
    parents.close();
  }
  return warnings.length ? { ...r, warnings: [...(r.warnings ?? []), ...warnings] } : r;
}

async function executeSteps(
  plan: CleanupPlan,
  deps: ExecutorDeps,
  onProgress: (p: ExecuteProgress) => void,
  warnings: string[],
  parents: ParentHandles,
  backup?: BackupRequest,
): Promise<ExecuteResult> {
  const snap = deps.snapshot(plan.snapshotId);
  await assertNoPendingJournal(deps.stateDir, plan.agent);

  const store = new JournalStore(deps.stateDir);
  let mutated = false;
  // An archive plan changes each session's state, never its presence: that is what the rescan must show.
  const archiveWant = plan.action === 'archive' ? 'archived' : plan.action === 'unarchive' ? 'current' : null;
  const itemCategories: Record<string, Category> = {};
  for (const i of plan.items) itemCategories[i.id] = i.category;
  const now = new Date().toISOString();
  const j: Journal = {
    formatVersion: 2,
    operationId: randomUUID(),
    agent: plan.agent,
    snapshotId: plan.snapshotId,
    createdAt: now,
    updatedAt: now,
    createBackup: Boolean(backup),
    plan,
    itemCategories,
    status: 'planned',
    backupStatus: backup ? 'pending' : 'notRequested',
    mutations: plan.operations.map((o) => ({ index: o.index, kind: o.kind, itemIds: o.itemIds, sessionIds: o.sessionIds, status: 'pending' })),
  };
  await store.create(j);

  const bytesTotal = plan.estimatedBytes;
  const total = plan.items.length;
  const progress = (p: Partial<ExecuteProgress> & Pick<ExecuteProgress, 'phase'>): void => onProgress({ done: 0, total, bytesDone: 0, bytesTotal, ...p });
  const fail = async (message: string, mutated: boolean): Promise<ExecuteResult> => {
    // Nothing changed yet: the operation ends here. After a change, recovery must look.
    await store.transition(
      j,
      (x) => {
        x.status = mutated ? 'failed' : 'terminated';
        x.message = message;
      },
      'journal:failed',
    );
    let summary: ScanSummary | undefined;
    if (mutated) summary = await deps.rescan(plan.agent).catch(() => undefined);
    return { operationId: j.operationId, status: 'failed', message, removedItems: 0, removedBytes: 0, summary };
  };

  /** An official route threw: it promises nothing changed, and the rescan must agree before the journal says so. */
  const failUnsure = async (message: string): Promise<ExecuteResult> => {
    const summary = await deps.rescan(plan.agent).catch(() => undefined);
    const after = summary ? deps.snapshot(summary.snapshotId) : undefined;
    const changed =
      !after ||
      plan.items.some((i) => (archiveWant ? after.session(i.id)?.s.state !== snap.session(i.id)?.s.state : !after.session(i.id) && !after.item(i.id)));
    return fail(message, mutated || changed);
  };

  // ---- preflight: writers, revisions, identities ----
  progress({ phase: 'preflight' });
  const safety: SafetyContext = {
    roots: deps.mutationRoots(plan.agent, snap),
    protectedPaths: snap.items.filter((i) => i.category === 'protected').flatMap((i) => i.paths),
    uid: deps.ctx.uid,
  };
  const writers = await deps.writers(plan.agent, snap);
  if (writers.length && plan.operations.some((o) => o.requiresAgentExit)) {
    return fail(`Quit ${agentName(plan.agent)} and retry this cleanup plan (running: ${describeWriters(writers)}).`, false);
  }
  const identities: FileIdentity[][] = [];
  try {
    if (plan.operations.some((o) => o.paths.length)) assertAnchoredSupported();
    const memo: CaptureMemo = new Map();
    for (const op of plan.operations) {
      // Captured first, refused in the old order: an item's revision check still speaks before its paths' safety.
      const captured = new Map<string, FileIdentity | Error>();
      for (const p of op.paths) {
        if (captured.has(p)) continue;
        try {
          captured.set(p, captureIdentity(p, safety, memo));
        } catch (e) {
          captured.set(p, e as Error);
        }
      }
      for (const id of op.itemIds) {
        const node = snap.session(id);
        const expected = node?.s.metadata.sourceRevision ?? snap.item(id)?.metadata.sourceRevision;
        if (typeof expected === 'string') {
          const paths = node?.s.paths ?? snap.item(id)?.paths ?? [];
          // An item of one path: its capture walked exactly the tree walkOwned(paths) would.
          const one = paths.length === 1 ? captured.get(paths[0]!) : undefined;
          const revision = one && !(one instanceof Error) ? one.revision : walkOwned(paths, { uid: deps.ctx.uid }).revision;
          if (revision !== expected) throw new RequestError(`${id} changed after the inventory scan; rescan and review again.`);
        }
      }
      identities.push(
        op.paths.map((p) => {
          const c = captured.get(p)!;
          if (c instanceof Error) throw c;
          return c;
        }),
      );
    }
  } catch (e) {
    return fail((e as Error).message, false);
  }
  await store.transition(
    j,
    (x) => {
      x.mutations.forEach((m, i) => (m.pre = identities[i]!.map(({ path, dev, ino, size, revision }) => ({ path, dev, ino, size, revision }))));
    },
    'journal:preflight',
  );

  // ---- backup: written, reopened, verified and in the catalog before anything is removed ----
  let backupId: string | undefined;
  // An official export moves the store's revision; the delete then expects the one it reported.
  let revisionAfterExport: string | undefined;
  if (backup) {
    try {
      const roots = plan.operations.flatMap((o) => (o.kind === 'officialDelete' ? (o.rootSessionIds ?? []) : []));
      const exportSessions =
        roots.length && backup.exportSessions ? (dir: string, onProgress?: ExportProgress) => backup.exportSessions!(roots, dir, onProgress) : undefined;
      const taken = await backup.take({
        plan,
        journal: j,
        store,
        dataDir: backup.dataDir,
        key: backup.key,
        roots: backup.roots,
        retentionDays: backup.retentionDays,
        progress,
        exportSessions,
      });
      backupId = taken.id;
      revisionAfterExport = taken.revisionAfterExport;
      warnings.push(...taken.warnings);
    } catch (e) {
      return fail(`${(e as Error).message} Nothing was removed.`, false);
    }
  }

  // ---- back up only: the verified backup is in the catalog; nothing is removed, so the journal ends here ----
  if (plan.action === 'backupOnly') {
    if (!backupId) return fail('Back up only needs the backup step; nothing was removed.', false);
    await store.transition(j, (x) => (x.status = 'verified'), 'journal:verified');
    await store.transition(j, (x) => (x.status = 'complete'), 'journal:complete');
    progress({ phase: 'done', done: total });
    return {
      operationId: j.operationId,
      status: 'complete',
      message: t('backupOnly.done', { count: total, id: backupId }),
      removedItems: 0,
      removedBytes: 0,
      backupId,
    };
  }

  // ---- mutate, in order ----
  await store.transition(j, (x) => (x.status = 'deleting'), 'journal:deleting');
  let done = 0;
  let bytesDone = 0;
  const labelOf = new Map<string, string>();
  for (const i of plan.items) for (const p of i.paths) labelOf.set(p, i.label);
  const titleOf = new Map(plan.items.map((i) => [i.id, i.label]));
  const sessionOfPath = new Map<string, string>();
  for (const i of plan.items) if (i.id.startsWith('session:')) for (const p of i.paths) sessionOfPath.set(p, i.id.slice('session:'.length));

  /** The agent's own delete for the op's roots, then the session paths it left behind. Returns a result only on failure. */
  const officialDelete = async (op: (typeof plan.operations)[number], ids: FileIdentity[]): Promise<ExecuteResult | undefined> => {
    const route = deps.sessionRoute;
    if (!route) return fail(`${agentName(plan.agent)} has no official session route in this version.`, mutated);
    const roots = op.rootSessionIds ?? [];
    const expectedRevision = revisionAfterExport ?? snap.session(`session:${roots[0]}`)?.s.metadata.routeRevision;
    crashPoint(`official:${op.index}:before`);
    let res: Awaited<ReturnType<SessionRoute['deleteSessions']>>;
    // The agent deletes root by root (Codex: about a second each on a large store): its share of the
    // op's items and bytes moves with each, repeated every second with the estimate from the pace so far.
    const clock = stepClock(roots.length, (r) => {
      const share = r.done / Math.max(1, r.total);
      progress({
        phase: 'deleting',
        done: done + Math.round(share * op.itemIds.length),
        bytesDone: bytesDone + Math.round(share * op.bytes),
        current: r.current,
        etaMs: r.etaMs,
      });
    });
    try {
      res = await route.deleteSessions(snap.installation, deps.ctx, roots, {
        expectedRevision: typeof expectedRevision === 'string' ? expectedRevision : undefined,
        shouldStop: () => deps.stopRequested(),
        onProgress: (n, _total, id) => clock.step(n, titleOf.get(`session:${id}`)),
      });
    } catch (e) {
      return failUnsure(`${(e as Error).message} Nothing later was touched.`);
    } finally {
      clock.stop();
    }
    mutated ||= res.deleted.length > 0;
    crashPoint(`official:${op.index}:after`);
    // Media and other session-owned files the agent leaves: removed only for sessions proven deleted.
    const gone = new Set(res.deleted);
    try {
      ids.forEach((idn, k) => {
        const owner = sessionOfPath.get(idn.path);
        if (!owner || !gone.has(owner) || !lstatSyncOrNull(idn.path)) return;
        revalidate(idn, safety, parents);
        crashPoint(`remove:${op.index}:${k}:before`);
        removeAnchored(idn, safety, () => crashPoint(`remove:${op.index}:${k}:partial`), parents);
        crashPoint(`remove:${op.index}:${k}:after`);
      });
    } catch (e) {
      return fail(`${(e as Error).message} No later item was touched.`, true);
    }
    if (res.stopped) return fail(`Stopped by you after ${res.deleted.length} sessions; the rest is untouched.`, mutated);
    if (res.failed.length) {
      const f = res.failed[0]!;
      return fail(
        `${agentName(plan.agent)} did not delete ${titleOf.get(`session:${f.id}`) ?? f.id}: ${f.reason}${res.failed.length > 1 ? ` (and ${res.failed.length - 1} more)` : ''}. No later item was touched.`,
        mutated,
      );
    }
    return undefined;
  };

  for (const op of plan.operations) {
    if (deps.stopRequested()) {
      return fail(`Stopped by you after ${done} of ${plan.items.length} items; the rest is untouched.`, mutated);
    }
    const m = j.mutations[op.index]!;
    await store.transition(
      j,
      () => {
        m.status = 'running';
        m.startedAt = new Date().toISOString();
      },
      `mutation:${op.index}:running`,
    );
    if (op.kind === 'officialDelete') {
      const r = await officialDelete(op, identities[op.index]!);
      if (r) return r;
    } else if (op.kind === 'archive' || op.kind === 'unarchive') {
      const route = deps.archiveRoute;
      if (!route) return fail(`${agentName(plan.agent)} has no official archive route in this version.`, mutated);
      progress({ phase: 'deleting', done, bytesDone, current: titleOf.get(op.itemIds[0]!) });
      const rev = snap.session(op.itemIds[0]!)?.s.metadata.routeRevision;
      crashPoint(`official:${op.index}:before`);
      let res: Awaited<ReturnType<ArchiveRoute['setArchived']>>;
      try {
        res = await route.setArchived(snap.installation, deps.ctx, op.sessionIds, op.kind === 'archive', {
          expectedRevision: typeof rev === 'string' ? rev : undefined,
        });
      } catch (e) {
        return failUnsure(`${(e as Error).message} Nothing later was touched.`);
      }
      mutated ||= res.changed.length > 0;
      crashPoint(`official:${op.index}:after`);
      if (res.failed.length) {
        const f = res.failed[0]!;
        return fail(
          `${agentName(plan.agent)} did not ${op.kind} ${titleOf.get(`session:${f.id}`) ?? f.id}: ${f.reason}${res.failed.length > 1 ? ` (and ${res.failed.length - 1} more)` : ''}.`,
          mutated,
        );
      }
    } else if (op.kind === 'officialItems') {
      const route = deps.itemRoute;
      if (!route) return fail(`${agentName(plan.agent)} has no official item route in this version.`, mutated);
      progress({ phase: 'deleting', done, bytesDone, current: titleOf.get(op.itemIds[0]!) });
      crashPoint(`official:${op.index}:before`);
      let res: Awaited<ReturnType<ItemRoute['applyItems']>>;
      try {
        res = await route.applyItems(snap.installation, deps.ctx, op.itemIds, {
          onProgress: (id, written) => progress({ phase: 'deleting', done, bytesDone, current: titleOf.get(id), written }),
        });
      } catch (e) {
        return failUnsure(`${(e as Error).message} No later item was touched.`);
      }
      mutated ||= res.applied.length > 0;
      crashPoint(`official:${op.index}:after`);
      if (res.failed.length) return fail(`${res.failed[0]!.reason} No later item was touched.`, mutated);
    } else {
      try {
        identities[op.index]!.forEach((idn, k) => {
          progress({ phase: 'deleting', done, bytesDone, current: labelOf.get(idn.path) });
          revalidate(idn, safety, parents);
          crashPoint(`remove:${op.index}:${k}:before`);
          mutated = true;
          removeAnchored(idn, safety, () => crashPoint(`remove:${op.index}:${k}:partial`), parents);
          crashPoint(`remove:${op.index}:${k}:after`);
        });
      } catch (e) {
        return fail(`${(e as Error).message} No later item was touched.`, mutated);
      }
    }
    await store.transition(
      j,
      () => {
        m.status = 'applied';
        m.appliedAt = new Date().toISOString();
      },
      `mutation:${op.index}:applied`,
    );
    done += op.itemIds.length;
    bytesDone += op.bytes;
    progress({ phase: 'deleting', done, bytesDone });
  }

  // ---- verify by rescanning ----
  await store.transition(j, (x) => (x.status = 'verifying'), 'journal:verifying');
  progress({ phase: 'verifying', done, bytesDone });
  const summary = await deps.rescan(plan.agent);
  const after = deps.snapshot(summary.snapshotId);
  const remaining = archiveWant
    ? plan.items.filter((i) => after.session(i.id)?.s.state !== archiveWant)
    : plan.items.filter((i) => after.session(i.id) || after.item(i.id));
  // What survives of each removed item, on every surface the agent keeps: read only, after the mutation.
  const residue = archiveWant ? undefined : await proveResidue(plan, after, deps.ctx, deps.residue);
  if (remaining.length) {
    const more = remaining.length > 1 ? ` and ${remaining.length - 1} more` : '';
    const message = archiveWant
      ? `${agentName(plan.agent)} does not list ${remaining[0]!.label}${more} as ${archiveWant} after the ${plan.action}.`
      : `${agentName(plan.agent)} still lists ${remaining[0]!.label}${more}; no private database repair was attempted.`;
    await store.transition(
      j,
      (x) => {
        x.status = 'failed';
        x.message = message;
      },
      'journal:failed',
    );
    return {
      operationId: j.operationId,
      status: 'failed',
      message,
      removedItems: plan.items.length - remaining.length,
      removedBytes: bytesDone,
      summary,
      residue,
    };
  }
  await store.transition(j, (x) => (x.status = 'verified'), 'journal:verified');
  await store.transition(j, (x) => (x.status = 'complete'), 'journal:complete');
  progress({ phase: 'done', done, bytesDone });
  if (archiveWant) {
    const message = t(plan.action === 'archive' ? 'exec.archived' : 'exec.unarchived', { sessions: t('count.sessions', { count: done }) });
    return { operationId: j.operationId, status: 'complete', message, removedItems: 0, removedBytes: 0, summary };
  }
  return {
    operationId: j.operationId,
    status: 'complete',
    // The count goes in as text: t() groups the digits of numbers, and this line kept them plain.
    message: backupId ? t('exec.completeBackup', { count: done, id: backupId }) : t('exec.complete', { count: done }),
    removedItems: done,
    removedBytes: bytesDone,
    summary,
    backupId,
    residue,
  };
}
