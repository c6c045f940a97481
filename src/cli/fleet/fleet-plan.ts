// `cleanerx fleet plan HOST… --agent A [rules] --out DIR [--json]`: each
// host makes its own plan (`cleanerx plan … --json` there, against its own
// store), and the plan file is saved as DIR/HOST.plan.json, the same schema
// `clean --plan` runs. A plan is checked against that schema before it is
// written, so a host that sends anything else is a row with its reason.
// Nothing is removed anywhere.

import { agentName } from '../../engine/core/agents.js';
import { join } from 'node:path';
import { formatBytes, formatCount } from '../../engine/core/format.js';
import { t } from '../../engine/i18n/index.js';
import type { AgentKind } from '../../engine/core/model.js';
import { padWidth, safe, safeJson, safeText, type SafeText } from '../../engine/core/text.js';
import { parseBoundedJson } from '../../engine/core/bounded-json.js';
import { writeFileAtomic } from '../../engine/host/atomic.js';
import { type PlanFile, validatePlanFile } from '../../engine/inventory/retention/plan-file.js';
import type { RetentionRules } from '../../engine/inventory/retention/rules.js';
import { ruleFlags } from '../plan-rules.js';
import type { Printer } from '../printer.js';
import { type HostProblem, sshProblem } from './outcome.js';
import { mapLimit, runSsh, type SshSettings } from './ssh-runner.js';

interface FleetPlanOptions {
  hosts: string[];
  agent: AgentKind;
  rules: RetentionRules;
  action?: 'archive' | 'unarchive';
  out: string;
  json: boolean;
  ssh: SshSettings;
  parallel: number;
}

interface HostPlan {
  host: string;
  status: 'ok' | HostProblem['status'];
  reason: string | null;
  file: string | null;
  items: number;
  bytes: number;
  skipped: number;
}

const MAX_PLAN = 256 * 1024 * 1024;

/** A host's plan is saved as HOST.plan.json (host names are checked: no '/', no leading '-'). */
export const PLAN_SUFFIX = '.plan.json';

export function remotePlanCommand(agent: AgentKind, rules: RetentionRules, action: 'archive' | 'unarchive' | undefined): string {
  return `cleanerx plan --agent ${agent} ${ruleFlags(rules)}${action ? ` --${action}` : ''} --json`;
}

async function planOn(host: string, command: string, opts: FleetPlanOptions): Promise<HostPlan> {
  const none = { host, file: null, items: 0, bytes: 0, skipped: 0 };
  const r = await runSsh(opts.ssh, host, command, null, MAX_PLAN);
  const problem = sshProblem(r, opts.ssh.timeoutSeconds);
  if (problem) return { ...none, ...problem };
  let plan: PlanFile;
  try {
    plan = validatePlanFile(parseBoundedJson(r.stdout));
  } catch {
    return { ...none, status: 'failed', reason: t('fleet.reason.notPlan') };
  }
  if (plan.agent !== opts.agent) return { ...none, status: 'failed', reason: t('fleet.reason.notPlan') };
  const file = join(opts.out, host + PLAN_SUFFIX);
  // Byte for byte what the host printed: the plan it will re-derive and compare.
  await writeFileAtomic(file, r.stdout.endsWith('\n') ? r.stdout : `${r.stdout}\n`);
  return { host, status: 'ok', reason: null, file, items: plan.totals.items, bytes: plan.totals.bytes, skipped: plan.totals.skipped };
}

export async function runFleetPlan(opts: FleetPlanOptions, { io }: { io: Printer }): Promise<number> {
  const command = remotePlanCommand(opts.agent, opts.rules, opts.action);
  const hosts = await mapLimit(opts.hosts, opts.parallel, (host) => planOn(host, command, opts));
  if (opts.json) io.out(safeJson({ formatVersion: 1, kind: 'cleanerx-fleet-plan', agent: opts.agent, hosts }));
  else io.out(...planLines(opts.agent, hosts));
  return hosts.every((h) => h.status === 'ok') ? 0 : 1;
}

function planLines(agent: AgentKind, hosts: HostPlan[]): SafeText[] {
  const out: SafeText[] = [];
  for (const h of hosts) {
    const head = padWidth(h.host, 22);
    if (h.status !== 'ok') out.push(safe`${head} ${safeText(t(`fleet.status.${h.status}`))}: ${safeText(h.reason ?? '', 300)}`);
    else
      out.push(
        safe`${head} ${safeText(
          t('fleet.plan.line', {
            agent: agentName(agent),
            items: t('count.items', { count: h.items }),
            bytes: formatBytes(h.bytes),
            skipped: formatCount(h.skipped),
            file: h.file ?? '',
          }),
        )}`,
      );
  }
  if (hosts.some((h) => h.status === 'ok')) out.push(safeText(t('fleet.plan.next')));
  return out;
}
