// The one review of everything marked, whatever the agent (#28.1): the plan
// grouped by agent, each group with its blockers, backup line and what it
// costs, and one typed confirmation for the whole. A blocked group says so
// and is skipped; the others still run. The same box, with the word
// `backup`, confirms Back up only (#29.6): nothing is removed.
//
// As in the one-agent review, the totals, the backup line, the warning and
// the confirmation line never scroll away; the groups scroll between them.

import { agentName } from '../engine/core/agents.js';
import blessed from 'blessed';
import { formatBytes, formatCount } from '../engine/core/format.js';
import { t as tr } from '../engine/i18n/index.js';
import type { CleanupPlan } from '../engine/core/model.js';
import type { KeyContext } from '../widgets/bindings.js';
import { braces } from '../widgets/theme.js';
import type { Theme } from '../widgets/theme.js';
import { wrapTagged } from '../widgets/wrap.js';
import type { Modal } from './modal.js';
import { backupOnlyWhyNot, CONFIRM_WORD, costLine, paintReviewBox, planItemRow, REVIEW_MIN } from './review.js';

/** What Back up only asks the user to type (nothing is removed, so never `delete`). */
export const BACKUP_WORD = 'backup';

/** A plan's own blockers and its operations'. */
export function blockersOf(plan: CleanupPlan): string[] {
  return [...plan.blockers, ...plan.operations.flatMap((o) => o.blockers)];
}

export class GroupReviewModal implements Modal {
  readonly box: blessed.Widgets.BoxElement;
  closed = false;
  private typed = '';
  backup = false;
  private scroll = 0;
  private room = 1;
  private bodyLength = 0;
  private note = '';
  private readonly context: KeyContext;
  private readonly word: string;
  private readonly backupOnly: boolean;

  constructor(
    private screen: blessed.Widgets.Screen,
    private theme: Theme,
    private plans: CleanupPlan[],
    /** The plans that run (none blocked), and whether a backup comes first. */
    private onConfirm: (runnable: CleanupPlan[], backup: boolean) => void,
    private onBackupOnly?: () => void,
  ) {
    this.backupOnly = plans.every((p) => p.action === 'backupOnly');
    this.word = this.backupOnly ? BACKUP_WORD : CONFIRM_WORD;
    this.box = blessed.box({
      parent: screen,
      top: 1,
      left: 'center',
      tags: true,
      wrap: false,
      border: { type: 'line' },
      label: ` ${this.backupOnly ? tr('rva.backupOnlyTitle') : tr('rv.title')} `,
    });
    const scroll = (n: () => number) => () => (this.scroll += n());
    const bindings: KeyContext['bindings'] = [
      { keys: ['escape'], does: tr('rv.key.cancel'), footer: tr('rv.footer.cancel'), run: () => (this.closed = true) },
      {
        keys: ['enter'],
        does: this.backupOnly ? tr('rva.key.enterBackup', { word: BACKUP_WORD }) : tr('rv.key.enter', { word: CONFIRM_WORD }),
        footer: tr('rv.footer.confirm'),
        run: () => this.enter(),
      },
    ];
    // Back up only always takes the backup: no toggle (and `b` is a letter of its word).
    if (!this.backupOnly)
      bindings.push(
        {
          keys: ['b'],
          does: tr('rv.key.backup'),
          footer: tr('rv.footer.backup'),
          disabled: () =>
            this.plans.some((p) => p.backupEligible) ? undefined : tr('rv.key.noBackup', { why: this.plans[0]?.backupWhyNot ?? tr('rv.key.notOffered') }),
          run: () => (this.backup = !this.backup),
        },
        {
          keys: ['B'],
          does: tr('backupOnly.key'),
          footer: tr('backupOnly.footer'),
          disabled: () => backupOnlyWhyNot(this.plans, !this.onBackupOnly),
          run: () => {
            this.closed = true;
            this.onBackupOnly?.();
          },
        },
      );
    bindings.push(
      { keys: ['up'], does: tr('rva.key.scrollUp'), footer: tr('rv.footer.scroll'), run: scroll(() => -1) },
      { keys: ['down'], does: tr('rva.key.scrollDown'), run: scroll(() => 1) },
      { keys: ['pageup'], does: tr('rv.key.pageUp'), run: scroll(() => -this.room) },
      { keys: ['pagedown'], does: tr('rv.key.pageDown'), run: scroll(() => this.room) },
      { keys: ['home'], does: tr('rv.key.first'), run: () => (this.scroll = 0) },
      { keys: ['end'], does: tr('rv.key.last'), run: () => (this.scroll = this.bodyLength) },
      { keys: ['backspace'], does: tr('rv.key.backspace'), run: () => (this.typed = this.typed.slice(0, -1)) },
      { keys: ['C-u'], does: tr('rv.key.clear'), run: () => (this.typed = '') },
    );
    this.context = {
      title: this.backupOnly ? tr('rva.backupOnlyTitle') : tr('rv.keysTitle'),
      modal: true,
      bindings,
      text: {
        does: tr('rv.key.type', { word: this.word }),
        run: (ch) => {
          this.note = '';
          if (this.runnable().length && this.typed.length < 16) this.typed += ch;
        },
      },
    };
  }

  keyContext(): KeyContext {
    return this.context;
  }

  /** The groups that run on confirmation: those nothing blocks. */
  private runnable(): CleanupPlan[] {
    return this.plans.filter((p) => blockersOf(p).length === 0);
  }

  private tooSmall(): boolean {
    return ((this.screen.width as number) || 80) < REVIEW_MIN.cols || ((this.screen.height as number) || 24) < REVIEW_MIN.rows;
  }

  private enter(): void {
    const runnable = this.runnable();
    if (!runnable.length || this.typed === '') {
      this.closed = true;
      return;
    }
    if (this.tooSmall()) {
      this.note = tr('rv.tooSmallAtLeast', { tooSmall: tr('rv.tooSmall'), size: `${REVIEW_MIN.cols}×${REVIEW_MIN.rows}` });
      return;
    }
    if (this.typed.trim().toLowerCase() !== this.word) {
      this.note = tr('rv.key.type', { word: this.word });
      return;
    }
    this.closed = true;
    this.onConfirm(runnable, this.backupOnly || this.backup);
  }

  paint(): void {
    paintReviewBox(this.box, this.screen, this.theme, this.note, this.tooSmall(), (maxLines) => this.lines(maxLines));
  }

  /** One agent's group: its header (items, bytes, backup), what it costs, its blockers, its items. */
  private group(p: CleanupPlan, inner: number): string[] {
    const t = this.theme;
    const wrap = (l: string): string[] => wrapTagged(l, inner - 1);
    const agent = agentName(p.agent);
    const blockers = blockersOf(p);
    const size = this.totals(p.items.length, this.backupOnly ? p.estimatedBackupBytes : p.estimatedBytes);
    const backup = this.backupOnly
      ? ''
      : p.backupEligible
        ? ` · ${tr('rva.groupBackup', { state: this.backup ? tr('rva.backupOn') : tr('rv.backupOff') })}`
        : ` · ${tr('rva.groupBackup', { state: tr('rva.backupNone') })}`;
    const out = wrap(` ${t.bold(braces(agent))} · ${braces(size)}${backup}${blockers.length ? ` · ${t.danger(tr('rva.skipped'))}` : ''}`);
    // Back up only costs nothing: its note says so instead of what a removal would cost.
    for (const n of this.backupOnly ? p.routeNotes : [costLine(p)]) out.push(...wrap(`   ${t.dim(braces(n))}`));
    if (!this.backupOnly && !p.backupEligible && p.backupWhyNot) out.push(...wrap(`   ${t.dim(braces(tr('rv.backupNotOffered', { why: p.backupWhyNot })))}`));
    else if (!this.backupOnly && this.backup && p.backupNotCovered) out.push(...wrap(`   ${t.dim(braces(p.backupNotCovered))}`));
    for (const b of blockers) out.push(...wrap(`   ${t.danger('•')} ${braces(b)}`));
    for (const i of p.items) out.push(planItemRow(t, i, inner));
    return out;
  }

  /** Items and bytes: what is reclaimed, or for Back up only what is archived. */
  private totals(items: number, bytes: number): string {
    const n = tr('count.items', { count: items });
    return this.backupOnly ? tr('rva.toBackUp', { items: n, bytes: formatBytes(bytes) }) : tr('rv.totals', { items: n, bytes: formatBytes(bytes) });
  }

  /** Every line of the box: fixed totals and tail, the groups scrolled between them (at most `maxLines`). */
  private lines(maxLines: number): string[] {
    const t = this.theme;
    const inner = Math.max(8, ((this.box.width as number) || 80) - 2);
    const wrap = (l: string): string[] => wrapTagged(l, inner - 1);
    const runnable = this.runnable();
    const items = runnable.reduce((a, p) => a + p.items.length, 0);
    const bytes = runnable.reduce((a, p) => a + (this.backupOnly ? p.estimatedBackupBytes : p.estimatedBytes), 0);
    const skipped = this.plans.length - runnable.length;
    const head = wrap(
      ` ${t.bold(tr('rva.allMarked', { count: runnable.length }))} · ${this.totals(items, bytes)}${
        skipped ? ` · ${t.danger(tr('rva.blockedCount', { n: formatCount(skipped) }))}` : ''
      }`,
    );
    const tail: string[] = [];
    if (this.backupOnly) tail.push(` ${tr('rv.backup')} ${t.ok(tr('rva.backupOnlyLine'))}`, ` ${t.ok(braces(tr('rva.nothingRemoved')))}`);
    else {
      const offered = this.plans.some((p) => p.backupEligible);
      tail.push(
        offered
          ? ` ${tr('rv.backup')} ${this.backup ? t.ok(tr('rva.backupAllOn')) : tr('rv.backupOff')} ${t.dim(tr('rv.backupToggles'))}`
          : ` ${tr('rv.backup')} ${t.dim(tr('rva.backupNoneAll'))}`,
      );
      const irreversible = runnable.filter((p) => !(this.backup && p.backupEligible)).map((p) => agentName(p.agent));
      tail.push(
        irreversible.length
          ? ` ${t.warn(`⚠ ${tr('rv.irreversible')}`)} ${tr('rv.irreversibleRest')}${this.backup ? ` ${braces(tr('rva.noBackupFor', { agents: irreversible.join(', ') }))}` : ''}`
          : ` ${t.warn('⚠')} ${braces(tr('rv.onlyBackup', { agent: runnable.map((p) => agentName(p.agent)).join(', ') }))}`,
      );
    }
    if (!runnable.length) tail.push(` ${t.inverse(` ${tr('rv.cancel')} `)}  ${t.dim(tr('rv.closes'))}`);
    else {
      const verb = this.backupOnly ? 'rva.typeToBackUp' : 'rv.typeToClean';
      tail.push(` ${this.typed ? `[ ${tr('rv.cancel')} ]` : t.inverse(` ${tr('rv.cancel')} `)}  ${tr(verb, { word: t.bold(this.word) })}`);
      tail.push(` > ${braces(this.typed)}${t.inverse(' ')}${this.note ? `  ${t.warn(braces(this.note))}` : ''}`);
    }
    const fixedTail = tail.flatMap(wrap);
    const body: string[] = [];
    for (const p of this.plans) {
      if (body.length) body.push('');
      body.push(...this.group(p, inner));
    }
    this.bodyLength = body.length;
    const fits = maxLines - head.length - fixedTail.length - 2;
    // The range line takes a row of its own when the groups scroll.
    const room = Math.max(3, body.length > fits ? fits - 1 : fits);
    this.room = room;
    this.scroll = Math.max(0, Math.min(this.scroll, body.length - room));
    const shown = body.slice(this.scroll, this.scroll + room);
    const range =
      body.length > room
        ? [
            ` ${t.dim(tr('rva.range', { from: String(this.scroll + 1), to: String(this.scroll + shown.length), count: formatCount(body.length) }))} ${t.dim(tr('rv.scrollHint'))}`,
          ]
        : [];
    return [...head, ...range, '', ...shown, '', ...fixedTail];
  }

  destroy(): void {
    this.box.destroy();
  }
}
