// `cleanerx fleet clean --plans DIR --yes [--backup]`: each DIR/HOST.plan.json
// goes to its host on ssh's stdin (into a private temp file there) and the
// host runs `cleanerx clean --plan FILE --yes` on it. Each host's
// transaction — rescan, refusal when its store changed, journal, backup,
// verification — stays on that host; a host that refuses or fails does not
// stop the others. One summary line per host; exit 1 when any host did not
// complete, 2 (nothing sent anywhere) without --yes.

import { agentName } from '../../engine/core/agents.js';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseBoundedJson } from '../../engine/core/bounded-json.js';
import { formatBytes } from '../../engine/core/format.js';
import { t } from '../../engine/i18n/index.js';
import type { AgentKind } from '../../engine/core/model.js';
import { padWidth, safe, safeJson, safeText, type SafeText } from '../../engine/core/text.js';
import { readRegularText } from '../../engine/host/bounded-read.js';
import { UsageError } from '../usage-error.js';
import { validatePlanFile } from '../../engine/inventory/retention/plan-file.js';
import type { PassphraseReader } from '../passphrase.js';
import type { Printer } from '../printer.js';
import { say } from '../say.js';
import { checkHost, shownHost } from './fleet-hosts.js';
import { PLAN_SUFFIX } from './fleet-plan.js';
import { type HostProblem, lastLine, sshProblem } from './outcome.js';
import { mapLimit, runSsh, type SshSettings } from './ssh-runner.js';

interface FleetCleanOptions {
  plans: string;
  yes: boolean;
  backup: boolean;
  json: boolean;
  ssh: SshSettings;
  parallel: number;
}

interface HostPlanFile {
  host: string;
  agent: AgentKind;
  items: number;
  bytes: number;
  text: string;
}

interface HostClean {
  host: string;
  agent: AgentKind;
  status: 'complete' | HostProblem['status'];
  reason: string | null;
  operationId: string | null;
  removedItems: number;
  removedBytes: number;
  backupId: string | null;
}

const MAX_PLAN = 256 * 1024 * 1024;
/** The remote temp file's path, as the host's mktemp printed it: only then is it put into a command. */
const REMOTE_PATH = /^\/[A-Za-z0-9._/-]{1,200}$/;
const UPLOAD = `umask 077 && f=$(mktemp "\${TMPDIR:-/tmp}/cleanerx-plan.XXXXXXXX") && cat > "$f" && printf '%s\\n' "$f"`;

/** Every DIR/HOST.plan.json, read and checked here first: a file that is no plan is a usage error before any host is contacted. */
function readPlans(dir: string): HostPlanFile[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith(PLAN_SUFFIX) && !n.startsWith('.'));
  } catch (e) {
    throw new UsageError(t('fleet.err.plansDir', { dir: shownHost(dir), reason: (e as Error).message }));
  }
  names.sort();
  const out: HostPlanFile[] = [];
  for (const name of names) {
    const host = checkHost(name.slice(0, -PLAN_SUFFIX.length));
    let text: string;
    let plan: ReturnType<typeof validatePlanFile>;
    try {
      text = readRegularText(join(dir, name), MAX_PLAN);
      plan = validatePlanFile(parseBoundedJson(text));
    } catch (e) {
      throw new UsageError(t('fleet.err.badPlan', { file: shownHost(name), reason: (e as Error).message }));
    }
    out.push({ host, agent: plan.agent, items: plan.totals.items, bytes: plan.totals.bytes, text });
  }
  if (!out.length) throw new UsageError(t('fleet.err.noPlans', { dir: shownHost(dir) }));
  return out;
}

function cleanResult(p: HostPlanFile, stdout: string): Pick<HostClean, 'operationId' | 'removedItems' | 'removedBytes' | 'backupId'> {
  try {
    const r = parseBoundedJson(stdout.trim().split('\n').pop() ?? '') as Record<string, unknown>;
    const n = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0);
    const s = (v: unknown): string | null => (typeof v === 'string' ? safeText(v, 100) : null);
    return { operationId: s(r.operationId), removedItems: n(r.removedItems), removedBytes: n(r.removedBytes), backupId: s(r.backupId) };
  } catch {
    return { operationId: null, removedItems: p.items, removedBytes: p.bytes, backupId: null };
  }
}

async function cleanOn(p: HostPlanFile, opts: FleetCleanOptions, passphrase: string | null): Promise<HostClean> {
  const base = { host: p.host, agent: p.agent, operationId: null, removedItems: 0, removedBytes: 0, backupId: null };
  const up = await runSsh(opts.ssh, p.host, UPLOAD, p.text, 4096);
  const upProblem = sshProblem(up, opts.ssh.timeoutSeconds);
  if (upProblem) return { ...base, ...upProblem };
  const path = up.stdout.trim();
  if (!REMOTE_PATH.test(path)) return { ...base, status: 'failed', reason: t('fleet.reason.upload') };
  const run = `cleanerx clean --plan '${path}' --yes${opts.backup ? ' --backup' : ''} --json; rc=$?; rm -f '${path}'; exit $rc`;
  const r = await runSsh(opts.ssh, p.host, run, passphrase === null ? null : `${passphrase}\n`, 16 * 1024 * 1024);
  if (r.code === 1) return { ...base, status: 'refused', reason: lastLine(r.stderr) || t('fleet.reason.unreachable') };
  const problem = sshProblem(r, opts.ssh.timeoutSeconds);
  if (problem) return { ...base, ...problem };
  return { ...base, status: 'complete', reason: null, ...cleanResult(p, r.stdout) };
}

export async function runFleetClean(opts: FleetCleanOptions, { io, passphrase }: { io: Printer; passphrase: PassphraseReader }): Promise<number> {
  const plans = readPlans(opts.plans);
  if (!opts.yes) {
    for (const p of plans) io.out(intentLine(p));
    throw new UsageError(t('fleet.err.confirm', { hosts: t('fleet.hosts', { count: plans.length }) }));
  }
  // One passphrase for every host's backup key, read here once; a host whose key ring unlocks its key never reads it.
  const pass = opts.backup ? await passphrase.read(say('cli.pass.key')) : null;
  const results = await mapLimit(plans, opts.parallel, (p) => cleanOn(p, opts, pass));
  if (opts.json) io.out(safeJson({ formatVersion: 1, kind: 'cleanerx-fleet-clean', hosts: results }));
  else io.out(...summaryLines(results));
  return results.every((r) => r.status === 'complete') ? 0 : 1;
}

function intentLine(p: HostPlanFile): SafeText {
  return safe`${padWidth(p.host, 22)} ${safeText(t('fleet.clean.would', { agent: agentName(p.agent), items: t('count.items', { count: p.items }), bytes: formatBytes(p.bytes) }))}`;
}

function summaryLines(results: HostClean[]): SafeText[] {
  const out = results.map((r) => {
    const head = padWidth(r.host, 22);
    if (r.status !== 'complete') return safe`${head} ${safeText(t(`fleet.status.${r.status}`))}: ${safeText(r.reason ?? '', 300)}`;
    return safe`${head} ${safeText(
      t('fleet.clean.done', {
        agent: agentName(r.agent),
        items: t('count.items', { count: r.removedItems }),
        bytes: formatBytes(r.removedBytes),
        id: r.operationId ?? '-',
      }),
    )}`;
  });
  const ok = results.filter((r) => r.status === 'complete').length;
  out.push(say('fleet.clean.summary', { ok: String(ok), hosts: t('fleet.hosts', { count: results.length }) }));
  return out;
}
