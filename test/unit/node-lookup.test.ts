// The forest's NodeLookup answers exactly as a Map from each node's session id
// to the node would (the later node for a repeated id): for ids that are
// there, their prefixes and extensions, ids that are not, and in key order.

import { describe, expect, it } from 'vitest';
import type { SessionRecord } from '../../src/engine/core/model.js';
import { buildForest, type SessionNode } from '../../src/engine/inventory/forest.js';
import { NodeLookup } from '../../src/engine/inventory/node-lookup.js';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const ALPHABET = ['a', 'b', '0', '-', ':', 'é', '漢', '😀', ' '];

function nodes(n: number, seed: number): SessionNode[] {
  const r = rng(seed);
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    // Short ids from a small alphabet: repeats and shared prefixes are common.
    const len = Math.floor(r() * 5);
    let id = '';
    for (let k = 0; k < len; k++) id += ALPHABET[Math.floor(r() * ALPHABET.length)]!;
    ids.push(r() < 0.05 && ids.length ? ids[Math.floor(r() * ids.length)]! : id);
  }
  return ids.map((id, idx) => ({ idx, s: { id } as SessionRecord, parent: null, treeParent: null, children: [], projectKey: '' }));
}

describe('NodeLookup', () => {
  for (const [n, seed] of [
    [0, 1],
    [1, 2],
    [7, 3],
    [300, 4],
    [5000, 5],
  ] as const) {
    it(`matches a Map over ${n} nodes (seed ${seed})`, () => {
      const list = nodes(n, seed);
      const map = new Map<string, SessionNode>();
      for (const x of list) map.set(x.s.id, x);
      const lookup = new NodeLookup(list);
      const probes = new Set<string>(['', 'zz', '😀😀😀😀😀😀']);
      for (const x of list) for (const p of [x.s.id, x.s.id.slice(0, -1), `${x.s.id}a`, `a${x.s.id}`]) probes.add(p);
      for (const p of probes) {
        expect(lookup.get(p)).toBe(map.get(p));
        expect(lookup.has(p)).toBe(map.has(p));
      }
      expect([...lookup.keys()]).toEqual([...map.keys()]);
    });
  }

  it('is what buildForest keys the sessions by: parents found, the later record wins an id', () => {
    const rec = (id: string, parentId: string | null): SessionRecord =>
      ({ id, itemId: `session:${id}`, parentId, projectId: null, bytes: 1, updatedAt: 1, paths: [] }) as unknown as SessionRecord;
    const f = buildForest([rec('a', null), rec('b', 'a'), rec('a', null), rec('c', 'missing')], []);
    expect(f.nodeById.get('a')).toBe(f.nodes[2]);
    expect(f.nodeById.get('b')?.parent).toBe(f.nodes[2]);
    expect(f.nodeById.get('c')?.parent).toBeNull();
    expect(f.nodeById.has('missing')).toBe(false);
  });
});
