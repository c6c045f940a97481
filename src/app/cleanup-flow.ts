// A cleanup from the marks to its result: review (x) → the backup key's
// passphrase when a backup is chosen → execute with its progress → the
// result; and the recovery of an interrupted operation, offered at start and
// after a failed cleanup.

import { formatBytes } from '../engine/core/format.js';
import { t } from '../engine/core/i18n/index.js';
import type { AgentKind, ExecuteOptions, ExecuteResult, PlanAction } from '../engine/core/model.js';
import { isWrongPassphrase } from '../engine/core/passphrase-rule.js';
import { CLEANUP_START, cleanupState, freedLines, residueLines } from '../modals/progress.js';
import { RecoveryModal } from '../modals/recovery.js';
import { ReviewModal } from '../modals/review.js';
import type { AppContext, PassphraseVerdict } from '../screens/screen.js';
import { braces } from '../widgets/theme.js';
import type { AgentScan } from './agent-scan.js';
import type { AppState } from './context.js';

export class CleanupFlow {
  constructor(
    private readonly st: AppState,
    private readonly ctx: AppContext,
    private readonly scan: AgentScan,
  ) {}

  /** The review of the marks (or of `only`, the sessions an archive plan is for). */
  openReview(action: PlanAction = 'delete', only?: string[]): void {
    const { st, ctx } = this;
    if (st.flags.readOnly) {
      ctx.openDialog(t('flow.review'), [t('flow.readOnly')]);
      return;
    }
    if (st.summary?.provisional) {
      ctx.openDialog(t('flow.review'), [t('flow.partial'), '', t('flow.partialWhen')]);
      return;
    }
    if ((!only && st.marks.count === 0) || !st.summary) {
      ctx.openDialog(t('flow.review'), [t('flow.nothingMarked'), '', t('flow.howToMark')]);
      return;
    }
    const ids = only ?? st.marks.list();
    ctx.hold(t('flow.preparing'), st.engine.plan(st.summary.snapshotId, ids, action), (plan) => {
      const blockers = [...plan.blockers, ...plan.operations.flatMap((o) => o.blockers)];
      st.modal = new ReviewModal(st.screen, st.theme, plan, blockers, (backup) => {
        if (!backup) return void this.runCleanup(plan.id, {}, plan.action);
        // A wrong passphrase asks again: the plan stays (the engine unlocks the key before it takes the plan).
        this.askBackupPassphrase((passphrase) => this.runCleanup(plan.id, { backup: true, passphrase }));
      });
    });
  }

  /**
   * The Overview's suggested plan: its items marked, then the one review of
   * everything marked (openReview). Marks are the current agent's until the
   * marks keep every agent's: the other agents' items wait for their turn.
   */
  reviewSuggested(byAgent: Partial<Record<AgentKind, string[]>>): void {
    const { st } = this;
    if (st.agent && !st.summary?.provisional) st.marks.addAll(byAgent[st.agent] ?? []);
    st.requestRender();
    this.openReview();
  }

  /** The backup key's passphrase (twice when the key is created now); never stored. */
  private askBackupPassphrase(use: (passphrase: string) => Promise<PassphraseVerdict>): void {
    const ctx = this.ctx;
    ctx.hold(t('flow.readingKey'), this.st.engine.keyInfo(), (k) => {
      if (k.needsPassphrase && k.problem) return ctx.openDialog(t('flow.backupKey'), [braces(k.problem)]);
      ctx.askPassphrase(
        {
          needed: k.needsPassphrase,
          label: t('flow.passphrase'),
          newKey: k.exists ? undefined : { label: t('flow.newPassphrase'), repeat: t('flow.repeat') },
          cancelled: t('flow.noBackup'),
        },
        use,
      );
    });
  }

  /** The cleanup in the busy state, then its result; `wrong` when the backup key's passphrase did not unlock it (nothing started). */
  private async runCleanup(planId: string, opts: ExecuteOptions, action: PlanAction = 'delete'): Promise<PassphraseVerdict> {
    const { st, ctx } = this;
    let r: ExecuteResult;
    try {
      r = await ctx.busy(
        {
          title: t('pg.title'),
          first: cleanupState({ ...CLEANUP_START, phase: opts.backup ? 'key' : 'preflight' }),
          cancel: { stop: () => void st.engine.stopExecution() },
        },
        (update) => st.engine.execute(planId, opts, (p) => update(cleanupState(p))),
      );
    } catch (e) {
      if (opts.backup && isWrongPassphrase(e)) return 'wrong';
      ctx.openDialog(t('flow.notStarted'), [braces((e as Error).message)]);
      return undefined;
    }
    if (r.summary) {
      st.summary = r.summary;
      st.marks.rebase(r.summary);
      st.summaryChanged();
    }
    if (r.status === 'complete' && action !== 'delete') {
      ctx.openDialog(t('flow.archiveTitle'), [braces(r.message), '', t(action === 'archive' ? 'flow.archiveConfirmed' : 'flow.unarchiveConfirmed')]);
      st.summaryChanged();
    } else if (r.status === 'complete') {
      ctx.openDialog(t('flow.completeTitle'), [
        t('flow.removed', { items: t('count.items', { count: r.removedItems }), bytes: formatBytes(r.removedBytes) }),
        '',
        t('flow.confirmed'),
        ...(r.backupId ? ['', braces(t('flow.backupVerified', { id: r.backupId }))] : []),
        ...(r.freed ? ['', ...freedLines(r.freed)] : []),
        ...residueLines(r.residue),
      ]);
      st.summaryChanged();
    } else {
      ctx.openDialog(t('flow.failedTitle'), [braces(r.message), '', t('flow.failedSafe'), ...residueLines(r.residue)]);
      void this.checkRecovery();
    }
    st.requestRender();
    return undefined;
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
        // Asked again while the passphrase is wrong; the restore runs in the busy state (it writes: it runs to its end).
        next = await new Promise<typeof next>((resolve, reject) =>
          ctx.askPassphrase(
            { needed, label: t('flow.passphrase'), cancelled: t('flow.restoreCancelled'), onCancel: () => reject(new Error(t('flow.restoreCancelled'))) },
            (passphrase) =>
              ctx
                .busy({ title: t('busy.restoreTitle'), first: { phase: t('busy.recoveryRestore') }, cancel: { never: t('busy.never.restore') } }, () =>
                  engine.recoveryAction(op.operationId, 'restore', passphrase),
                )
                .then(
                  (ops): PassphraseVerdict => {
                    resolve(ops);
                    return undefined;
                  },
                  (e: unknown): PassphraseVerdict => {
                    if (isWrongPassphrase(e)) return 'wrong';
                    reject(e as Error);
                    return undefined;
                  },
                ),
          ),
        );
      } else next = await engine.recoveryAction(op.operationId, action);
      if (op.agent && op.agent === st.agent) this.scan.startScan();
      return next;
    });
    st.requestRender();
  }
}
