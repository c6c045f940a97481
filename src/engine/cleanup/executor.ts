// Executes a reviewed plan: journal → preflight → (backup) → mutate →
// verify. The journal is created before anything changes and every
// transition is written before execution continues; operations run in
// order and none is skipped; a final rescan is the only proof of success.
// Each step is its own module: executor-run (the journal, the run's early
// ends), executor-preflight, executor-backup, executor-mutate (with
// executor-official for the agents' routes) and executor-verify.

import { agentName } from '../core/agents.js';
import { acquireAgentLock, AgentLockError, liveLockHolder } from './agent-lock.js';
import { listJournals, TERMINAL } from './journal.js';
import type { AgentKind, CleanupPlan, ExecuteProgress, ExecuteResult } from '../core/model.js';
import { ParentHandles } from './path-safety.js';
import { planBlockers } from './planner.js';
import { RequestError } from '../core/validate.js';
import { t } from '../i18n/index.js';
import { isFailed, openRun, type BackupRequest, type ExecutorDeps } from './executor-run.js';
import { preflightStep } from './executor-preflight.js';
import { backupStep, finishBackupOnly } from './executor-backup.js';
import { mutateState } from './executor-mutate-state.js';
import { mutateStep } from './executor-mutate.js';
import { verifyStep } from './executor-verify.js';

export type { BackupRequest, ExecutorDeps } from './executor-run.js';

/**
 * Refuses to start while an unknown journal exists, or an unfinished one for
 * this agent. A cleanup that is still running holds the agent's lock and its
 * journal is unfinished: that is "running (pid)", never "needs recovery".
 */
export async function assertNoPendingJournal(stateDir: string, agent: AgentKind): Promise<void> {
  for (const e of await listJournals(stateDir)) {
    if (e.kind === 'unknown') throw new RequestError(`An unrecognized cleanup journal blocks all cleanup: ${e.path} (${e.reason})`);
    if (e.journal.agent === agent && !TERMINAL.includes(e.journal.status)) {
      const running = liveLockHolder(stateDir, agent);
      // Our own lock (the executor holds it while it checks) is no other cleanup.
      if (running && running.pid !== process.pid) {
        throw new AgentLockError(
          t('lock.running', { agent: agentName(agent), pid: String(running.pid), started: String(running.startedAt), command: String(running.command) }),
          running,
        );
      }
      throw new RequestError(`An unfinished ${agentName(agent)} cleanup needs recovery first (operation ${e.journal.operationId}).`);
    }
  }
}

export async function executePlan(
  plan: CleanupPlan,
  deps: ExecutorDeps,
  onProgress: (p: ExecuteProgress) => void,
  backup?: BackupRequest,
): Promise<ExecuteResult> {
  if (deps.latestSnapshotId(plan.agent) !== plan.snapshotId) throw new RequestError('This plan belongs to an older scan; review it again.');
  const blockers = planBlockers(plan);
  if (blockers.length) throw new RequestError(`The plan has blockers: ${blockers[0]}`);
  // Two cleanups of one agent would each trust a preflight the other invalidates.
  const lock = acquireAgentLock(deps.stateDir, plan.agent);
  try {
    return await executeLocked(plan, deps, onProgress, backup);
  } finally {
    lock.release();
  }
}

async function executeLocked(plan: CleanupPlan, deps: ExecutorDeps, onProgress: (p: ExecuteProgress) => void, backup?: BackupRequest): Promise<ExecuteResult> {
  // The backup's warnings (entries it cannot hold) belong to every result after it, failed or not.
  const warnings: string[] = [];
  // Held for the run: the parents of the planned paths, opened once each instead of once per path.
  const parents = new ParentHandles();
  let r: ExecuteResult;
  try {
    r = await executeSteps(plan, deps, onProgress, warnings, parents, backup);
  } finally {
    parents.close();
  }
  return warnings.length ? { ...r, warnings: [...(r.warnings ?? []), ...warnings] } : r;
}

/** The named steps in their order: journal → preflight → (backup) → mutate → verify. */
async function executeSteps(
  plan: CleanupPlan,
  deps: ExecutorDeps,
  onProgress: (p: ExecuteProgress) => void,
  warnings: string[],
  parents: ParentHandles,
  backup?: BackupRequest,
): Promise<ExecuteResult> {
  const snap = deps.snapshot(plan.snapshotId);
  await assertNoPendingJournal(deps.stateDir, plan.agent);
  const run = await openRun(plan, deps, snap, onProgress, warnings, parents, Boolean(backup));
  const pre = await preflightStep(run);
  if (isFailed(pre)) return pre.failed;
  const taken = await backupStep(run, backup);
  if (isFailed(taken)) return taken.failed;
  if (plan.action === 'backupOnly') return finishBackupOnly(run, taken.backupId);
  const st = mutateState(plan, pre.safety, pre.identities, taken.revisionAfterExport);
  const failed = await mutateStep(run, st);
  if (failed) return failed.failed;
  return verifyStep(run, st.done, st.bytesDone, taken.backupId);
}
