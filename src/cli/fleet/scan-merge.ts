// `fleet scan`: each host's `cleanerx scan --json` (after the `--version`
// line) to one row set, and the fleet's merge of them. Pure: no ssh, no
// terminal. The host's report is outside data: anything that is not the
// contract (version, agent names, finite sizes) makes the host a row with the
// reason, never a crash or a made-up number.

import { agentOrder, isAgentKind } from '../../engine/core/agents.js';
import { parseBoundedJson } from '../../engine/core/bounded-json.js';
import { t } from '../../engine/i18n/index.js';
import type { AgentKind } from '../../engine/core/model.js';
import { cleanText } from '../../engine/core/text.js';
import type { HostProblem, HostStatus } from './outcome.js';

/** The `scan --json` contract this cleanerx reads (its own scan-report.ts writes it). */
export const SCAN_CONTRACT_VERSION = 1;
/** `fleet scan --json`'s own format; fields are only ever added. */
const FLEET_SCAN_FORMAT = 1;

interface AgentRow {
  agent: AgentKind;
  state: string;
  sessions: number;
  /** The agent's total as `scan` reports it (totals.bytes). */
  bytes: number;
  /** Selectable sessions and items; 0 while a writer holds the store read-only. */
  reclaimableNow: number;
  writers: number;
  warnings: number;
}

export interface HostScan {
  host: string;
  status: HostStatus;
  reason: string | null;
  cleanerxVersion: string | null;
  agents: AgentRow[];
  /** The host's own `scan --json` report, as it sent it (only for `ok`). */
  report?: unknown;
}

interface Sum {
  hosts: number;
  sessions: number;
  bytes: number;
  reclaimableNow: number;
}

export interface FleetScanReport {
  formatVersion: typeof FLEET_SCAN_FORMAT;
  kind: 'cleanerx-fleet-scan';
  scanContractVersion: typeof SCAN_CONTRACT_VERSION;
  hosts: HostScan[];
  totals: Sum & { hostsAnswered: number; byAgent: Partial<Record<AgentKind, Sum>> };
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const size = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null);

class Malformed extends Error {}

function sumSelectable(list: unknown): number {
  if (!Array.isArray(list)) throw new Malformed();
  let s = 0;
  for (const e of list) {
    if (!isObj(e)) throw new Malformed();
    const b = size(e.bytes);
    if (b === null) throw new Malformed();
    if (e.selectable === true) s += b;
  }
  return s;
}

function agentRow(a: unknown): AgentRow | null {
  if (!isObj(a) || !isObj(a.totals) || !Array.isArray(a.sessions) || !Array.isArray(a.writers)) throw new Malformed();
  // An agent a newer cleanerx knows and this one does not is left out, not guessed at.
  if (!isAgentKind(a.agent)) return null;
  const bytes = size(a.totals.bytes);
  if (bytes === null || typeof a.state !== 'string') throw new Malformed();
  const reclaimable = sumSelectable(a.sessions) + sumSelectable(a.items ?? []);
  return {
    agent: a.agent,
    state: cleanText(a.state, 40),
    sessions: a.sessions.length,
    bytes,
    reclaimableNow: a.writers.length ? 0 : reclaimable,
    writers: a.writers.length,
    warnings: Array.isArray(a.warnings) ? a.warnings.length : 0,
  };
}

const VERSION_LINE = /^\d{1,4}\.\d{1,4}\.\d{1,4}[\w.+-]{0,40}$/;

/** A host whose ssh run ended with exit 0: its `--version` line, then its scan report. */
export function parseHostScan(host: string, stdout: string): HostScan {
  const nl = stdout.indexOf('\n');
  const version = (nl < 0 ? stdout : stdout.slice(0, nl)).trim();
  const base = { host, agents: [] as AgentRow[] };
  if (!VERSION_LINE.test(version)) return { ...base, status: 'incompatible', reason: t('fleet.reason.notCleanerx'), cleanerxVersion: null };
  let report: unknown;
  try {
    report = parseBoundedJson(stdout.slice(nl + 1));
  } catch {
    return { ...base, status: 'failed', reason: t('fleet.reason.malformed'), cleanerxVersion: version };
  }
  if (!isObj(report) || report.version !== SCAN_CONTRACT_VERSION) {
    const got = isObj(report) ? cleanText(String(report.version), 20) : '?';
    return {
      ...base,
      status: 'incompatible',
      reason: t('fleet.reason.contract', { version, got, want: String(SCAN_CONTRACT_VERSION) }),
      cleanerxVersion: version,
    };
  }
  try {
    if (!Array.isArray(report.agents)) throw new Malformed();
    const rows = report.agents.map(agentRow).filter((r): r is AgentRow => r !== null);
    rows.sort((a, b) => agentOrder(a.agent) - agentOrder(b.agent));
    return { host, status: 'ok', reason: null, cleanerxVersion: version, agents: rows, report };
  } catch (e) {
    if (!(e instanceof Malformed)) throw e;
    return { ...base, status: 'failed', reason: t('fleet.reason.malformed'), cleanerxVersion: version };
  }
}

export function failedHost(host: string, p: HostProblem): HostScan {
  return { host, status: p.status, reason: p.reason, cleanerxVersion: null, agents: [] };
}

/** Rows of agents that have data (a host's agents that were not found are no rows). */
export const shownAgents = (h: HostScan): AgentRow[] => h.agents.filter((a) => a.state !== 'notFound');

/** The fleet's merge: every host in the order given, and the sums of the hosts that answered. */
export function mergeFleetScan(hosts: HostScan[]): FleetScanReport {
  const zero = (): Sum => ({ hosts: 0, sessions: 0, bytes: 0, reclaimableNow: 0 });
  const all = zero();
  const byAgent: Partial<Record<AgentKind, Sum>> = {};
  let answered = 0;
  for (const h of hosts) {
    all.hosts++;
    if (h.status !== 'ok') continue;
    answered++;
    for (const a of shownAgents(h)) {
      const s = byAgent[a.agent] ?? zero();
      byAgent[a.agent] = s;
      s.hosts++;
      for (const x of [s, all]) {
        x.sessions += a.sessions;
        x.bytes += a.bytes;
        x.reclaimableNow += a.reclaimableNow;
      }
    }
  }
  return {
    formatVersion: FLEET_SCAN_FORMAT,
    kind: 'cleanerx-fleet-scan',
    scanContractVersion: SCAN_CONTRACT_VERSION,
    hosts,
    totals: { ...all, hostsAnswered: answered, byAgent },
  };
}
