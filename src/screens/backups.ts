// Backups: the catalog of verified, encrypted archives. v verifies
// (decrypts and hash-checks everything), Enter restores (preflight first, then a
// typed confirm), D deletes forever (its own typed confirm).

import blessed from 'blessed';
import { fitPath, formatBytes, formatDate, plural } from '../engine/core/format.js';
import { AGENT_NAMES, type BackupSummary, type KeyInfo } from '../engine/core/model.js';
import { fitWidth, padWidth } from '../engine/core/text.js';
import { braces, cell, esc } from '../widgets/theme.js';
import { VirtualList } from '../widgets/virtual-list.js';
import type { KeyContext } from '../widgets/bindings.js';
import type { AppContext, Screen } from './screen.js';

export class BackupsScreen implements Screen {
  readonly title = 'Backups';
  readonly root: blessed.Widgets.BoxElement;
  private head: blessed.Widgets.BoxElement;
  private list: VirtualList;
  private rows: BackupSummary[] = [];
  private key: KeyInfo | null = null;
  private error = '';
  /** What runs now (verify, restore preflight), shown until it ends, not left in the footer. */
  private busy = '';

  constructor(private app: AppContext) {
    this.root = blessed.box({ parent: app.screen, top: 1, left: 0, width: '100%', bottom: 2, tags: true, hidden: true });
    this.head = blessed.box({ parent: this.root, top: 0, left: 0, width: '100%', height: 3, tags: true, wrap: false });
    this.list = new VirtualList(
      this.root,
      { top: 3, left: 0, width: '100%', bottom: 0 },
      { total: () => this.rows.length, line: (i, w, sel) => this.line(this.rows[i]!, w, sel), ensure: () => undefined },
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
    const room = W - 12;
    const problem = this.key?.problem ? ` — ${this.key.problem}` : '';
    const key = !this.key
      ? '…'
      : this.key.exists
        ? fitWidth(fitPath(this.key.path, Math.max(12, room - problem.length)) + problem, room)
        : fitWidth('not created yet (the first backup creates it)', room);
    const second = this.busy
      ? ` ${t.warn(braces(fitWidth(this.busy, W - 1)))}`
      : this.error
        ? ` ${t.danger(braces(fitWidth(this.error, W - 1)))}`
        : ` ${t.dim(braces(fitWidth('Readable without cleanerx: age -d -i <exported key> <id>.cxb | zstd -d | tar -t', W - 1)))}`;
    this.head.setContent(
      [
        ` ${t.dim('Backup key')} ${braces(key)}`,
        second,
        t.dim(`    ${padWidth('Created', 17)}${padWidth('Agent', 12)}${padWidth('Items', 7, 'right')}${padWidth('Original', 11, 'right')}${padWidth('Archive', 11, 'right')}  Id`),
      ].join('\n'),
    );
    this.list.setEmptyText(t.dim('  No backups yet. Turn on b in the review of a cleanup to take one.'));
    this.list.paint();
  }

  private line(b: BackupSummary, width: number, selected: boolean): string {
    const text =
      '    ' +
      padWidth(formatDate(Date.parse(b.createdAt)), 17) +
      padWidth(AGENT_NAMES[b.agent], 12) +
      padWidth(String(b.itemCount), 7, 'right') +
      padWidth(formatBytes(b.originalBytes), 11, 'right') +
      padWidth(formatBytes(b.archiveBytes), 11, 'right') +
      '  ' +
      cell(b.id, Math.max(8, width - 62));
    return selected ? this.app.theme.cursor(text) : text;
  }

  private readonly context: KeyContext = {
    title: 'Backups',
    bindings: [
      { keys: ['up', 'k'], label: '↑ k', does: 'previous backup', run: () => this.then(() => this.list.move(-1)) },
      { keys: ['down', 'j'], label: '↓ j', does: 'next backup', run: () => this.then(() => this.list.move(1)) },
      {
        keys: ['v'],
        does: 'verify: decrypt and hash-check everything',
        footer: 'verify',
        disabled: () => this.noneSelected(),
        run: () => this.then(() => this.withPassphrase('Passphrase to verify:', (p) => this.verify(this.selected()!, p))),
      },
      {
        keys: ['enter'],
        does: 'restore (preflight, then a typed confirm)',
        footer: 'restore',
        disabled: () => this.noneSelected(),
        run: () => this.then(() => this.withPassphrase('Passphrase to restore:', (p) => this.restore(this.selected()!, p))),
      },
      {
        keys: ['D'],
        does: 'delete forever (typed confirm)',
        footer: 'delete',
        disabled: () => this.noneSelected(),
        run: () => this.then(() => this.confirmDelete(this.selected()!)),
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
    return this.selected() ? undefined : 'no backup selected';
  }

  private then(f: () => void): void {
    f();
    this.app.requestRender();
  }

  /** The key ring (when chosen in Settings) unlocks the key without asking. */
  private withPassphrase(label: string, then: (p: string) => void): void {
    this.app.engine.keyInfo().then(
      (k) => (k.needsPassphrase ? this.app.openInput({ label, mask: true, maxLength: 1024, onSubmit: then, onCancel: () => this.app.message('Cancelled.') }) : then('')),
      (e: Error) => this.app.message(e.message, 'error'),
    );
  }

  /** Runs a long call with its state in the header; the footer gets the outcome, never a stale "…ing". */
  private running<T>(what: string, call: Promise<T>): Promise<T> {
    this.busy = what;
    this.app.requestRender();
    const done = (): void => {
      this.busy = '';
      this.app.requestRender();
    };
    call.then(done, done);
    return call;
  }

  private verify(b: BackupSummary, passphrase: string): void {
    this.running(`Verifying backup ${b.id.slice(0, 8)}: decrypting and hashing every entry…`, this.app.engine.backupVerify(b.id, passphrase)).then(
      (r) => {
        const what = r.entries === 1 ? `The 1 entry (${formatBytes(r.bytes)}) matches` : `All ${plural(r.entries, 'entry', 'entries')} (${formatBytes(r.bytes)}) match`;
        this.app.message(`Backup ${b.id.slice(0, 8)} verified.`);
        this.app.openDialog('Backup verified', [`${what} the manifest.`]);
      },
      (e: Error) => {
        this.app.message(`Backup ${b.id.slice(0, 8)} failed verification.`, 'error');
        this.app.openDialog('Verification failed', [esc(e.message)]);
      },
    );
  }

  private restore(b: BackupSummary, passphrase: string): void {
    this.running(`Checking every destination of backup ${b.id.slice(0, 8)} first…`, this.app.engine.backupRestore(b.id, passphrase, true)).then(
      (dry) => {
        this.app.openInput({
          label: `Restore ${unitCount(dry.restored, dry.unit)} (${formatBytes(dry.bytes)}) into ${AGENT_NAMES[b.agent]}? Type restore:`,
          maxLength: 16,
          onSubmit: (v) => {
            if (v.trim().toLowerCase() !== 'restore') return this.app.message('Not restored: type restore to confirm.');
            this.running(`Restoring backup ${b.id.slice(0, 8)}…`, this.app.engine.backupRestore(b.id, passphrase)).then(
              (r) => {
                this.app.message(`Restored ${unitCount(r.restored, r.unit)}.`);
                this.app.openDialog('Restore complete', [`${unitCount(r.restored, r.unit)} ${r.restored === 1 ? 'is' : 'are'} back.`, '', 'A rescan follows.']);
                this.app.rescan();
              },
              (e: Error) => {
                this.app.message('Restore failed; nothing was left half-restored.', 'error');
                this.app.openDialog('Restore failed', [esc(e.message), '', 'Nothing was left half-restored: every file this restore created was removed again.']);
              },
            );
          },
          onCancel: () => this.app.message('Restore cancelled.'),
        });
      },
      (e: Error) => {
        this.app.message('Restore not possible; nothing was written.', 'error');
        this.app.openDialog('Restore not possible', [esc(e.message), '', 'Nothing was written.']);
      },
    );
  }

  private confirmDelete(b: BackupSummary): void {
    this.app.openInput({
      label: `Delete backup ${b.id.slice(0, 8)} forever (the agent's data is not touched)? Type delete:`,
      maxLength: 16,
      onSubmit: (v) => {
        if (v.trim().toLowerCase() !== 'delete') return this.app.message('Not deleted: type delete to confirm.');
        this.app.engine.backupDelete(b.id).then(
          () => {
            this.app.message('Backup deleted.');
            this.reload();
          },
          (e: Error) => this.app.openDialog('Delete failed', [esc(e.message)]),
        );
      },
      onCancel: () => this.app.message('Delete cancelled.'),
    });
  }

}

/** "1 file", "3 sessions": the restore's unit agreeing with its count. */
function unitCount(n: number, unit: 'files' | 'sessions'): string {
  return plural(n, unit === 'files' ? 'file' : 'session', unit);
}
