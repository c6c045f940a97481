// `cleanerx fleet scan|plan|clean`: the parsed command line (yargs) to each
// action's options, with the usage errors for what an action needs or
// refuses. command-line.ts calls this; it loads only when `fleet` runs.

import { t } from '../../engine/i18n/index.js';
import type { AgentKind } from '../../engine/core/model.js';
import { UsageError } from '../usage-error.js';
import type { PassphraseReader } from '../passphrase.js';
import { type RuleArgs, rulesFromArgs } from '../plan-rules.js';
import type { Printer } from '../printer.js';
import { type FleetFlags, parallelism, sshSettings } from './fleet-args.js';
import { fleetHosts } from './fleet-hosts.js';

interface FleetArgs extends FleetFlags, RuleArgs {
  action: 'scan' | 'plan' | 'clean';
  hosts?: unknown[];
  'hosts-file'?: string;
  agent?: AgentKind;
  json: boolean;
  'read-only'?: boolean;
  out?: string;
  plans?: string;
  yes: boolean;
  backup: boolean;
  archive?: boolean;
  unarchive?: boolean;
}

interface FleetDeps {
  io: Printer;
  passphrase: PassphraseReader;
  env: Readonly<Record<string, string | undefined>>;
}

/** `cleanerx --host H [--read-only] [--agent A] [--lang L]`: H's own app through ssh -t. */
export async function runRemote(a: Record<string, unknown>, env: Readonly<Record<string, string | undefined>>): Promise<number> {
  const { runRemoteApp } = await import('./remote-app.js');
  const lang = a.lang === 'zh' || a.lang === 'en' ? a.lang : undefined;
  return runRemoteApp(
    { host: String(a.host), readOnly: Boolean(a['read-only']), agent: a.agent as AgentKind | undefined, lang },
    sshSettings(a as FleetFlags, env),
  );
}

export async function runFleet(args: Record<string, unknown>, { io, passphrase, env }: FleetDeps): Promise<number> {
  const a = args as unknown as FleetArgs;
  const named = (a.hosts ?? []).map(String);
  const ssh = sshSettings(a, env);
  const parallel = parallelism(a);
  if (a.action === 'clean') {
    if (named.length || a['hosts-file'] !== undefined) throw new UsageError(t('fleet.err.plansTakeNoHosts'));
    if (a.plans === undefined || a.plans === '') throw new UsageError(t('fleet.err.needPlans'));
    const { runFleetClean } = await import('./fleet-clean.js');
    return runFleetClean({ plans: String(a.plans), yes: a.yes, backup: a.backup, json: a.json, ssh, parallel }, { io, passphrase });
  }
  const hosts = fleetHosts(named, a['hosts-file']);
  if (a.action === 'scan') {
    const { runFleetScan } = await import('./fleet-scan.js');
    return runFleetScan({ hosts, agent: a.agent, json: a.json, readOnly: Boolean(a['read-only']), ssh, parallel }, { io });
  }
  if (!a.agent) throw new UsageError(t('fleet.err.needAgent'));
  if (a.out === undefined || a.out === '') throw new UsageError(t('fleet.err.needOut'));
  const rules = rulesFromArgs(a);
  const action = a.archive ? 'archive' : a.unarchive ? 'unarchive' : undefined;
  const { runFleetPlan } = await import('./fleet-plan.js');
  return runFleetPlan({ hosts, agent: a.agent, rules, action, out: String(a.out), json: a.json, ssh, parallel }, { io });
}
