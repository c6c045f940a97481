// What the app keeps of each agent while the user looks at another (#28.1):
// its marks and its last finished scan. A revisit shows the kept scan (no
// rescan, ~9 s for Codex) and the same marks; an agent's marks are rebased
// only on that agent's own new scan, never on another agent's.

import type { AgentKind, ScanSummary } from '../engine/core/model.js';
import { Marks } from '../screens/marks.js';

/** One agent's marked ids and the snapshot they belong to (what a review plans). */
interface MarkedAgent {
  agent: AgentKind;
  summary: ScanSummary;
  ids: string[];
}

export class PerAgent {
  private readonly marks = new Map<AgentKind, Marks>();
  private readonly summaries = new Map<AgentKind, ScanSummary>();
  /** Before any agent is chosen: marks that nothing can add to. */
  private readonly none = new Marks();

  marksOf(agent: AgentKind | null): Marks {
    if (!agent) return this.none;
    let m = this.marks.get(agent);
    if (!m) {
      m = new Marks();
      m.rebase(this.summaries.get(agent) ?? null);
      this.marks.set(agent, m);
    }
    return m;
  }

  /** The agent's last finished scan, if one is kept. */
  summaryOf(agent: AgentKind): ScanSummary | undefined {
    return this.summaries.get(agent);
  }

  /** A finished scan of its agent: kept, and that agent's marks (only its own) rebased on it. */
  adopt(s: ScanSummary): void {
    if (s.provisional) return;
    this.summaries.set(s.agent, s);
    this.marksOf(s.agent).rebase(s);
  }

  /** The homes may have moved (Settings → Save): no kept scan is trusted; marks wait for their agent's next scan. */
  forgetScans(): void {
    this.summaries.clear();
  }

  /** Every agent with marks and a kept scan, in `order` (the selector's). */
  marked(order: readonly AgentKind[]): MarkedAgent[] {
    const out: MarkedAgent[] = [];
    for (const agent of order) {
      const m = this.marks.get(agent);
      const summary = this.summaries.get(agent);
      if (m && m.count > 0 && summary) out.push({ agent, summary, ids: m.list() });
    }
    return out;
  }

  /** Marks over every agent: count and bytes, and how many agents hold them. */
  totals(): { count: number; bytes: number; agents: number } {
    let count = 0;
    let bytes = 0;
    let agents = 0;
    for (const m of this.marks.values()) {
      if (!m.count) continue;
      count += m.count;
      bytes += m.bytes;
      agents++;
    }
    return { count, bytes, agents };
  }
}
