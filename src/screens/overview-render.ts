// The Overview's drawing as a pure function of what it shows (the current
// agent's scan summary, the detected agents) and the width: category bars,
// largest projects and sessions, the age histogram, the warnings line and a
// line for every agent. Lines are blessed tag strings, agent text through
// `cell`/`braces`; sentences that say what to do wrap, figures are cut.

import { agentName } from '../engine/core/agents.js';
import { fitPath, formatBytes, formatCount, formatDate } from '../engine/core/format.js';
import { t as tr, type MessageKey } from '../engine/i18n/index.js';
import { type AgentKind, type Attribution, CATEGORIES, type Installation, type ScanSummary } from '../engine/core/model.js';
import { displayWidth, fitWidth, padWidth } from '../engine/core/text.js';
import { bar } from '../widgets/bars.js';
import { sparkline } from '../widgets/sparkline.js';
import { wrapTagged } from '../widgets/wrap.js';
import { braces, cell, type Theme } from '../widgets/theme.js';
import { sweepForecastLine } from './sweep-line.js';

/** The parts of a scan summary the Overview draws. */
export type OverviewSummary = Pick<
  ScanSummary,
  | 'agent'
  | 'totals'
  | 'sessionCount'
  | 'projects'
  | 'writers'
  | 'readOnly'
  | 'deletedOpen'
  | 'sweepForecast'
  | 'attribution'
  | 'byCategory'
  | 'growth'
  | 'largestSessions'
  | 'ageHistogram'
  | 'warnings'
>;

interface OverviewState {
  summary: OverviewSummary | null;
  scanning: boolean;
  /** The agent shown (null: none detected). */
  agent: AgentKind | null;
  installations: readonly Installation[];
}

const GROWTH_W = 9;

/** The Overview's lines at W columns (W: the screen's width less 2). */
export function overviewLines(o: OverviewState, W: number, t: Theme): string[] {
  const s = o.summary;
  const L: string[] = [];
  if (!s) L.push(t.dim(` ${tr(o.scanning ? 'common.scanning' : o.agent ? 'common.waitingForScan' : 'overview.noAgentData')}`));
  else L.push(...summaryLines(s, W, t));
  L.push('', t.accent(` ${tr('overview.allAgents')}`));
  for (const i of o.installations) {
    const state = tr(AGENT_STATE[i.state]);
    const cur = i.agent === o.agent ? t.bold('›') : ' ';
    L.push(` ${cur} ${padWidth(agentName(i.agent), 12)} ${padWidth(state, 16)} ${t.dim(cell(fitPath(i.home, Math.max(10, W - 34)), Math.max(10, W - 34)))}`);
  }
  return L;
}

function summaryLines(s: OverviewSummary, W: number, t: Theme): string[] {
  const L = headLines(s, W, t);
  const g = s.growth?.since != null ? s.growth : null;
  // The growth column takes its room from the bar, so a line still fits 80 columns.
  const barW = Math.max(8, Math.min(40, W - 44 - (g ? GROWTH_W + 1 : 0)));
  L.push(...categoryLines(s, W, barW, t), ...largestLines(s, W, t), '', ...ageLines(s, barW, t));
  if (s.warnings.length) {
    const count = tr('count.warnings', { count: s.warnings.length });
    const tail = tr('overview.warningsTail');
    const first = fitWidth(tr('overview.firstWarning', { reason: s.warnings[0]!.reason }), Math.max(10, W - displayWidth(count) - displayWidth(tail) - 2));
    L.push('', ` ${t.warn(count)} ${t.dim(braces(first + tail))}`);
  }
  return L;
}

/** The agent's name and facts, what runs or holds space, and the attribution line. */
function headLines(s: OverviewSummary, W: number, t: Theme): string[] {
  const L: string[] = [];
  const name = agentName(s.agent);
  const facts = [
    tr('overview.managed', { size: formatBytes(s.totals.bytes), items: tr('count.items', { count: s.totals.items }) }),
    tr('count.sessions', { count: s.sessionCount }),
    tr('count.projects', { count: s.projects.length }),
  ].join(' · ');
  L.push(` ${t.bold(braces(name))}  ${braces(fitWidth(facts, W - displayWidth(name) - 2))}`);
  // The pid goes in as text: t() groups the digits of numbers.
  const writers = s.writers.map((w) => tr('overview.writer', { name: w.name, pid: String(w.pid) })).join(tr('list.separator'));
  // Sentences that say what to do are wrapped, never cut (the Overview scrolls).
  const say = (text: string): void => {
    for (const line of wrapTagged(braces(text), W - 1)) L.push(' ' + t.warn(line));
  };
  if (s.writers.length) say(tr('overview.running', { writers }));
  if (s.readOnly) L.push(' ' + t.warn(tr('overview.readOnly')));
  // Space no removal can free: deleted files a process still holds (their rows say which process).
  const held = deletedOpenLine(s.deletedOpen);
  if (held) say(held);
  const sweep = sweepForecastLine(s.sweepForecast);
  if (sweep) say(sweep);
  // The figures and their tail on one line (the Overview must hold at 80×24): the full
  // wording when it fits, else the short one, else the short one cut.
  const attributed = attributionLine(s.attribution);
  if (attributed) {
    const full = attributed.join('');
    const short = attributionLine(s.attribution, true)!.join('');
    L.push(' ' + t.dim(braces(displayWidth(full) <= W ? full : fitWidth(short, W))));
  }
  // The attribution line takes the place of the blank line under the header: at 80×24 the
  // warnings line and the other agents must still be on screen without scrolling.
  if (!attributed) L.push('');
  return L;
}

/** A bar per category (with its change since an earlier scan), then the trend of the last scans. */
function categoryLines(s: OverviewSummary, W: number, barW: number, t: Theme): string[] {
  const L: string[] = [];
  const cats = CATEGORIES.filter((c) => (s.byCategory[c]?.items ?? 0) > 0);
  const max = Math.max(1, ...cats.filter((c) => c !== 'protected').map((c) => s.byCategory[c]!.bytes));
  const g = s.growth?.since != null ? s.growth : null;
  const byCategory = ` ${tr('overview.byCategory')}`;
  L.push(
    t.accent(byCategory) +
      (g ? t.dim(braces(fitWidth(tr('overview.changeSince', { date: formatDate(g.since) }), Math.max(0, W - displayWidth(byCategory))))) : ''),
  );
  for (const c of cats) {
    const v = s.byCategory[c]!;
    const b = c === 'protected' ? t.dim(padWidth(tr('overview.neverCleaned'), barW)) : t.accent(bar(v.bytes, max, barW));
    const d = g ? ' ' + growthCell(g.byCategory[c]?.bytes ?? 0, t) : '';
    L.push(`  ${padWidth(tr(`category.${c}`), 18)} ${b} ${padWidth(formatBytes(v.bytes), 9, 'right')} ${padWidth(formatCount(v.items), 7, 'right')}${d}`);
  }
  const trend = s.growth?.trend ?? [];
  if (trend.length >= 2) {
    const first = trend[0]!;
    const last = trend[trend.length - 1]!;
    const tail = tr('overview.trendTail', {
      first: formatBytes(first.bytes),
      last: formatBytes(last.bytes),
      scans: tr('count.scans', { count: trend.length }),
      date: formatDate(first.at).slice(0, 10),
    });
    const spark = sparkline(
      trend.map((x) => x.bytes),
      Math.max(4, Math.min(trend.length, W - 24 - displayWidth(tail))),
    );
    L.push(`  ${padWidth(tr('overview.trend'), 18)} ${t.accent(spark)}${t.dim(braces(fitWidth(tail, Math.max(0, W - 21 - displayWidth(spark)))))}`);
  }
  return L;
}

/** The five largest projects and sessions, side by side. */
function largestLines(s: OverviewSummary, W: number, t: Theme): string[] {
  const half = Math.floor((W - 4) / 2);
  const pmax = Math.max(1, ...s.projects.map((p) => p.bytes));
  const leftHead = tr('overview.largestProjects');
  const left = [
    t.accent(leftHead),
    ...s.projects.slice(0, 5).map((p) => `${cell(p.label, half - 22)} ${t.accent(bar(p.bytes, pmax, 10))} ${padWidth(formatBytes(p.bytes), 9, 'right')}`),
  ];
  const right = [
    t.accent(tr('overview.largestSessions')),
    ...s.largestSessions.slice(0, 5).map((x) => `${cell(x.title, half - 12)} ${padWidth(formatBytes(x.bytes), 9, 'right')}`),
  ];
  const L = [''];
  for (let i = 0; i < Math.max(left.length, right.length); i++)
    L.push(` ${left[i] ?? ''}${i === 0 ? ' '.repeat(Math.max(1, half - displayWidth(leftHead))) : left[i] ? '  ' : ' '.repeat(half + 1)}${right[i] ?? ''}`);
  return L;
}

function ageLines(s: OverviewSummary, barW: number, t: Theme): string[] {
  const amax = Math.max(1, ...s.ageHistogram.map((a) => a.bytes));
  const L = [t.accent(` ${tr('overview.byAge')}`)];
  for (const a of s.ageHistogram)
    L.push(
      `  ${padWidth(ageLabel(a.label), 12)} ${t.accent(bar(a.bytes, amax, barW))} ${padWidth(formatBytes(a.bytes), 9, 'right')} ${padWidth(formatCount(a.sessions), 7, 'right')}`,
    );
  return L;
}

export const AGENT_STATE: Record<Installation['state'], MessageKey> = {
  installed: 'agentState.installed',
  dataOnly: 'agentState.dataOnly',
  notFound: 'agentState.notFound',
};

/** The engine names its four age buckets in English; a bucket it may add later shows as it is. */
const AGE_LABEL: Record<string, MessageKey> = {
  '< 7 days': 'overview.age.under7',
  '7–30 days': 'overview.age.7to30',
  '30–90 days': 'overview.age.30to90',
  '> 90 days': 'overview.age.over90',
};

function ageLabel(label: string): string {
  const key = AGE_LABEL[label];
  return key ? tr(key) : label;
}

/** "+1.2 MB", "-300 KB" or a dim "±0", right-aligned in GROWTH_W cells. */
function growthCell(bytes: number, t: Theme): string {
  if (bytes === 0) return t.dim(padWidth('±0', GROWTH_W, 'right'));
  const text = padWidth(`${bytes > 0 ? '+' : '-'}${formatBytes(Math.abs(bytes))}`, GROWTH_W, 'right');
  return bytes > 0 ? t.warn(text) : t.ok(text);
}

/** The Overview's line for space only a process can free, or null when none is held. */
export function deletedOpenLine(d: { files: number; bytes: number } | undefined): string | null {
  if (!d?.files) return null;
  return tr('overview.deletedOpen', { size: formatBytes(d.bytes), files: tr('count.files', { count: d.files }) });
}

/**
 * ["On disk: X of Y accounted for (allocated size, as du)", " · Z in N files
 * not recognized (read-only) · …"] (the tail empty when all is accounted
 * for), or null before a walk.
 */
export function attributionLine(a: Attribution | undefined, short = false): [string, string] | null {
  if (!a || a.totalFiles === 0) return null;
  const figures = { accounted: formatBytes(a.accountedBytes), total: formatBytes(a.totalBytes) };
  const head = short ? tr('overview.attributedShort', figures) : tr('overview.attributed', { ...figures, measure: tr('overview.measure.allocated') });
  let tail = '';
  if (a.unrecognizedFiles)
    tail += tr(short ? 'overview.unrecognizedShort' : 'overview.unrecognized', {
      size: formatBytes(a.unrecognizedBytes),
      files: tr('count.files', { count: a.unrecognizedFiles }),
    });
  if (a.doubleCountedFiles) tail += tr('overview.doubleCounted', { files: tr('count.files', { count: a.doubleCountedFiles }) });
  if (a.notWalked.length) tail += tr('overview.notWalked', { count: a.notWalked.length });
  return [head, tail];
}
