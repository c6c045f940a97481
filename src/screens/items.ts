// Memory and Logs & caches: the non-session items of the current scan, with
// category, size, risk and blocker; the same marks as the session tree.
// items-render draws them; this class holds the list and the keys.

import { agentName } from '../engine/core/agents.js';
import blessed from 'blessed';
import { t as tr } from '../engine/i18n/index.js';
import type { Category, Detail, ItemSummary, Preview } from '../engine/core/model.js';
import { DetailPane } from '../widgets/detail-pane.js';
import { place, VirtualList } from '../widgets/virtual-list.js';
import type { KeyContext } from '../widgets/bindings.js';
import type { AppContext, Screen } from './screen.js';
import { itemPaneLines, itemRow, itemsLayout, itemsNotice } from './items-render.js';

export class ItemsScreen implements Screen {
  readonly root: blessed.Widgets.BoxElement;
  private notice: blessed.Widgets.BoxElement;
  private list: VirtualList;
  private pane: DetailPane;
  private items: ItemSummary[] = [];
  private shown: { id: string; detail: Detail; preview: Preview | null } | null = null;

  constructor(
    private app: AppContext,
    readonly title: string,
    private categories: Category[],
    private emptyNotice: (agent: string) => string,
    readonly shortTitle?: string,
  ) {
    this.root = blessed.box({ parent: app.screen, top: 1, left: 0, width: '100%', bottom: 2, tags: true, hidden: true });
    this.notice = blessed.box({ parent: this.root, top: 0, left: 0, width: '100%', height: 2, tags: true });
    this.list = new VirtualList(
      this.root,
      { top: 2, left: 0, width: '100%' },
      {
        total: () => this.items.length,
        line: (i, w, sel) => itemRow(this.items[i]!, w, sel, { theme: this.app.theme, marked: this.app.marks.has(this.items[i]!.id) }),
        ensure: () => undefined,
      },
      () => '',
    );
    this.pane = new DetailPane(this.root, app.theme, { left: 0, width: '100%' });
  }

  onSummary(): void {
    this.shown = null;
    const s = this.app.summary();
    this.items = s ? s.items.filter((i) => this.categories.includes(i.category)) : [];
  }

  paint(): void {
    const t = this.app.theme;
    const H = Math.max(6, ((this.app.screen.height as number) || 24) - 3);
    const s = this.app.summary();
    const agent = s ? agentName(s.agent) : tr('common.thisAgent');
    const nw = Math.max(20, ((this.app.screen.width as number) || 80) - 2);
    this.notice.setContent(itemsNotice(this.emptyNotice(agent), nw, t).join('\n'));
    const at = itemsLayout(H);
    place(this.list.box, { height: at.listH });
    place(this.pane.box, { top: at.paneTop, height: at.paneH });
    this.list.setEmptyText(t.dim(`  ${tr(s ? 'items.none' : 'common.waitingForScan')}`));
    this.list.paint();
    const it = this.items[this.list.cursor];
    if (it && this.shown?.id === it.id) this.pane.show(this.shown.detail, this.app.marks.has(it.id), this.shown.preview);
    else if (it) this.pane.showText(itemPaneLines(it, Math.max(20, ((this.app.screen.width as number) || 80) - 1), t));
    else this.pane.showText([]);
  }

  private context: KeyContext | null = null;

  keyContext(): KeyContext {
    this.context ??= {
      title: this.title,
      bindings: [
        { keys: ['up', 'k'], label: '↑ k', does: tr('key.moveUp'), run: () => this.moved(() => this.list.move(-1)) },
        { keys: ['down', 'j'], label: '↓ j', does: tr('key.moveDown'), run: () => this.moved(() => this.list.move(1)) },
        { keys: ['g'], does: tr('items.first'), run: () => this.moved(() => this.list.setCursor(0)) },
        { keys: ['G'], does: tr('items.last'), run: () => this.moved(() => this.list.setCursor(this.items.length - 1)) },
        {
          keys: ['space'],
          does: tr('key.mark'),
          footer: tr('footer.mark'),
          disabled: () => (this.app.readOnly ? tr('common.readOnlyWhy') : undefined),
          run: () => this.moved(() => this.markCursor()),
        },
        { keys: ['p'], does: tr('items.previewKey'), footer: tr('footer.preview'), run: () => void this.preview() },
      ],
    };
    return this.context;
  }

  private moved(f: () => void): void {
    f();
    this.app.requestRender();
  }

  private markCursor(): void {
    const it = this.items[this.list.cursor];
    if (!it) return;
    if (!it.selectable) this.app.message(it.blockedReason ?? tr('items.notMarkable'));
    else this.app.marks.toggle(it.id);
  }

  private async preview(): Promise<void> {
    const s = this.app.summary();
    const it = this.items[this.list.cursor];
    if (!s || !it) return;
    try {
      const [detail, preview] = await Promise.all([this.app.engine.detail(s.snapshotId, it.id), this.app.engine.preview(s.snapshotId, it.id)]);
      this.shown = { id: it.id, detail, preview };
    } catch (e) {
      this.app.message((e as Error).message, 'error');
    }
    this.app.requestRender();
  }
}
