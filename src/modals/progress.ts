// Progress of a running cleanup: phase, a bar, counts, bytes and the item
// being removed. It cannot be dismissed: the app waits for the engine.
// freedLines: the result's disk-space lines (promised, measured, why).

import blessed from 'blessed';
import { formatBytes } from '../engine/core/format.js';
import { type MessageKey, t } from '../engine/core/i18n/index.js';
import type { ExecuteProgress, FreedBytes } from '../engine/core/model.js';
import { bar } from '../widgets/bars.js';
import type { KeyContext } from '../widgets/bindings.js';
import { fitTagged } from '../widgets/tagged.js';
import { braces, cell, type Theme } from '../widgets/theme.js';
import type { Modal } from './modal.js';

const PHASES: Record<ExecuteProgress['phase'], MessageKey> = {
  preflight: 'pg.phase.preflight',
  backup: 'pg.phase.backup',
  deleting: 'pg.phase.deleting',
  verifying: 'pg.phase.verifying',
  done: 'pg.phase.done',
};

export class ProgressModal implements Modal {
  readonly box: blessed.Widgets.BoxElement;
  progress: ExecuteProgress = { phase: 'preflight', done: 0, total: 0, bytesDone: 0, bytesTotal: 0 };
  note = '';

  private asking = false;
  readonly closed = false;

  constructor(
    private screen: blessed.Widgets.Screen,
    private theme: Theme,
    private requestStop: () => void,
  ) {
    this.box = blessed.box({
      parent: screen,
      top: 'center',
      left: 'center',
      height: 8,
      tags: true,
      border: { type: 'line' },
      label: ` ${t('pg.title')} `,
      wrap: false,
    });
  }

  paint(): void {
    const th = this.theme;
    const W = Math.min(80, Math.max(40, ((this.screen.width as number) || 80) - 4));
    this.box.width = W;
    const p = this.progress;
    const inner = W - 6;
    this.box.setContent(
      [
        ` ${th.bold(t(PHASES[p.phase]))}`,
        ` ${th.accent(bar(p.done, Math.max(1, p.total), inner - 12))} ${p.done}/${p.total}`,
        ` ${t('pg.bytes', { done: formatBytes(p.bytesDone), total: formatBytes(p.bytesTotal) })}`,
        ` ${p.current ? cell(p.current, inner) : ''}`,
        ` ${th.dim(this.note || t('pg.journal'))}`,
      ]
        .map((l) => fitTagged(l, W - 2))
        .join('\n'),
    );
    this.box.setFront();
  }

  private context: KeyContext | null = null;

  /** It never closes itself: Esc, q and Ctrl-C ask whether to stop after the current step. */
  keyContext(): KeyContext {
    const ask = (): void => {
      if (this.asking) return this.answer(false);
      this.asking = true;
      this.note = t('pg.ask');
    };
    this.context ??= {
      title: t('pg.title'),
      modal: true,
      bindings: [
        { keys: ['escape', 'q', 'C-c'], label: 'Esc q Ctrl-C', does: t('pg.key.ask'), footer: t('pg.footer.stop'), run: ask },
        { keys: ['y'], does: t('pg.key.stop'), run: () => this.answer(true) },
      ],
      text: { does: t('pg.key.other'), run: () => this.answer(false) },
    };
    return this.context;
  }

  private answer(stop: boolean): void {
    if (!this.asking) return;
    this.asking = false;
    if (stop) {
      this.requestStop();
      this.note = t('pg.stopping');
    } else this.note = t('pg.continuing');
  }

  destroy(): void {
    this.box.destroy();
  }
}

/**
 * The result's disk-space lines: what the plan promised, what the disks
 * gave back (measured), per filesystem when there are several, and one
 * sentence per reason when the two differ by more than 5%. Tag-safe.
 */
export function freedLines(f: FreedBytes | undefined): string[] {
  if (!f) return [];
  const out = [
    t('freed.heading'),
    t('freed.total', { promised: formatBytes(f.promisedBytes), freed: formatBytes(Math.max(0, f.freedBytes)), allocated: formatBytes(f.allocatedBytes) }),
  ];
  if (f.filesystems.length > 1) {
    for (const fs of f.filesystems)
      out.push(
        `  ${braces(t('freed.filesystem', { path: fs.path, freed: formatBytes(Math.max(0, fs.freedBytes)), allocated: formatBytes(fs.allocatedBytes) }))}`,
      );
  }
  for (const why of f.explanations) out.push(`  ${t(`freed.why.${why}`)}`);
  return out;
}
