// Recovery (at start-up, or after a failure): the first interrupted
// operation, what its journal recorded and what a fresh scan observed, and
// the actions that are safe now. Continue browsing keeps cleanup of that
// agent blocked until the operation is accepted or closed.

import blessed from 'blessed';
import { AGENT_NAMES, type RecoveryOperation } from '../engine/core/model.js';
import type { KeyContext } from '../widgets/bindings.js';
import { fitTagged } from '../widgets/tagged.js';
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
    this.box = blessed.box({ parent: screen, top: 'center', left: 'center', tags: true, border: { type: 'line' }, label: ' Recovery ', wrap: false });
  }

  paint(): void {
    const t = this.theme;
    const W = Math.min(96, Math.max(40, ((this.screen.width as number) || 80) - 4));
    this.box.width = W;
    const inner = W - 6;
    const op = this.ops[0];
    const L: string[] = [];
    if (!op) {
      L.push(' Nothing left to recover.', '', t.dim(' Esc closes'));
    } else {
      const who = op.agent ? AGENT_NAMES[op.agent] : 'Unknown agent';
      L.push(` ${t.bold(braces(`${who} cleanup was interrupted`))}${this.ops.length > 1 ? t.dim(` (1 of ${this.ops.length})`) : ''}`);
      L.push(` ${t.dim('Operation')}  ${cell(op.operationId, inner - 11)}`);
      L.push(` ${t.dim('Journal  ')}  ${cell(`${op.status} · ${op.recorded}`, inner - 11)}`);
      L.push(` ${t.dim('Observed ')}  ${t.bold(op.observed)} — ${cell(op.reason, Math.max(10, inner - 14 - op.observed.length))}`);
      if (op.unknown) L.push(` ${t.warn(cell(op.reason, inner))}`);
      L.push('');
      L.push(`  ${t.bold('Esc')} Continue browsing ${t.dim(op.agent ? `(cleanup of ${AGENT_NAMES[op.agent]} stays blocked)` : '(all cleanup stays blocked)')}`);
      L.push(`  ${op.canAccept ? t.bold('a') : t.dim('a')} Accept verified result${op.canAccept ? '' : t.dim(' — only when every planned item is observed gone')}`);
      L.push(`  ${op.canRestore ? t.bold('r') : t.dim('r')} Restore verified backup${op.canRestore ? '' : t.dim(braces(` — ${op.restoreWhyNot}`))}`);
      L.push(`  ${op.canClose ? t.bold('s') : t.dim('s')} Safely close${t.dim(' — ends the workflow only; does not undo changes already made')}`);
      L.push(`  ${op.unknown ? t.dim('R') : t.bold('R')} Rescan and look again`);
    }
    if (this.note) L.push('', ` ${t.warn(braces(this.note))}`);
    const sh = (this.screen.height as number) || 24;
    this.box.height = Math.min(Math.max(3, sh - 3), L.length + 2);
    this.box.top = Math.max(1, Math.floor((sh - 2 - (this.box.height as number)) / 2));
    this.box.setContent(L.map((l) => fitTagged(l, W - 2)).join('\n'));
    this.box.setFront();
  }

  keyContext(): KeyContext {
    const op = (): RecoveryOperation | undefined => this.ops[0];
    this.context ??= {
      title: 'Recovery',
      modal: true,
      bindings: [
        { keys: ['escape', 'enter'], label: 'Esc Enter', does: 'continue browsing (cleanup of that agent stays blocked)', footer: 'continue browsing', run: () => (this.closed = true) },
        {
          keys: ['a'],
          does: 'accept the verified result',
          footer: 'accept',
          disabled: () => (!op() ? 'nothing to recover' : op()!.canAccept ? undefined : 'accept needs every planned item observed gone'),
          run: () => this.run(op()!, 'accept', 'Accepting'),
        },
        {
          keys: ['r'],
          does: 'restore the verified backup',
          footer: 'restore',
          disabled: () => (!op() ? 'nothing to recover' : op()!.canRestore ? undefined : op()!.restoreWhyNot || 'no verified backup'),
          run: () => this.run(op()!, 'restore', 'Restoring'),
        },
        {
          keys: ['s'],
          does: 'safely close (ends the workflow only; does not undo changes already made)',
          footer: 'close',
          disabled: () => (!op() ? 'nothing to recover' : op()!.canClose ? undefined : 'a journal cleanerx cannot read cannot be closed here'),
          run: () => this.run(op()!, 'close', 'Closing'),
        },
        { keys: ['R'], does: 'rescan and look again', footer: 'rescan', disabled: () => (op() ? undefined : 'nothing to recover'), run: () => this.run(op()!, 'rescan', 'Rescanning') },
      ],
    };
    return this.context;
  }

  private run(op: RecoveryOperation, action: 'accept' | 'close' | 'rescan' | 'restore', label: string): void {
    this.note = `${label}…`;
    this.act(op, action).then(
      (ops) => {
        this.ops = ops;
        this.note = ops.length ? `${label}: done.` : '';
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
