// The Overview's all-agents view: every detected agent's bytes on disk,
// what could be given back now (each byte once), the suggested plan with
// what each row costs, and the largest rows across agents. The agents not
// scanned yet are scanned once in the worker, one after another, in the
// background (the keys never wait), each with its progress on its row.
// This class holds what the view knows; all-agents-render draws it.

import type { AgentKind } from '../engine/core/model.js';
import type { AllAgentsOverview } from '../engine/api/api.js';
import type { AppContext } from './screen.js';
import { allAgentsLines } from './all-agents-render.js';

/** The progress on an agent's row moves at most this often. */
const PROGRESS_PAINT_GAP_MS = 250;
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
    const state = { report: this.report, installations: this.app.installations(), progress: this.progress, failed: this.failed };
    return allAgentsLines(state, W, rows, this.app.theme);
  }
}
