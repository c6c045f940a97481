// A list that draws only its visible rows. It owns the cursor and the
// scroll offset; the rows come from a source that may still be loading
// them (an engine page), in which case a placeholder is drawn.

import blessed from 'blessed';

export interface RowSource {
  total(): number;
  /** The rendered line for row i at this width, or undefined while it loads. */
  line(i: number, width: number, selected: boolean): string | undefined;
  /** Asks the source to load rows [from, to); it calls `invalidate` when they arrive. */
  ensure(from: number, to: number): void;
}

export class VirtualList {
  readonly box: blessed.Widgets.BoxElement;
  cursor = 0;
  top = 0;
  /** What the last paint drew: data rows and placeholders (for the perf log). */
  drawn = 0;
  placeholders = 0;
  private emptyText = '';

  constructor(
    parent: blessed.Widgets.Node,
    opts: blessed.Widgets.BoxOptions,
    private source: RowSource,
    private placeholder: (width: number) => string,
  ) {
    this.box = blessed.box({ parent, tags: true, wrap: false, ...opts });
  }

  setSource(source: RowSource): void {
    this.source = source;
  }

  setEmptyText(s: string): void {
    this.emptyText = s;
  }

  get height(): number {
    return Math.max(1, (this.box.height as number) || 1);
  }

  move(delta: number): void {
    this.setCursor(this.cursor + delta);
  }

  setCursor(i: number): void {
    const total = this.source.total();
    this.cursor = Math.max(0, Math.min(total - 1, i));
    if (total === 0) this.cursor = 0;
  }

  /** Rebuilds the box content from the visible window only. */
  paint(): void {
    const total = this.source.total();
    const h = this.height;
    const w = Math.max(1, (this.box.width as number) || 1);
    if (this.cursor >= total) this.cursor = Math.max(0, total - 1);
    if (this.cursor < this.top) this.top = this.cursor;
    if (this.cursor >= this.top + h) this.top = this.cursor - h + 1;
    if (this.top > Math.max(0, total - h)) this.top = Math.max(0, total - h);
    const end = Math.min(total, this.top + h);
    // Ask for one screen beyond the window so scrolling rarely waits.
    this.source.ensure(Math.max(0, this.top - h), Math.min(total, end + h));
    const lines: string[] = [];
    this.drawn = 0;
    this.placeholders = 0;
    for (let i = this.top; i < end; i++) {
      const l = this.source.line(i, w, i === this.cursor);
      if (l === undefined) this.placeholders++;
      else this.drawn++;
      lines.push(l ?? this.placeholder(w));
    }
    if (total === 0 && this.emptyText) lines.push(this.emptyText);
    this.box.setContent(lines.join('\n'));
  }
}

/** Moves and sizes an element (blessed's setters re-lay it out). */
export function place(el: blessed.Widgets.BlessedElement, p: { top?: number; left?: number; width?: number; height?: number }): void {
  if (p.top !== undefined) el.top = p.top;
  if (p.left !== undefined) el.left = p.left;
  if (p.width !== undefined) el.width = p.width;
  if (p.height !== undefined) el.height = p.height;
}
