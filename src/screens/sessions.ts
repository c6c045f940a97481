// Sessions: the collapsible, virtualized project → session → fork tree (or
// the flat list), filters, marks and the detail pane. Rows arrive from the
// engine in pages of 50 (sessions-pages); only the visible window is drawn.
// This class is the shell: it keeps the view (sessions-state), asks the
// engine, and writes what sessions-render draws into the widgets; the keys
// are the tables of sessions-keys.

import blessed from 'blessed';
import { formatBytes } from '../engine/core/format.js';
import { t as tr } from '../engine/i18n/index.js';
import type { Detail, PageResult, Preview, Row, ScanSummary } from '../engine/core/model.js';
import { padWidth } from '../engine/core/text.js';
import { DetailPane } from '../widgets/detail-pane.js';
import { place, VirtualList } from '../widgets/virtual-list.js';
import type { KeyContext } from '../widgets/bindings.js';
import type { AppContext, Screen } from './screen.js';
import { openWarnings } from './warnings.js';
import { SelectMenu } from './select-menu.js';
import { explainPreview } from './session-explain.js';
import { PagedRows } from './sessions-pages.js';
import { defaultView, isFiltered, pageRequest, type SessionsView, toggleRow, withText } from './sessions-state.js';
import { pendingPaneLines, sessionRow, sessionsEmptyText, sessionsHeader, sessionsLayout } from './sessions-render.js';
import { type SessionsActions, sessionsKeys } from './sessions-keys.js';

export class SessionsScreen implements Screen {
  readonly title = tr('tab.sessions');
  readonly root: blessed.Widgets.BoxElement;
  private header: blessed.Widgets.BoxElement;
  private list: VirtualList;
  private sep: blessed.Widgets.BoxElement;
  private pane: DetailPane;
  private rows: PagedRows;
  private v: SessionsView = defaultView();
  private focus: 'list' | 'detail' = 'list';
  private detail: { id: string; detail: Detail | null; preview: Preview | null; error?: string } | null = null;
  private detailTimer: NodeJS.Timeout | null = null;
  /** The Select-by-rules form (R), while open: it has the keys. */
  private menu: SelectMenu | null = null;
  /** The summary the rows were last asked for. */
  private shown: ScanSummary | null = null;
  /** Each agent's own view, filters and sort (#28.3): the same keys select the same set after a round trip through another agent. */
  private readonly views = new Map<string, SessionsView>();
  /** The agent the current view settings belong to. */
  private viewAgent: string | null = null;
  private readonly keys: { list: KeyContext; detail: KeyContext };

  constructor(private app: AppContext) {
    this.root = blessed.box({ parent: app.screen, top: 1, left: 0, width: '100%', bottom: 2, tags: true, hidden: true });
    this.header = blessed.box({ parent: this.root, top: 0, left: 0, width: '100%', height: 2, tags: true, wrap: false });
    this.rows = new PagedRows(
      (offset, limit) => this.loadPage(offset, limit),
      () => this.app.requestRender(),
      (r, w, sel) => sessionRow(r, w, sel, { theme: this.app.theme, now: this.app.summary()?.scannedAt ?? this.app.now(), marks: this.app.marks }),
    );
    this.list = new VirtualList(this.root, { top: 2, left: 0 }, this.rows, (w) => this.app.theme.dim(padWidth('  …', w)));
    this.sep = blessed.box({ parent: this.root, tags: true });
    this.pane = new DetailPane(this.root, app.theme, {});
    this.keys = sessionsKeys(this.actions());
  }

  /** The key tables' hold on the screen. */
  private actions(): SessionsActions {
    return {
      view: () => this.v,
      setView: (v, resetCursor) => this.setView(v, resetCursor),
      cursor: () => this.list.cursor,
      pageRows: () => this.list.height,
      totalRows: () => this.rows.total(),
      moveTo: (i) => void this.moveTo(i),
      expand: (force) => void this.expand(force),
      collapseOrParent: () => void this.collapseOrParent(),
      markRow: () => void this.markRow(),
      markScope: (on) => void this.markScope(on),
      archive: () => this.archive(),
      openMenu: () => this.openMenu(),
      openSearch: () => this.openSearch(),
      openWarnings: () => openWarnings(this.app),
      loadPreview: (explain) => void this.loadPreview(explain),
      copy: (kind) => void this.copy(kind),
      scrollPane: (n) => this.scrollPane(n),
      focusList: () => {
        this.focus = 'list';
        this.app.requestRender();
      },
      hasSweep: () => Boolean(this.app.summary()?.sweepForecast),
      hasWarnings: () => Boolean(this.app.summary()?.warnings.length),
      readOnlyWhy: () => this.readOnlyWhy(),
      archiveWhyNot: () => this.archiveWhyNot(),
    };
  }

  private loadPage(offset: number, limit: number): Promise<PageResult> {
    const s = this.app.summary();
    if (!s) return Promise.resolve({ snapshotId: '', total: 0, offset: 0, rows: [], matched: 0, matchedBytes: 0 });
    return this.app.engine.page(pageRequest(this.v, s.snapshotId, offset, limit));
  }

  paintState(): { rows: number; settled: boolean } {
    // Settled once the final view's rows are on screen: a partial view's rows may answer keys, not marks.
    const waitingForFinal = this.rows.refreshing && !this.app.summary()?.provisional;
    return { rows: this.list.drawn, settled: !this.rows.stale && this.list.placeholders === 0 && !waitingForFinal };
  }

  onSummary(): void {
    // The form's projects, sources and counts belong to the old scan.
    this.menu?.close();
    const s = this.app.summary();
    // A running scan's next partial view, or its final one: the same rows, more of them. The rows on hand
    // answer keys until the new pages are in (a key typed as a 100k scan landed waited ~300 ms for them);
    // meanwhile nothing is marked from them (provisional()).
    const growing = Boolean(s && this.shown?.provisional && s.agent === this.shown.agent);
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
    this.views.set(this.viewAgent, this.v);
    this.v = this.views.get(agent) ?? defaultView();
    this.viewAgent = agent;
    this.list.cursor = 0;
    this.list.top = 0;
  }

  private setView(v: SessionsView, resetCursor: boolean): void {
    this.v = v;
    this.rows.reset();
    if (resetCursor) {
      this.list.cursor = 0;
      this.list.top = 0;
    }
    this.scheduleDetail();
    this.app.requestRender();
  }

  paint(): void {
    const t = this.app.theme;
    const W = (this.app.screen.width as number) || 80;
    const H = Math.max(4, ((this.app.screen.height as number) || 24) - 3);
    const at = sessionsLayout(W, H, t);
    place(this.list.box, { width: at.list.width });
    place(this.list.box, { height: at.list.height });
    place(this.sep, at.sep);
    this.sep.setContent(at.sepText);
    place(this.pane.box, at.pane);
    const s = this.app.summary();
    const header = { view: this.v, summary: s, matched: this.rows.matched, matchedBytes: this.rows.matchedBytes };
    this.header.setContent(sessionsHeader(header, at.listW, t).join('\n'));
    this.list.setEmptyText(sessionsEmptyText({ error: this.rows.error, summary: s, scanning: this.app.scanning(), stale: this.rows.stale }, t));
    this.list.paint();
    this.paintDetail();
    this.menu?.paint();
  }

  private paintDetail(): void {
    const row = this.rows.row(this.list.cursor);
    const d = this.detail;
    const pending = pendingPaneLines(row, d, Boolean(this.app.summary()), this.app.theme);
    if (pending) {
      this.pane.showText(pending);
      if (row && !this.detailTimer && (!d || d.id !== row.id)) this.scheduleDetail();
      return;
    }
    this.pane.show(d!.detail!, this.app.marks.has(row!.id), d!.preview);
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
    return this.focus === 'detail' ? this.keys.detail : this.keys.list;
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
    if (!r?.expandable || this.v.view === 'flat') return this.moveTo(this.list.cursor);
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
    this.setView(toggleRow(this.v, id), false);
  }

  /** A partial view from a running scan offers nothing to mark (the engine refuses it too). */
  private provisional(): boolean {
    if (!this.app.summary()?.provisional && !this.rows.refreshing) return false;
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
    const { ids } = await this.app.engine.matchIds(s.snapshotId, { ...this.v.filter, projectId: r.id });
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
    const { ids, bytes } = await this.app.engine.matchIds(s.snapshotId, this.v.filter);
    const n = on ? this.app.marks.addAll(ids) : this.app.marks.deleteAll(ids);
    const filtered = isFiltered(this.v.filter);
    this.app.message(
      on
        ? tr(filtered ? 'sessions.markedInFilter' : 'sessions.markedInAll', { count: n, size: formatBytes(bytes) })
        : tr(filtered ? 'sessions.clearedInFilter' : 'sessions.clearedInAll', { count: n }),
    );
    this.app.requestRender();
  }

  private openSearch(): void {
    const before = this.v.filter.text ?? '';
    let timer: NodeJS.Timeout | null = null;
    this.app.openInput({
      label: tr('sessions.filterPrompt'),
      value: before,
      maxLength: 512,
      onChange: (v) => {
        if (timer) clearTimeout(timer);
        timer = setTimeout(() => {
          this.setView(withText(this.v, v || undefined), true);
        }, 80);
      },
      onSubmit: (v) => {
        if (timer) clearTimeout(timer);
        this.setView(withText(this.v, v.trim() || undefined), true);
      },
      onCancel: () => {
        if (timer) clearTimeout(timer);
        this.setView(withText(this.v, undefined), true);
      },
    });
  }
}
