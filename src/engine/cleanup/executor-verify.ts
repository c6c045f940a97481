// The executor's verify step: a fresh scan is the only proof of success.
// Every planned item must be gone from it (or, for an archive plan, in the
// wanted state); the residue probe then reads, without changing anything,
// what survives of each removed item on the agent's other surfaces.

import { agentName } from '../core/agents.js';
import type { CleanupPlan, ExecuteResult, PlanItem } from '../core/model.js';
import { proveResidue } from './residue.js';
import type { Snapshot } from '../inventory/snapshot.js';
import { t } from '../i18n/index.js';
import type { Run } from './executor-run.js';

/** The planned items the rescan still shows (or, archiving, not yet in the wanted state). */
export function remainingItems(plan: CleanupPlan, after: Snapshot, archiveWant: 'archived' | 'current' | null): PlanItem[] {
  return archiveWant
    ? plan.items.filter((i) => after.session(i.id)?.s.state !== archiveWant)
    : plan.items.filter((i) => after.session(i.id) || after.item(i.id));
}

/** The one sentence of a verify that found items left. */
export function remainingMessage(plan: CleanupPlan, remaining: readonly PlanItem[], archiveWant: 'archived' | 'current' | null): string {
  const more = remaining.length > 1 ? ` and ${remaining.length - 1} more` : '';
  return archiveWant
    ? `${agentName(plan.agent)} does not list ${remaining[0]!.label}${more} as ${archiveWant} after the ${plan.action}.`
    : `${agentName(plan.agent)} still lists ${remaining[0]!.label}${more}; no private database repair was attempted.`;
}

export async function verifyStep(run: Run, done: number, bytesDone: number, backupId: string | undefined): Promise<ExecuteResult> {
  const { plan, deps, j, store, archiveWant } = run;
  await store.transition(j, (x) => (x.status = 'verifying'), 'journal:verifying');
  run.progress({ phase: 'verifying', done, bytesDone });
  const summary = await deps.rescan(plan.agent);
  const after = deps.snapshot(summary.snapshotId);
  const remaining = remainingItems(plan, after, archiveWant);
  // What survives of each removed item, on every surface the agent keeps: read only, after the mutation.
  const residue = archiveWant ? undefined : await proveResidue(plan, after, deps.ctx, deps.residue);
  if (remaining.length) {
    const message = remainingMessage(plan, remaining, archiveWant);
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
  run.progress({ phase: 'done', done, bytesDone });
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
