// The agent-independent forest: lineage, cycles, project inheritance.

import { describe, expect, it } from 'vitest';
import { buildForest, countDescendants, type Forest, type SessionNode } from '../../src/engine/inventory/forest.js';
import { NO_PROJECT_ID } from '../../src/engine/core/model.js';
import { inventory, project, session, snapshotOf } from '../helpers/sessions.js';

function node(f: Forest, id: string): SessionNode {
  const n = f.nodeById.get(id);
  if (!n) throw new Error(`no node ${id}`);
  return n;
}

const kids = (n: SessionNode): string[] => n.children.map((c) => c.s.id).sort();
const tops = (f: Forest, projectId: string): string[] => (f.projectById.get(projectId)?.top ?? []).map((n) => n.s.id).sort();

describe('parent links', () => {
  it('follows links transitively into a tree', () => {
    const f = buildForest(
      [
        session('c', { projectId: 'p', parentId: 'b' }),
        session('a', { projectId: 'p' }),
        session('b', { projectId: 'p', parentId: 'a' }),
        session('d', { projectId: 'p', parentId: 'a' }),
      ],
      [project('p', 'proj')],
    );
    expect(f.warnings).toEqual([]);
    expect(tops(f, 'p')).toEqual(['a']);
    expect(kids(node(f, 'a'))).toEqual(['b', 'd']);
    expect(kids(node(f, 'b'))).toEqual(['c']);
    expect(node(f, 'c').parent?.s.id).toBe('b');
    expect(node(f, 'c').treeParent?.s.id).toBe('b');
    expect(countDescendants(node(f, 'a'))).toBe(3);
    expect(countDescendants(node(f, 'c'))).toBe(0);
  });

  it('treats a parent id that is not in the inventory as no parent', () => {
    const f = buildForest([session('a', { projectId: 'p', parentId: 'missing' })], [project('p', 'proj')]);
    expect(node(f, 'a').parent).toBeNull();
    expect(tops(f, 'p')).toEqual(['a']);
    expect(f.warnings).toEqual([]);
  });
});

describe('cycle detection', () => {
  it('breaks A -> B -> A with one warning', () => {
    const f = buildForest([session('A', { projectId: 'p', parentId: 'B' }), session('B', { projectId: 'p', parentId: 'A' })], [project('p', 'proj')]);
    expect(f.warnings).toHaveLength(1);
    expect(f.warnings[0]!.reason).toMatch(/cycle/);
    // Exactly one of the two becomes a root, the other its child.
    const roots = tops(f, 'p');
    expect(roots).toHaveLength(1);
    const root = node(f, roots[0]!);
    expect(root.parent).toBeNull();
    expect(root.children).toHaveLength(1);
    expect(countDescendants(root)).toBe(1);
  });

  it('breaks a self-parent with a warning', () => {
    const f = buildForest([session('S', { projectId: 'p', parentId: 'S' })], [project('p', 'proj')]);
    expect(f.warnings).toHaveLength(1);
    expect(f.warnings[0]!.reason).toContain('S');
    expect(node(f, 'S').parent).toBeNull();
    expect(node(f, 'S').children).toEqual([]);
    expect(tops(f, 'p')).toEqual(['S']);
  });

  it('breaks a longer cycle with a tail leading into it, once', () => {
    const f = buildForest(
      [
        session('tail', { projectId: 'p', parentId: 'A' }),
        session('A', { projectId: 'p', parentId: 'B' }),
        session('B', { projectId: 'p', parentId: 'C' }),
        session('C', { projectId: 'p', parentId: 'A' }),
      ],
      [project('p', 'proj')],
    );
    expect(f.warnings).toHaveLength(1);
    expect(tops(f, 'p')).toHaveLength(1);
    const root = node(f, tops(f, 'p')[0]!);
    expect(countDescendants(root)).toBe(3);
  });

  it('a cyclic inventory still pages (no infinite loop), every session once', () => {
    const snap = snapshotOf(
      inventory(
        [session('A', { projectId: 'p', parentId: 'B' }), session('B', { projectId: 'p', parentId: 'A' }), session('S', { parentId: 'S' })],
        [project('p', 'proj')],
      ),
    );
    expect(snap.warnings).toHaveLength(2);
    const res = snap.page({
      snapshotId: snap.id,
      scope: { view: 'tree', expansion: { base: 'allOpen', toggled: [] } },
      filter: {},
      sort: 'updated',
      offset: 0,
      limit: 100,
    });
    const sessions = res.rows
      .filter((r) => r.kind === 'session')
      .map((r) => r.id)
      .sort();
    expect(sessions).toEqual(['session:A', 'session:B', 'session:S']);
    expect(snap.summary().warnings.filter((w) => /cycle/.test(w.reason))).toHaveLength(2);
  });
});

describe('project association', () => {
  it('a child without a project inherits its nearest ancestor’s', () => {
    const f = buildForest(
      [session('root', { projectId: 'p1' }), session('child', { parentId: 'root' }), session('grandchild', { parentId: 'child' })],
      [project('p1', 'one')],
    );
    expect(node(f, 'child').projectKey).toBe('p1');
    expect(node(f, 'grandchild').projectKey).toBe('p1');
    expect(tops(f, 'p1')).toEqual(['root']);
    expect(kids(node(f, 'root'))).toEqual(['child']);
    expect(f.projectById.get('p1')!.sessions).toBe(3);
    expect(f.projectById.has(NO_PROJECT_ID)).toBe(false);
  });

  it('a fork in a different project stays a root of its own project', () => {
    const f = buildForest(
      [session('src', { projectId: 'p1' }), session('fork', { projectId: 'p2', parentId: 'src' }), session('inner', { parentId: 'fork' })],
      [project('p1', 'one'), project('p2', 'two')],
    );
    const fork = node(f, 'fork');
    expect(fork.projectKey).toBe('p2');
    // The lineage link is kept (for details), the displayed tree link is not.
    expect(fork.parent?.s.id).toBe('src');
    expect(fork.treeParent).toBeNull();
    expect(tops(f, 'p2')).toEqual(['fork']);
    expect(node(f, 'src').children).toEqual([]);
    // Its own project-less child follows the fork, not the fork's parent.
    expect(node(f, 'inner').projectKey).toBe('p2');
    expect(kids(fork)).toEqual(['inner']);
  });

  it('unknown or missing associations land in the No project root, after the real projects', () => {
    const f = buildForest(
      [session('x', { projectId: 'unknown' }), session('y'), session('z', { projectId: 'p1' }), session('yc', { parentId: 'y' })],
      [project('p1', 'one')],
    );
    expect(node(f, 'x').projectKey).toBe(NO_PROJECT_ID);
    expect(node(f, 'y').projectKey).toBe(NO_PROJECT_ID);
    expect(node(f, 'yc').projectKey).toBe(NO_PROJECT_ID);
    expect(kids(node(f, 'y'))).toEqual(['yc']);
    const np = f.projectById.get(NO_PROJECT_ID)!;
    expect(np.virtual).toBe(true);
    expect(np.label).toBe('No project');
    expect(np.sessions).toBe(3);
    expect(tops(f, NO_PROJECT_ID)).toEqual(['x', 'y']);
  });

  it('aggregates project sizes and latest update', () => {
    const f = buildForest(
      [session('a', { projectId: 'p1', bytes: 10, updatedAt: 5 }), session('b', { projectId: 'p1', bytes: 32, updatedAt: 9, parentId: 'a' })],
      [project('p1', 'one'), project('empty', 'no sessions')],
    );
    const p = f.projectById.get('p1')!;
    expect(p.bytes).toBe(42);
    expect(p.latest).toBe(9);
    // A project group without sessions is not listed.
    expect(f.projectById.has('empty')).toBe(false);
  });
});
