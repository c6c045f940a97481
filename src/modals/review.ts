// Review (x): the expanded plan, its blockers, the backup line, one
// irreversible warning, and a typed confirmation. Focus starts on Cancel:
// Enter on an empty line cancels; executing needs the word `delete` typed
// first (never a number: digits are tab keys). Esc always cancels.
//
// The warning, the backup line, the totals and the confirmation line are
// laid out first and never scroll away; the item list gets the rows left
// and scrolls inside the box. Sentences are word-wrapped, never cut (the
// backup line, what the agent loses); item rows are cut to one line each,
// so what the user types is always on screen before Enter runs anything.

import { agentName } from '../engine/core/agents.js';
import blessed from 'blessed';
import { formatBytes, formatCount, formatDate } from '../engine/core/format.js';
import { t as tr } from '../engine/i18n/index.js';
import type { CleanupPlan, PlanItem } from '../engine/core/model.js';
import { padWidth } from '../engine/core/text.js';
import type { KeyContext } from '../widgets/bindings.js';
import { fitTagged } from '../widgets/tagged.js';
import { braces, cell, type Theme } from '../widgets/theme.js';
import { wrapTagged } from '../widgets/wrap.js';
import type { Modal } from './modal.js';

/** The smallest terminal the review is offered on; below it the box says so and refuses to confirm. */
export const REVIEW_MIN = { cols: 80, rows: 24 } as const;
export const CONFIRM_WORD = 'delete';
/** Box title and the lines that must be on screen whenever the review is (the PTY invariants look for them). */
const REVIEW_TITLE = (): string => tr('rv.title');
const REVIEW_TOO_SMALL = (): string => tr('rv.tooSmall');

/** What an archive plan asks the user to type: the action itself, never `delete` (nothing is removed). */
const confirmWordOf = (plan: CleanupPlan): string => (plan.action === 'archive' || plan.action === 'unarchive' ? plan.action : CONFIRM_WORD);

/** One line of what the plan's items cost (issue #16 part 6): recoverable, regenerable, agent stopped, what the agent loses. */
export function costLine(plan: CleanupPlan): string {
  const items = plan.items;
  const n = (f: (i: PlanItem) => boolean): number => items.filter(f).length;
  const parts: string[] = [];
  const rev = n((i) => i.cost?.recoverable === 'reversible');
  const bak = n((i) => i.cost?.recoverable === 'backup');
  const none = n((i) => i.cost?.recoverable === 'none');
  if (rev) parts.push(tr('review.cost.reversible', { n: formatCount(rev) }));
  if (bak) parts.push(tr('review.cost.backup', { n: formatCount(bak) }));
  if (none) parts.push(tr('review.cost.none', { n: formatCount(none) }));
  const regen = n((i) => i.cost?.regenerable === true);
  if (regen) parts.push(tr('review.cost.regenerable', { n: formatCount(regen) }));
  if (items.some((i) => i.cost?.needsAgentStopped)) parts.push(tr('review.cost.stop', { agent: agentName(plan.agent) }));
  const loses = [...new Set(items.map((i) => i.cost?.agentLoses ?? '').filter(Boolean))];
  parts.push(
    loses.length
      ? tr('review.cost.loses', { agent: agentName(plan.agent), what: loses.join('; ') })
      : tr('review.cost.losesNothing', { agent: agentName(plan.agent) }),
  );
  return parts.join(' · ');
}

export class ReviewModal implements Modal {
  readonly box: blessed.Widgets.BoxElement;
  closed = false;
  private typed = '';
  backup = false;
  private scroll = 0;
  private room = 1;
  private note = '';
  private readonly context: KeyContext;
  private readonly word: string;

  constructor(
    private screen: blessed.Widgets.Screen,
    private theme: Theme,
    private plan: CleanupPlan,
    private blockers: string[],
    private onConfirm: (backup: boolean) => void,
    /** Back up only (#29.6): the flow plans the same marks as a backup that removes nothing. */
    private onBackupOnly?: () => void,
  ) {
    this.word = confirmWordOf(plan);
    const archive = this.word !== CONFIRM_WORD;
    this.box = blessed.box({
      parent: screen,
      top: 1,
      left: 'center',
      tags: true,
      wrap: false,
      border: { type: 'line' },
      label: ` ${archive ? tr('review.archiveTitle') : REVIEW_TITLE()} `,
    });
    const scroll = (n: () => number) => () => (this.scroll += n());
    this.context = {
      title: tr('rv.keysTitle'),
      modal: true,
      bindings: [
        { keys: ['escape'], does: tr('rv.key.cancel'), footer: tr('rv.footer.cancel'), run: () => (this.closed = true) },
        {
          keys: ['enter'],
          does: archive ? tr('review.archiveEnter', { word: this.word }) : tr('rv.key.enter', { word: CONFIRM_WORD }),
          footer: tr('rv.footer.confirm'),
          run: () => this.enter(),
        },
        {
          keys: ['b'],
          does: tr('rv.key.backup'),
          footer: tr('rv.footer.backup'),
          disabled: () => (this.plan.backupEligible ? undefined : tr('rv.key.noBackup', { why: this.plan.backupWhyNot ?? tr('rv.key.notOffered') })),
          run: () => (this.backup = !this.backup),
        },
        {
          keys: ['B'],
          does: tr('backupOnly.key'),
          footer: tr('backupOnly.footer'),
          disabled: () => backupOnlyWhyNot([this.plan], archive || !this.onBackupOnly),
          run: () => {
            this.closed = true;
            this.onBackupOnly?.();
          },
        },
        { keys: ['up'], does: tr('rv.key.scrollUp'), footer: tr('rv.footer.scroll'), run: scroll(() => -1) },
        { keys: ['down'], does: tr('rv.key.scrollDown'), run: scroll(() => 1) },
        { keys: ['pageup'], does: tr('rv.key.pageUp'), run: scroll(() => -this.room) },
        { keys: ['pagedown'], does: tr('rv.key.pageDown'), run: scroll(() => this.room) },
        { keys: ['home'], does: tr('rv.key.first'), run: () => (this.scroll = 0) },
        { keys: ['end'], does: tr('rv.key.last'), run: () => (this.scroll = this.plan.items.length) },
        { keys: ['backspace'], does: tr('rv.key.backspace'), run: () => (this.typed = this.typed.slice(0, -1)) },
        { keys: ['C-u'], does: tr('rv.key.clear'), run: () => (this.typed = '') },
      ],
      text: {
        does: tr('rv.key.type', { word: this.word }),
        run: (ch) => {
          this.note = '';
          if (!this.blockers.length && this.typed.length < 16) this.typed += ch;
        },
      },
    };
  }

  keyContext(): KeyContext {
    return this.context;
  }

  private tooSmall(): boolean {
    return ((this.screen.width as number) || 80) < REVIEW_MIN.cols || ((this.screen.height as number) || 24) < REVIEW_MIN.rows;
  }

  private enter(): void {
    if (this.blockers.length || this.typed === '') {
      this.closed = true;
      return;
    }
    if (this.tooSmall()) {
      this.note = tr('rv.tooSmallAtLeast', { tooSmall: REVIEW_TOO_SMALL(), size: `${REVIEW_MIN.cols}×${REVIEW_MIN.rows}` });
      return;
    }
    if (this.typed.trim().toLowerCase() !== this.word) {
      this.note = tr('rv.key.type', { word: this.word });
      return;
    }
    this.closed = true;
    this.onConfirm(this.backup);
  }

  paint(): void {
    paintReviewBox(this.box, this.screen, this.theme, this.note, this.tooSmall(), (maxLines) => this.lines(maxLines));
  }

  /** Every line of the box, the list cut to the rows the fixed lines leave (at most `maxLines`). */
  private lines(maxLines: number): string[] {
    const t = this.theme;
    const p = this.plan;
    const inner = Math.max(8, ((this.box.width as number) || 80) - 2);
    const archive = this.word !== CONFIRM_WORD;
    const total = archive
      ? ` ${t.bold(braces(agentName(p.agent)))} · ${tr('count.sessions', { count: p.items.length })} · ${t.bold(tr(p.action === 'unarchive' ? 'review.unarchiveSummary' : p.irreversible ? 'review.archiveSummaryOneWay' : 'review.archiveSummary'))}`
      : ` ${t.bold(braces(agentName(p.agent)))} · ${tr('rv.totals', { items: tr('count.items', { count: p.items.length }), bytes: formatBytes(p.estimatedBytes) })}`;
    const tail: string[] = [];
    const blockerLines: string[] = [];
    if (this.blockers.length) {
      blockerLines.push(t.danger(tr('rv.blocked')));
      for (const b of this.blockers) blockerLines.push(`  ${t.danger('•')} ${braces(b)}`);
    }
    if (archive) tail.push(` ${t.dim(braces(tr('review.archiveNoBackup')))}`);
    else if (p.backupEligible) {
      tail.push(
        ` ${tr('rv.backup')} ${this.backup ? t.ok(tr('rv.backupOn', { bytes: formatBytes(p.estimatedBackupBytes) })) : tr('rv.backupOff')} ${t.dim(tr('rv.backupToggles'))}`,
      );
      if (p.backupNotCovered) tail.push(` ${t.dim(braces(p.backupNotCovered))}`);
    } else tail.push(` ${tr('rv.backup')} ${t.dim(braces(tr('rv.backupNotOffered', { why: p.backupWhyNot ?? '' })))}`);
    tail.push(
      archive
        ? p.action !== 'unarchive' && p.irreversible
          ? ` ${t.warn(`⚠ ${braces(tr('review.archiveOneWay', { agent: agentName(p.agent) }))}`)}`
          : ` ${t.ok(braces(tr(p.action === 'unarchive' ? 'review.unarchiveUndo' : 'review.archiveUndo', { agent: agentName(p.agent) })))}`
        : this.backup
          ? ` ${t.warn('⚠')} ${braces(tr('rv.onlyBackup', { agent: agentName(p.agent) }))}`
          : ` ${t.warn(`⚠ ${tr('rv.irreversible')}`)} ${tr('rv.irreversibleRest')}`,
    );
    if (this.blockers.length) {
      tail.push(` ${t.inverse(` ${tr('rv.cancel')} `)}  ${t.dim(tr('rv.closes'))}`);
    } else {
      tail.push(
        ` ${this.typed ? `[ ${tr('rv.cancel')} ]` : t.inverse(` ${tr('rv.cancel')} `)}  ${tr(archive ? 'rv.typeToRun' : 'rv.typeToClean', { word: t.bold(this.word) })}`,
      );
      tail.push(` > ${braces(this.typed)}${t.inverse(' ')}${this.note ? `  ${t.warn(braces(this.note))}` : ''}`);
    }
    // Each sentence whole on as many lines as it needs (one column of margin, as a cut line had).
    const wrap = (l: string): string[] => wrapTagged(l, inner - 1);
    const totals = wrap(total);
    const tailHead = tail.slice(0, 2).flatMap(wrap);
    const tailRest = tail.slice(2).flatMap(wrap);
    // Fixed: totals, the list's header, the tail; then what fits of notes, blockers and spacing, list rows first.
    const fixed = totals.length + 1 + tailHead.length + tailRest.length;
    let spare = maxLines - fixed - 3;
    // Whole entries (a note of three lines is shown on three lines or not at all), then how many did not fit.
    const fitList = (xs: string[][], more: (n: number) => string): string[] => {
      const lineCount = xs.reduce((a, x) => a + x.length, 0);
      // No row left even for the count: what is shown first (the blockers) took it, and the tail must stay on screen.
      if (spare < 1 && lineCount) return [];
      if (lineCount <= spare) {
        spare -= lineCount;
        return xs.flat();
      }
      const kept: string[] = [];
      let n = 0;
      while (n < xs.length && kept.length + xs[n]!.length <= spare - 1) kept.push(...xs[n++]!);
      spare -= kept.length + 1;
      return [...kept, more(xs.length - n)];
    };
    const blockersShown = blockerLines.length ? fitList(blockerLines.map(wrap), (n) => t.danger(tr('rv.moreBlockers', { n }))) : [];
    const notes = fitList(
      [...p.routeNotes, costLine(p)].map((n) => wrap(` ${t.dim(braces(n))}`)),
      (n) => t.dim(tr('rv.moreNotes', { n })),
    );
    const gapBefore = spare > 0 ? (spare--, ['']) : [];
    const gapAfter = spare > 0 ? (spare--, ['']) : [];
    const room = Math.max(3, Math.min(p.items.length, maxLines - fixed - blockersShown.length - notes.length - gapBefore.length - gapAfter.length));
    this.room = room;
    this.scroll = Math.max(0, Math.min(this.scroll, p.items.length - room));
    const rows = p.items.slice(this.scroll, this.scroll + room).map((i) => this.row(i, inner));
    const range =
      p.items.length > room
        ? ` ${tr('rv.range', { from: String(this.scroll + 1), to: String(this.scroll + rows.length), count: formatCount(p.items.length) })} ${t.dim(tr('rv.scrollHint'))}`
        : '';
    const header = ` ${t.dim(tr('rv.items'))}${range}`;
    return [...totals, ...notes, header, ...rows, ...gapBefore, ...blockersShown, ...tailHead, ...gapAfter, ...tailRest];
  }

  private row(i: PlanItem, inner: number): string {
    return planItemRow(this.theme, i, inner);
  }

  destroy(): void {
    this.box.destroy();
  }
}

/** Why Back up only cannot be offered for these plans (none can be backed up), or undefined. */
export function backupOnlyWhyNot(plans: readonly CleanupPlan[], notHere: boolean): string | undefined {
  if (notHere) return tr('rv.key.backupOnlyNotHere');
  if (plans.some((p) => p.backupEligible)) return undefined;
  return tr('rv.key.noBackup', { why: plans[0]?.backupWhyNot ?? tr('rv.key.notOffered') });
}

/** One plan item: forks and their parents share titles, so sessions show their date and id too. */
export function planItemRow(t: Theme, i: PlanItem, inner: number): string {
  const indent = i.depth ? '   └ ' : ' ';
  const cat = padWidth(tr(`category.${i.category}`), 12);
  const size = padWidth(formatBytes(i.bytes), 10, 'right');
  // At 80 columns the title needs the room more than the time of day; the id's end tells a fork from its parent.
  const when = inner < 90 ? formatDate(i.updatedAt).slice(0, 10) : formatDate(i.updatedAt);
  const who = i.sessionId ? `${when} · …${i.sessionId.slice(-8)}` : '';
  const whoW = who ? who.length + 2 : 0;
  const labelW = Math.max(6, inner - indent.length - 13 - whoW - 11);
  return `${indent}${cat} ${cell(i.label, labelW)}${who ? `  ${t.dim(braces(who))}` : ''} ${size}`;
}

/**
 * Paints a review dialog (the one-agent and the grouped one alike): between
 * the tab bar and the deck, whose footer names the review's keys; below
 * REVIEW_MIN only what to do about the size.
 */
export function paintReviewBox(
  box: blessed.Widgets.BoxElement,
  screen: blessed.Widgets.Screen,
  theme: Theme,
  note: string | undefined,
  tooSmall: boolean,
  lines: (maxLines: number) => string[],
): void {
  const sw = (screen.width as number) || 80;
  const sh = (screen.height as number) || 24;
  box.width = Math.max(10, Math.min(100, sw - 4));
  const shown = tooSmall ? smallReviewLines(theme, note, sw, sh) : lines(Math.max(1, sh - 5));
  box.height = Math.min(Math.max(3, sh - 3), shown.length + 2);
  box.top = Math.max(1, Math.floor((sh - 2 - (box.height as number)) / 2));
  const inner = (box.width as number) - 2;
  box.setContent(shown.map((l) => fitTagged(l, inner)).join('\n'));
  box.setFront();
}

function smallReviewLines(t: Theme, note: string | undefined, sw: number, sh: number): string[] {
  return [
    ` ${t.warn('⚠')} ${tr('rv.terminalIs', { size: `${sw}×${sh}`, tooSmall: REVIEW_TOO_SMALL() })}`,
    ` ${tr('rv.atLeast', { size: `${REVIEW_MIN.cols}×${REVIEW_MIN.rows}` })}`,
    ` ${t.dim(tr('rv.escCancels'))}`,
    ...(note ? [` ${t.warn(braces(note))}`] : []),
  ];
}
