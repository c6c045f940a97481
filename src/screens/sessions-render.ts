// The Sessions screen's drawing as pure functions of its state and the
// terminal's size: where the list, the separator and the detail pane go, the
// two header lines, one row of the tree or list, and what an empty list or a
// pane still loading says. Lines are blessed tag strings (agent text through
// `cell`/`braces`), never wider than the width they are drawn for.

import { fitPath, formatAge, formatBytes, formatCount } from '../engine/core/format.js';
import { t as tr, type MessageKey } from '../engine/i18n/index.js';
import type { Detail, Row, ScanSummary, SortKey, UpdatedFilter } from '../engine/core/model.js';
import { displayWidth, fitWidth, padWidth } from '../engine/core/text.js';
import { braces, cell, type Theme } from '../widgets/theme.js';
import type { Marks } from './marks.js';
import { isFiltered, type SessionsView } from './sessions-state.js';

const UPDATED_LABEL: Record<UpdatedFilter, MessageKey> = {
  all: 'sessions.updated.all',
  within7: 'sessions.updated.within7',
  within30: 'sessions.updated.within30',
  older30: 'sessions.updated.older30',
  older90: 'sessions.updated.older90',
  agentSweep: 'sessions.updated.agentSweep',
};
/** Each key's order in plain words, [default, reversed]. */
const SORT_LABEL: Record<SortKey, [MessageKey, MessageKey]> = {
  updated: ['sessions.sort.newest', 'sessions.sort.oldest'],
  size: ['sessions.sort.largest', 'sessions.sort.smallest'],
  title: ['sessions.sort.titleAz', 'sessions.sort.titleZa'],
};
const LIST_TOP = 2;

type Box = { top: number; left: number; width: number; height: number };

/** Where everything goes at W×H (H: the rows between the tab bar and the footer). */
interface SessionsLayout {
  /** The list's width (the header's too). */
  listW: number;
  /** The list's box (its top is the header's height). */
  list: { width: number; height: number };
  sep: Box;
  /** The separator's text: a column of │ beside the pane at 120 columns and more, a line of ─ above it below. */
  sepText: string;
  pane: Box;
}

export function sessionsLayout(W: number, H: number, t: Theme): SessionsLayout {
  if (W >= 120) {
    const paneW = Math.min(60, Math.floor(W * 0.38));
    const listW = W - paneW - 1;
    const h = H - LIST_TOP;
    return {
      listW,
      list: { width: listW, height: h },
      sep: { top: LIST_TOP, left: listW, width: 1, height: h },
      sepText: t.dim(Array(Math.max(1, h)).fill('│').join('\n')),
      pane: { top: LIST_TOP, left: W - paneW, width: paneW, height: h },
    };
  }
  const paneH = Math.max(4, Math.floor((H - LIST_TOP) * 0.38));
  const listH = Math.max(2, H - LIST_TOP - paneH - 1);
  return {
    listW: W,
    list: { width: W, height: listH },
    sep: { top: LIST_TOP + listH, left: 0, width: W, height: 1 },
    sepText: t.dim('─'.repeat(W)),
    pane: { top: LIST_TOP + listH + 1, left: 0, width: W, height: paneH },
  };
}

/** What the header reads: the view, the scan's facts and the matches the engine counted. */
interface HeaderState {
  view: SessionsView;
  summary: Pick<ScanSummary, 'provisional' | 'sweepForecast' | 'sessionCount'> | null;
  matched: number;
  matchedBytes: number;
}

/** The view's line (filters, sort, counts) and the column heads. */
export function sessionsHeader(h: HeaderState, width: number, t: Theme): [string, string] {
  const { view: v, summary: s } = h;
  const viewName = tr(v.view === 'tree' ? 'sessions.tree' : 'sessions.list');
  const parts = [
    viewName,
    tr(SORT_LABEL[v.sort][v.reverse ? 1 : 0]),
    v.filter.updated === 'agentSweep' && s?.sweepForecast
      ? tr('sweep.forecast.filter', { agent: s.sweepForecast.agentName, count: s.sweepForecast.sessions })
      : tr(UPDATED_LABEL[v.filter.updated ?? 'all']),
  ];
  if (s?.provisional) parts.unshift(tr('sessions.partial'));
  if (v.filter.state) parts.push(tr(v.filter.state === 'archived' ? 'sessions.state.archivedOnly' : 'sessions.state.currentOnly'));
  if (v.filter.text) parts.push(`“${v.filter.text}”`);
  const filtered = isFiltered(v.filter);
  const counts = !s
    ? ''
    : filtered
      ? tr('sessions.countsFiltered', { matched: h.matched, count: s.sessionCount, size: formatBytes(h.matchedBytes) })
      : tr('sessions.counts', { count: s.sessionCount, size: formatBytes(h.matchedBytes) });
  // At 80 columns the agent's filter and sort come first (#28.3): the view's name (the column header
  // says tree or list) and then the size give way before any of them is cut.
  let shown = parts;
  let countsShown = counts;
  const fits = (): boolean => displayWidth(shown.join(' · ')) + displayWidth(countsShown) + 2 <= width - 1;
  if (s && !fits()) shown = parts.filter((p) => p !== viewName);
  if (s && !fits() && filtered) countsShown = tr('sessions.countsShort', { matched: h.matched, count: s.sessionCount });
  const left = fitWidth(shown.join(' · '), Math.max(10, width - displayWidth(countsShown) - 2));
  const gap = Math.max(1, width - 1 - displayWidth(left) - displayWidth(countsShown));
  const line1 = `${braces(left)}${' '.repeat(gap)}${t.dim(countsShown)}`;
  const cols = columns(width);
  const head =
    '    ' +
    padWidth(tr(v.view === 'tree' ? 'sessions.col.projectSession' : 'sessions.col.session'), cols.title) +
    padWidth(tr('sessions.col.source'), cols.source) +
    padWidth(tr('sessions.col.updated'), cols.age, 'right') +
    padWidth(tr('sessions.col.size'), cols.size, 'right') +
    padWidth(tr('sessions.col.kids'), cols.kids, 'right');
  return [line1, t.dim(braces(head))];
}

function columns(width: number) {
  // 8 columns hold the state badge and the usual sources whole (archived, subagent, unknown, vscode).
  const source = width >= 90 ? 9 : 8;
  const age = 8;
  const size = 10;
  const kids = 6;
  const title = Math.max(10, width - 4 - source - age - size - kids);
  return { source, age, size, kids, title };
}

/** What a row's look depends on besides the row: the marks and the scan's clock. */
interface RowLook {
  theme: Theme;
  /** The ages are counted from here (the scan's time). */
  now: number;
  marks: Pick<Marks, 'has' | 'projectCounts'>;
}

export function sessionRow(r: Row, width: number, selected: boolean, look: RowLook): string {
  const t = look.theme;
  const cols = columns(width);
  let mark: string;
  if (r.kind === 'project') mark = projectMark(r, look.marks);
  else if (!r.selectable) mark = r.context ? '    ' : ' -  ';
  else mark = look.marks.has(r.id) ? '[x] ' : '[ ] ';
  const indent = '  '.repeat(Math.max(0, r.depth));
  const glyph = r.expandable ? (r.expanded ? '▾ ' : '▸ ') : '  ';
  const prefix = indent + glyph;
  const titleRoom = Math.max(1, cols.title - displayWidth(prefix));
  let label = r.title;
  // A project's root path is cut in the middle (its end names the project), after the label.
  if (r.kind === 'project' && r.source) {
    const room = titleRoom - 1 - displayWidth(r.title) - 2;
    if (room >= 8) label = `${r.title}  ${fitPath(r.source, room)}`;
  }
  const title = prefix + cell(label, titleRoom - 1) + ' ';
  const source = cell(r.kind === 'project' ? '' : r.state === 'archived' ? tr('sessions.archived') : r.source, cols.source);
  const age = padWidth(formatAge(r.updatedAt, look.now), cols.age, 'right');
  // A filtered view's project row counts its matches, not everything it holds.
  const bytes = r.matchedBytes ?? r.bytes;
  const size = padWidth(formatBytes(bytes), cols.size, 'right');
  const count = r.matchedSessions ?? r.childCount;
  const kids = padWidth(r.kind === 'project' ? formatCount(count) : r.childCount ? `+${formatCount(r.childCount)}` : '', cols.kids, 'right');
  let line = `${mark}${title}${source}${age}${size}${kids}`;
  if (selected) return t.cursor(line);
  if (r.kind === 'project') line = t.bold(line);
  else if (r.context) line = t.dim(line);
  return line;
}

function projectMark(r: Row, marks: RowLook['marks']): string {
  // A project's box reflects the marks of its selectable sessions (from the selection index).
  const { marked, selectable } = marks.projectCounts(r.id);
  if (selectable === 0) return '    ';
  return marked === selectable ? '[x] ' : marked > 0 ? '[~] ' : '[ ] ';
}

/** What an empty list says: the page's error, no scan yet, no sessions, the first page on its way, or no match. */
interface EmptyState {
  error: string | null;
  summary: Pick<ScanSummary, 'sessionCount'> | null;
  scanning: boolean;
  /** The rows on hand belong to an earlier view. */
  stale: boolean;
}

export function sessionsEmptyText(e: EmptyState, t: Theme): string {
  if (e.error) return t.danger(braces(e.error));
  if (!e.summary) return t.dim(`  ${tr(e.scanning ? 'common.scanning' : 'common.waitingForScan')}`);
  if (e.summary.sessionCount === 0) return t.dim(`  ${tr('sessions.noData')}`);
  // The new view's first page is on its way (a first start showed "Nothing matches" until it came).
  return t.dim(`  ${tr(e.stale ? 'sessions.loadingRows' : 'sessions.noMatch')}`);
}

/** The cursor row's details as far as they came. */
interface PaneDetail {
  id: string;
  detail: Detail | null;
  error?: string;
}

/**
 * The pane's lines while the cursor row's details are not on hand (no row:
 * a hint; the details loading or failed: the title and that), or null when
 * the loaded details are the cursor row's and the pane draws them itself.
 */
export function pendingPaneLines(row: Row | undefined, d: PaneDetail | null, hasSummary: boolean, t: Theme): string[] | null {
  if (!row) return [t.dim(hasSummary ? '' : tr('sessions.chooseAgent'))];
  if (d && d.id === row.id && d.detail) return null;
  return [t.bold(braces(row.title)), d?.error ? t.danger(braces(d.error)) : t.dim(tr('sessions.loadingDetails'))];
}
