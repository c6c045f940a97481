// The Sessions screen's page cache over the engine: rows arrive in pages of
// 50, only the pages around the visible window are asked for, and a running
// scan's newer snapshot replaces the rows on screen all at once.

import type { PageResult, Row } from '../engine/core/model.js';
import type { RowSource } from '../widgets/virtual-list.js';

const PAGE = 50;

/** Page cache over the engine: keeps showing the old rows until the new view's first page lands. */
export class PagedRows implements RowSource {
  private pages = new Map<number, Row[]>();
  private inflight = new Set<number>();
  private count = 0;
  private gen = 0;
  private fresh = false;
  matched = 0;
  matchedBytes = 0;
  error: string | null = null;

  constructor(
    private load: (offset: number, limit: number) => Promise<PageResult>,
    private onLoaded: () => void,
    private render: (r: Row, width: number, selected: boolean) => string,
  ) {}

  reset(): void {
    this.gen++;
    this.inflight.clear();
    this.fresh = true;
    this.next = null;
  }

  /**
   * The same view over newer data (a running scan's next partial snapshot):
   * the rows on hand stay on screen, and answer keys, until the pages they
   * cover have arrived from the new snapshot; then all of them change at
   * once. A reset instead blanks the answer to every key typed meanwhile.
   */
  refresh(): void {
    if (this.fresh || this.count === 0) return this.reset();
    this.gen++;
    this.inflight.clear();
    this.next = { pages: new Map(), total: 0, matched: 0, matchedBytes: 0 };
    // The pages the last paint asked for; the others load again when they are needed.
    for (const p of this.pages.keys()) if (p >= this.window[0] && p <= this.window[1]) this.fetch(p);
    if (this.inflight.size === 0) this.reset();
  }

  /** The new snapshot's pages while a refresh gathers them. */
  private next: { pages: Map<number, Row[]>; total: number; matched: number; matchedBytes: number } | null = null;
  /** The first and last page of the window the last paint asked for. */
  private window: [number, number] = [0, 0];

  total(): number {
    return this.count;
  }

  /** A refresh is gathering the new snapshot's pages; the rows on hand are the older snapshot's. */
  get refreshing(): boolean {
    return this.next !== null;
  }

  /** The rows on hand belong to an earlier view (a reset waits for its first page). */
  get stale(): boolean {
    return this.fresh;
  }

  row(i: number): Row | undefined {
    return this.pages.get(Math.floor(i / PAGE))?.[i % PAGE];
  }

  line(i: number, width: number, selected: boolean): string | undefined {
    const r = this.row(i);
    return r ? this.render(r, width, selected) : undefined;
  }

  ensure(from: number, to: number): void {
    const first = Math.floor(from / PAGE);
    const last = Math.floor(Math.max(from, to - 1) / PAGE);
    this.window = [first, last];
    for (let p = first; p <= last; p++) this.fetch(p);
    if (this.fresh) this.fetch(first);
    // The ends of the view too (one slice each for the engine): g and G then draw at once.
    else if (this.count > 0) {
      this.fetch(0);
      this.fetch(Math.floor((this.count - 1) / PAGE));
    }
  }

  private fetch(p: number): void {
    const next = this.next;
    if (next ? next.pages.has(p) : !this.fresh && this.pages.has(p)) return;
    if (this.inflight.has(p)) return;
    const gen = this.gen;
    this.inflight.add(p);
    this.load(p * PAGE, PAGE).then(
      (res) => {
        if (gen !== this.gen) {
          // A reset came after this request: if nothing of the new view is on its way, ask for a paint,
          // which requests it (the view showed "Nothing matches" until a key was pressed otherwise).
          if (this.fresh && this.inflight.size === 0) this.onLoaded();
          return;
        }
        this.inflight.delete(p);
        if (this.next) {
          const next = this.next;
          next.pages.set(p, res.rows);
          next.total = res.total;
          next.matched = res.matched;
          next.matchedBytes = res.matchedBytes;
          if (this.inflight.size > 0) return;
          this.next = null;
          this.pages = next.pages;
          this.error = null;
          this.count = next.total;
          this.matched = next.matched;
          this.matchedBytes = next.matchedBytes;
          this.onLoaded();
          return;
        }
        if (this.fresh) {
          this.pages.clear();
          this.fresh = false;
        }
        this.error = null;
        this.count = res.total;
        this.matched = res.matched;
        this.matchedBytes = res.matchedBytes;
        this.pages.set(p, res.rows);
        this.onLoaded();
      },
      (e: Error) => {
        // Refused for an old view (the engine dropped a provisional snapshot): the same paint as an answer.
        if (gen !== this.gen) {
          if (this.fresh && this.inflight.size === 0) this.onLoaded();
          return;
        }
        this.inflight.delete(p);
        // A refresh that failed leaves the old rows as a reset would: stale, with the error.
        if (this.next) {
          this.next = null;
          this.fresh = true;
        }
        this.error = e.message;
        this.onLoaded();
      },
    );
  }

  clear(): void {
    this.reset();
    this.pages.clear();
    this.count = 0;
    this.fresh = false;
  }
}
