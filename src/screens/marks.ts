// Marks are keyed by item id, never by row; a rescan drops the ids it no
// longer has. Sizes come from the scan's selection index, so marking a
// whole filtered scope needs no loaded pages.

import type { ScanSummary } from '../engine/model.js';

export class Marks {
  private ids = new Map<string, number>();
  private sizeIndex = new Map<string, number>();
  private bytesTotal = 0;
  private projectOf = new Map<string, string>();
  private perProject = new Map<string, { marked: number; selectable: number }>();

  /** Rebuilds the size index from a new scan and drops marks the scan no longer has. */
  rebase(summary: ScanSummary | null): void {
    this.sizeIndex.clear();
    this.projectOf.clear();
    this.perProject.clear();
    if (summary) {
      for (const s of summary.selection) {
        this.sizeIndex.set(s.id, s.bytes);
        this.projectOf.set(s.id, s.projectId);
        const c = this.perProject.get(s.projectId);
        if (c) c.selectable++;
        else this.perProject.set(s.projectId, { marked: 0, selectable: 1 });
      }
      for (const it of summary.items) if (it.selectable) this.sizeIndex.set(it.id, it.bytes);
    }
    const kept = [...this.ids.keys()].filter((id) => this.sizeIndex.has(id));
    this.clear();
    for (const id of kept) this.add(id);
  }

  projectCounts(projectId: string): { marked: number; selectable: number } {
    return this.perProject.get(projectId) ?? { marked: 0, selectable: 0 };
  }

  private bump(id: string, d: number): void {
    const p = this.projectOf.get(id);
    const c = p === undefined ? undefined : this.perProject.get(p);
    if (c) c.marked += d;
  }

  selectable(id: string): boolean {
    return this.sizeIndex.has(id);
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }

  toggle(id: string): boolean {
    if (this.ids.has(id)) {
      this.delete(id);
      return false;
    }
    return this.add(id);
  }

  add(id: string): boolean {
    const bytes = this.sizeIndex.get(id);
    if (bytes === undefined || this.ids.has(id)) return false;
    this.ids.set(id, bytes);
    this.bytesTotal += bytes;
    this.bump(id, 1);
    return true;
  }

  delete(id: string): void {
    const b = this.ids.get(id);
    if (b === undefined) return;
    this.ids.delete(id);
    this.bytesTotal -= b;
    this.bump(id, -1);
  }

  addAll(ids: string[]): number {
    let n = 0;
    for (const id of ids) if (this.add(id)) n++;
    return n;
  }

  deleteAll(ids: string[]): number {
    let n = 0;
    for (const id of ids) {
      if (this.ids.has(id)) {
        this.delete(id);
        n++;
      }
    }
    return n;
  }

  clear(): void {
    this.ids.clear();
    this.bytesTotal = 0;
    for (const c of this.perProject.values()) c.marked = 0;
  }

  get count(): number {
    return this.ids.size;
  }

  get bytes(): number {
    return this.bytesTotal;
  }

  list(): string[] {
    return [...this.ids.keys()];
  }
}
