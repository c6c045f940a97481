// `fleet scan`'s table: one row per host and agent with data, a host that
// did not answer as one row with its reason, then the fleet's totals per
// agent and in all. Fits 80 columns; a long host name is cut with "…".
// Every cell is cleaned (host names and reasons came from outside).

import { agentKinds, agentName } from '../../engine/core/agents.js';
import { formatBytes, formatCount } from '../../engine/core/format.js';
import { t } from '../../engine/i18n/index.js';
import { cleanText, padWidth, safe, type SafeText, safeText } from '../../engine/core/text.js';
import { say } from '../say.js';
import { type FleetScanReport, shownAgents } from './scan-merge.js';

const W = { host: 22, agent: 12, sessions: 9, bytes: 10, reclaim: 13 };

/** Each cell cleaned first, then padded by display width: the columns line up whatever the text. */
const cell = (s: string, width: number, align: 'left' | 'right' = 'left'): string => padWidth(cleanText(s, 200), width, align);

function row(host: string, agent: string, sessions: string, bytes: string, reclaim: string): SafeText {
  const line = `${cell(host, W.host)} ${cell(agent, W.agent)} ${cell(sessions, W.sessions, 'right')} ${cell(bytes, W.bytes, 'right')} ${cell(reclaim, W.reclaim, 'right')}`;
  return safe`${line.trimEnd()}`;
}

export function fleetTable(report: FleetScanReport): SafeText[] {
  const out: SafeText[] = [row(t('fleet.col.host'), t('fleet.col.agent'), t('fleet.col.sessions'), t('fleet.col.bytes'), t('fleet.col.reclaim'))];
  for (const h of report.hosts) {
    if (h.status !== 'ok') {
      out.push(safe`${cell(h.host, W.host)} ${safeText(t(`fleet.status.${h.status}`))}: ${safeText(h.reason ?? '', 300)}`);
      continue;
    }
    const agents = shownAgents(h);
    if (!agents.length) out.push(safe`${cell(h.host, W.host)} ${safeText(t('fleet.noAgentData'))}`);
    for (const a of agents) {
      const reclaim = a.writers ? t('fleet.running') : formatBytes(a.reclaimableNow);
      out.push(row(h.host, agentName(a.agent), formatCount(a.sessions), formatBytes(a.bytes), reclaim));
    }
  }
  const tot = report.totals;
  out.push(safe``);
  for (const agent of agentKinds()) {
    const s = tot.byAgent[agent];
    if (!s) continue;
    out.push(row(t('fleet.totalHosts', { count: s.hosts }), agentName(agent), formatCount(s.sessions), formatBytes(s.bytes), formatBytes(s.reclaimableNow)));
  }
  out.push(row(t('fleet.total'), '', formatCount(tot.sessions), formatBytes(tot.bytes), formatBytes(tot.reclaimableNow)));
  out.push(say('fleet.answered', { answered: String(tot.hostsAnswered), hosts: String(tot.hosts) }));
  return out;
}
