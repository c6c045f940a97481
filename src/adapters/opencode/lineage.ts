// Parent links of OpenCode sessions. OpenCode's own delete removes a session
// after recursively removing its children, so a session's deletion scope is
// its whole subtree. Links are outside data: a parent may be missing (an
// orphan, shown as a root) or a cycle may exist, which OpenCode's recursion
// would never finish — cycle members are reported so they can be blocked.

export interface Lineage {
  /** Existing parent of each session (missing parents are left out). */
  parentOf: Map<string, string>;
  children: Map<string, string[]>;
  /** Sessions on a parent cycle (including a session that is its own parent). */
  inCycle: Set<string>;
}

export function buildLineage(links: Iterable<{ id: string; parentId: string | null }>): Lineage {
  const parentOf = new Map<string, string>();
  const ids = new Set<string>();
  const raw: { id: string; parentId: string | null }[] = [];
  for (const l of links) {
    ids.add(l.id);
    raw.push(l);
  }
  const children = new Map<string, string[]>();
  for (const { id, parentId } of raw) {
    if (!parentId || !ids.has(parentId)) continue;
    parentOf.set(id, parentId);
    const list = children.get(parentId);
    if (list) list.push(id);
    else children.set(parentId, [id]);
  }
  // Each session has at most one parent, so following parents from any start
  // either ends at a root or enters exactly one cycle. 0 = unvisited, 1 = on
  // the current walk, 2 = done.
  const inCycle = new Set<string>();
  const state = new Map<string, number>();
  for (const start of ids) {
    if (state.get(start)) continue;
    const path: string[] = [];
    let cur: string | undefined = start;
    while (cur !== undefined && !state.get(cur)) {
      state.set(cur, 1);
      path.push(cur);
      cur = parentOf.get(cur);
    }
    if (cur !== undefined && state.get(cur) === 1) {
      // The walk came back to itself: everything from `cur` on is the cycle.
      for (let i = path.indexOf(cur); i < path.length; i++) inCycle.add(path[i]!);
    }
    for (const p of path) state.set(p, 2);
  }
  return { parentOf, children, inCycle };
}

/** Every transitive descendant of `id` (not `id` itself), breadth first, cycle-safe. */
export function descendantsOf(lineage: Lineage, id: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>([id]);
  const queue = [id];
  for (let i = 0; i < queue.length; i++) {
    for (const c of lineage.children.get(queue[i]!) ?? []) {
      if (seen.has(c)) continue;
      seen.add(c);
      out.push(c);
      queue.push(c);
    }
  }
  return out;
}

/**
 * The smallest set of roots that covers `ids`: a requested id whose ancestor
 * is also requested is removed by that ancestor's delete. Order is kept.
 */
export function minimalRoots(lineage: Lineage, ids: readonly string[]): string[] {
  const wanted = new Set(ids);
  const out: string[] = [];
  const kept = new Set<string>();
  for (const id of ids) {
    let covered = false;
    const seen = new Set<string>([id]);
    for (let p = lineage.parentOf.get(id); p !== undefined && !seen.has(p); p = lineage.parentOf.get(p)) {
      seen.add(p);
      if (wanted.has(p)) {
        covered = true;
        break;
      }
    }
    if (!covered && !kept.has(id)) {
      kept.add(id);
      out.push(id);
    }
  }
  return out;
}
