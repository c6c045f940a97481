// `cleanerx fleet scan HOST… [--hosts-file F] [--json]`: every host's own
// `cleanerx scan --json` over ssh, a few hosts at a time, merged into one
// table (or the versioned fleet report). A host that does not answer is a
// row with its reason; the exit is 1 when any host did not answer.

import type { AgentKind } from '../../engine/core/model.js';
import { safeJson } from '../../engine/core/text.js';
import type { Printer } from '../printer.js';
import { fleetTable } from './fleet-table.js';
import { sshProblem } from './outcome.js';
import { failedHost, mergeFleetScan, parseHostScan } from './scan-merge.js';
import { mapLimit, runSsh, type SshSettings } from './ssh-runner.js';

interface FleetScanOptions {
  hosts: string[];
  agent?: AgentKind;
  json: boolean;
  readOnly: boolean;
  ssh: SshSettings;
  parallel: number;
}

/** A host's report may be large (100k sessions are ~60 MB); past this it is refused, not buffered. */
const MAX_REPORT = 512 * 1024 * 1024;

/** What runs on each host: its version line, then its report. */
export function remoteScanCommand(agent: AgentKind | undefined, readOnly: boolean): string {
  return `cleanerx --version && cleanerx scan${agent ? ` --agent ${agent}` : ''}${readOnly ? ' --read-only' : ''} --json`;
}

export async function runFleetScan(opts: FleetScanOptions, { io }: { io: Printer }): Promise<number> {
  const command = remoteScanCommand(opts.agent, opts.readOnly);
  const hosts = await mapLimit(opts.hosts, opts.parallel, async (host) => {
    const r = await runSsh(opts.ssh, host, command, null, MAX_REPORT);
    const problem = sshProblem(r, opts.ssh.timeoutSeconds);
    return problem ? failedHost(host, problem) : parseHostScan(host, r.stdout);
  });
  const report = mergeFleetScan(hosts);
  if (opts.json) io.out(safeJson(report));
  else io.out(...fleetTable(report));
  return hosts.every((h) => h.status === 'ok') ? 0 : 1;
}
