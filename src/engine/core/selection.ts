// The selection index in a compact, transferable form: every selectable
// session's item id, size and project as one string and three typed arrays.
// The worker hands the UI this instead of 100k {id, projectId, bytes}
// objects (its ArrayBuffers move without a copy), and the marks key on it.

import type { CompactSelection, SelectionEntry } from './model.js';

/** Builds a CompactSelection entry by entry (no intermediate objects). */
export class SelectionBuilder {
  private readonly ends: Uint32Array;
  private readonly bytes: Float64Array;
  private readonly project: Uint32Array;
  private readonly projectIds: string[] = [];
  private readonly projectIndex = new Map<string, number>();
  private readonly parts: string[] = [];
  private at = 0;
  private n = 0;

  constructor(capacity: number) {
    this.ends = new Uint32Array(capacity);
    this.bytes = new Float64Array(capacity);
    this.project = new Uint32Array(capacity);
  }

  add(id: string, projectId: string, bytes: number): void {
    const i = this.n++;
    this.parts.push(id);
    this.at += id.length;
    this.ends[i] = this.at;
    this.bytes[i] = bytes;
    let p = this.projectIndex.get(projectId);
    if (p === undefined) {
      p = this.projectIds.length;
      this.projectIndex.set(projectId, p);
      this.projectIds.push(projectId);
    }
    this.project[i] = p;
  }

  build(): CompactSelection {
    // Trimmed copies when fewer entries came than the capacity (their buffers are what moves).
    const n = this.n;
    const fit = <T extends Uint32Array | Float64Array>(a: T): T => (a.length === n ? a : (a.slice(0, n) as T));
    const c: CompactSelection = {
      ids: this.parts.join(''),
      ends: fit(this.ends),
      bytes: fit(this.bytes),
      project: fit(this.project),
      projectIds: this.projectIds,
    };
    c.table = lookupTable(c);
    return c;
  }
}

export function compactSelection(entries: readonly SelectionEntry[]): CompactSelection {
  const b = new SelectionBuilder(entries.length);
  for (const e of entries) b.add(e.id, e.projectId, e.bytes);
  return b.build();
}

/** The i-th item id of a compact selection. */
export function selectionId(c: CompactSelection, i: number): string {
  return c.ids.slice(i === 0 ? 0 : c.ends[i - 1]!, c.ends[i]!);
}

/** The buffers a postMessage can move instead of copying. */
export function selectionTransfer(c: CompactSelection | undefined): ArrayBuffer[] {
  if (!c) return [];
  const out = [c.ends.buffer as ArrayBuffer, c.bytes.buffer as ArrayBuffer, c.project.buffer as ArrayBuffer];
  if (c.table) out.push(c.table.buffer as ArrayBuffer);
  return out;
}

/** The table's size for n entries: a power of two, at least 16 and twice n. */
function tableSize(n: number): number {
  let size = 16;
  while (size < n * 2) size *= 2;
  return size;
}

/**
 * SelectionLookup's open-addressing table of entry numbers (-1: empty), by a
 * hash of each id's characters. Built once per index, where the index is
 * built: at 100k sessions it took ~55 ms, which the UI thread spent the
 * moment a scan landed, with a key waiting behind it.
 */
function lookupTable(c: CompactSelection): Int32Array {
  const n = c.ends.length;
  const table = new Int32Array(tableSize(n)).fill(-1);
  const mask = table.length - 1;
  for (let i = 0; i < n; i++) {
    const from = i === 0 ? 0 : c.ends[i - 1]!;
    const to = c.ends[i]!;
    let h = hashChars(c.ids, from, to) & mask;
    for (;;) {
      const at = table[h]!;
      // A repeated id keeps its later entry, as Map.set would.
      if (at < 0 || sameEntry(c, at, from, to)) {
        table[h] = i;
        break;
      }
      h = (h + 1) & mask;
    }
  }
  return table;
}

/** Whether entry `at`'s id is the text [from, to) of the ids. */
function sameEntry(c: CompactSelection, at: number, from: number, to: number): boolean {
  const ids = c.ids;
  const start = at === 0 ? 0 : c.ends[at - 1]!;
  if (c.ends[at]! - start !== to - from) return false;
  for (let k = 0; k < to - from; k++) if (ids.charCodeAt(start + k) !== ids.charCodeAt(from + k)) return false;
  return true;
}

/**
 * Item id → entry number of a compact selection, without a Map of 100k id
 * slices (~7 MB on the UI thread at 100k sessions, built in the moment the
 * worker is at its own peak): an open-addressing table of entry numbers,
 * keyed by a hash of each id's characters, compared in place in `ids`.
 */
export class SelectionLookup {
  private readonly table: Int32Array;
  private readonly mask: number;

  /** Uses the table the index came with when it fits the index, else builds one. */
  constructor(private readonly c: CompactSelection) {
    const t = c.table;
    this.table = t instanceof Int32Array && t.length === tableSize(c.ends.length) ? t : lookupTable(c);
    this.mask = this.table.length - 1;
  }

  /** The entry number of `id`, or -1. */
  find(id: string): number {
    let h = hashChars(id, 0, id.length) & this.mask;
    for (;;) {
      const at = this.table[h]!;
      if (at < 0) return -1;
      const from = at === 0 ? 0 : this.c.ends[at - 1]!;
      if (this.c.ends[at]! - from === id.length && this.c.ids.startsWith(id, from)) return at;
      h = (h + 1) & this.mask;
    }
  }
}

/** FNV-1a over UTF-16 code units [from, to) (`basis`: another offset basis, a seed). */
export function hashChars(s: string, from: number, to: number, basis = 0x811c9dc5): number {
  let h = basis;
  for (let i = from; i < to; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
