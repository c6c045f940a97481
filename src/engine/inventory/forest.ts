// Agent-independent forest: project → root session → children. Parent links
// are followed transitively with cycle detection; a session without a
// project inherits its nearest ancestor's; unknown associations land in the
// "No project" virtual root, which always sorts last.

import { NO_PROJECT_ID, NO_PROJECT_LABEL, type ProjectGroup, type ScanWarning, type SessionRecord } from '../core/model.js';
import { NodeLookup } from './node-lookup.js';

export interface SessionNode {
  idx: number;
  s: SessionRecord;
  /** Lineage parent (may be in another project). */
  parent: SessionNode | null;
  /** Parent in the displayed tree: the lineage parent when it shares the project. */
  treeParent: SessionNode | null;
  children: SessionNode[];
  projectKey: string;
}

export interface ProjectNode {
  idx: number;
  id: string;
  label: string;
  roots: string[];
  virtual: boolean;
  top: SessionNode[];
  sessions: number;
  bytes: number;
  latest: number;
}

export interface Forest {
  nodes: SessionNode[];
  projects: ProjectNode[];
  projectById: Map<string, ProjectNode>;
  nodeById: NodeLookup<SessionNode>;
  warnings: ScanWarning[];
}

/** Shared by every leaf (most sessions): one empty array instead of 100k. Never pushed to. */
const NO_CHILDREN: SessionNode[] = Object.freeze([]) as unknown as SessionNode[];

export function buildForest(sessions: SessionRecord[], groups: ProjectGroup[]): Forest {
  const warnings: ScanWarning[] = [];
  const nodes: SessionNode[] = sessions.map((s, idx) => ({
    idx,
    s,
    parent: null,
    treeParent: null,
    children: NO_CHILDREN,
    projectKey: NO_PROJECT_ID,
  }));
  const nodeById = new NodeLookup(nodes);
  for (const n of nodes) {
    const pid = n.s.parentId;
    // A self-parent is a one-node cycle: breakCycles drops it with a warning.
    if (pid) n.parent = nodeById.get(pid) ?? null;
  }
  breakCycles(nodes, warnings);

  const groupById = new Map(groups.map((g) => [g.id, g]));
  const known = new Set(groupById.keys());
  for (const n of nodes) n.projectKey = inheritedProject(n, known);

  const projectById = new Map<string, ProjectNode>();
  const projects: ProjectNode[] = [];
  const ensure = (id: string): ProjectNode => {
    let p = projectById.get(id);
    if (!p) {
      const g = groupById.get(id);
      p = {
        idx: -1,
        id,
        label: g ? g.label : NO_PROJECT_LABEL,
        roots: g ? g.roots : [],
        virtual: !g,
        top: [],
        sessions: 0,
        bytes: 0,
        latest: 0,
      };
      projectById.set(id, p);
    }
    return p;
  };
  for (const n of nodes) {
    const p = ensure(n.projectKey);
    p.sessions++;
    p.bytes += n.s.bytes;
    p.latest = Math.max(p.latest, n.s.updatedAt ?? 0);
    if (n.parent && n.parent.projectKey === n.projectKey) {
      n.treeParent = n.parent;
      if (n.parent.children === NO_CHILDREN) n.parent.children = [n];
      else n.parent.children.push(n);
    } else {
      p.top.push(n);
    }
  }
  for (const p of projectById.values()) projects.push(p);
  projects.forEach((p, i) => (p.idx = i));
  return { nodes, projects, projectById, nodeById, warnings };
}

/** Drops the one link that closes each cycle, deterministically (input order). */
function breakCycles(nodes: SessionNode[], warnings: ScanWarning[]): void {
  const state = new Uint8Array(nodes.length); // 0 new, 1 on current walk, 2 done
  for (const start of nodes) {
    if (state[start.idx] !== 0) continue;
    const path: SessionNode[] = [];
    let cur: SessionNode | null = start;
    while (cur && state[cur.idx] === 0) {
      state[cur.idx] = 1;
      path.push(cur);
      cur = cur.parent;
    }
    if (cur && state[cur.idx] === 1) {
      const last = path[path.length - 1]!;
      warnings.push({ path: last.s.paths[0] ?? last.s.id, reason: `Ignored a parent link of session ${last.s.id} that would form a cycle.` });
      last.parent = null;
    }
    for (const n of path) state[n.idx] = 2;
  }
}

function inheritedProject(n: SessionNode, known: Set<string>): string {
  let cur: SessionNode | null = n;
  // Bounded by the node count: cycles were broken above.
  while (cur) {
    const pid = cur.s.projectId;
    if (pid && known.has(pid)) return pid;
    if (pid && !known.has(pid)) return NO_PROJECT_ID;
    cur = cur.parent;
  }
  return NO_PROJECT_ID;
}

/** Every session under `n` in the displayed tree (for detail counts). */
export function countDescendants(n: SessionNode): number {
  let count = 0;
  const stack = [...n.children];
  while (stack.length) {
    const c = stack.pop()!;
    count++;
    stack.push(...c.children);
  }
  return count;
}
