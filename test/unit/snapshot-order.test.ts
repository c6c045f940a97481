// SnapshotOrder sorts every session once and reads each project's top and
// each node's children off that order; the lists must be exactly what sorting
// each one on its own gives, for every key, both directions, ties included
// (equal times, sizes and titles), forks across projects and orphans.

import { describe, expect, it } from 'vitest';
import type { SortKey } from '../../src/engine/core/model.js';
import { buildForest, type Forest, type SessionNode } from '../../src/engine/inventory/forest.js';
import { SnapshotOrder } from '../../src/engine/inventory/snapshot-order.js';
import { project, session } from '../helpers/sessions.js';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function forest(n: number, seed: number): Forest {
  const r = rng(seed);
  const projects = [project('p0', 'alpha'), project('p1', 'Beta'), project('p2', 'gamma')];
  const sessions = Array.from({ length: n }, (_, i) =>
    session(`s${i}`, {
      // Few distinct values: ties are the rule, and the id decides them.
      updatedAt: r() < 0.1 ? null : Math.floor(r() * 5) * 1000,
      bytes: Math.floor(r() * 4),
      title: ['a', 'B', 'b', 'c'][Math.floor(r() * 4)]!,
      projectId: r() < 0.2 ? null : `p${Math.floor(r() * 3)}`,
      parentId: i && r() < 0.5 ? `s${Math.floor(r() * i)}` : null,
    }),
  );
  return buildForest(sessions, projects);
}

const ids = (xs: readonly SessionNode[]): string[] => xs.map((x) => x.s.id);

describe('SnapshotOrder', () => {
  for (const seed of [1, 2, 3, 4]) {
    for (const key of ['updated', 'size', 'title'] as SortKey[]) {
      for (const reverse of [false, true]) {
        it(`orders tops and children as sorting each alone would (seed ${seed}, ${key}${reverse ? ', reversed' : ''})`, () => {
          const f = forest(400, seed);
          const got = new SnapshotOrder(f).get(key, reverse);
          const rank = new Map(got.flat.map((n, i) => [n, i]));
          const alone = (xs: readonly SessionNode[]): string[] => ids([...xs].sort((a, b) => rank.get(a)! - rank.get(b)!));
          expect(got.flat).toHaveLength(f.nodes.length);
          f.projects.forEach((p, i) => expect(ids(got.top[i]!)).toEqual(alone(p.top)));
          let withChildren = 0;
          for (const n of f.nodes) {
            if (!n.children.length) continue;
            withChildren++;
            expect(ids(got.children.get(n.idx)!)).toEqual(alone(n.children));
          }
          expect(withChildren).toBeGreaterThan(10);
          // The flat order is a strict order: no two sessions compare equal.
          expect(new Set(ids(got.flat)).size).toBe(f.nodes.length);
        });
      }
    }
  }
});
