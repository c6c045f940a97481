// The pi scan's ReadIndex finds a read by its key exactly as a Map from key to
// read number would (the later read wins a key), across its growth, for keys
// that are there, their prefixes and extensions, and keys that are not.

import { describe, expect, it } from 'vitest';
import { ReadIndex } from '../../src/adapters/pi/read-index.js';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const ALPHABET = ['a', '/', '0', '-', '.', 'é', '漢', '😀'];

describe('ReadIndex', () => {
  for (const [n, seed] of [
    [0, 1],
    [3, 2],
    [600, 3],
    [9000, 4],
  ] as const) {
    it(`matches a Map over ${n} reads (seed ${seed})`, () => {
      const r = rng(seed);
      const keys: string[] = [];
      const index = new ReadIndex((i) => keys[i]!);
      const map = new Map<string, number>();
      for (let i = 0; i < n; i++) {
        let k = '';
        const len = Math.floor(r() * 6);
        for (let c = 0; c < len; c++) k += ALPHABET[Math.floor(r() * ALPHABET.length)]!;
        if (r() < 0.05 && keys.length) k = keys[Math.floor(r() * keys.length)]!;
        keys.push(k);
        index.set(k, i);
        map.set(k, i);
        // Lookups while it grows, not only at the end.
        if (i % 97 === 0) expect(index.find(k)).toBe(i);
      }
      const probes = new Set<string>(['', 'zz', '😀😀😀😀😀😀😀']);
      for (const k of keys) for (const p of [k, k.slice(0, -1), `${k}a`, `/${k}`]) probes.add(p);
      for (const p of probes) expect(index.find(p)).toBe(map.get(p) ?? -1);
      index.clear();
      for (const p of probes) expect(index.find(p)).toBe(-1);
    });
  }
});
