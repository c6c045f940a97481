// `cleanerx plan` and `cleanerx clean --plan FILE`: retention rules from the
// command line to a reviewable plan, and a reviewed plan file back to the
// usual cleanup transaction — only while a fresh scan reproduces it exactly.

import type { Engine } from './engine/api/engine.js';
import { formatBytes, formatCount } from './engine/core/format.js';
import { AGENT_NAMES, type AgentKind, type CleanupPlan } from './engine/core/model.js';
import { UsageError } from './engine/host/own-dirs.js';
import { readPlanFile, type PlanFile } from './engine/inventory/retention/plan-file.js';
import { parseDuration, parseSize, rulesEmpty, type RetentionRules } from './engine/inventory/retention/rules.js';
import { safe, safeJson, safeText, type SafeText } from './engine/core/text.js';
import { printErr, printOut } from './terminal-out.js';

export interface RuleArgs {
  'older-than'?: string;
  'larger-than'?: string;
  'keep-latest'?: string;
  empty?: boolean;
  orphans?: boolean;
  project?: string;
  source?: string;
  state?: string;
}

/** The command line's rules, or a UsageError (exit 2) naming the bad value. */
export function rulesFromArgs(a: RuleArgs): RetentionRules {
  const r: RetentionRules = {};
  const shown = (v: string): string => v.replace(/[^\x20-\x7e]/g, '?').slice(0, 40);
  if (a['older-than'] !== undefined) {
    const d = parseDuration(String(a['older-than']));
    if (d === null) throw new UsageError(`--older-than needs a duration such as 30d, 2w or 48h (got "${shown(String(a['older-than']))}").`);
    r.olderThanDays = d;
  }
  if (a['larger-than'] !== undefined) {
    const b = parseSize(String(a['larger-than']));
    if (b === null) throw new UsageError(`--larger-than needs a size such as 500M, 1.5G or 20KiB (got "${shown(String(a['larger-than']))}").`);
    r.largerThanBytes = b;
  }
  if (a['keep-latest'] !== undefined) {
    const s = String(a['keep-latest']);
    if (!/^\d{1,7}$/.test(s)) throw new UsageError(`--keep-latest needs a whole number of sessions to keep per project (got "${shown(s)}").`);
    r.keepLatest = Number(s);
  }
  if (a.empty) r.empty = true;
  if (a.orphans) r.orphans = true;
  if (a.project !== undefined) r.project = String(a.project);
  if (a.source !== undefined) r.source = String(a.source);
  if (a.state !== undefined) r.state = a.state as 'current' | 'archived';
  if (rulesEmpty(r)) throw new UsageError('plan needs at least one rule (--older-than, --larger-than, --keep-latest, --empty, --orphans, --project, --source or --state).');
  return r;
}

export async function planCommand(engine: Engine, agent: AgentKind, rules: RetentionRules, json: boolean): Promise<number> {
  const summary = await engine.scan(agent);
  const { file } = await engine.retentionPlan(summary.snapshotId, rules);
  if (json) {
    printOut(safeJson(file));
    return 0;
  }
  printOut(...planLines(file));
  return 0;
}

function planLines(file: PlanFile): SafeText[] {
  const out: SafeText[] = [];
  out.push(safe`${AGENT_NAMES[file.agent]} home: ${safeText(file.snapshot.home)}`);
  out.push(safe`Plan: ${formatCount(file.totals.items)} items, ${formatBytes(file.totals.bytes)}${file.totals.skipped ? safe`; ${formatCount(file.totals.skipped)} skipped` : ''}`);
  for (const i of file.items) {
    out.push(safe`  ${i.removedWith ? '  └ ' : ''}${safeText(i.id)}  ${formatBytes(i.bytes)}  ${safeText(i.title, 200)} — ${safeText(i.reason, 200)}`);
  }
  for (const s of file.skipped) out.push(safe`  skipped ${safeText(s.id)}  ${safeText(s.title, 200)} — ${safeText(s.reason, 300)}`);
  for (const n of file.notes) out.push(safeText(n));
  if (file.items.length) out.push(safe`Nothing was removed. To run exactly this plan: cleanerx plan --agent ${file.agent} ${safeText(ruleFlags(file.rules))} --json > plan.json, then cleanerx clean --plan plan.json --yes`);
  else out.push(safe`No session matches these rules.`);
  return out;
}

const shellWord = (s: string): string => (/^[\w./:@%+=-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** The command-line flags that give these rules (for the line that says how to run the plan). */
export function ruleFlags(r: RetentionRules): string {
  const f: string[] = [];
  if (r.olderThanDays !== undefined) f.push(`--older-than ${r.olderThanDays}d`);
  if (r.largerThanBytes !== undefined) f.push(`--larger-than ${r.largerThanBytes}`);
  if (r.keepLatest !== undefined) f.push(`--keep-latest ${r.keepLatest}`);
  if (r.empty) f.push('--empty');
  if (r.orphans) f.push('--orphans');
  if (r.project !== undefined) f.push(`--project ${shellWord(r.project)}`);
  if (r.source !== undefined) f.push(`--source ${shellWord(r.source)}`);
  if (r.state !== undefined) f.push(`--state ${r.state}`);
  return f.join(' ');
}

/** Reads, validates and re-derives the plan file against a fresh scan; refuses (exit 1) when anything changed. */
export async function planFromFileCommand(engine: Engine, path: string, agent: AgentKind | undefined): Promise<CleanupPlan> {
  const file = await readPlanFile(path);
  if (agent && agent !== file.agent) throw new UsageError(`The plan is for ${AGENT_NAMES[file.agent]}; drop --agent or pass --agent ${file.agent}.`);
  const summary = await engine.scan(file.agent);
  return engine.planFromFile(summary.snapshotId, file);
}

/** A refusal is one line on stderr and exit 1 (not a usage error). */
export function printRefusal(e: Error): number {
  printErr(safe`cleanerx: ${safeText(e.message)}`);
  return 1;
}
