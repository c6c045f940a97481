// Subagent lineage as Codex's own delete sees it: thread/delete removes a
// thread and every spawned descendant (transitively), so each thread's
// deletion scope is the closure over spawn-parent links. Cycle-safe and
// bounded; forks are not descendants (a fork is its own thread).

import { buildLineage as build, type Lineage } from '../shared/lineage.js';

export { descendantsOf, minimalRoots, type Lineage } from '../shared/lineage.js';

/** A thread naming itself as parent is a root; threads on a longer loop lose their parent link (and are reported in `inCycle`). */
export function buildLineage(threads: readonly { id: string; parentId: string | null }[]): Lineage {
  const l = build(threads.map((t) => ({ id: t.id, parentId: t.parentId === t.id ? null : t.parentId })));
  for (const c of l.inCycle) l.parentOf.delete(c);
  return l;
}
