// `cleanerx plan`: retention rules to a reviewable plan (text, or the
// versioned plan file that `clean --plan` runs). Nothing is removed.

import { agentName } from '../engine/core/agents.js';
import { formatBytes, formatCount } from '../engine/core/format.js';
import type { AgentKind } from '../engine/core/model.js';
import { safe, safeJson, safeText, type SafeText } from '../engine/core/text.js';
import type { Engine } from '../engine/api/engine.js';
import { UsageError } from './usage-error.js';
import type { PlanFile, PlanSetFile } from '../engine/inventory/retention/plan-file.js';
import type { RetentionRules } from '../engine/inventory/retention/rules.js';
import type { EngineFactory } from './engine-factory.js';
import { ruleFlags } from './plan-rules.js';
import type { Printer } from './printer.js';
import { say } from './say.js';
import { t } from '../engine/i18n/index.js';

export interface PlanOptions {
  /** One agent, or all: every agent with data, one plan file each, in the registry's order. */
  agent: AgentKind | 'all';
  rules: RetentionRules;
  json: boolean;
  readOnly: boolean;
  /** --archive / --unarchive: the matching sessions are archived (or unarchived) instead of removed. */
  action?: 'archive' | 'unarchive';
}

interface PlanDeps {
  engine: EngineFactory;
  io: Printer;
}

export async function runPlan(opts: PlanOptions, { engine: makeEngine, io }: PlanDeps): Promise<number> {
  if (opts.action && opts.rules.items) throw new UsageError(t('cli.err.itemsArchive'));
  if (opts.agent === 'all') {
    if (opts.action) throw new UsageError(t('cli.err.allArchive'));
    return runPlanAll(opts, await makeEngine({ readOnly: opts.readOnly }), io);
  }
  const engine = await makeEngine({ readOnly: opts.readOnly });
  // pi has no archive route: refused in one sentence (exit 2) before a plan that could never run is written.
  if (opts.action) engine.assertActionRoute(opts.agent, opts.action);
  const summary = await engine.scan(opts.agent);
  const { file } = await engine.retentionPlan(summary.snapshotId, opts.rules, opts.action);
  if (opts.json) {
    io.out(safeJson(file));
    return 0;
  }
  io.out(...planLines(file));
  return 0;
}

/** `plan --agent all`: each agent with data scanned and planned in turn; the file is a plan set of the agents whose plan lists something. */
async function runPlanAll(opts: PlanOptions, engine: Engine, io: Printer): Promise<number> {
  const found = (await engine.detect()).filter((i) => i.state !== 'notFound');
  const files: PlanFile[] = [];
  for (const inst of found) {
    const summary = await engine.scan(inst.agent);
    files.push((await engine.retentionPlan(summary.snapshotId, opts.rules)).file);
  }
  const listed = files.filter((f) => f.items.length > 0);
  if (opts.json) {
    const set: PlanSetFile = { version: 1, plans: listed };
    io.out(safeJson(set));
    return 0;
  }
  for (const f of files) {
    if (!f.items.length) {
      io.out(say('cli.plan.agentNone', { agent: agentName(f.agent) }));
      continue;
    }
    // Each agent's lines as its own plan shows them, without the hint: one hint for the whole set follows.
    io.out(...planLines(f, false));
  }
  const items = listed.reduce((a, f) => a + f.items.length, 0);
  const bytes = listed.reduce((a, f) => a + f.totals.bytes, 0);
  io.out(say('cli.plan.allTotals', { items: t('count.items', { count: items }), bytes: formatBytes(bytes) }));
  if (items) io.out(say('cli.plan.howToRunAll', { flags: safeText(ruleFlags(opts.rules)) }));
  else io.out(say('cli.plan.none'));
  return 0;
}

function planLines(file: PlanFile, hint = true): SafeText[] {
  const out: SafeText[] = [];
  out.push(say('cli.home', { agent: agentName(file.agent), home: safeText(file.snapshot.home) }));
  const totals = { items: t('count.items', { count: file.totals.items }), bytes: formatBytes(file.totals.bytes), skipped: formatCount(file.totals.skipped) };
  out.push(say(file.totals.skipped ? 'cli.plan.totalsSkipped' : 'cli.plan.totals', totals));
  for (const i of file.items) {
    out.push(safe`  ${i.removedWith ? '  └ ' : ''}${safeText(i.id)}  ${formatBytes(i.bytes)}  ${safeText(i.title, 200)} — ${safeText(i.reason, 200)}`);
  }
  for (const s of file.skipped) out.push(say('cli.plan.skipped', { id: safeText(s.id), title: safeText(s.title, 200), reason: safeText(s.reason, 300) }));
  for (const n of file.notes) out.push(safeText(n));
  // Every flag that shaped the plan, so that following the hint makes this very plan (an archive plan stays an archive plan).
  const flags = [ruleFlags(file.rules), ...(file.action ? [`--${file.action}`] : [])].join(' ');
  if (!hint) return out;
  if (file.items.length) out.push(say('cli.plan.howToRun', { agent: file.agent, flags: safeText(flags) }));
  else out.push(say('cli.plan.none'));
  return out;
}
