// The Overview's all-agents view drawn from what it knows (the engine's
// report, the agents detected, the scans under way or failed) in `rows` lines
// of `W` cells: a pure function, so a test draws it without a terminal.

import { agentName } from '../engine/core/agents.js';
import { formatBytes, formatCount } from '../engine/core/format.js';
import { t as tr, type MessageKey } from '../engine/i18n/index.js';
import type { AgentKind, Installation } from '../engine/core/model.js';
import type { AllAgentsOverview, CostWord } from '../engine/api/api.js';
import { fitWidth, padWidth } from '../engine/core/text.js';
import { braces, cell, type Theme } from '../widgets/theme.js';

const NAME_W = 13;
const NUM_W = 12;

const COST: Record<CostWord, MessageKey> = {
  nothingLost: 'overview.all.cost.nothingLost',
  regenerable: 'overview.all.cost.regenerable',
  recoverable: 'overview.all.cost.recoverable',
  lost: 'overview.all.cost.lost',
};

interface AllAgentsState {
  /** The engine's report (null until its first answer). */
  report: AllAgentsOverview | null;
  installations: readonly Installation[];
  /** The agents being scanned now, with the files read so far. */
  progress: ReadonlyMap<AgentKind, { files: number }>;
  /** The agents whose scan failed, with why. */
  failed: ReadonlyMap<AgentKind, string>;
}

/** The view's lines in `rows` lines of `W` cells. */
export function allAgentsLines(st: AllAgentsState, W: number, rows: number, t: Theme): string[] {
  const r = st.report;
  const L: string[] = [];
  const total = r?.totals;
  const head = total
    ? tr('overview.all.head', {
        disk: formatBytes(total.onDiskBytes),
        reclaimable: formatBytes(total.reclaimableBytes),
        suggested: formatBytes(total.suggestedBytes),
      })
    : tr('overview.all.headEmpty');
  L.push(` ${t.bold(braces(fitWidth(head, W - 1)))}`);
  const num = (key: MessageKey): string => padWidth(tr(key), NUM_W, 'right');
  L.push(
    t.dim(
      ` ${padWidth(tr('overview.all.agent'), NAME_W)}${num('overview.all.onDisk')}${num('overview.all.sessions')}${num('overview.all.reclaimable')}${num('overview.all.suggested')}`,
    ),
  );
  for (const inst of st.installations.filter((i) => i.state !== 'notFound')) {
    const name = padWidth(agentName(inst.agent), NAME_W);
    const a = r?.agents.find((x) => x.agent === inst.agent);
    const p = st.progress.get(inst.agent);
    const failed = st.failed.get(inst.agent);
    if (a) {
      const cells = [a.onDiskBytes, a.sessionBytes, a.reclaimableBytes, a.suggestedBytes].map((b) => padWidth(formatBytes(b), NUM_W, 'right')).join('');
      L.push(` ${name}${cells}`);
    } else {
      const what = p
        ? tr('overview.all.scanning', { files: formatCount(p.files) })
        : failed
          ? tr('overview.all.failed', { error: failed })
          : tr('overview.all.waiting');
      L.push(` ${name}${t.dim(braces(fitWidth(what, Math.max(0, W - NAME_W - 1))))}`);
    }
  }
  const room = Math.max(0, rows - L.length - 4);
  const sug = r?.suggested ?? [];
  L.push('', t.accent(` ${braces(fitWidth(tr(sug.length ? 'overview.all.suggestedHead' : 'overview.all.suggestedNone'), W - 1))}`));
  const costW = 16;
  const labelW = Math.max(10, W - 2 - NAME_W - 10 - costW);
  const shown = sug.length > Math.ceil(room / 2) ? Math.max(1, Math.ceil(room / 2) - 1) : sug.length;
  for (const s of sug.slice(0, shown)) {
    const cost = s.cost === 'lost' && s.loses ? tr('overview.all.cost.lostWhat', { what: s.loses }) : tr(COST[s.cost]);
    L.push(`  ${cell(agentName(s.agent), NAME_W)}${cell(s.label, labelW)} ${padWidth(formatBytes(s.bytes), 9, 'right')} ${t.dim(cell(cost, costW - 1))}`);
  }
  if (shown < sug.length)
    L.push(t.dim(`  ${braces(tr('overview.all.more', { count: sug.length - shown, bytes: formatBytes(sug.slice(shown).reduce((n, s) => n + s.bytes, 0)) }))}`));
  const left = rows - L.length - 2;
  const big = r?.largest ?? [];
  if (left > 0 && big.length) {
    L.push('', t.accent(` ${tr('overview.all.largest')}`));
    for (const b of big.slice(0, left))
      L.push(`  ${cell(agentName(b.agent), NAME_W)}${cell(b.label, W - 2 - NAME_W - 10)} ${padWidth(formatBytes(b.bytes), 9, 'right')}`);
  }
  return L;
}
