// `clean --plan FILE`: a reviewed plan file back to the usual cleanup
// transaction, only while a fresh scan reproduces it exactly. A plan set
// (`plan --agent all --json`) is one plan file per agent, each checked whole
// exactly as a single agent's file is.

import { agentName } from '../engine/core/agents.js';
import type { Engine } from '../engine/api/engine.js';
import type { AgentKind, CleanupPlan } from '../engine/core/model.js';
import { safe, safeText } from '../engine/core/text.js';
import { UsageError } from './usage-error.js';
import { t } from '../engine/i18n/index.js';
import { readPlanFiles } from '../engine/inventory/retention/plan-file.js';
import type { Printer } from './printer.js';

/**
 * Reads, validates and re-derives every agent's plan against a fresh scan of
 * that agent, in the file's order; refuses (exit 1) when anything of any of
 * them changed, before any runs. `agent`: only that agent's plan of the file.
 */
export async function plansFromFile(engine: Engine, path: string, agent: AgentKind | undefined): Promise<CleanupPlan[]> {
  const all = await readPlanFiles(path);
  const files = agent ? all.filter((f) => f.agent === agent) : all;
  if (!files.length) {
    if (all.length === 1) throw new UsageError(t('cli.err.planAgent', { agent: agentName(all[0]!.agent), kind: all[0]!.agent }));
    throw new UsageError(t('cli.err.planSetAgent', { agents: all.map((f) => f.agent).join(', ') }));
  }
  const plans: CleanupPlan[] = [];
  for (const file of files) {
    const summary = await engine.scan(file.agent);
    plans.push(await engine.planFromFile(summary.snapshotId, file));
  }
  return plans;
}

/** A refusal is one line on stderr; exit 1 (not a usage error), or `code` (2 for a clean without --yes, which never runs). */
export function printRefusal(io: Printer, e: Error, code = 1): number {
  io.err(safe`cleanerx: ${safeText(e.message)}`);
  return code;
}
