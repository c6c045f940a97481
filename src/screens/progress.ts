// Progress of a running cleanup: phase, a bar, counts, bytes and the item
// being removed. It cannot be dismissed: the app waits for the engine.

import blessed from 'blessed';
import { formatBytes } from '../engine/format.js';
import type { ExecuteProgress } from '../engine/model.js';
import { bar } from '../widgets/bars.js';
import type { KeyEvent } from '../widgets/text-input.js';
import { cell, type Theme } from '../widgets/theme.js';
import type { Modal } from './review.js';

const PHASES: Record<ExecuteProgress['phase'], string> = {
  preflight: 'Checking every target again',
  backup: 'Writing and verifying the backup',
  deleting: 'Removing',
  verifying: 'Rescanning to verify',
  done: 'Done',
};

export class ProgressModal implements Modal {
  readonly box: blessed.Widgets.BoxElement;
  progress: ExecuteProgress = { phase: 'preflight', done: 0, total: 0, bytesDone: 0, bytesTotal: 0 };
  note = '';

  private asking = false;

  constructor(
    private screen: blessed.Widgets.Screen,
    private theme: Theme,
    private requestStop: () => void,
  ) {
    this.box = blessed.box({ parent: screen, top: 'center', left: 'center', height: 8, tags: true, border: { type: 'line' }, label: ' Cleaning ' });
  }

  paint(): void {
    const t = this.theme;
    const W = Math.min(80, Math.max(40, ((this.screen.width as number) || 80) - 4));
    this.box.width = W;
    const p = this.progress;
    const inner = W - 6;
    this.box.setContent(
      [
        ` ${t.bold(PHASES[p.phase])}`,
        ` ${t.accent(bar(p.done, Math.max(1, p.total), inner - 12))} ${p.done}/${p.total}`,
        ` ${formatBytes(p.bytesDone)} of ${formatBytes(p.bytesTotal)}`,
        ` ${p.current ? cell(p.current, inner) : ''}`,
        ` ${t.dim(this.note || 'The journal records every step; an interruption is recovered at the next start.')}`,
      ].join('\n'),
    );
    this.box.setFront();
  }

  handleKey(ch: string | undefined, key: KeyEvent): boolean {
    if (this.asking && ch === 'y') {
      this.requestStop();
      this.note = 'Stopping after the current step…';
      this.asking = false;
    } else if (this.asking) {
      this.asking = false;
      this.note = 'Continuing.';
    } else if ((key.ctrl && key.name === 'c') || ch === 'q' || key.name === 'escape') {
      this.asking = true;
      this.note = 'Stop after the current step? y stops, any other key continues.';
    }
    return true;
  }

  destroy(): void {
    this.box.destroy();
  }
}
