// Subagent lineage as Codex's own delete sees it: thread/delete removes a
// thread and every spawned descendant (transitively), so each thread's
// deletion scope is the closure over spawn-parent links. Cycle-safe and
// bounded; forks are not descendants (a fork is its own thread).

export interface Lineage {
  parentOf: Map<string, string>;
  children: Map<string, string[]>;
  /** Threads whose parent links loop back to themselves. */
  inCycle: Set<string>;
}

export function buildLineage(threads: readonly { id: string; parentId: string | null }[]): Lineage {
  const ids = new Set(threads.map((t) => t.id));
  const parentOf = new Map<string, string>();
  const children = new Map<string, string[]>();
  for (const t of threads) {
    if (!t.parentId || t.parentId === t.id || !ids.has(t.parentId)) continue;
    parentOf.set(t.id, t.parentId);
    const list = children.get(t.parentId);
    if (list) list.push(t.id);
    else children.set(t.parentId, [t.id]);
  }
  const inCycle = new Set<string>();
  const state = new Map<string, 1 | 2>();
  for (const start of parentOf.keys()) {
    if (state.has(start)) continue;
    const path: string[] = [];
    let cur: string | undefined = start;
    while (cur !== undefined && !state.has(cur)) {
      state.set(cur, 1);
      path.push(cur);
      cur = parentOf.get(cur);
    }
    if (cur !== undefined && state.get(cur) === 1) {
      // The loop is the part of the path from `cur` on.
      for (let i = path.indexOf(cur); i < path.length; i++) inCycle.add(path[i]!);
    }
    for (const p of path) state.set(p, 2);
  }
  for (const c of inCycle) {
    parentOf.delete(c);
  }
  return { parentOf, children, inCycle };
}

/** Every descendant of `id` (breadth first), at most `max`. */
export function descendantsOf(l: Lineage, id: string, max = 1_000_000): string[] {
  const out: string[] = [];
  const seen = new Set([id]);
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

/** The roots among `ids` that are not descendants of another given id, in the given order. */
export function minimalRoots(l: Lineage, ids: readonly string[]): string[] {
  const set = new Set(ids);
  return ids.filter((id) => {
    const seen = new Set<string>([id]);
    let cur = l.parentOf.get(id);
    while (cur !== undefined && !seen.has(cur)) {
      if (set.has(cur)) return false;
      seen.add(cur);
      cur = l.parentOf.get(cur);
    }
    return true;
  });
}
