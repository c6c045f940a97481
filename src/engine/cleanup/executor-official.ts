// The mutate step's operations that go through the agent's own routes:
// official session deletes (then the session-owned files the agent leaves),
// archive / unarchive, and official item routes. A route that throws
// promises nothing changed, so the run ends "unsure" and the rescan decides;
// a route that reports a failure ends the run and nothing later is touched.

import { agentName } from '../core/agents.js';
import type { ArchiveRoute, ItemRoute, SessionRoute } from '../core/adapter.js';
import type { ExecuteResult, PlanOperation } from '../core/model.js';
import { crashPoint } from '../core/faults.js';
import { lstatSyncOrNull } from '../host/fsx.js';
import { stepClock } from '../core/step-clock.js';
import { removeAnchored, revalidate } from './path-safety.js';
import { failRun, failUnsure, type Run } from './executor-run.js';
import type { MutateState } from './executor-mutate-state.js';

/** "<agent> did not <verb> <first>: <reason> (and N more)" for a route's failures. */
function firstFailure(run: Run, st: MutateState, verb: string, failed: readonly { id: string; reason: string }[]): string {
  const f = failed[0]!;
  const more = failed.length > 1 ? ` (and ${failed.length - 1} more)` : '';
  return `${agentName(run.plan.agent)} did not ${verb} ${st.titleOf.get(`session:${f.id}`) ?? f.id}: ${f.reason}${more}`;
}

/** The agent's own delete for the op's roots, then the session paths it left behind. Returns a result only on failure. */
export async function officialDeleteOp(run: Run, st: MutateState, op: PlanOperation): Promise<ExecuteResult | undefined> {
  const { plan, deps, snap } = run;
  const route = deps.sessionRoute;
  if (!route) return failRun(run, `${agentName(plan.agent)} has no official session route in this version.`, run.mutated);
  const roots = op.rootSessionIds ?? [];
  const expectedRevision = st.revisionAfterExport ?? snap.session(`session:${roots[0]}`)?.s.metadata.routeRevision;
  crashPoint(`official:${op.index}:before`);
  let res: Awaited<ReturnType<SessionRoute['deleteSessions']>>;
  // The agent deletes root by root (Codex: about a second each on a large store): its share of the
  // op's items and bytes moves with each, repeated every second with the estimate from the pace so far.
  const clock = stepClock(roots.length, (r) => {
    const share = r.done / Math.max(1, r.total);
    run.progress({
      phase: 'deleting',
      done: st.done + Math.round(share * op.itemIds.length),
      bytesDone: st.bytesDone + Math.round(share * op.bytes),
      current: r.current,
      etaMs: r.etaMs,
    });
  });
  try {
    res = await route.deleteSessions(snap.installation, deps.ctx, roots, {
      expectedRevision: typeof expectedRevision === 'string' ? expectedRevision : undefined,
      shouldStop: () => deps.stopRequested(),
      onProgress: (n, _total, id) => clock.step(n, st.titleOf.get(`session:${id}`)),
    });
  } catch (e) {
    return failUnsure(run, `${(e as Error).message} Nothing later was touched.`);
  } finally {
    clock.stop();
  }
  run.mutated ||= res.deleted.length > 0;
  crashPoint(`official:${op.index}:after`);
  const refused = removeLeftBehind(run, st, op, new Set(res.deleted));
  if (refused !== undefined) return failRun(run, `${refused} No later item was touched.`, true);
  if (res.stopped) return failRun(run, `Stopped by you after ${res.deleted.length} sessions; the rest is untouched.`, run.mutated);
  if (res.failed.length) return failRun(run, `${firstFailure(run, st, 'delete', res.failed)}. No later item was touched.`, run.mutated);
  return undefined;
}

/** Media and other session-owned files the agent leaves: removed only for sessions proven deleted. Returns the refusal, if any. */
function removeLeftBehind(run: Run, st: MutateState, op: PlanOperation, gone: ReadonlySet<string>): string | undefined {
  try {
    st.identities[op.index]!.forEach((idn, k) => {
      const owner = st.sessionOfPath.get(idn.path);
      if (!owner || !gone.has(owner) || !lstatSyncOrNull(idn.path)) return;
      revalidate(idn, st.safety, run.parents);
      crashPoint(`remove:${op.index}:${k}:before`);
      removeAnchored(idn, st.safety, () => crashPoint(`remove:${op.index}:${k}:partial`), run.parents);
      crashPoint(`remove:${op.index}:${k}:after`);
    });
  } catch (e) {
    return (e as Error).message;
  }
  return undefined;
}

/** Archive or unarchive the op's sessions through the agent's route. Returns a result only on failure. */
export async function archiveOp(run: Run, st: MutateState, op: PlanOperation): Promise<ExecuteResult | undefined> {
  const { plan, deps, snap } = run;
  const route = deps.archiveRoute;
  if (!route) return failRun(run, `${agentName(plan.agent)} has no official archive route in this version.`, run.mutated);
  run.progress({ phase: 'deleting', done: st.done, bytesDone: st.bytesDone, current: st.titleOf.get(op.itemIds[0]!) });
  // Stryker disable next-line OptionalChaining: an archive op's items are sessions of the plan's own snapshot, so the session is always there.
  const rev = snap.session(op.itemIds[0]!)?.s.metadata.routeRevision;
  crashPoint(`official:${op.index}:before`);
  let res: Awaited<ReturnType<ArchiveRoute['setArchived']>>;
  try {
    res = await route.setArchived(snap.installation, deps.ctx, op.sessionIds, op.kind === 'archive', {
      expectedRevision: typeof rev === 'string' ? rev : undefined,
    });
  } catch (e) {
    return failUnsure(run, `${(e as Error).message} Nothing later was touched.`);
  }
  run.mutated ||= res.changed.length > 0;
  crashPoint(`official:${op.index}:after`);
  if (res.failed.length) return failRun(run, `${firstFailure(run, st, op.kind, res.failed)}.`, run.mutated);
  return undefined;
}

/** The agent's own route for non-session items (git gc, compaction). Returns a result only on failure. */
export async function officialItemsOp(run: Run, st: MutateState, op: PlanOperation): Promise<ExecuteResult | undefined> {
  const { plan, deps, snap } = run;
  const route = deps.itemRoute;
  if (!route) return failRun(run, `${agentName(plan.agent)} has no official item route in this version.`, run.mutated);
  run.progress({ phase: 'deleting', done: st.done, bytesDone: st.bytesDone, current: st.titleOf.get(op.itemIds[0]!) });
  crashPoint(`official:${op.index}:before`);
  let res: Awaited<ReturnType<ItemRoute['applyItems']>>;
  try {
    res = await route.applyItems(snap.installation, deps.ctx, op.itemIds, {
      onProgress: (id, written) => run.progress({ phase: 'deleting', done: st.done, bytesDone: st.bytesDone, current: st.titleOf.get(id), written }),
    });
  } catch (e) {
    return failUnsure(run, `${(e as Error).message} No later item was touched.`);
  }
  run.mutated ||= res.applied.length > 0;
  crashPoint(`official:${op.index}:after`);
  if (res.failed.length) return failRun(run, `${res.failed[0]!.reason} No later item was touched.`, run.mutated);
  return undefined;
}
