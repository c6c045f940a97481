// A cleanup from the marks to its result: review (x) → the backup key's
// passphrase when a backup is chosen → execute with its progress → the
// result; and the recovery of an interrupted operation, offered at start and
// after a failed cleanup.

import { agentName } from '../engine/core/agents.js';
import { formatBytes } from '../engine/core/format.js';
import { t } from '../engine/i18n/index.js';
import type { AgentKind, CleanupPlan, ExecuteOptions, ExecuteResult, PlanAction } from '../engine/core/model.js';
import { isWrongPassphrase } from '../engine/core/passphrase-rule.js';
import { CLEANUP_START, cleanupState, freedLines, residueLines } from '../modals/progress.js';
import { RecoveryModal } from '../modals/recovery.js';
import { ReviewModal } from '../modals/review.js';
import { blockersOf, GroupReviewModal } from '../modals/review-all.js';
import type { AppContext, PassphraseVerdict } from '../screens/screen.js';
import { braces } from '../widgets/theme.js';
import type { AgentScan } from './agent-scan.js';
import type { AppState } from './context.js';
import { allResultLines, type AgentOutcome } from './result-all.js';

export class CleanupFlow {
  constructor(
    private readonly st: AppState,
    private readonly ctx: AppContext,
    private readonly scan: AgentScan,
  ) {}

  /**
   * The one review of everything marked, whatever the agent (#28.1): the
   * review key, and anything else that marks items in several agents (the
   * Overview's suggested plan), open it here. One agent's delete shows the
   * one-agent review; several agents, or Back up only, the grouped one.
   */
  reviewAllMarked(action: 'delete' | 'backupOnly' = 'delete'): void {
    const { st, ctx } = this;
    if (st.flags.readOnly) return ctx.openDialog(t('flow.review'), [t('flow.readOnly')]);
    const marked = st.perAgent.marked(st.selector.map((e) => e.agent));
    if (!marked.length) {
      if (st.summary?.provisional) return ctx.openDialog(t('flow.review'), [t('flow.partial'), '', t('flow.partialWhen')]);
      return ctx.openDialog(t('flow.review'), [t('flow.nothingMarked'), '', t('flow.howToMark')]);
    }
    const requests = marked.map((m) => ({ snapshotId: m.summary.snapshotId, ids: m.ids }));
    // A kept scan the engine has replaced since (a scan the app did not see) would be refused as an older view: say whose.
    const planned = Promise.all(marked.map((m) => st.engine.latestSnapshot(m.agent))).then((latest) => {
      const stale = marked.find((m, i) => latest[i] !== m.summary.snapshotId);
      if (stale) throw new Error(t('flow.staleAgent', { agent: st.nameOf(stale.agent) }));
      return st.engine.planGroup(requests, action);
    });
    ctx.hold(t('flow.preparing'), planned, (plans) => {
      const backupOnly = (): void => this.reviewAllMarked('backupOnly');
      if (plans.length === 1 && action === 'delete') return this.showOneReview(plans[0]!, backupOnly);
      st.modal = new GroupReviewModal(st.screen, st.theme, plans, (runnable, backup) => this.confirmAll(plans, runnable, backup), backupOnly);
    });
  }

  /** The grouped review's confirmation: the backup key's passphrase once when a backup comes first, then one agent after another. */
  private confirmAll(all: CleanupPlan[], runnable: CleanupPlan[], backup: boolean): void {
    // The plans that take a backup go first: a wrong passphrase is then refused before any agent has run.
    const order = backup ? [...runnable.filter((p) => p.backupEligible), ...runnable.filter((p) => !p.backupEligible)] : runnable;
    const skipped = all.filter((p) => !runnable.includes(p));
    if (!backup || !order.some((p) => p.backupEligible)) return void this.runAll(order, skipped, {});
    this.askBackupPassphrase((passphrase) => this.runAll(order, skipped, { backup: true, passphrase }));
  }

  /**
   * One transaction per agent, in turn (each the engine's own plan → journal
   * → preflight → backup → mutate → verify); the first that does not
   * complete stops the rest, which are reported as not started.
   */
  private async runAll(plans: CleanupPlan[], skipped: CleanupPlan[], opts: ExecuteOptions): Promise<PassphraseVerdict> {
    const { st, ctx } = this;
    const outcomes: AgentOutcome[] = [];
    for (const [k, p] of plans.entries()) {
      const own: ExecuteOptions = opts.backup && p.backupEligible ? opts : {};
      let r: ExecuteResult;
      try {
        r = await ctx.busy(
          {
            title: t('pg.titleAgent', { agent: agentName(p.agent), n: String(k + 1), count: String(plans.length) }),
            first: cleanupState({ ...CLEANUP_START, phase: own.backup ? 'key' : 'preflight' }),
            cancel: { stop: () => void st.engine.stopExecution() },
          },
          (update) => st.engine.execute(p.id, own, (pr) => update(cleanupState(pr))),
        );
      } catch (e) {
        // Nothing ran yet: the prompt asks again.
        if (k === 0 && own.backup && isWrongPassphrase(e)) return 'wrong';
        outcomes.push({ plan: p, error: (e as Error).message });
        break;
      }
      if (r.summary) {
        st.perAgent.adopt(r.summary);
        if (r.summary.agent === st.agent) st.summary = r.summary;
        st.summaryChanged();
      }
      outcomes.push({ plan: p, result: r });
      if (r.status !== 'complete') break;
    }
    const backupIds = outcomes.flatMap((o) => (o.result?.backupId ? [o.result.backupId] : []));
    const paths = backupIds.length ? new Map((await st.engine.backupsList().catch(() => [])).map((b) => [b.id, b.path])) : new Map<string, string>();
    const done = outcomes.length === plans.length && outcomes.every((o) => o.result?.status === 'complete');
    const backupOnly = plans[0]?.action === 'backupOnly';
    const title = done ? (backupOnly ? 'flow.backupOnlyTitle' : 'flow.completeTitle') : backupOnly ? 'flow.backupOnlyStopped' : 'flow.stoppedTitle';
    ctx.openDialog(t(title), allResultLines(plans, skipped, outcomes, paths));
    st.summaryChanged();
    if (!done) void this.checkRecovery();
    st.requestRender();
    return undefined;
  }

  /** One agent's delete review, as before the grouped one (its Back up only key opens the grouped review's). */
  private showOneReview(plan: CleanupPlan, backupOnly: () => void): void {
    const { st } = this;
    st.modal = new ReviewModal(
      st.screen,
      st.theme,
      plan,
      blockersOf(plan),
      (backup) => {
        if (!backup) return void this.runCleanup(plan.id, {}, plan.action);
        this.askBackupPassphrase((passphrase) => this.runCleanup(plan.id, { backup: true, passphrase }));
      },
      backupOnly,
    );
  }

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
   * The Overview's suggested plan: its items marked in each agent, then the
   * one review of everything marked, whatever the agent. Marks need their
   * agent's scan (its selection index): an agent the Overview scanned in the
   * background but the app holds no scan of is fetched first (the engine
   * answers from the scan in flight or its newest).
   */
  reviewSuggested(byAgent: Partial<Record<AgentKind, string[]>>): void {
    const { st } = this;
    const wanted = (Object.entries(byAgent) as [AgentKind, string[] | undefined][]).filter(([, ids]) => ids?.length);
    const held = (agent: AgentKind): boolean => (agent === st.agent ? Boolean(st.summary && !st.summary.provisional) : Boolean(st.perAgent.summaryOf(agent)));
    const markAll = (): void => {
      for (const [agent, ids] of wanted) if (held(agent)) st.perAgent.marksOf(agent).addAll(ids!);
      st.requestRender();
      this.reviewAllMarked();
    };
    const missing = wanted.map(([agent]) => agent).filter((agent) => !held(agent));
    if (!missing.length) return markAll();
    this.ctx.hold(t('common.scanning'), Promise.all(missing.map((agent) => st.engine.scan(agent))), (summaries) => {
      for (const s of summaries) st.perAgent.adopt(s);
      markAll();
    });
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
      st.perAgent.adopt(r.summary);
      if (r.summary.agent === st.agent) st.summary = r.summary;
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
