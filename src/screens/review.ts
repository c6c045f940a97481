// Review (x): the expanded plan, its blockers, the backup line, one
// irreversible warning, and a typed confirmation. Focus starts on Cancel:
// Enter on an empty line cancels; executing needs `delete` (or the number of
// items) typed first. Esc always cancels.

import blessed from 'blessed';
import { formatBytes, formatCount } from '../engine/format.js';
import { AGENT_NAMES, CATEGORY_LABELS, type CleanupPlan } from '../engine/model.js';
import { padWidth } from '../engine/text.js';
import type { KeyEvent } from '../widgets/text-input.js';
import { braces, cell, type Theme } from '../widgets/theme.js';

export interface Modal {
  readonly box: blessed.Widgets.BoxElement;
  /** Returns false when the modal wants to close. */
  handleKey(ch: string | undefined, key: KeyEvent): boolean;
  paint(): void;
  destroy(): void;
}

export class ReviewModal implements Modal {
  readonly box: blessed.Widgets.BoxElement;
  private typed = '';
  backup = false;
  private scroll = 0;
  private note = '';

  constructor(
    private screen: blessed.Widgets.Screen,
    private theme: Theme,
    private plan: CleanupPlan,
    private blockers: string[],
    private onConfirm: (backup: boolean) => void,
  ) {
    this.box = blessed.box({ parent: screen, top: 'center', left: 'center', tags: true, border: { type: 'line' }, label: ' Review cleanup ' });
  }

  paint(): void {
    const t = this.theme;
    const W = Math.min(100, Math.max(40, ((this.screen.width as number) || 80) - 4));
    const maxH = Math.max(12, ((this.screen.height as number) || 24) - 2);
    this.box.width = W;
    const inner = W - 4;
    const p = this.plan;
    const head = [
      ` ${t.bold(braces(AGENT_NAMES[p.agent]))} · ${formatCount(p.items.length)} items · ${formatBytes(p.estimatedBytes)} · estimated reclaimed ${formatBytes(p.estimatedBytes)}`,
      ...p.routeNotes.map((n) => ` ${t.dim(braces(cell(n, inner - 1)))}`),
      '',
    ];
    const rows = p.items.map((i) => {
      const indent = i.depth ? '   └ ' : ' ';
      const cat = padWidth(CATEGORY_LABELS[i.category], 12);
      const why = i.includedBecause ? t.dim(braces(` (${i.includedBecause})`)) : '';
      return `${indent}${cat} ${cell(i.label, Math.max(10, inner - 26 - indent.length))} ${padWidth(formatBytes(i.bytes), 10, 'right')}${why}`;
    });
    const tail: string[] = [''];
    if (this.blockers.length) {
      tail.push(t.danger(' Blocked — nothing can run until these are resolved:'));
      for (const b of this.blockers.slice(0, 4)) tail.push(`  ${t.danger('•')} ${cell(b, inner - 4)}`);
      if (this.blockers.length > 4) tail.push(t.dim(`  … ${this.blockers.length - 4} more`));
    }
    if (p.backupEligible) {
      tail.push(` Backup: ${this.backup ? t.ok(`on — an encrypted, verified archive of ${formatBytes(p.estimatedBackupBytes)} is written first`) : 'off'} ${t.dim('(b toggles)')}`);
    } else tail.push(` Backup: ${t.dim(braces(`not offered — ${p.backupWhyNot ?? ''}`))}`);
    tail.push(
      this.backup
        ? ` ${t.warn('⚠')} The data is removed from ${braces(AGENT_NAMES[p.agent])}; only the backup can bring it back.`
        : ` ${t.warn('⚠ Irreversible:')} without a backup, the removed data cannot be brought back.`,
    );
    tail.push('');
    if (this.blockers.length) {
      tail.push(` ${t.inverse(' Cancel ')}  ${t.dim('Esc or Enter closes')}`);
    } else {
      tail.push(` ${this.typed ? '[ Cancel ]' : t.inverse(' Cancel ')}  Type ${t.bold('delete')} (or ${formatCount(p.items.length)}) and Enter to clean · Esc cancels`);
      tail.push(` > ${braces(this.typed)}${t.inverse(' ')}${this.note ? `  ${t.warn(braces(this.note))}` : ''}`);
    }
    const H = Math.min(maxH, head.length + rows.length + tail.length + 2);
    this.box.height = H;
    const room = Math.max(1, H - 2 - head.length - tail.length);
    this.scroll = Math.max(0, Math.min(this.scroll, rows.length - room));
    const visible = rows.slice(this.scroll, this.scroll + room);
    if (rows.length > room) visible[visible.length - 1] = t.dim(`  … ${rows.length - room} more (↑↓ scroll)`);
    this.box.setContent([...head, ...visible, ...tail].join('\n'));
    this.box.setFront();
  }

  handleKey(ch: string | undefined, key: KeyEvent): boolean {
    if (key.name === 'escape') return false;
    if (key.name === 'enter') {
      if (this.blockers.length || this.typed === '') return false;
      if (this.typed.trim().toLowerCase() === 'delete' || this.typed.trim() === String(this.plan.items.length)) {
        this.onConfirm(this.backup);
        return false;
      }
      this.note = 'type delete to confirm';
      return true;
    }
    if (key.name === 'up') this.scroll--;
    else if (key.name === 'down') this.scroll++;
    else if (key.name === 'backspace') this.typed = this.typed.slice(0, -1);
    else if (ch === 'b' && this.typed === '') {
      if (this.plan.backupEligible) this.backup = !this.backup;
      else this.note = this.plan.backupWhyNot ?? '';
    }
    else if (ch && ch.length === 1 && ch >= ' ' && !key.ctrl && this.typed.length < 16 && !this.blockers.length) this.typed += ch;
    return true;
  }

  destroy(): void {
    this.box.destroy();
  }
}
