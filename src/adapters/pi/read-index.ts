// Read numbers by a string of their record (its path, its session id) while a
// pi scan runs, as a Set or Map keyed by that string would find them, without
// one: at 100k sessions each such Map's table and the smaller ones it outgrew
// (~5–7 MiB) sat in the large-object space until a full collection, right at
// the scan's peak (the end of reading). Open addressing over one Int32Array of
// [read number, hash] pairs; keys compared in place, never copied.

import { hashChars } from '../../engine/core/selection.js';

export class ReadIndex {
  private table = new Int32Array(2 * 1024).fill(-1);
  private count = 0;
  /** Keys are outside data: where they land must not be predictable. */
  private readonly seed = (Math.random() * 0x1_0000_0000) >>> 0;

  constructor(private readonly keyOf: (read: number) => string) {}

  /** The read number whose key is `key`, or -1. */
  find(key: string): number {
    const t = this.table;
    const mask = t.length / 2 - 1;
    const h = hashChars(key, 0, key.length, this.seed) | 0;
    for (let at = h & mask; ; at = (at + 1) & mask) {
      const read = t[2 * at]!;
      if (read < 0) return -1;
      if (t[2 * at + 1] === h && this.keyOf(read) === key) return read;
    }
  }

  /** Sets `key` to `read` (the later read wins a key, as Map.set would). */
  set(key: string, read: number): void {
    if ((this.count + 1) * 4 > this.table.length) this.grow();
    const h = hashChars(key, 0, key.length, this.seed) | 0;
    if (this.place(this.table, h, read, key)) this.count++;
  }

  /** Forgets every key (the table goes back to its first size). */
  clear(): void {
    this.table = new Int32Array(2 * 1024).fill(-1);
    this.count = 0;
  }

  private place(t: Int32Array, h: number, read: number, key: string | null): boolean {
    const mask = t.length / 2 - 1;
    for (let at = h & mask; ; at = (at + 1) & mask) {
      const old = t[2 * at]!;
      if (old >= 0 && !(key !== null && t[2 * at + 1] === h && this.keyOf(old) === key)) continue;
      t[2 * at] = read;
      t[2 * at + 1] = h;
      return old < 0;
    }
  }

  private grow(): void {
    const old = this.table;
    const t = new Int32Array(old.length * 2).fill(-1);
    // Every key is already unique: no comparison needed, the stored hash places it.
    for (let i = 0; i < old.length; i += 2) if (old[i]! >= 0) this.place(t, old[i + 1]!, old[i]!, null);
    this.table = t;
  }
}
