// `clean --plan FILE`: a reviewed plan file back to the usual cleanup
// transaction, only while a fresh scan reproduces it exactly.

import { agentName } from '../engine/core/agents.js';
import type { Engine } from '../engine/api/engine.js';
import type { AgentKind, CleanupPlan } from '../engine/core/model.js';
import { safe, safeText } from '../engine/core/text.js';
import { UsageError } from '../engine/host/own-dirs.js';
import { t } from '../engine/core/i18n/index.js';
import { readPlanFile } from '../engine/inventory/retention/plan-file.js';
import type { Printer } from './printer.js';

/** Reads, validates and re-derives the plan file against a fresh scan; refuses (exit 1) when anything changed. */
export async function planFromFile(engine: Engine, path: string, agent: AgentKind | undefined): Promise<CleanupPlan> {
  const file = await readPlanFile(path);
  if (agent && agent !== file.agent) throw new UsageError(t('cli.err.planAgent', { agent: agentName(file.agent), kind: file.agent }));
  const summary = await engine.scan(file.agent);
  return engine.planFromFile(summary.snapshotId, file);
}

/** A refusal is one line on stderr; exit 1 (not a usage error), or `code` (2 for a clean without --yes, which never runs). */
export function printRefusal(io: Printer, e: Error, code = 1): number {
  io.err(safe`cleanerx: ${safeText(e.message)}`);
  return code;
}
