// Overview: what is there and how big — category bars, largest projects and
// sessions, an age histogram, and a line for every other agent. The shell:
// overview-render draws it (all-agents-render the `a` view), this class
// feeds it the app's state, scrolls, and holds the keys.

import blessed from 'blessed';
import { t as tr } from '../engine/i18n/index.js';
import type { KeyContext } from '../widgets/bindings.js';
import type { AppContext, Screen } from './screen.js';
import { openWarnings } from './warnings.js';
import { AllAgentsView } from './all-agents-view.js';
import { overviewLines } from './overview-render.js';

export class OverviewScreen implements Screen {
  readonly title = tr('tab.overview');
  readonly root: blessed.Widgets.BoxElement;

  constructor(private app: AppContext) {
    this.all = new AllAgentsView(app);
    this.root = blessed.box({ parent: app.screen, top: 1, left: 0, width: '100%', bottom: 2, tags: true, scrollable: true, hidden: true });
  }

  /** The all-agents view (`a`), its figures kept by the view. */
  private readonly all: AllAgentsView;
  private allView = false;

  onSummary(): void {
    // A scan or a cleanup of the current agent changes the all-agents figures too.
    if (this.allView) this.all.refresh();
  }

  private toggleView(): void {
    this.allView = !this.allView;
    if (this.allView) this.all.open();
    this.root.scrollTo(0);
    this.app.requestRender();
  }

  paint(): void {
    const t = this.app.theme;
    const W = Math.max(40, ((this.app.screen.width as number) || 80) - 2);
    if (this.allView) {
      this.root.setContent(this.all.lines(W, Math.max(8, ((this.app.screen.height as number) || 24) - 3)).join('\n'));
      return;
    }
    const state = { summary: this.app.summary(), scanning: this.app.scanning(), agent: this.app.agent(), installations: this.app.installations() };
    this.root.setContent(overviewLines(state, W, t).join('\n'));
  }

  private readonly context: KeyContext = {
    title: tr('tab.overview'),
    bindings: [
      { keys: ['up', 'k'], label: '↑ k', does: tr('key.scrollUp'), run: () => this.scroll(-1) },
      { keys: ['down', 'j'], label: '↓ j', does: tr('key.scrollDown'), run: () => this.scroll(1) },
      {
        keys: ['w'],
        does: tr('key.listWarnings'),
        footer: tr('footer.warnings'),
        disabled: () => (this.app.summary()?.warnings.length ? undefined : tr('common.noWarningsWhy')),
        run: () => openWarnings(this.app),
      },
      {
        keys: ['a'],
        does: tr('key.allAgents'),
        footer: tr('footer.allAgents'),
        run: () => this.toggleView(),
      },
      {
        keys: ['S'],
        does: tr('key.reviewSuggested'),
        footer: tr('footer.reviewSuggested'),
        disabled: () => (!this.allView ? tr('overview.all.suggestedWhyView') : this.all.hasSuggestion() ? undefined : tr('overview.all.suggestedWhyNone')),
        run: () => this.app.reviewSuggested(this.all.suggestedByAgent()),
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
