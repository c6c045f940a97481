// Which agent the app shows, and its scan: detection at start, the agent
// selector (in the order detection reports, which is the registry's), the
// first start that opens on the agent with the most data, switching agents,
// rescans, and re-detection after Settings → Save.

import type { AgentKind, ScanSummary } from '../engine/core/model.js';
import type { Settings } from '../engine/api/api.js';
import { t } from '../engine/i18n/index.js';
import type { AppContext } from '../screens/screen.js';
import type { AppState } from './context.js';

/** The file count on the deck moves at most this often while a scan runs (keys still paint at once). */
const PROGRESS_PAINT_GAP_MS = 250;

export class AgentScan {
  constructor(
    private readonly st: AppState,
    private readonly ctx: AppContext,
  ) {}

  /** Detection at start, then the first scan; versions come last (a process each). */
  async start(): Promise<void> {
    const { st, ctx } = this;
    st.settings = await st.engine.loadSettings();
    st.perf.mark('engineReady');
    if (st.settings.warning) ctx.message(st.settings.warning, 'error');
    st.installs = await st.engine.detect();
    st.detected = true;
    st.perf.mark('detected');
    this.buildSelector();
    const asked = st.flags.initialAgent;
    const preferred = asked ?? st.settings.settings.targetAgent;
    st.agent = st.selector.find((e) => e.agent === preferred)?.agent ?? null;
    if (asked && !st.agent) ctx.message(t('app.notDetected', { agent: st.nameOf(asked) }), 'error');
    if (!st.agent && !asked && st.selector.length > 1) await this.openOnLargest();
    else {
      st.agent ??= st.selector[0]?.agent ?? null;
      this.startScan();
    }
  }

  /** Versions cost a process each; they arrive after the first scan has started. */
  async addVersions(): Promise<void> {
    this.st.installs = await this.st.engine.detect({ versions: true });
    this.st.requestRender();
  }

  async redetect(save?: Settings): Promise<void> {
    const st = this.st;
    if (save) await st.engine.saveSettings(save);
    st.settings = await st.engine.loadSettings();
    st.installs = await st.engine.detect({ versions: true });
    this.buildSelector();
    if (st.agent && !st.selector.some((e) => e.agent === st.agent)) st.agent = st.selector[0]?.agent ?? null;
    // A saved home override may point an agent elsewhere: no kept scan is trusted after it.
    st.perAgent.forgetScans();
    this.startScan();
  }

  private buildSelector(): void {
    const st = this.st;
    // Every agent with data is reachable, installed or not: an uninstalled agent's
    // leftovers are the likeliest thing to clean (its path routes work; a route
    // that needs its program is shown disabled with the reason).
    const note = st.flags.demo ? t('app.demoNote') : t('app.dataOnlyNote');
    st.selector = st.installs
      .filter((i) => i.state === 'installed' || i.state === 'dataOnly')
      .map((i) => (i.state === 'installed' ? { agent: i.agent } : { agent: i.agent, note }));
    // Detection reports the agents in the registry's order: the selector keeps it.
    const rank = (a: AgentKind): number => st.installs.findIndex((i) => i.agent === a);
    st.selector.sort((a, b) => rank(a.agent) - rank(b.agent));
  }

  /** The newest scan started per agent: a scan left behind by a switch is still kept if no newer one of its agent began. */
  private readonly lastGen = new Map<AgentKind, number>();

  startScan(): void {
    const st = this.st;
    const gen = ++st.scanGen;
    if (!st.agent) {
      st.summary = null;
      st.summaryChanged();
      st.requestRender();
      return;
    }
    const target = st.agent;
    this.lastGen.set(target, gen);
    st.perf.mark('scanStart');
    st.scanning = { files: 0, phase: 'starting' };
    st.requestRender();
    st.engine
      .scan(target, (p) => {
        if (gen !== st.scanGen) return;
        st.scanning = { files: p.files, phase: p.phase };
        // A partial view fills an empty screen while the scan runs (read-only);
        // it never replaces a finished scan's view, and the final one replaces it.
        if (p.provisional && (!st.summary || st.summary.provisional)) {
          st.summary = p.provisional;
          st.perf.mark('provisional', { sessions: p.provisional.sessionCount });
          st.summaryChanged();
          st.requestRender();
        } else st.requestIdleRender(PROGRESS_PAINT_GAP_MS);
      })
      .then(
        (s) => {
          // Finished after the user moved on: kept for the next visit (marks rebased), or shown if the
          // user is back on its agent (the kept scan on screen is no longer the engine's snapshot).
          if (gen !== st.scanGen) return void (this.lastGen.get(target) === gen && this.adoptLate(s));
          st.scanning = null;
          st.perAgent.adopt(s);
          st.summary = s;
          st.perf.mark(
            'scanDone',
            st.perf.enabled ? { uiHeapUsed: process.memoryUsage().heapUsed, rss: process.memoryUsage().rss, cpu: process.cpuUsage() } : {},
          );
          st.summaryChanged();
          st.requestRender();
        },
        (e: Error) => {
          if (gen !== st.scanGen) return;
          st.scanning = null;
          // The engine dropped the partial view with the failed scan.
          if (st.summary?.provisional) {
            st.summary = null;
            st.summaryChanged();
          }
          this.ctx.message(t('app.scanFailed', { error: e.message }), 'error');
        },
      );
  }

  /**
   * First start (no agent chosen yet): scan every detected agent and open on
   * the one with the most data, not on the first one that has none.
   */
  private async openOnLargest(): Promise<void> {
    const st = this.st;
    const gen = ++st.scanGen;
    let best: ScanSummary | null = null;
    for (const e of st.selector) {
      st.scanning = { files: 0, phase: t('app.lookingAt', { agent: st.nameOf(e.agent) }) };
      st.requestRender();
      const s = await st.engine
        .scan(e.agent, (p) => {
          if (gen === st.scanGen) st.scanning = { files: p.files, phase: p.phase };
          st.requestIdleRender(PROGRESS_PAINT_GAP_MS);
        })
        .catch(() => null);
      if (gen !== st.scanGen) return;
      // Every agent looked at is kept: a first visit to any of them needs no scan.
      if (s) st.perAgent.adopt(s);
      if (s && (!best || s.totals.bytes > best.totals.bytes)) best = s;
    }
    st.scanning = null;
    st.agent = best?.agent ?? st.selector[0]?.agent ?? null;
    // The winner's scan is the newest of its agent: show it without scanning again.
    if (!best) return this.startScan();
    st.summary = best;
    st.summaryChanged();
    st.requestRender();
  }

  private adoptLate(s: ScanSummary): void {
    const st = this.st;
    st.perAgent.adopt(s);
    if (st.agent !== s.agent || st.scanning) return;
    st.summary = s;
    st.summaryChanged();
    st.requestRender();
  }

  /**
   * The agent's kept scan and marks at once; it is scanned again only when it
   * has none, or when the engine's newest snapshot of it is another (a scan
   * the app did not see). `r` rescans on request.
   */
  private showKept(agent: AgentKind): void {
    const st = this.st;
    const kept = st.perAgent.summaryOf(agent);
    if (!kept) {
      st.summary = null;
      st.summaryChanged();
      return this.startScan();
    }
    // A scan of the agent left behind keeps running in the engine (and is kept when it ends); its progress is no longer shown.
    st.scanGen++;
    st.scanning = null;
    st.summary = kept;
    st.summaryChanged();
    st.requestRender();
    st.engine.latestSnapshot(agent).then(
      (id) => {
        if (st.agent === agent && st.summary === kept && id !== kept.snapshotId) this.startScan();
      },
      () => undefined,
    );
  }

  switchAgent(delta: number): void {
    const { st, ctx } = this;
    if (st.selector.length === 0) {
      ctx.message(t('app.noAgentToChoose'));
      return;
    }
    const i = st.selector.findIndex((e) => e.agent === st.agent);
    const next = st.selector[(i + delta + st.selector.length) % st.selector.length]!.agent;
    if (next === st.agent) {
      ctx.message(t('app.onlyAgent', { agent: st.nameOf(next) }));
      return;
    }
    st.agent = next;
    this.showKept(next);
    if (st.settings) {
      const s = { ...st.settings.settings, targetAgent: next };
      st.engine.saveSettings(s).then(
        () => {
          if (st.settings) st.settings.settings = s;
        },
        (e: Error) => ctx.message(t('app.saveTargetFailed', { error: e.message }), 'error'),
      );
    }
  }
}
