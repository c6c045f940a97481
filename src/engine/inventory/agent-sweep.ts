// The agent's own sweep: what an agent deletes by itself, and when, so the
// detail pane can say "Claude deletes this transcript on DATE" before the
// user cleans by hand what would go anyway. Adapters read the rule (their
// settings, read only); this module only words it.

import { formatDate } from '../core/format.js';
import type { AgentSweep } from '../core/model.js';

export type { AgentSweep } from '../core/model.js';

const DAY = 24 * 60 * 60 * 1000;

/** The sentence for a session of `source` last changed at `updatedAt`, seen at `now`; null when there is nothing to say. */
export function sessionSweepText(sweep: AgentSweep, updatedAt: number | null, now: number, source = ''): string | null {
  if (sweep.sessionDays === null) return null;
  if (sweep.exempt?.sources.includes(source)) return sweep.exempt.text;
  if (sweep.sessionDays === 'never') return `${sweep.agentName} does not delete this transcript by itself (${sweep.sessionRule}).`;
  if (sweep.sessionDays === 'unknown') return `When ${sweep.agentName} deletes this transcript by itself is not known: ${sweep.sessionRule}.`;
  if (updatedAt == null || !Number.isFinite(updatedAt)) return null;
  const due = updatedAt + sweep.sessionDays * DAY;
  if (due <= now) return `${sweep.agentName} deletes this transcript at its next start: it is older than ${sweep.sessionDays} days (${sweep.sessionRule}).`;
  return `${sweep.agentName} deletes this transcript on ${formatDate(due)} UTC, at its first start from then on, unless it changes (${sweep.sessionRule}).`;
}

export function itemSweepText(sweep: AgentSweep, itemId: string): string | null {
  const rule = sweep.itemRules.find((r) => (r.id.endsWith(':') ? itemId.startsWith(r.id) : itemId === r.id));
  return rule?.text ?? null;
}

/** Attaches an agent's sweep to a finished scan (its warning joins the scan's, on `warningPath`). */
export function attachSweep<T extends { sweep?: AgentSweep; warnings: { path: string; reason: string }[] }>(inv: T, sweep: AgentSweep, warningPath = ''): T {
  inv.sweep = sweep;
  if (sweep.warning) inv.warnings.push({ path: warningPath, reason: sweep.warning });
  return inv;
}
