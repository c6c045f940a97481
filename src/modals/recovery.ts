// Recovery (at start-up, or after a failure): the first interrupted
// operation, what its journal recorded and what a fresh scan observed, and
// the actions that are safe now. Continue browsing keeps cleanup of that
// agent blocked until the operation is accepted or closed.

import { agentName } from '../engine/core/agents.js';
import blessed from 'blessed';
import { t } from '../engine/i18n/index.js';
import type { RecoveryOperation } from '../engine/core/model.js';
import { displayWidth, padWidth } from '../engine/core/text.js';
import type { KeyContext } from '../widgets/bindings.js';
import { fitTagged } from '../widgets/tagged.js';
import { wrapTagged } from '../widgets/wrap.js';
import { braces, cell, type Theme } from '../widgets/theme.js';
import type { Modal } from './modal.js';

export class RecoveryModal implements Modal {
  readonly box: blessed.Widgets.BoxElement;
  private note = '';
  closed = false;
  private context: KeyContext | null = null;

  constructor(
    private screen: blessed.Widgets.Screen,
    private theme: Theme,
    private ops: RecoveryOperation[],
    private act: (op: RecoveryOperation, action: 'accept' | 'close' | 'rescan' | 'restore') => Promise<RecoveryOperation[]>,
  ) {
    this.box = blessed.box({
      parent: screen,
      top: 'center',
      left: 'center',
      tags: true,
      border: { type: 'line' },
      label: ` ${t('recovery.title')} `,
      wrap: false,
    });
  }

  paint(): void {
    const th = this.theme;
    const tr = t;
    const W = Math.min(96, Math.max(40, ((this.screen.width as number) || 80) - 4));
    this.box.width = W;
    const inner = W - 6;
    const op = this.ops[0];
    const L: string[] = [];
    // Lines whose continuation hangs under their text rather than their first column (the choices, the observed state).
    const hangs = new Map<number, number>();
    const hung = (line: string, hang: number): void => {
      hangs.set(L.length, hang);
      L.push(line);
    };
    if (!op) {
      L.push(` ${tr('recovery.nothing')}`, '', th.dim(` ${tr('recovery.escCloses')}`));
    } else {
      const who = op.agent ? agentName(op.agent) : tr('recovery.unknownAgent');
      L.push(
        ` ${th.bold(braces(tr('recovery.interrupted', { agent: who })))}${this.ops.length > 1 ? th.dim(tr('recovery.oneOf', { count: this.ops.length })) : ''}`,
      );
      // The three labels share one column, as wide as the widest in this language.
      const lw = Math.max(...(['recovery.operation', 'recovery.journal', 'recovery.observed'] as const).map((k) => displayWidth(tr(k))));
      const lab = (k: 'recovery.operation' | 'recovery.journal' | 'recovery.observed'): string => th.dim(padWidth(tr(k), lw));
      L.push(` ${lab('recovery.operation')}  ${cell(op.operationId, inner - lw - 2)}`);
      L.push(` ${lab('recovery.journal')}  ${cell(`${op.status} · ${op.recorded}`, inner - lw - 2)}`);
      hung(` ${lab('recovery.observed')}  ${th.bold(braces(op.observed))} — ${op.unknown ? th.warn(braces(op.reason)) : braces(op.reason)}`, lw + 3);
      L.push('');
      hung(
        `  ${th.bold('Esc')} ${tr('recovery.continue')} ${th.dim(op.agent ? tr('recovery.agentBlocked', { agent: agentName(op.agent) }) : tr('recovery.allBlocked'))}`,
        6,
      );
      hung(`  ${op.canAccept ? th.bold('a') : th.dim('a')} ${tr('recovery.accept')}${op.canAccept ? '' : th.dim(tr('recovery.acceptWhyNot'))}`, 4);
      hung(`  ${op.canRestore ? th.bold('r') : th.dim('r')} ${tr('recovery.restore')}${op.canRestore ? '' : th.dim(braces(` — ${op.restoreWhyNot}`))}`, 4);
      hung(`  ${op.canClose ? th.bold('s') : th.dim('s')} ${tr('recovery.close')}${th.dim(tr('recovery.closeNote'))}`, 4);
      hung(`  ${op.unknown ? th.dim('R') : th.bold('R')} ${tr('recovery.rescan')}`, 4);
    }
    if (this.note) L.push('', ` ${th.warn(braces(this.note))}`);
    const sh = (this.screen.height as number) || 24;
    // Every sentence whole: wrapped (one column of margin), the identifiers above cut to their one line.
    const lines = L.flatMap((l, i) => wrapTagged(l, W - 3, hangs.get(i)));
    this.box.height = Math.min(Math.max(3, sh - 3), lines.length + 2);
    this.box.top = Math.max(1, Math.floor((sh - 2 - (this.box.height as number)) / 2));
    this.box.setContent(lines.map((l) => fitTagged(l, W - 2)).join('\n'));
    this.box.setFront();
  }

  keyContext(): KeyContext {
    const op = (): RecoveryOperation | undefined => this.ops[0];
    this.context ??= {
      title: t('recovery.title'),
      modal: true,
      bindings: [
        {
          keys: ['escape', 'enter'],
          label: 'Esc Enter',
          does: t('recovery.key.continue'),
          footer: t('recovery.footer.continue'),
          run: () => (this.closed = true),
        },
        {
          keys: ['a'],
          does: t('recovery.key.accept'),
          footer: t('recovery.footer.accept'),
          disabled: () => (!op() ? t('recovery.whyNot.nothing') : op()!.canAccept ? undefined : t('recovery.whyNot.accept')),
          run: () => this.run(op()!, 'accept', t('recovery.accepting')),
        },
        {
          keys: ['r'],
          does: t('recovery.key.restore'),
          footer: t('recovery.footer.restore'),
          disabled: () => (!op() ? t('recovery.whyNot.nothing') : op()!.canRestore ? undefined : op()!.restoreWhyNot || t('recovery.whyNot.backup')),
          run: () => this.run(op()!, 'restore', t('recovery.restoring')),
        },
        {
          keys: ['s'],
          does: t('recovery.key.close'),
          footer: t('recovery.footer.close'),
          disabled: () => (!op() ? t('recovery.whyNot.nothing') : op()!.canClose ? undefined : t('recovery.whyNot.close')),
          run: () => this.run(op()!, 'close', t('recovery.closing')),
        },
        {
          keys: ['R'],
          does: t('recovery.key.rescan'),
          footer: t('recovery.footer.rescan'),
          disabled: () => (op() ? undefined : t('recovery.whyNot.nothing')),
          run: () => this.run(op()!, 'rescan', t('recovery.rescanning')),
        },
      ],
    };
    return this.context;
  }

  private run(op: RecoveryOperation, action: 'accept' | 'close' | 'rescan' | 'restore', label: string): void {
    this.note = `${label}…`;
    this.act(op, action).then(
      (ops) => {
        this.ops = ops;
        this.note = ops.length ? t('recovery.done', { action: label }) : '';
        this.screen.emit('cleanerx:repaint');
      },
      (e: Error) => {
        this.note = e.message;
        this.screen.emit('cleanerx:repaint');
      },
    );
  }

  destroy(): void {
    this.box.destroy();
  }
}
