// The Overview's all-agents view: every detected agent's bytes on disk,
// what could be given back now (each byte once), the suggested plan with
// what each row costs, and the largest rows across agents. The agents not
// scanned yet are scanned once in the worker, one after another, in the
// background (the keys never wait), each with its progress on its row.

import { agentName } from '../engine/core/agents.js';
import { formatBytes, formatCount } from '../engine/core/format.js';
import { t as tr, type MessageKey } from '../engine/i18n/index.js';
import type { AgentKind } from '../engine/core/model.js';
import type { AllAgentsOverview, CostWord } from '../engine/api/api.js';
import { fitWidth, padWidth } from '../engine/core/text.js';
import { braces, cell } from '../widgets/theme.js';
import type { AppContext } from './screen.js';

/** The progress on an agent's row moves at most this often. */
const PROGRESS_PAINT_GAP_MS = 250;
const NAME_W = 13;
const NUM_W = 12;

const COST: Record<CostWord, MessageKey> = {
  nothingLost: 'overview.all.cost.nothingLost',
  regenerable: 'overview.all.cost.regenerable',
  recoverable: 'overview.all.cost.recoverable',
  lost: 'overview.all.cost.lost',
};

export class AllAgentsView {
  private report: AllAgentsOverview | null = null;
  private readonly progress = new Map<AgentKind, { files: number }>();
  private readonly failed = new Map<AgentKind, string>();
  private started = false;
  private lastPaint = 0;

  constructor(private readonly app: AppContext) {}

  /** The first time: the report, then the missing agents' scans; later: the report again (a scan or cleanup changed it). */
  open(): void {
    this.refresh();
    if (!this.started) {
      this.started = true;
      void this.scanMissing();
    }
  }

  refresh(): void {
    this.app.engine.allAgents().then(
      (r) => {
        this.report = r;
        this.app.requestRender();
      },
      () => undefined,
    );
  }

  /** The suggested plan's item ids by agent, for the marks. */
  suggestedByAgent(): Partial<Record<AgentKind, string[]>> {
    const out: Partial<Record<AgentKind, string[]>> = {};
    for (const a of this.report?.agents ?? []) out[a.agent] = a.suggestedIds;
    return out;
  }

  hasSuggestion(): boolean {
    return (this.report?.suggested.length ?? 0) > 0;
  }

  /** Every detected agent with data that has no scan yet, one after another; the agent the app is scanning is its own. */
  private async scanMissing(): Promise<void> {
    const wanted = this.app.installations().filter((i) => i.state !== 'notFound');
    for (const inst of wanted) {
      const have = (await this.app.engine.allAgents().catch(() => null))?.agents.some((a) => a.agent === inst.agent);
      if (have || inst.agent === this.app.agent()) continue;
      this.progress.set(inst.agent, { files: 0 });
      this.app.requestRender();
      try {
        await this.app.engine.scan(inst.agent, (p) => {
          this.progress.set(inst.agent, { files: p.files });
          const now = Date.now();
          if (now - this.lastPaint >= PROGRESS_PAINT_GAP_MS) {
            this.lastPaint = now;
            this.app.requestRender();
          }
        });
      } catch (e) {
        this.failed.set(inst.agent, (e as Error).message);
      }
      this.progress.delete(inst.agent);
      this.refresh();
    }
  }

  /** The view's lines in `rows` lines of `W` cells. */
  lines(W: number, rows: number): string[] {
    const t = this.app.theme;
    const r = this.report;
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
    for (const inst of this.app.installations().filter((i) => i.state !== 'notFound')) {
      const name = padWidth(agentName(inst.agent), NAME_W);
      const a = r?.agents.find((x) => x.agent === inst.agent);
      const p = this.progress.get(inst.agent);
      const failed = this.failed.get(inst.agent);
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
      L.push(
        t.dim(`  ${braces(tr('overview.all.more', { count: sug.length - shown, bytes: formatBytes(sug.slice(shown).reduce((n, s) => n + s.bytes, 0)) }))}`),
      );
    const left = rows - L.length - 2;
    const big = r?.largest ?? [];
    if (left > 0 && big.length) {
      L.push('', t.accent(` ${tr('overview.all.largest')}`));
      for (const b of big.slice(0, left))
        L.push(`  ${cell(agentName(b.agent), NAME_W)}${cell(b.label, W - 2 - NAME_W - 10)} ${padWidth(formatBytes(b.bytes), 9, 'right')}`);
    }
    return L;
  }
}
