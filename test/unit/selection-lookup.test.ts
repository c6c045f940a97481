// SelectionLookup answers exactly as a Map from each entry's id to its index
// would (the later entry for a repeated id), for ids that are there, their
// prefixes and extensions, and ids that are not.

import { describe, expect, it } from 'vitest';
import type { SelectionEntry } from '../../src/engine/core/model.js';
import { compactSelection, SelectionLookup, selectionId } from '../../src/engine/core/selection.js';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const ALPHABET = ['a', 'b', '0', '-', ':', 'é', '漢', '😀', ' '];

function entries(n: number, seed: number): SelectionEntry[] {
  const r = rng(seed);
  const out: SelectionEntry[] = [];
  for (let i = 0; i < n; i++) {
    // Short ids from a small alphabet: repeats and shared prefixes are common.
    const len = Math.floor(r() * 6);
    let id = 'session:';
    for (let k = 0; k < len; k++) id += ALPHABET[Math.floor(r() * ALPHABET.length)]!;
    out.push({ id: r() < 0.05 && out.length ? out[Math.floor(r() * out.length)]!.id : id, projectId: `p${i % 3}`, bytes: i });
  }
  return out;
}

describe('SelectionLookup', () => {
  for (const [n, seed] of [
    [0, 1],
    [1, 2],
    [7, 3],
    [500, 4],
    [5000, 5],
  ] as const) {
    it(`finds what a Map of the ids finds (${n} entries)`, () => {
      const list = entries(n, seed);
      const c = compactSelection(list);
      const ref = new Map<string, number>();
      list.forEach((e, i) => ref.set(e.id, i));
      const look = new SelectionLookup(c);
      const queries = new Set<string>(['', 'session:', 'session', 'x', 'session:😀😀😀😀😀😀']);
      for (const e of list) {
        queries.add(e.id);
        queries.add(e.id.slice(0, -1));
        queries.add(`${e.id}a`);
        queries.add(`x${e.id}`);
      }
      for (const q of queries) expect(look.find(q), JSON.stringify(q)).toBe(ref.get(q) ?? -1);
      for (let i = 0; i < n; i++) expect(selectionId(c, look.find(list[i]!.id))).toBe(list[i]!.id);
    });
  }

  it('keeps the later entry of a repeated id, as Map.set does', () => {
    const c = compactSelection([
      { id: 'session:a', projectId: 'p', bytes: 1 },
      { id: 'session:b', projectId: 'p', bytes: 2 },
      { id: 'session:a', projectId: 'q', bytes: 3 },
    ]);
    expect(new SelectionLookup(c).find('session:a')).toBe(2);
    expect(new SelectionLookup(c).find('session:b')).toBe(1);
  });

  it('comes with its table, built with the index (in the worker), and uses it; a table that does not fit the index is rebuilt', () => {
    const list = entries(500, 9);
    const c = compactSelection(list);
    expect(c.table).toBeInstanceOf(Int32Array);
    const shipped = new SelectionLookup(c);
    for (const e of list) expect(shipped.find(e.id)).toBe(new SelectionLookup({ ...c, table: undefined }).find(e.id));
    // The table that came is the one asked: an empty one of the right size finds nothing.
    expect(new SelectionLookup({ ...c, table: new Int32Array(c.table!.length).fill(-1) }).find(list[0]!.id)).toBe(-1);
    // One of another size (another build's, a truncated copy) is not trusted.
    expect(new SelectionLookup({ ...c, table: new Int32Array(16).fill(-1) }).find(list[0]!.id)).toBeGreaterThanOrEqual(0);
  });
});
