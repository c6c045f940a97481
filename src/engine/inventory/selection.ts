// The selection index in a compact, transferable form: every selectable
// session's item id, size and project as one string and three typed arrays.
// The worker hands the UI this instead of 100k {id, projectId, bytes}
// objects (its ArrayBuffers move without a copy), and the marks key on it.

import type { CompactSelection, SelectionEntry } from '../core/model.js';

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
    return { ids: this.parts.join(''), ends: fit(this.ends), bytes: fit(this.bytes), project: fit(this.project), projectIds: this.projectIds };
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
  return c ? [c.ends.buffer as ArrayBuffer, c.bytes.buffer as ArrayBuffer, c.project.buffer as ArrayBuffer] : [];
}
