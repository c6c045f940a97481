// Claude's own sweep, read only: at its first start each day Claude deletes
// transcripts (and their side dirs) whose file is older than
// `cleanupPeriodDays` (settings.json under CLAUDE_CONFIG_DIR, default 30).
// Only that one key is taken from settings.json, which is read bounded and
// never written; nothing else of it is kept.

import { join } from 'node:path';
import { attachSweep, type AgentSweep } from '../../engine/inventory/agent-sweep.js';
import { BoundedReadError, readRegularTextAsync } from '../../engine/host/bounded-read.js';
import type { Inventory } from '../../engine/core/model.js';

const DEFAULT_CLEANUP_PERIOD_DAYS = 30;
/** A settings file is a few KB; past this it is not read. */
const MAX_SETTINGS_BYTES = 1024 * 1024;

export async function claudeSweep(home: string): Promise<AgentSweep> {
  const path = join(home, 'settings.json');
  // Desktop transcripts are exempt from cleanupPeriodDays (desktopSessionCleanupPeriodDays covers them; not read).
  const base = {
    agentName: 'Claude',
    itemRules: [],
    exempt: {
      sources: ['claude-desktop'],
      text: "Claude's cleanupPeriodDays does not apply to desktop-app sessions (their own setting, desktopSessionCleanupPeriodDays, is not read by cleanerx).",
    },
  };
  const byDefault: AgentSweep = {
    ...base,
    sessionDays: DEFAULT_CLEANUP_PERIOD_DAYS,
    sessionRule: `cleanupPeriodDays ${DEFAULT_CLEANUP_PERIOD_DAYS}, the default`,
    itemRules: orphanRule(DEFAULT_CLEANUP_PERIOD_DAYS),
  };
  let value: unknown;
  try {
    value = pickCleanupPeriod(await readRegularTextAsync(path, MAX_SETTINGS_BYTES));
  } catch (e) {
    if (e instanceof BoundedReadError && e.reason === 'missing') return byDefault;
    const why =
      e instanceof SyntaxError ? `${path} is not valid JSON` : e instanceof BoundedReadError ? e.message.replace(/\.$/, '') : `${path} cannot be read`;
    return {
      ...base,
      sessionDays: 'unknown',
      sessionRule: `cleanerx could not read cleanupPeriodDays (${why})`,
      warning: `Claude's cleanupPeriodDays is unknown: ${why}.`,
    };
  }
  if (value === undefined) return byDefault;
  // 0 was documented as "disable cleanup"; Claude then also stops writing transcripts (anthropics/claude-code #23710).
  if (value === 0) return { ...base, sessionDays: 'never', sessionRule: 'cleanupPeriodDays is 0 in settings.json' };
  if (typeof value === 'number' && Number.isInteger(value) && value > 0)
    return { ...base, sessionDays: value, sessionRule: `cleanupPeriodDays ${value} in settings.json`, itemRules: orphanRule(value) };
  return { ...base, sessionDays: 'unknown', sessionRule: 'cleanupPeriodDays in settings.json is not a whole number of days' };
}

/** Leftover per-session dirs (tasks, file-history, debug, …) go by their dir's mtime in the same sweep. */
function orphanRule(days: number): AgentSweep['itemRules'] {
  return [
    { id: 'orphan:claude:', text: `Claude deletes the entries here whose folder is older than ${days} days at its first start each day (cleanupPeriodDays).` },
  ];
}

/** The value of the top-level key only; the parsed object is dropped here. */
function pickCleanupPeriod(text: string): unknown {
  const o: unknown = JSON.parse(text);
  if (!o || typeof o !== 'object' || Array.isArray(o)) return undefined;
  return Object.hasOwn(o, 'cleanupPeriodDays') ? (o as Record<string, unknown>).cleanupPeriodDays : undefined;
}

/** Attaches Claude's sweep to a finished scan (its warning joins the scan's). */
export async function withClaudeSweep(inv: Inventory, home: string): Promise<Inventory> {
  return attachSweep(inv, await claudeSweep(home), join(home, 'settings.json'));
}
