// The Overview's line for the agent's own sweep (issue #29 part 6): what
// Claude deletes at its next start, by its cleanupPeriodDays as the pinned
// Claude Code resolves it, and when that is not what the user wrote.

import { formatBytes } from '../engine/core/format.js';
import { t as tr } from '../engine/i18n/index.js';
import type { ScanSummary } from '../engine/core/model.js';

/** Null when the sweep takes nothing at the next start and the rule is what the user wrote. */
export function sweepForecastLine(f: ScanSummary['sweepForecast']): string | null {
  if (!f || (!f.sessions && !f.written)) return null;
  const due = f.sessions
    ? tr('sweep.forecast.line', { agent: f.agentName, sessions: tr('count.sessions', { count: f.sessions }), size: formatBytes(f.bytes), rule: f.rule })
    : tr('sweep.forecast.none', { agent: f.agentName });
  return f.written ? `${due} ${f.written}` : due;
}
