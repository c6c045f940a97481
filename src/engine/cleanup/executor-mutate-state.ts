// What the mutate step carries from operation to operation: the preflight's
// safety context and identities, the revision an official export left, the
// labels progress shows, and the done / bytes counters every step reports.

import type { FileIdentity, SafetyContext } from './path-safety.js';
import type { CleanupPlan } from '../core/model.js';

/** What the mutate step knows of the run so far, and the counters it moves. */
export interface MutateState {
  safety: SafetyContext;
  identities: FileIdentity[][];
  revisionAfterExport?: string;
  /** Planned path → its item's label; item id → its label; session path → its session id. */
  labelOf: Map<string, string>;
  titleOf: Map<string, string>;
  sessionOfPath: Map<string, string>;
  done: number;
  bytesDone: number;
}

export function mutateState(plan: CleanupPlan, safety: SafetyContext, identities: FileIdentity[][], revisionAfterExport?: string): MutateState {
  const { items } = plan;
  const labelOf = new Map<string, string>();
  for (const i of items) for (const p of i.paths) labelOf.set(p, i.label);
  const titleOf = new Map(items.map((i) => [i.id, i.label]));
  const sessionOfPath = new Map<string, string>();
  for (const i of items) if (i.id.startsWith('session:')) for (const p of i.paths) sessionOfPath.set(p, i.id.slice('session:'.length));
  return { safety, identities, revisionAfterExport, labelOf, titleOf, sessionOfPath, done: 0, bytesDone: 0 };
}
