// A forest's sessions by their agent id, as a Map over every node would
// answer them (the later node wins a repeated id), without one: at 100k
// sessions a Map's table and the smaller ones it outgrew (~7 MiB) sat in the
// large-object space until a full collection, once per provisional view and
// again for the final snapshot, at the worker's peak. This is one Int32Array
// of node numbers, open addressing, ids compared in place.

import { hashChars } from '../core/selection.js';

/** Anything with a session's id: the forest's nodes (generic, so this file does not import the forest that uses it). */
interface HasSessionId {
  readonly s: { readonly id: string };
}

export class NodeLookup<N extends HasSessionId> {
  private readonly table: Int32Array;
  private readonly mask: number;
  /** Per table: ids are outside data, so where they land must not be predictable. */
  private readonly seed = (Math.random() * 0x1_0000_0000) >>> 0;

  constructor(private readonly nodes: readonly N[]) {
    let size = 16;
    while (size < nodes.length * 2) size *= 2;
    this.table = new Int32Array(size).fill(-1);
    this.mask = size - 1;
    for (let i = 0; i < nodes.length; i++) {
      const id = nodes[i]!.s.id;
      let h = hashChars(id, 0, id.length, this.seed) & this.mask;
      for (;;) {
        const at = this.table[h]!;
        if (at < 0 || nodes[at]!.s.id === id) {
          this.table[h] = i;
          break;
        }
        h = (h + 1) & this.mask;
      }
    }
  }

  get(id: string): N | undefined {
    let h = hashChars(id, 0, id.length, this.seed) & this.mask;
    for (;;) {
      const at = this.table[h]!;
      if (at < 0) return undefined;
      const n = this.nodes[at]!;
      if (n.s.id === id) return n;
      h = (h + 1) & this.mask;
    }
  }

  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  /** Every id once, in the order of its first node (a Map's key order). */
  *keys(): IterableIterator<string> {
    const seen = new Set<string>();
    for (const n of this.nodes) {
      if (seen.has(n.s.id)) continue;
      seen.add(n.s.id);
      yield n.s.id;
    }
  }
}
