// The detail pane: an item's fields, paths, blocker, and (after `p`) its
// bounded preview. Scrolls when focused.

import blessed from 'blessed';
import type { Detail, Preview } from '../engine/model.js';
import { cleanText, displayWidth, fitWidth } from '../engine/text.js';
import { braces, esc, type Theme } from './theme.js';

export class DetailPane {
  readonly box: blessed.Widgets.BoxElement;

  constructor(parent: blessed.Widgets.Node, private theme: Theme, opts: blessed.Widgets.BoxOptions) {
    this.box = blessed.box({ parent, tags: true, scrollable: true, wrap: false, ...opts });
  }

  showText(lines: string[]): void {
    this.box.setContent(lines.join('\n'));
    this.box.setScroll(0);
  }

  show(d: Detail, marked: boolean, preview: Preview | null): void {
    const t = this.theme;
    const w = Math.max(10, ((this.box.width as number) || 40) - 1);
    const lines: string[] = [t.bold(braces(fitWidth(cleanText(d.title), w)))];
    const labelW = 14;
    for (const sec of d.sections) {
      lines.push(t.accent(braces(sec.heading)));
      for (const f of sec.fields) lines.push(...this.field(f.label, f.value, labelW, w));
    }
    if (d.selectable || d.kind === 'session') lines.push(...this.field('Marked', d.selectable ? (marked ? 'yes' : 'no') : 'not selectable', labelW, w));
    if (d.blockedReason) lines.push(t.warn(braces(fitWidth(`Blocked: ${cleanText(d.blockedReason)}`, w))));
    if (d.paths.length) {
      lines.push(t.accent('Paths'));
      for (const p of d.paths.slice(0, 20)) lines.push(...wrapText(cleanText(p), w).map(braces));
    }
    let previewAt = -1;
    if (preview) {
      lines.push('');
      previewAt = lines.length;
      lines.push(t.accent(`Preview · ${esc(preview.source)}`));
      if (preview.warning) lines.push(t.warn(esc(preview.warning)));
      for (const b of preview.blocks) {
        if (b.kind === 'message') lines.push(t.bold(esc(b.role)));
        else if (b.kind === 'text') lines.push(t.bold(esc(b.title)));
        const body = b.kind === 'notice' ? b.text : b.text;
        for (const l of body.split('\n').slice(0, 40)) lines.push(...wrapText(cleanText(l), w).map(braces));
      }
    } else if (d.kind === 'session') {
      lines.push('', t.dim('p: load a bounded, read-only preview'));
    }
    this.box.setContent(lines.join('\n'));
    // A freshly loaded preview is what the user asked to see: start there.
    if (previewAt >= 0 && preview !== this.shownPreview) this.box.setScroll(previewAt + Math.max(0, ((this.box.height as number) || 1) - 1));
    this.shownPreview = preview;
  }

  private shownPreview: Preview | null = null;

  private field(label: string, value: string, labelW: number, w: number): string[] {
    const room = Math.max(4, w - labelW);
    const parts = wrapText(cleanText(value), room);
    return parts.map((p, i) => `${this.theme.dim((i === 0 ? label : '').padEnd(labelW))}${braces(p)}`);
  }
}

/** Greedy wrap by display width (paths and previews have no spaces to break at). */
export function wrapText(s: string, width: number): string[] {
  if (!s) return [''];
  const out: string[] = [];
  let line = '';
  let lw = 0;
  for (const ch of s) {
    const cw = displayWidth(ch);
    if (lw + cw > width) {
      out.push(line);
      line = '';
      lw = 0;
      if (out.length >= 50) break;
    }
    line += ch;
    lw += cw;
  }
  if (line) out.push(line);
  return out;
}
