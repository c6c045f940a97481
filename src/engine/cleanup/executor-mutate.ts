// The executor's mutate step: the plan's operations in order, none skipped.
// Each is marked running in the journal before it starts and applied after
// it ends; the first failure ends the run and nothing later is touched. A
// path is revalidated against its preflight identity right before its
// anchored removal; official routes run in executor-official.ts.

import type { PlanOperation, ExecuteResult } from '../core/model.js';
import { crashPoint } from '../core/faults.js';
import { removeAnchored, revalidate } from './path-safety.js';
import { failRun, type Failed, type Run } from './executor-run.js';
import { archiveOp, officialDeleteOp, officialItemsOp } from './executor-official.js';
import type { MutateState } from './executor-mutate-state.js';

/** Every operation in order; the run's failed result on the first failure, else nothing. */
export async function mutateStep(run: Run, st: MutateState): Promise<Failed | undefined> {
  const { plan, j, store, deps } = run;
  await store.transition(j, (x) => (x.status = 'deleting'), 'journal:deleting');
  for (const op of plan.operations) {
    if (deps.stopRequested()) {
      return { failed: await failRun(run, `Stopped by you after ${st.done} of ${plan.items.length} items; the rest is untouched.`, run.mutated) };
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
    const r = await applyOperation(run, st, op);
    if (r) return { failed: r };
    await store.transition(
      j,
      () => {
        m.status = 'applied';
        m.appliedAt = new Date().toISOString();
      },
      `mutation:${op.index}:applied`,
    );
    st.done += op.itemIds.length;
    st.bytesDone += op.bytes;
    run.progress({ phase: 'deleting', done: st.done, bytesDone: st.bytesDone });
  }
  return undefined;
}

/** One operation by its kind. Returns a result only on failure. */
function applyOperation(run: Run, st: MutateState, op: PlanOperation): Promise<ExecuteResult | undefined> {
  if (op.kind === 'officialDelete') return officialDeleteOp(run, st, op);
  if (op.kind === 'archive' || op.kind === 'unarchive') return archiveOp(run, st, op);
  if (op.kind === 'officialItems') return officialItemsOp(run, st, op);
  return removePathsOp(run, st, op);
}

/** The op's paths, each revalidated and removed through its anchored parent; crash points around each. */
async function removePathsOp(run: Run, st: MutateState, op: PlanOperation): Promise<ExecuteResult | undefined> {
  try {
    st.identities[op.index]!.forEach((idn, k) => {
      run.progress({ phase: 'deleting', done: st.done, bytesDone: st.bytesDone, current: st.labelOf.get(idn.path) });
      revalidate(idn, st.safety, run.parents);
      crashPoint(`remove:${op.index}:${k}:before`);
      run.mutated = true;
      removeAnchored(idn, st.safety, () => crashPoint(`remove:${op.index}:${k}:partial`), run.parents);
      crashPoint(`remove:${op.index}:${k}:after`);
    });
  } catch (e) {
    return failRun(run, `${(e as Error).message} No later item was touched.`, run.mutated);
  }
  return undefined;
}
