// Memory and Logs & caches drawn as pure functions: the notice over the
// list, one item's row (mark, kind, label, risk, size), where the list and
// the pane go, and the pane's summary of an item before `p` loads its
// details. Lines are blessed tag strings, agent text through `cell`/`braces`.

import { fitPath, formatBytes } from '../engine/core/format.js';
import { t as tr } from '../engine/i18n/index.js';
import type { ItemSummary } from '../engine/core/model.js';
import { cleanText, fitWidth, padWidth } from '../engine/core/text.js';
import { wrapWords } from '../widgets/detail-pane.js';
import { braces, cell, type Theme } from '../widgets/theme.js';

/** The notice (what this tab holds for this agent) in at most two lines of `width`. */
export function itemsNotice(text: string, width: number, t: Theme): string[] {
  return wrapWords(text, width)
    .slice(0, 2)
    .map((l) => ` ${t.dim(braces(l))}`);
}

/** The list's height and the pane's place in H rows (the notice takes the first two). */
export function itemsLayout(H: number): { listH: number; paneTop: number; paneH: number } {
  const paneH = Math.max(4, Math.floor(H * 0.35));
  return { listH: Math.max(2, H - 2 - paneH), paneTop: H - paneH, paneH };
}

export function itemRow(it: ItemSummary, width: number, selected: boolean, look: { theme: Theme; marked: boolean }): string {
  const t = look.theme;
  const mark = !it.selectable ? ' -  ' : look.marked ? '[x] ' : '[ ] ';
  const titleW = Math.max(10, width - 4 - 12 - 10 - 11);
  const line = `${mark}${padWidth(tr(`kind.${it.category}`), 12)}${cell(it.label, titleW)}${padWidth(tr(`risk.${it.risk}`), 10)}${padWidth(formatBytes(it.bytes), 11, 'right')}`;
  if (selected) return t.cursor(line);
  return it.category === 'protected' ? t.dim(line) : line;
}

/** The pane before `p`: prose wraps at spaces, the path is cut in the middle (p shows it whole); the pane does not wrap. */
export function itemPaneLines(it: ItemSummary, w: number, t: Theme): string[] {
  return [
    t.bold(braces(fitWidth(cleanText(it.label), w))),
    ...(it.subtitle ? wrapWords(cleanText(it.subtitle), w).map(braces) : []),
    `${t.dim(padWidth(tr('items.path'), 14))}${braces(fitPath(cleanText(it.pathLabel), w - 14))}`,
    `${t.dim(padWidth(tr('items.size'), 14))}${formatBytes(it.bytes)}`,
    `${t.dim(padWidth(tr('items.risk'), 14))}${tr(`risk.${it.risk}`)}`,
    ...(it.blockedReason ? wrapWords(cleanText(it.blockedReason), w).map((l) => t.warn(braces(l))) : []),
  ];
}
