// Residue proof: after a cleanup's verifying rescan, each removed item is
// COMPLETE or PARTIAL with every surface where something of it survives.
// The engine checks what every agent shares (the rescan still lists it, a
// planned path still exists); the agent's own probe (adapters/<agent>/residue.ts)
// checks the surfaces only that agent keeps (index lines, database rows,
// sidecars). A surviving path that the fresh scan offers as a selectable item
// becomes a follow-up: the user can remove it by the usual review.

import type { HostContext, ResidueProbe, ResidueTarget } from '../core/adapter.js';
import type { CleanupPlan, ItemResidue, ResidueSurface } from '../core/model.js';
import { DirPresence } from '../host/fsx.js';
import type { Snapshot } from '../inventory/snapshot.js';

const SESSION = 'session:';

export async function proveResidue(plan: CleanupPlan, after: Snapshot, ctx: HostContext, probe?: ResidueProbe): Promise<ItemResidue[]> {
  const sessions: ResidueTarget[] = [];
  for (const i of plan.items) if (i.id.startsWith(SESSION)) sessions.push({ id: i.sessionId ?? i.id.slice(SESSION.length), paths: i.paths });
  let probed = new Map<string, ResidueSurface[]>();
  let probeFailed = false;
  if (probe && sessions.length) {
    try {
      probed = await probe.sessions(after.installation, ctx, sessions);
    } catch {
      // A probe that throws proves nothing: every session it was asked about stays unproven.
      probeFailed = true;
    }
  }
  const present = new DirPresence();
  return plan.items.map((i) => {
    const surfaces: ResidueSurface[] = [];
    if (after.session(i.id) || after.item(i.id)) surfaces.push({ surface: 'list', why: 'listed' });
    const isSession = i.id.startsWith(SESSION);
    const sid = i.sessionId ?? i.id.slice(SESSION.length);
    if (isSession && probeFailed) surfaces.push({ surface: 'probe', why: 'unreadable' });
    const own = isSession ? (probed.get(sid) ?? []) : [];
    // Stryker disable next-line MethodExpression: a surface without a path puts undefined in the set, which no planned path equals
    const named = new Set(own.map((s) => s.path).filter((p): p is string => Boolean(p)));
    // Stryker disable next-line StringLiteral: offerFollowUp below sets every such surface's why (followUp or noRoute)
    for (const p of i.paths) if (!named.has(p) && present.has(p)) surfaces.push({ surface: 'file', path: p, why: 'noRoute' });
    surfaces.push(...own);
    for (const s of surfaces) offerFollowUp(s, after);
    return { id: i.id, label: i.label, verdict: surfaces.length ? 'partial' : 'complete', surfaces };
  });
}

/** A surviving path the fresh scan offers as a selectable item, or the item the probe named, is a follow-up; otherwise not. */
function offerFollowUp(s: ResidueSurface, after: Snapshot): void {
  if (s.why === 'listed' || s.why === 'unreadable') return;
  const named = s.followUpId ? after.item(s.followUpId) : undefined;
  const holder =
    named?.selectable && named.category !== 'protected'
      ? named
      : s.path
        ? after.items.find((it) => it.selectable && it.category !== 'protected' && it.paths.some((p) => s.path === p || s.path!.startsWith(`${p}/`)))
        : undefined;
  if (holder) {
    s.why = 'followUp';
    s.followUpId = holder.id;
  } else {
    s.why = 'noRoute';
    delete s.followUpId;
  }
}
