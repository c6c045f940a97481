// The detail pane: an item's fields, paths, blocker, and (after `p`) its
// bounded preview. Scrolls when focused.

import blessed from 'blessed';
import type { Detail, Preview } from '../engine/core/model.js';
import { t as tr, type MessageKey } from '../engine/i18n/index.js';
import { fitPath } from '../engine/core/format.js';
import { cleanMultiline, cleanText, displayWidth, fitWidth } from '../engine/core/text.js';
import { braces, esc, type Theme } from './theme.js';

export class DetailPane {
  readonly box: blessed.Widgets.BoxElement;

  constructor(
    parent: blessed.Widgets.Node,
    private theme: Theme,
    opts: blessed.Widgets.BoxOptions,
  ) {
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
    // The label column fits the widest label and a space ("Deleted with it" ran into its value at a fixed 14), up to half the pane.
    const labels = [...d.sections.flatMap((sec) => sec.fields.map((f) => f.label)), tr('detail.marked')];
    const labelW = Math.min(Math.max(14, ...labels.map((l) => displayWidth(l) + 1)), Math.floor(w / 2));
    // The whole reason, wrapped, first: it names the writer seen (pid, command line) so the user can check it.
    if (d.blockedReason) lines.push(...wrapWords(tr('detail.blocked', { reason: cleanText(d.blockedReason, 8192) }), w).map((l) => t.warn(braces(l))));
    for (const sec of d.sections) {
      lines.push(t.accent(braces(sec.heading)));
      for (const f of sec.fields) lines.push(...this.field(f.label, f.value, labelW, w));
    }
    if (d.selectable || d.kind === 'session')
      lines.push(...this.field(tr('detail.marked'), tr(d.selectable ? (marked ? 'detail.yes' : 'detail.no') : 'detail.notSelectable'), labelW, w));
    if (d.paths.length) {
      lines.push(t.accent(tr('detail.paths')));
      // One path per line, never broken across lines: a copied line is a whole path or visibly shortened (…),
      // never a fragment that looks whole. blessed positions every cell itself, so the terminal's own soft
      // wrap (which a copy would join) is not available; the whole path is one `scan --json` away.
      const shown = d.paths.slice(0, 20).map((p) => cleanText(p));
      for (const p of shown) lines.push(braces(pathLine(p, w)));
      if (d.paths.length > 20) lines.push(t.dim(tr('detail.morePaths', { count: d.paths.length - 20 })));
      if (shown.some((p) => displayWidth(p) > w)) lines.push(...wrapWords(tr('detail.pathsShortened'), w).map((l) => t.dim(braces(l))));
    }
    let previewAt = -1;
    if (preview) {
      lines.push('');
      previewAt = lines.length;
      lines.push(t.accent(braces(fitWidth(tr('detail.preview', { source: previewSourceLabel(preview.source) }), w))));
      if (preview.warning) lines.push(...wrapWords(cleanText(preview.warning), w).map((l) => t.warn(braces(l))));
      for (const b of preview.blocks) {
        if (b.kind === 'message') lines.push(t.bold(esc(b.role)));
        else if (b.kind === 'text') lines.push(t.bold(esc(b.title)));
        const body = b.kind === 'notice' ? b.text : b.text;
        // A text block's lines are columns (bytes per table, per record type): their runs of spaces stay.
        const clean = b.kind === 'text' ? (l: string) => cleanMultiline(l, 4096) : (l: string) => cleanText(l);
        for (const l of body.split('\n').slice(0, 40)) lines.push(...wrapText(clean(l), w).map(braces));
      }
    } else if (d.kind === 'session') {
      lines.push('', t.dim(tr('detail.previewHint')));
    }
    this.box.setContent(lines.join('\n'));
    // A freshly loaded preview is what the user asked to see: start there.
    if (previewAt >= 0 && preview !== this.shownPreview) this.box.setScroll(previewAt + Math.max(0, ((this.box.height as number) || 1) - 1));
    this.shownPreview = preview;
  }

  private shownPreview: Preview | null = null;

  private field(label: string, value: string, labelW: number, w: number): string[] {
    const room = Math.max(4, w - labelW);
    const parts = wrapWords(cleanText(value), room);
    // Padded by display width but never cut (as padEnd did): a label longer than the column pushes its value right, after a space.
    const head = (l: string): string => l + ' '.repeat(Math.max(l ? 1 : 0, labelW - displayWidth(l)));
    return parts.map((p, i) => `${this.theme.dim(head(i === 0 ? label : ''))}${braces(p)}`);
  }
}

const PREVIEW_SOURCES: Record<string, MessageKey> = {
  'piSession.readOnly': 'preview.piSession',
  'claudeTranscript.readOnly': 'preview.claudeTranscript',
  'claudeMemoryMarkdown.readOnly': 'preview.claudeMemory',
  'appServer.threadRead': 'preview.appServer',
  'rollout.readOnlyFallback': 'preview.rollout',
  'codexLogs.readOnly': 'preview.codexLogs',
  'codexDb.readOnly': 'preview.codexDb',
  'opencodeDb.readOnly': 'preview.opencodeDb',
  'opencodeLogs.readOnly': 'preview.opencodeLogs',
  explain: 'preview.explain',
  protected: 'preview.protected',
  error: 'preview.error',
  none: 'preview.none',
};

/** Where a preview came from, in words (the engine's source ids are for logs and tests). */
function previewSourceLabel(source: string): string {
  return tr(Object.hasOwn(PREVIEW_SOURCES, source) ? PREVIEW_SOURCES[source]! : 'preview.readOnly');
}

/** A path on one line: whole when it fits, else its start and its whole last name around "…/" (the file a user looks for). */
function pathLine(p: string, width: number): string {
  if (displayWidth(p) <= width) return p;
  const slash = p.lastIndexOf('/', p.length - 2);
  const base = slash >= 0 ? p.slice(slash + 1) : p;
  const room = width - displayWidth(base) - 2;
  if (slash < 0 || room < 8) return fitPath(p, width);
  let head = '';
  let hw = 0;
  for (const ch of p.slice(0, slash)) {
    const cw = displayWidth(ch);
    if (hw + cw > room) break;
    head += ch;
    hw += cw;
  }
  return `${head}…/${base}`;
}

/**
 * Wraps at spaces by display width; a word wider than the line (a path, an
 * id) is cut by wrapText, never mid-word otherwise.
 */
export function wrapWords(s: string, width: number): string[] {
  if (!s) return [''];
  const out: string[] = [];
  let line = '';
  let lw = 0;
  for (const word of s.split(' ')) {
    const ww = displayWidth(word);
    if (line && lw + 1 + ww <= width) {
      line += ' ' + word;
      lw += 1 + ww;
      continue;
    }
    if (line || out.length) out.push(line);
    if (ww <= width) {
      line = word;
      lw = ww;
    } else {
      const parts = wrapText(word, width);
      out.push(...parts.slice(0, -1));
      line = parts[parts.length - 1] ?? '';
      lw = displayWidth(line);
    }
    if (out.length >= 60) break;
  }
  out.push(line);
  return out.filter((l, i) => l !== '' || i === 0);
}

/** Greedy wrap by display width (paths and previews have no spaces to break at). */
function wrapText(s: string, width: number): string[] {
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
