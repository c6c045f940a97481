// Sessions: the collapsible, virtualized project → session → fork tree (or
// the flat list), filters, marks and the detail pane. Rows arrive from the
// engine in pages of 50; only the visible window is drawn.

import blessed from 'blessed';
import { fitPath, formatAge, formatBytes, formatCount } from '../engine/core/format.js';
import { t as tr, type MessageKey } from '../engine/i18n/index.js';
import type { Detail, ExpansionSpec, PageResult, Preview, Row, ScanSummary, SessionFilter, SortKey, UpdatedFilter } from '../engine/core/model.js';
import { displayWidth, fitWidth, padWidth } from '../engine/core/text.js';
import { DetailPane } from '../widgets/detail-pane.js';
import { braces, cell } from '../widgets/theme.js';
import { place, VirtualList, type RowSource } from '../widgets/virtual-list.js';
import type { KeyContext } from '../widgets/bindings.js';
import type { AppContext, Screen } from './screen.js';
import { openWarnings } from './warnings.js';
import { SelectMenu } from './select-menu.js';
import { explainPreview } from './session-explain.js';

const PAGE = 50;
const UPDATED_CYCLE: UpdatedFilter[] = ['all', 'within7', 'within30', 'older30', 'older90'];
const UPDATED_LABEL: Record<UpdatedFilter, MessageKey> = {
  all: 'sessions.updated.all',
  within7: 'sessions.updated.within7',
  within30: 'sessions.updated.within30',
  older30: 'sessions.updated.older30',
  older90: 'sessions.updated.older90',
  agentSweep: 'sessions.updated.agentSweep',
};
const SORTS: SortKey[] = ['updated', 'size', 'title'];
/** Each key's order in plain words, [default, reversed]. */
const SORT_LABEL: Record<SortKey, [MessageKey, MessageKey]> = {
  updated: ['sessions.sort.newest', 'sessions.sort.oldest'],
  size: ['sessions.sort.largest', 'sessions.sort.smallest'],
  title: ['sessions.sort.titleAz', 'sessions.sort.titleZa'],
};

/** Page cache over the engine: keeps showing the old rows until the new view's first page lands. */
class PagedRows implements RowSource {
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

interface ViewSettings {
  view: 'tree' | 'flat';
  filter: SessionFilter;
  sort: SortKey;
  reverse: boolean;
  expansion: { base: ExpansionSpec['base']; toggled: Set<string> };
}

function defaultViewSettings(): ViewSettings {
  return { view: 'tree', filter: {}, sort: 'updated', reverse: false, expansion: { base: 'default', toggled: new Set() } };
}

export class SessionsScreen implements Screen {
  readonly title = tr('tab.sessions');
  readonly root: blessed.Widgets.BoxElement;
  private header: blessed.Widgets.BoxElement;
  private list: VirtualList;
  private sep: blessed.Widgets.BoxElement;
  private pane: DetailPane;
  private rows: PagedRows;
  private view: 'tree' | 'flat' = 'tree';
  private filter: SessionFilter = {};
  private sort: SortKey = 'updated';
  private reverse = false;
  private expansion: { base: ExpansionSpec['base']; toggled: Set<string> } = { base: 'default', toggled: new Set() };
  private focus: 'list' | 'detail' = 'list';
  private detail: { id: string; detail: Detail | null; preview: Preview | null; error?: string } | null = null;
  private detailTimer: NodeJS.Timeout | null = null;
  /** The Select-by-rules form (R), while open: it has the keys. */
  private menu: SelectMenu | null = null;
  /** The summary the rows were last asked for. */
  private shown: ScanSummary | null = null;
  /** Each agent's own view, filters and sort (#28.3): the same keys select the same set after a round trip through another agent. */
  private readonly views = new Map<string, ViewSettings>();
  /** The agent the current view settings belong to. */
  private viewAgent: string | null = null;

  constructor(private app: AppContext) {
    this.root = blessed.box({ parent: app.screen, top: 1, left: 0, width: '100%', bottom: 2, tags: true, hidden: true });
    this.header = blessed.box({ parent: this.root, top: 0, left: 0, width: '100%', height: 2, tags: true, wrap: false });
    this.rows = new PagedRows(
      (offset, limit) => this.loadPage(offset, limit),
      () => this.app.requestRender(),
      (r, w, sel) => this.renderRow(r, w, sel),
    );
    this.list = new VirtualList(this.root, { top: 2, left: 0 }, this.rows, (w) => this.app.theme.dim(padWidth('  …', w)));
    this.sep = blessed.box({ parent: this.root, tags: true });
    this.pane = new DetailPane(this.root, app.theme, {});
  }

  private loadPage(offset: number, limit: number): Promise<PageResult> {
    const s = this.app.summary();
    if (!s) return Promise.resolve({ snapshotId: '', total: 0, offset: 0, rows: [], matched: 0, matchedBytes: 0 });
    return this.app.engine.page({
      snapshotId: s.snapshotId,
      scope: { view: this.view, expansion: { base: this.expansion.base, toggled: [...this.expansion.toggled] } },
      filter: this.filter,
      sort: this.sort,
      reverse: this.reverse,
      offset,
      limit,
    });
  }

  paintState(): { rows: number; settled: boolean } {
    return { rows: this.list.drawn, settled: !this.rows.stale && this.list.placeholders === 0 };
  }

  onSummary(): void {
    // The form's projects, sources and counts belong to the old scan.
    this.menu?.close();
    const s = this.app.summary();
    // A running scan's next partial view: same rows, more of them. The final view is a new one (its rows become markable).
    const growing = Boolean(s?.provisional && this.shown?.provisional && s.agent === this.shown.agent);
    this.shown = s;
    if (s && s.agent !== this.viewAgent) this.switchView(s.agent);
    if (growing) this.rows.refresh();
    else this.rows.reset();
    this.detail = null;
    if (!this.app.summary()) this.rows.clear();
    this.scheduleDetail();
  }

  /** Keeps the outgoing agent's view settings and takes the incoming one's (a first visit starts from the defaults). */
  private switchView(agent: string): void {
    // The first agent's settings are the ones already set (keys pressed before its first scan arrived count).
    if (this.viewAgent === null) {
      this.viewAgent = agent;
      return;
    }
    this.views.set(this.viewAgent, { view: this.view, filter: this.filter, sort: this.sort, reverse: this.reverse, expansion: this.expansion });
    const next = this.views.get(agent) ?? defaultViewSettings();
    ({ view: this.view, filter: this.filter, sort: this.sort, reverse: this.reverse, expansion: this.expansion } = next);
    this.viewAgent = agent;
    this.list.cursor = 0;
    this.list.top = 0;
  }

  private changed(resetCursor: boolean): void {
    this.rows.reset();
    if (resetCursor) {
      this.list.cursor = 0;
      this.list.top = 0;
    }
    this.scheduleDetail();
    this.app.requestRender();
  }

  // ---- layout and drawing -------------------------------------------------

  paint(): void {
    const W = (this.app.screen.width as number) || 80;
    const H = Math.max(4, ((this.app.screen.height as number) || 24) - 3);
    const wide = W >= 120;
    const listTop = 2;
    if (wide) {
      const paneW = Math.min(60, Math.floor(W * 0.38));
      place(this.list.box, { width: W - paneW - 1 });
      place(this.list.box, { height: H - listTop });
      place(this.sep, { top: listTop, left: W - paneW - 1, width: 1, height: H - listTop });
      this.sep.setContent(
        this.app.theme.dim(
          Array(Math.max(1, H - listTop))
            .fill('│')
            .join('\n'),
        ),
      );
      place(this.pane.box, { top: listTop, left: W - paneW, width: paneW, height: H - listTop });
    } else {
      const paneH = Math.max(4, Math.floor((H - listTop) * 0.38));
      const listH = Math.max(2, H - listTop - paneH - 1);
      place(this.list.box, { width: W });
      place(this.list.box, { height: listH });
      place(this.sep, { top: listTop + listH, left: 0, width: W, height: 1 });
      this.sep.setContent(this.app.theme.dim('─'.repeat(W)));
      place(this.pane.box, { top: listTop + listH + 1, left: 0, width: W, height: paneH });
    }
    const listW = wide ? W - Math.min(60, Math.floor(W * 0.38)) - 1 : W;
    this.header.setContent(this.headerLines(listW).join('\n'));
    const s = this.app.summary();
    this.list.setEmptyText(
      this.rows.error
        ? this.app.theme.danger(braces(this.rows.error))
        : !s
          ? this.app.theme.dim(`  ${tr(this.app.scanning() ? 'common.scanning' : 'common.waitingForScan')}`)
          : s.sessionCount === 0
            ? this.app.theme.dim(`  ${tr('sessions.noData')}`)
            : // The new view's first page is on its way (a first start showed "Nothing matches" until it came).
              this.app.theme.dim(`  ${tr(this.rows.stale ? 'sessions.loadingRows' : 'sessions.noMatch')}`),
    );
    this.list.paint();
    this.paintDetail();
    this.menu?.paint();
  }

  private headerLines(width: number): string[] {
    const t = this.app.theme;
    const s = this.app.summary();
    const viewName = tr(this.view === 'tree' ? 'sessions.tree' : 'sessions.list');
    const parts = [
      viewName,
      tr(SORT_LABEL[this.sort][this.reverse ? 1 : 0]),
      this.filter.updated === 'agentSweep' && s?.sweepForecast
        ? tr('sweep.forecast.filter', { agent: s.sweepForecast.agentName, count: s.sweepForecast.sessions })
        : tr(UPDATED_LABEL[this.filter.updated ?? 'all']),
    ];
    if (s?.provisional) parts.unshift(tr('sessions.partial'));
    if (this.filter.state) parts.push(tr(this.filter.state === 'archived' ? 'sessions.state.archivedOnly' : 'sessions.state.currentOnly'));
    if (this.filter.text) parts.push(`“${this.filter.text}”`);
    const filtered = Boolean(this.filter.text || this.filter.updated || this.filter.state);
    const counts = !s
      ? ''
      : filtered
        ? tr('sessions.countsFiltered', { matched: this.rows.matched, count: s.sessionCount, size: formatBytes(this.rows.matchedBytes) })
        : tr('sessions.counts', { count: s.sessionCount, size: formatBytes(this.rows.matchedBytes) });
    // At 80 columns the agent's filter and sort come first (#28.3): the view's name (the column header
    // says tree or list) and then the size give way before any of them is cut.
    let shown = parts;
    let countsShown = counts;
    const fits = (): boolean => displayWidth(shown.join(' · ')) + displayWidth(countsShown) + 2 <= width - 1;
    if (s && !fits()) shown = parts.filter((p) => p !== viewName);
    if (s && !fits() && filtered) countsShown = tr('sessions.countsShort', { matched: this.rows.matched, count: s.sessionCount });
    const left = fitWidth(shown.join(' · '), Math.max(10, width - displayWidth(countsShown) - 2));
    const gap = Math.max(1, width - 1 - displayWidth(left) - displayWidth(countsShown));
    const line1 = `${braces(left)}${' '.repeat(gap)}${t.dim(countsShown)}`;
    const cols = this.columns(width);
    const head =
      '    ' +
      padWidth(tr(this.view === 'tree' ? 'sessions.col.projectSession' : 'sessions.col.session'), cols.title) +
      padWidth(tr('sessions.col.source'), cols.source) +
      padWidth(tr('sessions.col.updated'), cols.age, 'right') +
      padWidth(tr('sessions.col.size'), cols.size, 'right') +
      padWidth(tr('sessions.col.kids'), cols.kids, 'right');
    return [line1, t.dim(braces(head))];
  }

  private columns(width: number) {
    // 8 columns hold the state badge and the usual sources whole (archived, subagent, unknown, vscode).
    const source = width >= 90 ? 9 : 8;
    const age = 8;
    const size = 10;
    const kids = 6;
    const title = Math.max(10, width - 4 - source - age - size - kids);
    return { source, age, size, kids, title };
  }

  private renderRow(r: Row, width: number, selected: boolean): string {
    const t = this.app.theme;
    const cols = this.columns(width);
    const now = this.app.summary()?.scannedAt ?? this.app.now();
    let mark: string;
    if (r.kind === 'project') mark = this.projectMark(r);
    else if (!r.selectable) mark = r.context ? '    ' : ' -  ';
    else mark = this.app.marks.has(r.id) ? '[x] ' : '[ ] ';
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
    const age = padWidth(formatAge(r.updatedAt, now), cols.age, 'right');
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

  private projectMark(r: Row): string {
    // A project's box reflects the marks of its selectable sessions (from the selection index).
    const { marked, selectable } = this.app.marks.projectCounts(r.id);
    if (selectable === 0) return '    ';
    return marked === selectable ? '[x] ' : marked > 0 ? '[~] ' : '[ ] ';
  }

  private paintDetail(): void {
    const t = this.app.theme;
    const row = this.rows.row(this.list.cursor);
    if (!row) {
      this.pane.showText([t.dim(this.app.summary() ? '' : tr('sessions.chooseAgent'))]);
      return;
    }
    const d = this.detail;
    if (!d || d.id !== row.id || !d.detail) {
      this.pane.showText([t.bold(braces(row.title)), d?.error ? t.danger(braces(d.error)) : t.dim(tr('sessions.loadingDetails'))]);
      if (!this.detailTimer && (!d || d.id !== row.id)) this.scheduleDetail();
      return;
    }
    const marked = this.app.marks.has(row.id);
    this.pane.show(d.detail, marked, d.preview);
  }

  private scheduleDetail(): void {
    if (this.detailTimer) clearTimeout(this.detailTimer);
    this.detailTimer = setTimeout(() => {
      this.detailTimer = null;
      void this.loadDetail();
    }, 60);
  }

  private async loadDetail(): Promise<void> {
    const s = this.app.summary();
    const row = this.rows.row(this.list.cursor);
    if (!s || !row) return;
    if (this.detail?.id === row.id && this.detail.detail) return;
    this.detail = { id: row.id, detail: null, preview: null };
    try {
      const d = await this.app.engine.detail(s.snapshotId, row.id);
      if (this.detail?.id === row.id) this.detail.detail = d;
    } catch (e) {
      if (this.detail?.id === row.id) this.detail.error = (e as Error).message;
    }
    this.app.requestRender();
  }

  /** p (the engine's bounded preview) and b (why it is this big: explain, in the busy state) fill the pane alike. */
  private async loadPreview(explain = false): Promise<void> {
    const s = this.app.summary();
    const row = this.rows.row(this.list.cursor);
    if (!s || !row || row.kind !== 'session') {
      this.app.message(tr(explain ? 'explain.onSession' : 'sessions.previewOnSession'));
      return;
    }
    try {
      const p = explain ? await explainPreview(this.app, s.snapshotId, row.id) : await this.app.engine.preview(s.snapshotId, row.id);
      if (!this.detail || this.detail.id !== row.id) await this.loadDetail();
      if (this.detail?.id === row.id) this.detail.preview = p;
      this.focus = 'detail';
    } catch (e) {
      this.app.message((e as Error).message, 'error');
    }
    this.app.requestRender();
  }

  // ---- keys ---------------------------------------------------------------

  focusNext(): boolean {
    if (this.focus === 'list') {
      this.focus = 'detail';
      return true;
    }
    this.focus = 'list';
    return false;
  }

  keyContext(): KeyContext {
    if (this.menu) return this.menu.keyContext();
    return this.focus === 'detail' ? this.detailContext : this.listContext;
  }

  private readonly detailContext: KeyContext = {
    title: tr('sessions.details'),
    bindings: [
      { keys: ['up', 'k'], label: '↑ k', does: tr('key.scrollUp'), footer: tr('footer.scroll'), run: () => this.scrollPane(-1) },
      { keys: ['down', 'j'], label: '↓ j', does: tr('key.scrollDown'), run: () => this.scrollPane(1) },
      { keys: ['pageup'], does: tr('key.scrollPageUp'), run: () => this.scrollPane(-10) },
      { keys: ['pagedown'], does: tr('key.scrollPageDown'), run: () => this.scrollPane(10) },
      // The pane itself says "p: load a bounded, read-only preview"; it works where it is read.
      { keys: ['p'], does: tr('sessions.previewKey'), footer: tr('footer.preview'), run: () => void this.loadPreview() },
      { keys: ['b'], does: tr('explain.key'), footer: tr('explain.footer'), run: () => void this.loadPreview(true) },
      ...this.copyBindings(),
      {
        keys: ['escape'],
        does: tr('sessions.backToList'),
        footer: tr('sessions.backToList'),
        run: () => {
          this.focus = 'list';
          this.app.requestRender();
        },
      },
    ],
  };

  private readonly listContext: KeyContext = {
    title: tr('tab.sessions'),
    bindings: [
      { keys: ['up', 'k'], label: '↑ k', does: tr('key.moveUp'), run: () => void this.moveTo(this.list.cursor - 1) },
      { keys: ['down', 'j'], label: '↓ j', does: tr('key.moveDown'), run: () => void this.moveTo(this.list.cursor + 1) },
      { keys: ['pageup'], does: tr('key.pageUp'), run: () => void this.moveTo(this.list.cursor - this.list.height) },
      { keys: ['pagedown'], does: tr('key.pageDown'), run: () => void this.moveTo(this.list.cursor + this.list.height) },
      { keys: ['g', 'home'], does: tr('key.top'), run: () => void this.moveTo(0) },
      { keys: ['G', 'end'], does: tr('key.bottom'), run: () => void this.moveTo(this.rows.total() - 1) },
      { keys: ['enter'], does: tr('sessions.expandCollapse'), footer: tr('sessions.expand'), run: () => void this.expand(undefined) },
      { keys: ['right', 'l'], label: '→ l', does: tr('sessions.expand'), run: () => void this.expand(true) },
      { keys: ['left', 'h'], label: '← h', does: tr('sessions.collapse'), run: () => void this.collapseOrParent() },
      { keys: ['space'], does: tr('sessions.markRow'), footer: tr('footer.mark'), disabled: () => this.readOnlyWhy(), run: () => void this.markRow() },
      {
        keys: ['a'],
        does: tr('sessions.markAll'),
        footer: tr('sessions.footer.markAll'),
        disabled: () => this.readOnlyWhy(),
        run: () => void this.markScope(true),
      },
      { keys: ['u'], does: tr('sessions.clearMarks'), run: () => void this.markScope(false) },
      {
        keys: ['A'],
        does: tr('sessions.key.archive'),
        footer: tr('sessions.footer.archive'),
        disabled: () => this.readOnlyWhy() ?? this.archiveWhyNot(),
        run: () => this.archive(),
      },
      { keys: ['R'], does: tr('sessions.rules'), footer: tr('sessions.footer.rules'), disabled: () => this.readOnlyWhy(), run: () => this.openMenu() },
      { keys: ['/'], does: tr('sessions.filterKey'), footer: tr('sessions.footer.filter'), run: () => this.openSearch() },
      {
        keys: ['f'],
        does: tr('sessions.updatedKey'),
        footer: tr('sessions.footer.updated'),
        run: () => {
          // The agent's own sweep joins the cycle where it has one (Claude: the sessions it deletes at its next start).
          const cycle: UpdatedFilter[] = this.app.summary()?.sweepForecast ? [...UPDATED_CYCLE, 'agentSweep'] : UPDATED_CYCLE;
          const i = cycle.indexOf(this.filter.updated ?? 'all');
          const next = cycle[(i + 1) % cycle.length]!;
          this.filter = { ...this.filter, updated: next === 'all' ? undefined : next };
          this.changed(true);
        },
      },
      {
        keys: ['v'],
        does: tr('sessions.stateKey'),
        run: () => {
          // all → archived only → current only → all
          this.filter = { ...this.filter, state: this.filter.state === undefined ? 'archived' : this.filter.state === 'archived' ? 'current' : undefined };
          this.changed(true);
        },
      },
      {
        keys: ['s'],
        does: tr('sessions.sortKey'),
        footer: tr('sessions.footer.sort'),
        run: () => {
          this.sort = SORTS[(SORTS.indexOf(this.sort) + 1) % SORTS.length]!;
          this.changed(true);
        },
      },
      {
        keys: ['S'],
        does: tr('sessions.reverseKey'),
        run: () => {
          this.reverse = !this.reverse;
          this.changed(true);
        },
      },
      {
        keys: ['w'],
        does: tr('key.listWarnings'),
        disabled: () => (this.app.summary()?.warnings.length ? undefined : tr('common.noWarningsWhy')),
        run: () => openWarnings(this.app),
      },
      {
        keys: ['t'],
        does: tr('sessions.treeKey'),
        footer: tr('sessions.footer.tree'),
        run: () => {
          this.view = this.view === 'tree' ? 'flat' : 'tree';
          this.changed(true);
        },
      },
      {
        keys: ['e'],
        does: tr('sessions.expandAllKey'),
        run: () => {
          this.expansion = { base: this.expansion.base === 'allOpen' ? 'allClosed' : 'allOpen', toggled: new Set() };
          this.changed(false);
        },
      },
      { keys: ['p'], does: tr('sessions.previewKey'), footer: tr('footer.preview'), run: () => void this.loadPreview() },
      { keys: ['b'], does: tr('explain.key'), run: () => void this.loadPreview(true) },
      ...this.copyBindings(),
      {
        keys: ['escape'],
        does: tr('sessions.clearFilter'),
        disabled: () => (this.filter.text || this.filter.updated || this.filter.state ? undefined : tr('sessions.noFilter')),
        // One layer per Esc: the typed filter first (the age and state filters stay in the header), then the rest.
        run: () => {
          this.filter = this.filter.text ? { ...this.filter, text: undefined } : {};
          this.changed(true);
        },
      },
    ],
  };

  /** c and y: the cursor's session, in the list and in its detail pane alike. */
  private copyBindings(): KeyContext['bindings'] {
    return [
      { keys: ['c'], does: tr('copy.resumeKey'), footer: tr('copy.footer'), run: () => void this.copy('resume') },
      { keys: ['y'], does: tr('copy.referenceKey'), run: () => void this.copy('reference') },
    ];
  }

  /** Asks the engine for the session's text (the screen never builds a command from paths) and hands it to the clipboard. */
  private async copy(kind: 'resume' | 'reference'): Promise<void> {
    const s = this.app.summary();
    const r = this.rows.row(this.list.cursor);
    if (!s || r?.kind !== 'session') return this.app.message(tr('copy.onSession'));
    try {
      const c = await this.app.engine.sessionCopy(s.snapshotId, r.id);
      const text = kind === 'resume' ? c.resume : c.reference;
      if (text === null) {
        const why =
          kind === 'reference' ? tr('copy.noReference') : c.resumeWhy === 'none' ? tr('copy.none', { agent: s.installation.displayName }) : tr('copy.unsafe');
        return this.app.message(why, 'error');
      }
      if (kind === 'resume') this.app.copy(tr('copy.titleResume'), tr('copy.whatResume'), text);
      else this.app.copy(tr('copy.titleReference'), tr('copy.whatReference'), text);
    } catch (e) {
      this.app.message((e as Error).message, 'error');
    }
  }

  private openMenu(): void {
    const s = this.app.summary();
    if (!s) return this.app.message(tr('sessions.noScan'));
    if (this.provisional()) return;
    this.menu = new SelectMenu(this.app, () => (this.menu = null));
    this.app.requestRender();
  }

  /** Why archive is not offered for this agent (pi has no official route), if so. */
  private archiveWhyNot(): string | undefined {
    const s = this.app.summary();
    if (!s) return undefined;
    return s.installation.labels?.archive?.archive ? undefined : tr('sessions.archive.absent', { agent: s.installation.displayName });
  }

  /** A: the marked sessions (or the cursor's) to the review as an archive plan; on an archived cursor row, as an unarchive plan. */
  private archive(): void {
    if (this.provisional()) return;
    const r = this.rows.row(this.list.cursor);
    const marked = this.app.marks.list().filter((id) => id.startsWith('session:'));
    const ids = marked.length ? marked : r?.kind === 'session' ? [r.id] : [];
    if (!ids.length) {
      this.app.message(tr('flow.nothingMarked'));
      return;
    }
    const action = r?.kind === 'session' && r.state === 'archived' ? 'unarchive' : 'archive';
    const support = this.app.summary()?.installation.labels?.archive;
    if (action === 'unarchive' && !support?.unarchive) {
      this.app.message(support?.why ?? tr('sessions.archive.absent', { agent: this.app.summary()?.installation.displayName ?? '' }));
      return;
    }
    this.app.reviewArchive(ids, action);
  }

  private readOnlyWhy(): string | undefined {
    return this.app.readOnly ? tr('common.readOnlyWhy') : undefined;
  }

  private scrollPane(n: number): void {
    this.pane.box.scroll(n);
    this.app.requestRender();
  }

  private moveTo(i: number): boolean {
    this.list.setCursor(i);
    this.scheduleDetail();
    this.app.requestRender();
    return true;
  }

  private expand(force?: boolean): boolean {
    const r = this.rows.row(this.list.cursor);
    // Nothing to open: the frame still answers the key (and the perf log sees it answered).
    if (!r?.expandable || this.view === 'flat') return this.moveTo(this.list.cursor);
    if (force && r.expanded) return this.moveTo(this.list.cursor + 1);
    this.toggle(r.id);
    return true;
  }

  private collapseOrParent(): boolean {
    const r = this.rows.row(this.list.cursor);
    if (!r) return this.moveTo(this.list.cursor);
    if (r.expandable && r.expanded) {
      this.toggle(r.id);
      return true;
    }
    // Walk up to the row one level shallower: the displayed parent.
    for (let i = this.list.cursor - 1; i >= 0; i--) {
      const p = this.rows.row(i);
      if (p && p.depth < r.depth) return this.moveTo(i);
    }
    return this.moveTo(this.list.cursor);
  }

  private toggle(id: string): void {
    if (this.expansion.toggled.has(id)) this.expansion.toggled.delete(id);
    else this.expansion.toggled.add(id);
    this.changed(false);
  }

  /** A partial view from a running scan offers nothing to mark (the engine refuses it too). */
  private provisional(): boolean {
    if (!this.app.summary()?.provisional) return false;
    this.app.message(tr('sessions.stillScanning'));
    return true;
  }

  private markRow(): boolean {
    const r = this.rows.row(this.list.cursor);
    if (!r) return true;
    if (this.app.readOnly) {
      this.app.message(tr('common.readOnly'));
      return true;
    }
    if (this.provisional()) return true;
    if (r.kind === 'project') {
      void this.markProject(r);
      return true;
    }
    if (!r.selectable) {
      this.app.message(r.blockedReason ?? tr('sessions.rowNotMarkable'));
      return true;
    }
    this.app.marks.toggle(r.id);
    this.list.move(1);
    this.scheduleDetail();
    this.app.requestRender();
    return true;
  }

  private async markProject(r: Row): Promise<void> {
    const s = this.app.summary();
    if (!s) return;
    const { ids } = await this.app.engine.matchIds(s.snapshotId, { ...this.filter, projectId: r.id });
    const allMarked = ids.length > 0 && ids.every((id) => this.app.marks.has(id));
    if (allMarked) this.app.marks.deleteAll(ids);
    else this.app.marks.addAll(ids);
    this.app.message(
      ids.length === 0
        ? tr('sessions.projectNothing')
        : tr(allMarked ? 'sessions.projectUnmarked' : 'sessions.projectMarked', { count: ids.length, project: r.title }),
    );
    this.app.requestRender();
  }

  private async markScope(on: boolean): Promise<void> {
    const s = this.app.summary();
    if (!s) return;
    if (this.app.readOnly && on) {
      this.app.message(tr('common.readOnly'));
      return;
    }
    if (this.provisional()) return;
    const { ids, bytes } = await this.app.engine.matchIds(s.snapshotId, this.filter);
    const n = on ? this.app.marks.addAll(ids) : this.app.marks.deleteAll(ids);
    const filtered = Boolean(this.filter.text || this.filter.updated || this.filter.state);
    this.app.message(
      on
        ? tr(filtered ? 'sessions.markedInFilter' : 'sessions.markedInAll', { count: n, size: formatBytes(bytes) })
        : tr(filtered ? 'sessions.clearedInFilter' : 'sessions.clearedInAll', { count: n }),
    );
    this.app.requestRender();
  }

  private openSearch(): void {
    const before = this.filter.text ?? '';
    let timer: NodeJS.Timeout | null = null;
    this.app.openInput({
      label: tr('sessions.filterPrompt'),
      value: before,
      maxLength: 512,
      onChange: (v) => {
        if (timer) clearTimeout(timer);
        timer = setTimeout(() => {
          this.filter = { ...this.filter, text: v || undefined };
          this.changed(true);
        }, 80);
      },
      onSubmit: (v) => {
        if (timer) clearTimeout(timer);
        this.filter = { ...this.filter, text: v.trim() || undefined };
        this.changed(true);
      },
      onCancel: () => {
        if (timer) clearTimeout(timer);
        this.filter = { ...this.filter, text: undefined };
        this.changed(true);
      },
    });
  }
}
