// The executor's preflight: every precondition checked before anything is
// touched. No writer may hold the store when an operation needs the agent
// stopped; every planned path is captured (identity, revision) inside the
// mutation roots and outside protected paths; every item with a recorded
// revision still has it. The captured identities go into the journal, and
// the mutate step removes exactly what was captured here.

import { agentName } from '../core/agents.js';
import { assertAnchoredSupported } from '../host/anchored-fs.js';
import { describeWriters, type CleanupPlan } from '../core/model.js';
import { captureIdentity, type CaptureMemo, type FileIdentity, type SafetyContext } from './path-safety.js';
import { walkOwned } from '../inventory/revision.js';
import type { Snapshot } from '../inventory/snapshot.js';
import { RequestError } from '../core/validate.js';
import { failRun, type Failed, type Run } from './executor-run.js';

export interface Preflight {
  safety: SafetyContext;
  /** Per operation (by index), the identity of each of its paths. */
  identities: FileIdentity[][];
}

/** Where the run may remove: the agent's mutation roots, never a protected item's paths. */
export function safetyContext(run: Run): SafetyContext {
  const { plan, deps, snap } = run;
  return {
    roots: deps.mutationRoots(plan.agent, snap),
    protectedPaths: snap.items.filter((i) => i.category === 'protected').flatMap((i) => i.paths),
    uid: deps.ctx.uid,
  };
}

/**
 * Captures every operation's paths and checks every item's recorded revision;
 * throws the first refusal. Captured first, refused in the old order: an
 * item's revision check still speaks before its paths' safety.
 */
export function captureOperations(plan: CleanupPlan, snap: Snapshot, safety: SafetyContext, uid: number): FileIdentity[][] {
  if (plan.operations.some((o) => o.paths.length)) assertAnchoredSupported();
  const memo: CaptureMemo = new Map();
  const identities: FileIdentity[][] = [];
  for (const op of plan.operations) {
    const captured = new Map<string, FileIdentity | Error>();
    for (const p of op.paths) {
      if (captured.has(p)) continue;
      try {
        captured.set(p, captureIdentity(p, safety, memo));
      } catch (e) {
        captured.set(p, e as Error);
      }
    }
    for (const id of op.itemIds) assertRevision(snap, id, captured, uid);
    identities.push(
      op.paths.map((p) => {
        const c = captured.get(p)!;
        if (c instanceof Error) throw c;
        return c;
      }),
    );
  }
  return identities;
}

/** An item the scan recorded a revision for must still have it. */
function assertRevision(snap: Snapshot, id: string, captured: ReadonlyMap<string, FileIdentity | Error>, uid: number): void {
  const node = snap.session(id);
  const expected = node?.s.metadata.sourceRevision ?? snap.item(id)?.metadata.sourceRevision;
  if (typeof expected !== 'string') return;
  // A revision was recorded, so the session or the item it came from is there.
  const paths = node ? node.s.paths : snap.item(id)!.paths;
  // An item of one path: its capture walked exactly the tree walkOwned(paths) would.
  const one = paths.length === 1 ? captured.get(paths[0]!) : undefined;
  // Stryker disable next-line ObjectLiteral: the uid only sets the walk's unsafe flag, not read here; the owner is in the revision either way.
  const revision = one && !(one instanceof Error) ? one.revision : walkOwned(paths, { uid }).revision;
  if (revision !== expected) throw new RequestError(`${id} changed after the inventory scan; rescan and review again.`);
}

/** The preflight step: any refusal ends the run with nothing changed; success is journaled as each mutation's pre-state. */
export async function preflightStep(run: Run): Promise<Preflight | Failed> {
  const { plan, deps, snap } = run;
  run.progress({ phase: 'preflight' });
  const safety = safetyContext(run);
  const writers = await deps.writers(plan.agent, snap);
  if (writers.length && plan.operations.some((o) => o.requiresAgentExit)) {
    return { failed: await failRun(run, `Quit ${agentName(plan.agent)} and retry this cleanup plan (running: ${describeWriters(writers)}).`, false) };
  }
  let identities: FileIdentity[][];
  try {
    identities = captureOperations(plan, snap, safety, deps.ctx.uid);
  } catch (e) {
    return { failed: await failRun(run, (e as Error).message, false) };
  }
  await run.store.transition(
    run.j,
    (x) => {
      x.mutations.forEach((m, i) => (m.pre = identities[i]!.map(({ path, dev, ino, size, revision }) => ({ path, dev, ino, size, revision }))));
    },
    'journal:preflight',
  );
  return { safety, identities };
}
