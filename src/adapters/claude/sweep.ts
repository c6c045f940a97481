// Claude's own sweep, read only: at its first start each day Claude deletes
// transcripts (and their side dirs) whose file is older than
// `cleanupPeriodDays`, resolved over its settings files the way the pinned
// Claude Code does (sweep-settings.ts). Only that one key is taken from each
// file, which is read bounded and never written; nothing else of it is kept.

import { attachSweep, type AgentSweep } from '../../engine/inventory/agent-sweep.js';
import type { Inventory } from '../../engine/core/model.js';
import { resolveCleanupPeriod, type SweepPlaces, sourceFiles, writtenDiffers } from './sweep-settings.js';

export async function claudeSweep(home: string, where: SweepPlaces = {}): Promise<AgentSweep> {
  // Desktop transcripts are exempt from cleanupPeriodDays (desktopSessionCleanupPeriodDays covers them; not read).
  const base = {
    agentName: 'Claude',
    itemRules: [],
    exempt: {
      sources: ['claude-desktop'],
      text: "Claude's cleanupPeriodDays does not apply to desktop-app sessions (their own setting, desktopSessionCleanupPeriodDays, is not read by cleanerx).",
    },
  };
  const p = await resolveCleanupPeriod(home, where);
  if (!p.known) {
    return {
      ...base,
      sessionDays: 'unknown',
      sessionRule: `cleanerx could not read cleanupPeriodDays (${p.why})`,
      warning: `Claude's cleanupPeriodDays is unknown: ${p.why}.`,
    };
  }
  const differs = writtenDiffers(p);
  const notJson = p.written.find((w) => w.ignored === 'notJson');
  return {
    ...base,
    sessionDays: p.days,
    sessionRule: p.source === 'default' ? `cleanupPeriodDays ${p.days}, the default` : `cleanupPeriodDays ${p.days} in ${p.label}`,
    itemRules: orphanRule(p.days),
    resolution: { days: p.days, source: p.source, path: p.source === 'default' ? null : (p.written.find((w) => !w.ignored)?.path ?? null) },
    ...(differs ? { written: differs } : {}),
    ...(notJson ? { warning: `${notJson.path} is not valid JSON: Claude ignores all of its settings (${differs ?? ''})`.replace(' ()', '') } : {}),
  };
}

/** Leftover per-session dirs (tasks, file-history, debug, …) go by their dir's mtime in the same sweep. */
function orphanRule(days: number): AgentSweep['itemRules'] {
  return [
    { id: 'orphan:claude:', text: `Claude deletes the entries here whose folder is older than ${days} days at its first start each day (cleanupPeriodDays).` },
  ];
}

/** Attaches Claude's sweep to a finished scan (its warning joins the scan's, on the file it is about). */
export async function withClaudeSweep(inv: Inventory, home: string, where: SweepPlaces = {}): Promise<Inventory> {
  const sweep = await claudeSweep(home, where);
  const files = sourceFiles(home, where);
  const about = files.find((f) => sweep.warning?.includes(f.path))?.path ?? files[0]!.path;
  return attachSweep(inv, sweep, about);
}
