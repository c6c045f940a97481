// A cleanup from the marks to its result: review (x) → the backup key's
// passphrase when a backup is chosen → execute with its progress → the
// result; and the recovery of an interrupted operation, offered at start and
// after a failed cleanup.

import { formatBytes, plural } from '../engine/core/format.js';
import { freedLines, ProgressModal } from '../modals/progress.js';
import { RecoveryModal } from '../modals/recovery.js';
import { ReviewModal } from '../modals/review.js';
import type { AppContext } from '../screens/screen.js';
import { braces } from '../widgets/theme.js';
import type { AgentScan } from './agent-scan.js';
import type { AppState } from './context.js';

const BACKUP_PASSPHRASE = 'Backup key passphrase:';

export class CleanupFlow {
  constructor(
    private readonly st: AppState,
    private readonly ctx: AppContext,
    private readonly scan: AgentScan,
  ) {}

  openReview(): void {
    const { st, ctx } = this;
    if (st.flags.readOnly) {
      ctx.openDialog('Review', ['Read-only mode (--read-only): no cleanup route is offered.']);
      return;
    }
    if (st.summary?.provisional) {
      ctx.openDialog('Review', ['The scan is still running: this is a partial, read-only view.', '', 'Marks and the cleanup review open when it finishes.']);
      return;
    }
    if (st.marks.count === 0 || !st.summary) {
      ctx.openDialog('Review', ['Nothing is marked.', '', 'Mark sessions with Space (or a for everything in the current filter), then press x.']);
      return;
    }
    const ids = st.marks.list();
    ctx.hold('Preparing the review', st.engine.plan(st.summary.snapshotId, ids), (plan) => {
      const blockers = [...plan.blockers, ...plan.operations.flatMap((o) => o.blockers)];
      st.modal = new ReviewModal(st.screen, st.theme, plan, blockers, (backup) => {
        if (!backup) return void this.runCleanup(plan.id, {});
        this.askBackupPassphrase((passphrase) => void this.runCleanup(plan.id, { backup: true, passphrase }));
      });
    });
  }

  /** The backup key's passphrase (twice when the key is created now); never stored. */
  private askBackupPassphrase(then: (passphrase: string) => void): void {
    const ctx = this.ctx;
    ctx.hold('Reading the backup key', this.st.engine.keyInfo(), (k) => {
      if (k.needsPassphrase && k.problem) return ctx.openDialog('Backup key', [braces(k.problem)]);
      ctx.askPassphrase(
        {
          needed: k.needsPassphrase,
          label: BACKUP_PASSPHRASE,
          newKey: k.exists
            ? undefined
            : {
                label: 'New backup key passphrase (8+ characters):',
                repeat: 'Repeat the passphrase:',
                problem: (problem) => `${problem} Nothing was done.`,
                differ: 'The passphrases differ; nothing was done.',
              },
          onCancel: () => ctx.message('No backup: cancelled.'),
        },
        then,
      );
    });
  }

  private async runCleanup(planId: string, opts: { backup?: boolean; passphrase?: string }): Promise<void> {
    const { st, ctx } = this;
    const progress = new ProgressModal(st.screen, st.theme, () => void st.engine.stopExecution());
    st.modal = progress;
    st.executing = true;
    st.requestRender();
    try {
      const r = await st.engine.execute(planId, opts, (p) => {
        progress.progress = p;
        st.requestRender();
      });
      if (r.summary) {
        st.summary = r.summary;
        st.marks.rebase(r.summary);
        st.summaryChanged();
      }
      progress.destroy();
      st.modal = null;
      if (r.status === 'complete') {
        ctx.openDialog('Cleanup complete', [
          `Removed ${plural(r.removedItems, 'item')} · ${formatBytes(r.removedBytes)}.`,
          '',
          'A fresh scan confirmed that none of them is listed any more.',
          ...(r.backupId ? ['', `Backup ${r.backupId} is verified; restore it from the Backups tab (5).`] : []),
          ...(r.freed ? ['', ...freedLines(r.freed)] : []),
        ]);
        st.summaryChanged();
      } else {
        ctx.openDialog('Cleanup failed', [braces(r.message), '', 'Nothing outside the reviewed plan was touched. Any interrupted step is offered for recovery.']);
        void this.checkRecovery();
      }
    } catch (e) {
      progress.destroy();
      st.modal = null;
      ctx.openDialog('Cleanup not started', [braces((e as Error).message)]);
    } finally {
      st.executing = false;
      st.requestRender();
    }
  }

  async checkRecovery(): Promise<void> {
    const { st, ctx } = this;
    const engine = st.engine;
    const ops = await engine.recoveryList().catch(() => []);
    if (!ops.length || st.modal) return;
    st.modal = new RecoveryModal(st.screen, st.theme, ops, async (op, action) => {
      let next: Awaited<ReturnType<typeof engine.recoveryList>>;
      if (action === 'rescan') next = await engine.recoveryList();
      else if (action === 'restore') {
        const needed = (await engine.keyInfo()).needsPassphrase;
        const passphrase = await new Promise<string>((resolve, reject) =>
          ctx.askPassphrase({ needed, label: BACKUP_PASSPHRASE, onCancel: () => reject(new Error('Restore cancelled.')) }, resolve),
        );
        next = await engine.recoveryAction(op.operationId, 'restore', passphrase);
      } else next = await engine.recoveryAction(op.operationId, action);
      if (op.agent && op.agent === st.agent) this.scan.startScan();
      return next;
    });
    st.requestRender();
  }
}
