// Select by rules (Sessions → R): the retention rules of `cleanerx plan`
// as a small form. Every change asks the engine what matches and shows the
// count and size before anything is marked; Enter only adds marks (what is
// marked already stays), and the review is the usual one. select-menu-render
// draws it; this class holds the rules and asks the engine.

import blessed from 'blessed';
import { formatBytes } from '../engine/core/format.js';
import { t as tr } from '../engine/i18n/index.js';
import type { RetentionRules } from '../engine/api/api.js';
import { cleanText } from '../engine/core/text.js';
import type { KeyContext } from '../widgets/bindings.js';
import type { AppContext } from './screen.js';
import { selectMenuFrame } from './select-menu-render.js';

/** The form's title (a function: the language is set at start-up, after this module loads). */
function selectMenuTitle(): string {
  return tr('select.title');
}

interface Field {
  label: string;
  /** Choice labels; index 0 is "off" (the rule is not applied). */
  choices: string[];
  apply(rules: RetentionRules, i: number): void;
}

const DAYS = [7, 30, 90, 180, 365];
const SIZES = [1e6, 10e6, 100e6, 1e9];
const KEEP = [1, 3, 5, 10, 20];

export class SelectMenu {
  readonly box: blessed.Widgets.BoxElement;
  private fields: Field[];
  private values: number[];
  private cursor = 0;
  private gen = 0;
  private result: { ids: string[]; bytes: number; skipped: number; notes: string[] } | null = null;
  private error: string | null = null;
  private busy = false;
  closed = false;

  constructor(
    private app: AppContext,
    private onClose: () => void,
  ) {
    const s = app.summary();
    const sources = s?.sources ?? [];
    const projects = s?.projects ?? [];
    this.fields = [
      {
        label: tr('select.lastUsed'),
        choices: [tr('select.anyTime'), ...DAYS.map((d) => tr('select.olderThan', { days: d }))],
        apply: (r, i) => {
          if (i) r.olderThanDays = DAYS[i - 1];
        },
      },
      {
        label: tr('select.size'),
        choices: [tr('select.anySize'), ...SIZES.map((b) => tr('select.largerThan', { size: formatBytes(b) }))],
        apply: (r, i) => {
          if (i) r.largerThanBytes = SIZES[i - 1];
        },
      },
      {
        label: tr('select.keep'),
        choices: [tr('select.keepNone'), ...KEEP.map((n) => tr('select.keepLatest', { n }))],
        apply: (r, i) => {
          if (i) r.keepLatest = KEEP[i - 1];
        },
      },
      {
        label: tr('select.empty'),
        choices: [tr('select.noMatter'), tr('select.onlyEmpty')],
        apply: (r, i) => {
          if (i) r.empty = true;
        },
      },
      {
        label: tr('select.orphans'),
        choices: [tr('select.noMatter'), tr('select.onlyOrphans')],
        apply: (r, i) => {
          if (i) r.orphans = true;
        },
      },
      {
        label: tr('select.state'),
        choices: [tr('select.anyState'), tr('select.current'), tr('select.archived')],
        apply: (r, i) => {
          if (i) r.state = i === 1 ? 'current' : 'archived';
        },
      },
      {
        label: tr('select.source'),
        choices: [tr('select.anySource'), ...sources.map((x) => cleanText(x, 40))],
        apply: (r, i) => {
          if (i) r.source = sources[i - 1];
        },
      },
      {
        label: tr('select.project'),
        choices: [tr('select.anyProject'), ...projects.map((p) => cleanText(p.label, 40))],
        apply: (r, i) => {
          if (i) r.project = projects[i - 1]!.id;
        },
      },
    ];
    this.values = this.fields.map(() => 0);
    this.box = blessed.box({
      parent: app.screen,
      top: 1,
      left: 'center',
      tags: true,
      wrap: false,
      border: { type: 'line' },
      label: ` ${app.theme.bold(selectMenuTitle())} `,
      style: { border: { fg: app.theme.color ? 'cyan' : undefined } },
    });
    this.paint();
  }

  rules(): RetentionRules {
    const r: RetentionRules = {};
    this.fields.forEach((f, k) => f.apply(r, this.values[k]!));
    return r;
  }

  private active(): boolean {
    return this.values.some((v) => v !== 0);
  }

  private change(delta: number): void {
    const f = this.fields[this.cursor]!;
    const n = f.choices.length;
    this.values[this.cursor] = (this.values[this.cursor]! + delta + n) % n;
    void this.refresh();
  }

  /** Asks the engine what the rules match now; an older answer never overwrites a newer one. */
  private async refresh(): Promise<void> {
    const s = this.app.summary();
    const gen = ++this.gen;
    this.result = null;
    this.error = null;
    if (!s || !this.active()) {
      this.app.requestRender();
      return;
    }
    this.busy = true;
    this.app.requestRender();
    try {
      const r = await this.app.engine.matchRules(s.snapshotId, this.rules());
      if (gen === this.gen) this.result = r;
    } catch (e) {
      if (gen === this.gen) this.error = (e as Error).message;
    }
    if (gen === this.gen) this.busy = false;
    this.app.requestRender();
  }

  private confirm(): void {
    if (!this.result) {
      this.app.message(tr(this.active() ? 'select.waitForCount' : 'select.chooseFirst'));
      return;
    }
    const added = this.app.marks.addAll(this.result.ids);
    const already = this.result.ids.length - added;
    this.app.message(already ? tr('select.markedAlready', { count: added, already }) : tr('select.marked', { count: added }));
    this.close();
  }

  close(): void {
    this.closed = true;
    this.gen++;
    this.box.destroy();
    this.onClose();
    this.app.requestRender();
  }

  paint(): void {
    if (this.closed) return;
    const sw = (this.app.screen.width as number) || 80;
    const sh = (this.app.screen.height as number) || 24;
    const state = { fields: this.fields, values: this.values, cursor: this.cursor, result: this.result, error: this.error, busy: this.busy };
    const f = selectMenuFrame(state, sw, sh, this.app.theme);
    this.box.width = f.width;
    this.box.height = f.height;
    this.box.top = f.top;
    this.box.setContent(f.lines.join('\n'));
    this.box.setFront();
  }

  keyContext(): KeyContext {
    return {
      title: selectMenuTitle(),
      modal: true,
      bindings: [
        { keys: ['up', 'k', 'S-tab'], label: '↑ k', does: tr('select.previousRule'), footer: tr('select.footer.rule'), run: () => this.move(-1) },
        { keys: ['down', 'j', 'tab'], label: '↓ j', does: tr('select.nextRule'), run: () => this.move(1) },
        { keys: ['right', 'l', 'space'], label: '→ l Space', does: tr('select.nextChoice'), footer: tr('select.footer.change'), run: () => this.change(1) },
        { keys: ['left', 'h'], label: '← h', does: tr('select.previousChoice'), run: () => this.change(-1) },
        { keys: ['enter'], does: tr('select.markKey'), footer: tr('footer.mark'), run: () => this.confirm() },
        { keys: ['escape'], does: tr('select.closeKey'), footer: tr('footer.close'), run: () => this.close() },
      ],
      // The form owns the keyboard while open: other letters do nothing here.
      text: { does: tr('select.ignored'), run: () => undefined },
    };
  }

  private move(d: number): void {
    this.cursor = (this.cursor + d + this.fields.length) % this.fields.length;
    this.app.requestRender();
  }
}
