// The one result of a review that ran several agents in turn (#28.1), or
// Back up only (#29.6): per agent what was removed (or backed up, and where
// the backup is), its residue verdict counts and the space freed; the agent
// that failed and why; the agents not started after it; the blocked ones
// skipped. Tag-safe lines for the result dialog.

import { agentName } from '../engine/core/agents.js';
import { formatBytes } from '../engine/core/format.js';
import { t } from '../engine/i18n/index.js';
import type { CleanupPlan, ExecuteResult } from '../engine/core/model.js';
import { freedLines, residueLines } from '../modals/progress.js';
import { blockersOf } from '../modals/review-all.js';
import { wrapWords } from '../widgets/detail-pane.js';
import { braces } from '../widgets/theme.js';

/** One agent's run: its result, or the error that kept it from starting. */
export interface AgentOutcome {
  plan: CleanupPlan;
  result?: ExecuteResult;
  error?: string;
}

/** The dialog's text width at 80 columns (as the residue lines wrap). */
const WIDTH = 72;

const wrapped = (text: string, indent = ''): string[] => wrapWords(text, WIDTH - indent.length).map((l, k) => braces(`${k ? `${indent}  ` : indent}${l}`));

function doneLines(o: AgentOutcome & { result: ExecuteResult }, paths: ReadonlyMap<string, string>): string[] {
  const r = o.result;
  const agent = agentName(o.plan.agent);
  if (o.plan.action === 'backupOnly') {
    const out = wrapped(t('flow.agentLine', { agent, text: r.message }));
    const path = r.backupId ? paths.get(r.backupId) : undefined;
    if (path) out.push(...wrapped(t('flow.backupWhere', { path }), '  '));
    return out;
  }
  const out = wrapped(
    t('flow.agentLine', { agent, text: t('flow.removed', { items: t('count.items', { count: r.removedItems }), bytes: formatBytes(r.removedBytes) }) }),
  );
  if (r.backupId) out.push(...wrapped(t('flow.backupVerified', { id: r.backupId }), '  '));
  // The measured total and its reasons; the heading would repeat for every agent.
  for (const l of freedLines(r.freed).slice(1)) out.push(`  ${l}`);
  // residueLines starts with its own blank line.
  for (const l of residueLines(r.residue).slice(1)) out.push(`  ${l}`);
  return out;
}

export function allResultLines(plans: CleanupPlan[], skipped: CleanupPlan[], outcomes: AgentOutcome[], paths: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  const gap = (): void => void (out.length && out.push(''));
  for (const o of outcomes) {
    gap();
    const agent = agentName(o.plan.agent);
    if (o.result?.status === 'complete') out.push(...doneLines(o as AgentOutcome & { result: ExecuteResult }, paths));
    else {
      out.push(...wrapped(t('flow.agentFailed', { agent, why: o.result?.message ?? o.error ?? '' })));
      out.push(...wrapped(t('flow.failedSafe'), '  '));
      if (o.result) for (const l of residueLines(o.result.residue).slice(1)) out.push(`  ${l}`);
    }
  }
  for (const p of plans.slice(outcomes.length)) {
    gap();
    out.push(...wrapped(t('flow.agentNotStarted', { agent: agentName(p.agent) })));
  }
  for (const p of skipped) {
    gap();
    out.push(...wrapped(t('flow.agentSkipped', { agent: agentName(p.agent), why: blockersOf(p)[0] ?? '' })));
  }
  if (plans[0]?.action === 'backupOnly') out.push('', ...wrapped(t('flow.backupOnlyNothingRemoved')));
  else if (outcomes.some((o) => o.result?.status === 'complete')) out.push('', ...wrapped(t('flow.confirmedAll')));
  // A run that stopped (or skipped a blocked agent) leaves marks behind: the way on is one key.
  const stopped = outcomes.length < plans.length || outcomes.some((o) => o.result?.status !== 'complete');
  if (plans[0]?.action !== 'backupOnly' && (stopped || skipped.length)) out.push('', ...wrapped(t('flow.reviewRest')));
  return out;
}
