// Overview: what is there and how big — category bars, largest projects and
// sessions, an age histogram, and a line for every other agent.

import blessed from 'blessed';
import { fitPath, formatBytes, formatCount, formatDate, plural } from '../engine/core/format.js';
import { AGENT_NAMES, CATEGORIES, CATEGORY_LABELS } from '../engine/core/model.js';
import { displayWidth, fitWidth, padWidth } from '../engine/core/text.js';
import { bar } from '../widgets/bars.js';
import { sparkline } from '../widgets/sparkline.js';
import { braces, cell, type Theme } from '../widgets/theme.js';
import type { KeyContext } from '../widgets/bindings.js';
import type { AppContext, Screen } from './screen.js';
import { openWarnings } from './warnings.js';

export class OverviewScreen implements Screen {
  readonly title = 'Overview';
  readonly root: blessed.Widgets.BoxElement;

  constructor(private app: AppContext) {
    this.root = blessed.box({ parent: app.screen, top: 1, left: 0, width: '100%', bottom: 2, tags: true, scrollable: true, hidden: true });
  }

  onSummary(): void {}

  paint(): void {
    const t = this.app.theme;
    const W = Math.max(40, ((this.app.screen.width as number) || 80) - 2);
    const s = this.app.summary();
    const L: string[] = [];
    if (!s) {
      L.push(t.dim(this.app.scanning() ? ' Scanning…' : this.app.agent() ? ' Waiting for scan data' : ' No agent data was found. See Settings (6) for what was detected.'));
    } else {
      const name = AGENT_NAMES[s.agent];
      const facts = `${formatBytes(s.totals.bytes)} managed in ${plural(s.totals.items, 'item')} · ${plural(s.sessionCount, 'session')} · ${plural(s.projects.length, 'project')}`;
      L.push(` ${t.bold(braces(name))}  ${braces(fitWidth(facts, W - name.length - 2))}`);
      if (s.writers.length) L.push(' ' + t.warn(braces(fitWidth(`Running: ${s.writers.map((w) => `${w.name} (pid ${w.pid})`).join(', ')} — its data is read-only until it exits.`, W))));
      if (s.readOnly) L.push(' ' + t.warn('Read-only mode: no cleanup route is offered.'));
      L.push('');
      const cats = CATEGORIES.filter((c) => (s.byCategory[c]?.items ?? 0) > 0);
      const max = Math.max(1, ...cats.filter((c) => c !== 'protected').map((c) => s.byCategory[c]!.bytes));
      const g = s.growth?.since != null ? s.growth : null;
      // The growth column takes its room from the bar, so a line still fits 80 columns.
      const barW = Math.max(8, Math.min(40, W - 44 - (g ? GROWTH_W + 1 : 0)));
      L.push(t.accent(' Storage by category') + (g ? t.dim(braces(fitWidth(` · change since ${formatDate(g.since)} UTC`, Math.max(0, W - 20)))) : ''));
      for (const c of cats) {
        const v = s.byCategory[c]!;
        const b = c === 'protected' ? t.dim(padWidth('(never cleaned)', barW)) : t.accent(bar(v.bytes, max, barW));
        const d = g ? ' ' + growthCell(g.byCategory[c]?.bytes ?? 0, t) : '';
        L.push(`  ${padWidth(CATEGORY_LABELS[c], 18)} ${b} ${padWidth(formatBytes(v.bytes), 9, 'right')} ${padWidth(formatCount(v.items), 7, 'right')}${d}`);
      }
      const trend = s.growth?.trend ?? [];
      if (trend.length >= 2) {
        const first = trend[0]!;
        const last = trend[trend.length - 1]!;
        const tail = ` ${formatBytes(first.bytes)} → ${formatBytes(last.bytes)} over ${plural(trend.length, 'scan')} since ${formatDate(first.at).slice(0, 10)}`;
        const spark = sparkline(trend.map((x) => x.bytes), Math.max(4, Math.min(trend.length, W - 24 - displayWidth(tail))));
        L.push(`  ${padWidth('Trend', 18)} ${t.accent(spark)}${t.dim(braces(fitWidth(tail, Math.max(0, W - 21 - displayWidth(spark)))))}`);
      }
      const half = Math.floor((W - 4) / 2);
      const pmax = Math.max(1, ...s.projects.map((p) => p.bytes));
      const left = [t.accent('Largest projects'), ...s.projects.slice(0, 5).map((p) => `${cell(p.label, half - 22)} ${t.accent(bar(p.bytes, pmax, 10))} ${padWidth(formatBytes(p.bytes), 9, 'right')}`)];
      const right = [t.accent('Largest sessions'), ...s.largestSessions.slice(0, 5).map((x) => `${cell(x.title, half - 12)} ${padWidth(formatBytes(x.bytes), 9, 'right')}`)];
      L.push('');
      for (let i = 0; i < Math.max(left.length, right.length); i++) L.push(` ${left[i] ?? ''}${i === 0 ? ' '.repeat(Math.max(1, half - 16)) : left[i] ? '  ' : ' '.repeat(half + 1)}${right[i] ?? ''}`);
      L.push('');
      const amax = Math.max(1, ...s.ageHistogram.map((a) => a.bytes));
      L.push(t.accent(' Sessions by last update'));
      for (const a of s.ageHistogram) L.push(`  ${padWidth(a.label, 12)} ${t.accent(bar(a.bytes, amax, barW))} ${padWidth(formatBytes(a.bytes), 9, 'right')} ${padWidth(formatCount(a.sessions), 7, 'right')}`);
      if (s.warnings.length) {
        const count = plural(s.warnings.length, 'warning');
        const tail = ' · w lists them all';
        const first = fitWidth(`— first: ${s.warnings[0]!.reason}`, Math.max(10, W - count.length - tail.length - 2));
        L.push('', ` ${t.warn(count)} ${t.dim(braces(first + tail))}`);
      }
    }
    L.push('', t.accent(' All agents'));
    for (const i of this.app.installations()) {
      const state = i.state === 'installed' ? 'Installed' : i.state === 'dataOnly' ? 'Local data only' : 'Not detected';
      const cur = i.agent === this.app.agent() ? t.bold('›') : ' ';
      L.push(` ${cur} ${padWidth(AGENT_NAMES[i.agent], 12)} ${padWidth(state, 16)} ${t.dim(cell(fitPath(i.home, Math.max(10, W - 34)), Math.max(10, W - 34)))}`);
    }
    this.root.setContent(L.join('\n'));
  }

  private readonly context: KeyContext = {
    title: 'Overview',
    bindings: [
      { keys: ['up', 'k'], label: '↑ k', does: 'scroll up', run: () => this.scroll(-1) },
      { keys: ['down', 'j'], label: '↓ j', does: 'scroll down', run: () => this.scroll(1) },
      {
        keys: ['w'],
        does: 'list every warning of this scan',
        footer: 'warnings',
        disabled: () => (this.app.summary()?.warnings.length ? undefined : 'this scan raised no warnings'),
        run: () => openWarnings(this.app),
      },
    ],
  };

  keyContext(): KeyContext {
    return this.context;
  }

  private scroll(n: number): void {
    this.root.scroll(n);
    this.app.requestRender();
  }
}

const GROWTH_W = 9;

/** "+1.2 MB", "-300 KB" or a dim "±0", right-aligned in GROWTH_W cells. */
function growthCell(bytes: number, t: Theme): string {
  if (bytes === 0) return t.dim(padWidth('±0', GROWTH_W, 'right'));
  const text = padWidth(`${bytes > 0 ? '+' : '-'}${formatBytes(Math.abs(bytes))}`, GROWTH_W, 'right');
  return bytes > 0 ? t.warn(text) : t.ok(text);
}
