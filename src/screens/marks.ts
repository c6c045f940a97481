// Marks are keyed by item id, never by row; a rescan drops the ids it no
// longer has. Sizes come from the scan's selection index, so marking a
// whole filtered scope needs no loaded pages.

import type { CompactSelection, ScanSummary } from '../engine/core/model.js';
import { compactSelection, SelectionLookup } from '../engine/core/selection.js';

interface Counts {
  marked: number;
  selectable: number;
}

export class Marks {
  private ids = new Map<string, number>();
  /** Slots: < sel.ends.length a session of the selection index (found in place), else a selectable item. */
  private sessions: SelectionLookup | null = null;
  private itemSlot = new Map<string, number>();
  private sel: CompactSelection | null = null;
  private itemBytes: number[] = [];
  private bytesTotal = 0;
  /** Counters by the index's project number, and by project id for the screens. */
  private counts: Counts[] = [];
  private perProject = new Map<string, Counts>();

  /** Rebuilds the size index from a new scan and drops marks the scan no longer has. */
  rebase(summary: ScanSummary | null): void {
    this.sessions = null;
    this.itemSlot.clear();
    this.perProject.clear();
    this.itemBytes = [];
    this.counts = [];
    this.sel = null;
    if (summary) {
      // The worker sends the compact index; an in-process engine the entries.
      const sel = summary.selectionIndex ?? compactSelection(summary.selection);
      this.sel = sel;
      this.counts = sel.projectIds.map(() => ({ marked: 0, selectable: 0 }));
      sel.projectIds.forEach((p, i) => this.perProject.set(p, this.counts[i]!));
      const n = sel.ends.length;
      this.sessions = new SelectionLookup(sel);
      for (let i = 0; i < n; i++) this.counts[sel.project[i]!]!.selectable++;
      for (const it of summary.items) {
        if (!it.selectable || this.slotOf(it.id) !== undefined) continue;
        this.itemSlot.set(it.id, n + this.itemBytes.length);
        this.itemBytes.push(it.bytes);
      }
    }
    const kept = [...this.ids.keys()].filter((id) => this.slotOf(id) !== undefined);
    this.clear();
    for (const id of kept) this.add(id);
  }

  projectCounts(projectId: string): { marked: number; selectable: number } {
    return this.perProject.get(projectId) ?? { marked: 0, selectable: 0 };
  }

  private slotOf(id: string): number | undefined {
    const i = this.sessions ? this.sessions.find(id) : -1;
    return i >= 0 ? i : this.itemSlot.get(id);
  }

  private sizeOf(slot: number): number {
    const n = this.sel?.ends.length ?? 0;
    return slot < n ? this.sel!.bytes[slot]! : this.itemBytes[slot - n]!;
  }

  private bump(id: string, d: number): void {
    const s = this.slotOf(id);
    if (s === undefined || !this.sel || s >= this.sel.ends.length) return;
    this.counts[this.sel.project[s]!]!.marked += d;
  }

  selectable(id: string): boolean {
    return this.slotOf(id) !== undefined;
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
    const slot = this.slotOf(id);
    if (slot === undefined || this.ids.has(id)) return false;
    const bytes = this.sizeOf(slot);
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
    for (const c of this.counts) c.marked = 0;
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
