// Parent links as an agent's own recursive delete sees them (OpenCode
// sessions, Codex subagent threads): a deletion scope is the whole subtree.
// Links are outside data: a missing parent makes a root, and a cycle — which
// the agent's recursion would never finish — is reported so it can be blocked.

export interface Lineage {
  /** Existing parent of each node (missing parents are left out). */
  parentOf: Map<string, string>;
  children: Map<string, string[]>;
  /** Nodes on a parent cycle (including a node that is its own parent). */
  inCycle: Set<string>;
}

export function buildLineage(links: Iterable<{ id: string; parentId: string | null }>): Lineage {
  const raw = [...links];
  const ids = new Set(raw.map((l) => l.id));
  const parentOf = new Map<string, string>();
  const children = new Map<string, string[]>();
  for (const { id, parentId } of raw) {
    if (!parentId || !ids.has(parentId)) continue;
    parentOf.set(id, parentId);
    const list = children.get(parentId);
    if (list) list.push(id);
    else children.set(parentId, [id]);
  }
  // Each node has at most one parent, so following parents from any start
  // either ends at a root or enters exactly one cycle. 1 = on the current walk, 2 = done.
  const inCycle = new Set<string>();
  const state = new Map<string, 1 | 2>();
  for (const start of ids) {
    if (state.has(start)) continue;
    const path: string[] = [];
    let cur: string | undefined = start;
    while (cur !== undefined && !state.has(cur)) {
      state.set(cur, 1);
      path.push(cur);
      cur = parentOf.get(cur);
    }
    // The walk came back to itself: everything from `cur` on is the cycle.
    if (cur !== undefined && state.get(cur) === 1) for (let i = path.indexOf(cur); i < path.length; i++) inCycle.add(path[i]!);
    for (const p of path) state.set(p, 2);
  }
  return { parentOf, children, inCycle };
}

/** Every transitive descendant of `id` (not `id` itself), breadth first, cycle-safe, at most `max`. */
export function descendantsOf(l: Lineage, id: string, max = Number.MAX_SAFE_INTEGER): string[] {
  const out: string[] = [];
  const seen = new Set<string>([id]);
  const queue = [id];
  for (let i = 0; i < queue.length && out.length < max; i++) {
    for (const c of l.children.get(queue[i]!) ?? []) {
      if (seen.has(c)) continue;
      seen.add(c);
      out.push(c);
      queue.push(c);
      if (out.length >= max) break;
    }
  }
  return out;
}

/**
 * The smallest set of roots that covers `ids`: a requested id whose ancestor
 * is also requested is removed by that ancestor's delete. Order is kept,
 * duplicates dropped.
 */
export function minimalRoots(l: Lineage, ids: readonly string[]): string[] {
  const wanted = new Set(ids);
  const out: string[] = [];
  const kept = new Set<string>();
  for (const id of ids) {
    let covered = false;
    const seen = new Set<string>([id]);
    for (let p = l.parentOf.get(id); p !== undefined && !seen.has(p); p = l.parentOf.get(p)) {
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
