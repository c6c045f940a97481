// The sort orders of one snapshot's forest, each built once on first use:
// a 100k-session scan should sort only for the views that are asked for.

import type { Forest, ProjectNode, SessionNode } from './forest.js';
import type { SortKey } from '../core/model.js';

interface SortedForest {
  projects: ProjectNode[];
  /** Per project index: its top-level sessions. */
  top: SessionNode[][];
  /** Per session node index with children: the children. */
  children: Map<number, SessionNode[]>;
  flat: SessionNode[];
}

export class SnapshotOrder {
  private readonly sorted = new Map<string, SortedForest>();

  constructor(private readonly forest: Forest) {}

  /** The already built order, if any (the summary uses the 'size' one without building it). */
  peek(key: SortKey, reverse = false): SortedForest | undefined {
    return this.sorted.get(reverse ? `${key}:reverse` : key);
  }

  get(key: SortKey, reverse = false): SortedForest {
    const name = reverse ? `${key}:reverse` : key;
    let s = this.sorted.get(name);
    if (s) return s;
    const cmp = reverse ? flip(sessionComparator(key)) : sessionComparator(key);
    const projects = [...this.forest.projects].sort(projectComparator(key, reverse));
    const top = this.forest.projects.map((p) =>
      [...p.top].sort(p.virtual && key !== 'title' && key !== 'size' ? (reverse ? flip(byRecency) : byRecency) : cmp),
    );
    const children = new Map<number, SessionNode[]>();
    for (const n of this.forest.nodes) if (n.children.length) children.set(n.idx, [...n.children].sort(cmp));
    const flat = [...this.forest.nodes].sort(cmp);
    s = { projects, top, children, flat };
    this.sorted.set(name, s);
    return s;
  }
}

export function projectComparator(key: SortKey, reverse = false): (a: ProjectNode, b: ProjectNode) => number {
  const dir = reverse ? -1 : 1;
  return (a, b) => {
    // Sessions without a project stay last in either direction.
    if (a.virtual !== b.virtual) return a.virtual ? 1 : -1;
    if (key === 'size') return dir * (b.bytes - a.bytes || a.label.localeCompare(b.label));
    if (key === 'title') return dir * (a.label.toLowerCase() < b.label.toLowerCase() ? -1 : a.label.toLowerCase() > b.label.toLowerCase() ? 1 : 0);
    return dir * (b.latest - a.latest || a.label.localeCompare(b.label));
  };
}

function byRecency(a: SessionNode, b: SessionNode): number {
  return (b.s.updatedAt ?? -1) - (a.s.updatedAt ?? -1) || (a.s.id < b.s.id ? -1 : 1);
}

function flip<T>(cmp: (a: T, b: T) => number): (a: T, b: T) => number {
  return (a, b) => cmp(b, a);
}

function sessionComparator(key: SortKey): (a: SessionNode, b: SessionNode) => number {
  if (key === 'size') return (a, b) => b.s.bytes - a.s.bytes || byRecency(a, b);
  if (key === 'title')
    return (a, b) => {
      const x = a.s.title.toLowerCase();
      const y = b.s.title.toLowerCase();
      return x < y ? -1 : x > y ? 1 : byRecency(a, b);
    };
  return byRecency;
}
