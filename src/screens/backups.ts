// Backups: the catalog of verified, encrypted archives. v verifies
// (decrypts and hash-checks everything), Enter restores (preflight first, then a
// typed confirm), D deletes forever (its own typed confirm). Verify and restore
// run in the busy state (ctx.busy): the keys typed meanwhile do nothing here.
// backups-render draws the tab; this class holds the catalog and the keys.

import { agentName } from '../engine/core/agents.js';
import blessed from 'blessed';
import { formatBytes } from '../engine/core/format.js';
import { type MessageKey, t as tr } from '../engine/i18n/index.js';
import type { BackupProgress, BackupSummary, KeyInfo, RestoreSummary } from '../engine/core/model.js';
import { isWrongPassphrase } from '../engine/core/passphrase-rule.js';
import { esc } from '../widgets/theme.js';
import { VirtualList } from '../widgets/virtual-list.js';
import type { KeyContext } from '../widgets/bindings.js';
import type { AppContext, BusyState, PassphraseVerdict, Screen } from './screen.js';
import { backupRow, backupsHead } from './backups-render.js';

export class BackupsScreen implements Screen {
  readonly title = tr('tab.backups');
  readonly root: blessed.Widgets.BoxElement;
  private head: blessed.Widgets.BoxElement;
  private list: VirtualList;
  private rows: BackupSummary[] = [];
  private key: KeyInfo | null = null;
  private error = '';

  constructor(private app: AppContext) {
    this.root = blessed.box({ parent: app.screen, top: 1, left: 0, width: '100%', bottom: 2, tags: true, hidden: true });
    this.head = blessed.box({ parent: this.root, top: 0, left: 0, width: '100%', height: 3, tags: true, wrap: false });
    this.list = new VirtualList(
      this.root,
      { top: 3, left: 0, width: '100%', bottom: 0 },
      { total: () => this.rows.length, line: (i, w, sel) => backupRow(this.rows[i]!, w, sel, this.app.theme), ensure: () => undefined },
      () => '',
    );
    this.reload();
  }

  private reload(): void {
    Promise.all([this.app.engine.backupsList(), this.app.engine.keyInfo()]).then(
      ([rows, key]) => {
        this.rows = rows;
        this.key = key;
        this.error = '';
        this.app.requestRender();
      },
      (e: Error) => {
        this.error = e.message;
        this.app.requestRender();
      },
    );
  }

  onSummary(): void {
    this.reload();
  }

  paint(): void {
    const t = this.app.theme;
    const W = Math.max(20, ((this.app.screen.width as number) || 80) - 1);
    const head = backupsHead({ key: this.key, error: this.error }, W, t);
    this.head.height = head.length;
    this.list.box.top = head.length;
    this.head.setContent(head.join('\n'));
    this.list.setEmptyText(t.dim(`  ${tr('backups.none')}`));
    this.list.paint();
  }

  private readonly context: KeyContext = {
    title: tr('tab.backups'),
    bindings: [
      { keys: ['up', 'k'], label: '↑ k', does: tr('backups.previous'), run: () => this.whenIdle(() => this.list.move(-1)) },
      { keys: ['down', 'j'], label: '↓ j', does: tr('backups.next'), run: () => this.whenIdle(() => this.list.move(1)) },
      {
        keys: ['v'],
        does: tr('backups.verifyKey'),
        footer: tr('backups.footer.verify'),
        disabled: () => this.noneSelected(),
        run: () => this.withPassphrase(tr('backups.passVerify'), tr('backups.verifyCancelled'), (p) => this.verify(this.selected()!, p)),
      },
      {
        keys: ['enter'],
        does: tr('backups.restoreKey'),
        footer: tr('backups.footer.restore'),
        disabled: () => this.noneSelected(),
        run: () => this.withPassphrase(tr('backups.passRestore'), tr('backups.restoreCancelled'), (p) => this.restore(this.selected()!, p)),
      },
      {
        keys: ['D'],
        does: tr('backups.deleteKey'),
        footer: tr('backups.footer.delete'),
        disabled: () => this.noneSelected(),
        run: () => this.whenIdle(() => this.confirmDelete(this.selected()!)),
      },
    ],
  };

  keyContext(): KeyContext {
    return this.context;
  }

  private selected(): BackupSummary | undefined {
    return this.rows[this.list.cursor];
  }

  private noneSelected(): string | undefined {
    return this.selected() ? undefined : tr('backups.noneSelected');
  }

  private whenIdle(f: () => void): void {
    f();
    this.app.requestRender();
  }

  /**
   * The key ring (when chosen in Settings) unlocks the key without asking.
   * Keys typed while the key's state is read go to the prompt (hold), and a
   * wrong passphrase is asked again (`use` says so).
   */
  private withPassphrase(label: string, cancelled: string, use: (p: string) => Promise<PassphraseVerdict>): void {
    this.app.hold(tr('flow.readingKey'), this.app.engine.keyInfo(), (k) => this.app.askPassphrase({ needed: k.needsPassphrase, label, cancelled }, use));
  }

  private verify(b: BackupSummary, passphrase: string): Promise<PassphraseVerdict> {
    const id = b.id.slice(0, 8);
    return this.app
      .busy({ title: tr('backups.verifyTitle'), first: { phase: tr('busy.unlocking') }, cancel: { cancelled: tr('backups.verifyCancelled') } }, (update) =>
        this.app.engine.backupVerify(b.id, passphrase, (p) => update(backupState(p))),
      )
      .then(
        (r): PassphraseVerdict => {
          this.app.message(tr('backups.verifiedMessage', { id }));
          this.app.openDialog(tr('backups.verifiedTitle'), [tr('backups.entriesMatch', { count: r.entries, size: formatBytes(r.bytes) })]);
          return undefined;
        },
        (e: Error): PassphraseVerdict => {
          if (isWrongPassphrase(e)) return 'wrong';
          this.app.message(tr('backups.verifyFailedMessage', { id }), 'error');
          this.app.openDialog(tr('backups.verifyFailedTitle'), [esc(e.message)]);
          return undefined;
        },
      );
  }

  /** The check first (it writes nothing: Esc may leave it), then a typed confirm, then the restore (it runs to its end). */
  private restore(b: BackupSummary, passphrase: string): Promise<PassphraseVerdict> {
    return this.app
      .busy({ title: tr('backups.checkTitle'), first: { phase: tr('busy.unlocking') }, cancel: { cancelled: tr('backups.restoreCancelled') } }, (update) =>
        this.app.engine.backupRestore(b.id, passphrase, true, (p) => update(backupState(p))),
      )
      .then(
        (dry): PassphraseVerdict => {
          this.confirmRestore(b, passphrase, dry);
          return undefined;
        },
        (e: Error): PassphraseVerdict => {
          if (isWrongPassphrase(e)) return 'wrong';
          this.app.message(tr('backups.restoreImpossibleMessage'), 'error');
          this.app.openDialog(tr('backups.restoreImpossibleTitle'), [esc(e.message), '', tr('backups.nothingWritten')]);
          return undefined;
        },
      );
  }

  private confirmRestore(b: BackupSummary, passphrase: string, dry: RestoreSummary): void {
    this.app.openInput({
      label: tr('backups.restorePrompt', { what: unitCount(dry.restored, dry.unit), size: formatBytes(dry.bytes), agent: agentName(b.agent) }),
      maxLength: 16,
      onSubmit: (v) => {
        if (v.trim().toLowerCase() !== 'restore') return this.app.message(tr('backups.notRestored'));
        this.app
          .busy({ title: tr('backups.restoreTitle'), first: { phase: tr('busy.unlocking') }, cancel: { never: tr('busy.never.restore') } }, (update) =>
            this.app.engine.backupRestore(b.id, passphrase, false, (p) => update(backupState(p))),
          )
          .then(
            (r) => {
              const what = unitCount(r.restored, r.unit);
              this.app.message(tr('backups.restored', { what }));
              this.app.openDialog(tr('backups.restoreCompleteTitle'), [tr('backups.back', { what, count: r.restored }), '', tr('backups.rescanFollows')]);
              this.app.rescan();
            },
            (e: Error) => {
              this.app.message(tr('backups.restoreFailedMessage'), 'error');
              this.app.openDialog(tr('backups.restoreFailedTitle'), [esc(e.message), '', tr('backups.restoreFailedBody')]);
            },
          );
      },
      onCancel: () => this.app.message(tr('backups.restoreCancelled')),
    });
  }

  private confirmDelete(b: BackupSummary): void {
    this.app.openInput({
      label: tr('backups.deletePrompt', { id: b.id.slice(0, 8) }),
      maxLength: 16,
      onSubmit: (v) => {
        if (v.trim().toLowerCase() !== 'delete') return this.app.message(tr('backups.notDeleted'));
        this.app.engine.backupDelete(b.id).then(
          () => {
            this.app.message(tr('backups.deleted'));
            this.reload();
          },
          (e: Error) => this.app.openDialog(tr('backups.deleteFailedTitle'), [esc(e.message)]),
        );
      },
      onCancel: () => this.app.message(tr('backups.deleteCancelled')),
    });
  }
}

/** "1 file", "3 sessions": the restore's unit agreeing with its count. */
function unitCount(n: number, unit: 'files' | 'sessions'): string {
  return tr(unit === 'files' ? 'count.files' : 'count.sessions', { count: n });
}

const BACKUP_STEPS: Record<BackupProgress['step'], MessageKey> = {
  unlocking: 'busy.unlocking',
  reading: 'busy.reading',
  checking: 'busy.checking',
  writing: 'busy.writing',
};

/** A backup's verify or restore in the busy box: the unlock says what runs, the read counts entries and bytes. */
function backupState(p: BackupProgress): BusyState {
  const phase = tr(BACKUP_STEPS[p.step]);
  if (p.step === 'unlocking') return { phase };
  return { phase, done: p.done, total: p.total, bytesDone: p.bytesDone, bytesTotal: p.bytesTotal };
}
