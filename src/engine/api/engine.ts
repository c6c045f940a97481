// The engine: detection, scans, snapshots and paging behind EngineApi. It
// runs in a worker thread for the UI (src/worker.ts) and in-process for
// `scan --json`. It is handed its adapters; it never imports one.

import { agentName } from '../core/agents.js';
import type { AllAgentsOverview } from '../inventory/retention/all-agents.js';
import type { AgentAdapter, HostContext, SessionExportEntry } from '../core/adapter.js';
import type { EngineApi, EngineOptions } from './api.js';
import type { SessionExplain } from '../core/explain.js';
import { detectOne } from '../host/detect.js';
import { promises as fsp } from 'node:fs';
import { dirname, join } from 'node:path';
// The executor, planner, retention rules, plan files, recovery and agent
// lock load on first use, and the injected backup service loads its modules
// on first use: a scan (the CLI's `scan --json`, the worker's first answer)
// never pays for them, nor for age, zstd and tar.
import type { BackupRequest, ExecutorDeps } from '../cleanup/executor.js';
import { NO_BACKUPS, type BackupService, type SettledRestore } from '../cleanup/backup-service.js';
import { describeWriters } from '../core/model.js';
import type {
  BackupProgress,
  AgentKind,
  BackupSummary,
  CleanupPlan,
  ExecuteOptions,
  KeyInfo,
  Detail,
  ExecuteProgress,
  ExecuteResult,
  Installation,
  PlanAction,
  Inventory,
  PageRequest,
  PageResult,
  Preview,
  RestoreSummary,
  ScanProgress,
  ScanSummary,
  SessionCopy,
  SessionFilter,
} from '../core/model.js';
import { t, type Language } from '../i18n/index.js';
import type { PlanFile } from '../inventory/retention/plan-file.js';
import type { RetentionRules } from '../inventory/retention/rules.js';
import type { ObservedRecoveryOperation, RecoveryDeps } from '../cleanup/recovery.js';
import { ownDirs } from '../host/own-dirs.js';
import { walkOwned } from '../inventory/revision.js';
import { loadSettings, saveSettings, type LoadedSettings, type Settings } from '../host/settings.js';
import { Snapshot } from '../inventory/snapshot.js';
import { RequestError } from '../core/validate.js';
import { referenceLine, resumeLine } from '../core/shell-quote.js';
import { sweepExportStaging } from '../host/export-staging.js';

/** rmdir from `dir` up to and including `top` while they are empty (another process's lock keeps them). */
async function removeEmptyDirsUpTo(dir: string, top: string): Promise<void> {
  for (let cur = dir; cur.startsWith(top); cur = dirname(cur)) {
    if (
      !(await fsp.rmdir(cur).then(
        () => true,
        () => false,
      )) ||
      cur === top
    )
      return;
  }
}

/** The shortest gap between two provisional snapshots of one scan. */
const PROVISIONAL_MIN_MS = 750;
/** …and at least this many times the last one's build time. */
const PROVISIONAL_COST_FACTOR = 40;

/** What only a composition root can offer the engine. */
interface EngineHooks {
  /**
   * A full garbage collection, now. The worker calls for one where a scan
   * leaves the most garbage behind (the replaced provisional views, the
   * adapter's working sets): V8 would keep it until its next heap limit,
   * and at 100k sessions that held the process's peak 40–50 MiB higher.
   */
  collectGarbage?: () => void;
}

export class Engine implements EngineApi {
  private snapshots = new Map<string, Snapshot>();
  private latestByAgent = new Map<AgentKind, string>();
  private settingsCache: LoadedSettings | null = null;
  private readonly dirs;

  constructor(
    private readonly adapters: readonly AgentAdapter[],
    private readonly ctx: HostContext,
    private readonly opts: EngineOptions = { readOnly: false, demo: false },
    /** Backups, key store and restores: injected by the composition root (src/backup/service.ts). */
    private readonly backups: BackupService = NO_BACKUPS,
    private readonly hooks: EngineHooks = {},
  ) {
    this.dirs = ownDirs(ctx.env);
  }

  private adapter(kind: AgentKind): AgentAdapter {
    const a = this.adapters.find((x) => x.kind === kind);
    if (!a) throw new RequestError(`unknown agent "${kind}"`);
    return a;
  }

  async loadSettings(): Promise<LoadedSettings> {
    this.settingsCache = await loadSettings(this.dirs.config);
    return this.settingsCache;
  }

  async saveSettings(s: Settings): Promise<void> {
    await saveSettings(this.dirs.config, s);
    this.settingsCache = null;
  }

  private async settings(): Promise<Settings> {
    return (this.settingsCache ?? (await this.loadSettings())).settings;
  }

  /** The agent's running writers without a scan (`doctor`: a Codex scan starts its App Server). */
  async writers(agent: AgentKind): Promise<ScanSummary['writers']> {
    const a = this.adapter(agent);
    return a.fileRoute ? a.fileRoute.writers(await detectOne(a, this.ctx, (await this.settings()).homeOverrides[agent], false), this.ctx) : [];
  }

  async detect(opts: { versions?: boolean; agents?: AgentKind[] } = {}): Promise<Installation[]> {
    const s = await this.settings();
    const adapters = opts.agents ? this.adapters.filter((a) => opts.agents!.includes(a.kind)) : this.adapters;
    return Promise.all(adapters.map((a) => detectOne(a, this.ctx, s.homeOverrides[a.kind], Boolean(opts.versions), this.dirs.state, !this.opts.readOnly)));
  }

  /** The scan in flight per agent: a second scan of one agent waits for the first (the Overview's background scans and the app's own). */
  private scansInFlight = new Map<AgentKind, Promise<unknown>>();

  async scan(agent: AgentKind, onProgress?: (p: ScanProgress) => void): Promise<ScanSummary> {
    this.adapter(agent);
    const before = this.scansInFlight.get(agent);
    const run = (before ?? Promise.resolve()).catch(() => undefined).then(() => this.scanNow(agent, onProgress));
    this.scansInFlight.set(agent, run);
    try {
      return await run;
    } finally {
      if (this.scansInFlight.get(agent) === run) this.scansInFlight.delete(agent);
    }
  }

  private async scanNow(agent: AgentKind, onProgress?: (p: ScanProgress) => void): Promise<ScanSummary> {
    const adapter = this.adapter(agent);
    const s = await this.settings();
    const started = this.ctx.now();
    const inst = await detectOne(adapter, this.ctx, s.homeOverrides[agent], false);
    // Provisional views only for a caller that watches progress (the UI); a
    // rescan inside a cleanup or `scan --json` would build them for nobody.
    const report = onProgress ? this.publisher(agent, inst, started, onProgress) : () => undefined;
    let inventory: Inventory;
    try {
      inventory = inst.state === 'notFound' ? { sessions: [], items: [], projects: [], warnings: [], writers: [] } : await adapter.scan(inst, this.ctx, report);
    } finally {
      this.dropProvisional(agent);
    }
    // The executor refuses an item whose tree changed after this scan. A
    // selectable item whose adapter recorded no source revision gets one here
    // (so growth, a swap or a new owner between scan and execution is caught
    // for every agent), and is made read-only when its tree is unsafe.
    if (adapter.fileRoute) {
      for (const x of [...inventory.sessions, ...inventory.items]) {
        if (!x.selectable || typeof x.metadata.sourceRevision === 'string') continue;
        const tree = walkOwned(x.paths, { uid: this.ctx.uid });
        if (tree.unsafe) {
          x.selectable = false;
          x.blockedReason = tree.unsafe;
        } else if (tree.revision) x.metadata.sourceRevision = tree.revision;
      }
    }
    if (this.opts.readOnly) {
      for (const x of inventory.sessions) x.selectable = false;
      for (const x of inventory.items) x.selectable = false;
    }
    let deletedOpen: ScanSummary['deletedOpen'];
    if (inst.state !== 'notFound') {
      await (await import('../inventory/attribution.js')).attributeInventory(inst, inventory);
      // After attribution: these rows have no path on disk, only bytes a process holds.
      const roots = [inst.home, ...(adapter.fileRoute?.roots(inst, this.ctx) ?? []), ...(inventory.attributionRoots ?? [])];
      deletedOpen = await (await import('../inventory/deleted-open-items.js')).addDeletedOpen(inventory, roots, this.ctx.procRoot);
    }
    // The old snapshot goes first (nothing runs between here and the new one's
    // publication: the build is synchronous), so it can be collected during the build.
    const old = this.latestByAgent.get(agent);
    if (old) this.snapshots.delete(old);
    // The old snapshot, the provisional views and the adapter's working sets go
    // here, so the build starts from a heap holding little besides the records.
    this.hooks.collectGarbage?.();
    const snap = new Snapshot(agent, inst, inventory, this.ctx.now(), this.ctx.now() - started);
    this.snapshots.set(snap.id, snap);
    this.latestByAgent.set(agent, snap.id);
    const summary = snap.summary(Boolean(this.opts.compactSelection));
    summary.readOnly = this.opts.readOnly;
    summary.attribution = inventory.attribution;
    if (deletedOpen?.files) summary.deletedOpen = deletedOpen;
    if (inst.state !== 'notFound') await this.addGrowth(summary);
    return summary;
  }

  /** Growth since an earlier scan from cleanerx's own history (read only in read-only mode); never fails the scan. */
  private async addGrowth(summary: ScanSummary): Promise<void> {
    try {
      const { recordScan } = await import('../inventory/scan-history.js');
      summary.growth = await recordScan(this.dirs.state, summary.agent, summary.installation.home, summary.scannedAt, summary.byCategory, !this.opts.readOnly);
      if (summary.growth.warning) summary.warnings.push({ path: this.dirs.state, reason: summary.growth.warning });
    } catch (e) {
      summary.warnings.push({ path: this.dirs.state, reason: `Scan history skipped: ${(e as Error).message}` });
    }
  }

  // ---- provisional snapshots (published while a scan runs) ------------------

  private provisional = new Map<string, Snapshot>();
  private provisionalByAgent = new Map<AgentKind, string>();

  /**
   * Wraps the caller's progress: when the adapter offers its partial
   * inventory, builds a read-only provisional snapshot from it — the first
   * as soon as there are rows, then no more often than 40× its own build
   * cost (so the rebuilds, and the garbage each replaced view leaves, stay a
   * small share of the scan: each 100k view leaves ~8 MiB of large arrays
   * that only a full collection frees; at 100k sessions 8× measured ~20 MB
   * more peak RSS than 16×, and 16× ~15 MiB more than 40×, one view every
   * ~4 s then) — and hands the UI its summary. The adapter's callback never
   * crosses the worker boundary.
   */
  private publisher(agent: AgentKind, inst: Installation, started: number, onProgress: (p: ScanProgress) => void): (p: ScanProgress) => void {
    let nextAt = 0;
    return (p) => {
      const { partial, ...out } = p;
      if (partial && performance.now() >= nextAt) {
        const t0 = performance.now();
        const inv = partial();
        if (inv.sessions.length) {
          // The previous partial view is dropped before the next is built (synchronously: no call sees the gap).
          this.dropProvisional(agent);
          const snap = new Snapshot(agent, inst, inv, this.ctx.now(), this.ctx.now() - started, true);
          this.provisional.set(snap.id, snap);
          this.provisionalByAgent.set(agent, snap.id);
          out.provisional = snap.summary(Boolean(this.opts.compactSelection));
          out.provisional.readOnly = this.opts.readOnly;
          nextAt = performance.now() + Math.max(PROVISIONAL_MIN_MS, (performance.now() - t0) * PROVISIONAL_COST_FACTOR);
        }
      }
      onProgress(out);
    };
  }

  private dropProvisional(agent: AgentKind): void {
    const id = this.provisionalByAgent.get(agent);
    if (id) this.provisional.delete(id);
    this.provisionalByAgent.delete(agent);
  }

  /** The live final snapshot behind an id (plans, marks, cleanups); anything else is a clear error. */
  snapshot(snapshotId: string): Snapshot {
    if (typeof snapshotId !== 'string') throw new RequestError('snapshot id is required');
    const snap = this.snapshots.get(snapshotId);
    if (snap) return snap;
    if (this.provisional.has(snapshotId)) throw new RequestError('This view is still being scanned; wait for the scan to finish.');
    throw new RequestError('This view belongs to an older scan; rescan (r) and try again.');
  }

  /** A final or provisional snapshot, for the read-only calls (pages, details, previews). */
  private viewable(snapshotId: string): Snapshot {
    return (typeof snapshotId === 'string' && this.provisional.get(snapshotId)) || this.snapshot(snapshotId);
  }

  async page(req: PageRequest): Promise<PageResult> {
    return this.viewable(req.snapshotId).page(req);
  }

  async matchIds(snapshotId: string, filter: SessionFilter): Promise<{ ids: string[]; bytes: number }> {
    return this.snapshot(snapshotId).matchIds(filter);
  }

  async detail(snapshotId: string, id: string): Promise<Detail> {
    return this.viewable(snapshotId).detail(id);
  }

  async preview(snapshotId: string, id: string): Promise<Preview> {
    const snap = this.viewable(snapshotId);
    const node = snap.session(id);
    const item = node ? undefined : snap.item(id);
    if (!node && !item) throw new RequestError(`unknown item id "${id}" in this snapshot`);
    // A database row may show its bytes per table (page counts, never a row's content); every other protected item stays shut.
    if (item?.category === 'protected' && item.metadata.structurePreview !== true) {
      return { id, source: 'protected', truncated: false, bytesRead: 0, blocks: [{ kind: 'notice', text: 'Protected item: its content is never opened.' }] };
    }
    const paths = node ? node.s.paths : item!.paths;
    try {
      return await this.adapter(snap.agent).preview(snap.installation, paths, id);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      return {
        id,
        source: 'error',
        truncated: false,
        bytesRead: 0,
        blocks: [{ kind: 'notice', text: code === 'ENOENT' ? 'The file is gone since the scan; rescan (r).' : `Cannot read a preview (${code ?? 'error'}).` }],
      };
    }
  }

  async explain(snapshotId: string, id: string): Promise<SessionExplain> {
    const snap = this.viewable(snapshotId);
    const node = snap.session(id);
    if (!node) throw new RequestError(t('explain.onSession'));
    const adapter = this.adapter(snap.agent);
    if (!adapter.explain) throw new RequestError(t('explain.notOffered', { agent: agentName(snap.agent) }));
    return adapter.explain(snap.installation, node.s.paths, id);
  }

  async sessionCopy(snapshotId: string, id: string): Promise<SessionCopy> {
    const snap = this.viewable(snapshotId);
    const node = snap.session(id);
    if (!node) throw new RequestError(`unknown session id "${id}" in this snapshot`);
    const s = node.s;
    const command = this.adapter(snap.agent).resumeCommand(s);
    const resume = command ? resumeLine(command) : null;
    const resumeWhy = resume ? undefined : command ? 'unsafe' : 'none';
    return { resume, reference: referenceLine(s.id, s.paths[0] ?? null), ...(resumeWhy ? { resumeWhy } : {}) };
  }

  // ---- cleanup ----------------------------------------------------------

  private plans = new Map<string, CleanupPlan>();
  private stop = false;

  /** Asks a running execute() to stop before its next step (the journal keeps that safe). */
  async stopExecution(): Promise<void> {
    this.stop = true;
  }

  async plan(snapshotId: string, ids: string[], action: PlanAction = 'delete', lang?: Language): Promise<CleanupPlan> {
    const plan = await this.buildOnePlan(snapshotId, ids, action, lang);
    // One current plan per agent: a plan set's cleanups (one per agent, in turn) are all reviewed before the first runs.
    for (const [id, p] of this.plans) if (p.agent === plan.agent) this.plans.delete(id);
    this.plans.set(plan.id, plan);
    return plan;
  }

  /**
   * One plan per agent, all kept until executed (plan() replaces only its own agent's):
   * the app's one review for everything marked runs them one after another.
   */
  async planGroup(requests: { snapshotId: string; ids: string[] }[], action: PlanAction = 'delete'): Promise<CleanupPlan[]> {
    if (!Array.isArray(requests) || requests.length === 0) throw new RequestError('planGroup needs at least one agent.');
    const agents = new Set(requests.map((r) => this.snapshot(r.snapshotId).agent));
    if (agents.size !== requests.length) throw new RequestError('planGroup takes one request per agent.');
    const plans: CleanupPlan[] = [];
    for (const r of requests) plans.push(await this.buildOnePlan(r.snapshotId, r.ids, action));
    this.plans.clear();
    for (const p of plans) this.plans.set(p.id, p);
    return plans;
  }

  async latestSnapshot(agent: AgentKind): Promise<string | null> {
    this.adapter(agent);
    return this.latestByAgent.get(agent) ?? null;
  }

  private async buildOnePlan(snapshotId: string, ids: string[], action: PlanAction, lang?: Language): Promise<CleanupPlan> {
    const snap = this.snapshot(snapshotId);
    const adapter = this.adapter(snap.agent);
    const { buildPlan } = await import('../cleanup/planner.js');
    const plan = buildPlan(snap, ids, {
      readOnly: this.opts.readOnly,
      routeAvailable: Boolean(adapter.fileRoute || adapter.sessionRoute),
      officialSessions: Boolean(adapter.sessionRoute),
      action,
      archive: adapter.labels.archive,
      lang,
    });
    const { assertNoPendingJournal } = await import('../cleanup/executor.js');
    await assertNoPendingJournal(this.dirs.state, snap.agent).catch((e: Error) => plan.blockers.push(e.message));
    return plan;
  }

  /**
   * Refuses (a RequestError: exit 2 on the command line) an archive or
   * unarchive the agent has no route for — pi archives nothing, OpenCode 1.18
   * cannot unarchive — in one sentence, before anything is scanned or planned.
   */
  assertActionRoute(agent: AgentKind, action: PlanAction): void {
    if (action !== 'archive' && action !== 'unarchive') return;
    const support = this.adapter(agent).labels.archive;
    if (!support?.[action]) throw new RequestError(support?.why ?? t(`plan.noActionRoute.${action}`, { agent: agentName(agent) }));
  }

  // ---- retention rules ----------------------------------------------------

  async matchRules(snapshotId: string, rules: RetentionRules): Promise<{ ids: string[]; bytes: number; skipped: number; notes: string[] }> {
    const snap = this.snapshot(snapshotId);
    const { evaluateAllRules } = await import('../inventory/retention/rules.js');
    const m = evaluateAllRules(snap, rules);
    return { ids: m.matched.map((x) => x.id), bytes: m.bytes, skipped: m.skipped.length, notes: m.notes };
  }

  async retentionPlan(snapshotId: string, rules: RetentionRules, action: PlanAction = 'delete'): Promise<{ file: PlanFile; plan: CleanupPlan | null }> {
    const snap = this.snapshot(snapshotId);
    this.assertActionRoute(snap.agent, action);
    const [{ evaluateAllRules }, { planFileFrom }] = await Promise.all([
      import('../inventory/retention/rules.js'),
      import('../inventory/retention/plan-file.js'),
    ]);
    const m = evaluateAllRules(snap, rules);
    const plan = m.matched.length
      ? await this.plan(
          snapshotId,
          m.matched.map((x) => x.id),
          action,
          'en', // the plan file's notes stay English, like its reasons: its JSON is the same in every language
        )
      : null;
    return { file: planFileFrom(snap, rules, m, plan), plan };
  }

  async planFromFile(snapshotId: string, file: PlanFile): Promise<CleanupPlan> {
    const { assertPlanUnchanged, PlanRefusedError, selectedIds, validatePlanFile } = await import('../inventory/retention/plan-file.js');
    const doc = validatePlanFile(file);
    const snap = this.snapshot(snapshotId);
    if (doc.agent !== snap.agent) throw new RequestError(`The plan is for ${agentName(doc.agent)}, not ${agentName(snap.agent)}.`);
    this.assertActionRoute(snap.agent, doc.action ?? 'delete');
    let plan: CleanupPlan;
    try {
      plan = await this.plan(snapshotId, selectedIds(doc), doc.action ?? 'delete');
    } catch (e) {
      // An id the fresh scan does not know: the session is gone since the plan was made.
      throw new PlanRefusedError(`The plan is out of date: ${(e as Error).message} Nothing was removed; make a new plan.`);
    }
    try {
      assertPlanUnchanged(doc, snap, plan);
    } catch (e) {
      this.plans.delete(plan.id);
      throw e;
    }
    return plan;
  }

  async allAgents(): Promise<AllAgentsOverview> {
    const { allAgentsOverview } = await import('../inventory/retention/all-agents.js');
    // In the registry's order, whatever order the scans ran in.
    const snaps = this.adapters.flatMap((a) => {
      const id = this.latestByAgent.get(a.kind);
      const snap = id ? this.snapshots.get(id) : undefined;
      return snap && snap.installation.state !== 'notFound' ? [snap] : [];
    });
    return allAgentsOverview(snaps);
  }

  async execute(planId: string, opts: ExecuteOptions = {}, onProgress: (p: ExecuteProgress) => void = () => undefined): Promise<ExecuteResult> {
    const plan = this.plans.get(planId);
    if (!plan) throw new RequestError('This plan is no longer current; review the cleanup again.');
    if (this.opts.readOnly) throw new RequestError('Read-only mode: no cleanup route is offered.');
    const adapter = this.adapter(plan.agent);
    if (!adapter.fileRoute && !adapter.sessionRoute) throw new RequestError('This agent has no cleanup route in this version.');
    await sweepExportStaging(this.dirs.data).catch(() => undefined);
    let backup: BackupRequest | undefined;
    // Back up only is the backup step alone: it always takes one.
    if (opts.backup || plan.action === 'backupOnly') {
      if (!plan.backupEligible) throw new RequestError(plan.backupWhyNot ?? 'This plan cannot be backed up.');
      // A key-store failure stops here, before the journal and before any mutation.
      // scrypt takes seconds and says nothing meanwhile: the phase tells what runs.
      onProgress({ phase: 'key', done: 0, total: plan.items.length, bytesDone: 0, bytesTotal: plan.estimatedBytes });
      const key = await this.unlockOrCreateKey(opts.passphrase ?? '');
      const snap = this.snapshot(plan.snapshotId);
      const exp = adapter.sessionRoute?.exportSessions;
      const firstRoot = plan.operations.find((o) => o.kind === 'officialDelete')?.rootSessionIds?.[0];
      const rev = firstRoot ? snap.session(`session:${firstRoot}`)?.s.metadata.routeRevision : undefined;
      backup = {
        take: this.backups.take,
        dataDir: this.dirs.data,
        key,
        roots: this.backupRoots(plan.agent, snap.installation),
        retentionDays: (await this.settings()).retention.backupDays,
        exportSessions: exp
          ? (roots, dir, onExport) =>
              exp(snap.installation, this.ctx, roots, dir, { expectedRevision: typeof rev === 'string' ? rev : undefined, onProgress: onExport })
          : undefined,
      };
    }
    this.plans.delete(planId);
    this.stop = false;
    const { executePlan } = await import('../cleanup/executor.js');
    const freed = plan.action === 'backupOnly' ? null : await this.freedBaseline(plan);
    const r = await executePlan(plan, this.executorDeps(adapter), onProgress, backup);
    if (freed) r.freed = await this.freedAfter(freed, r);
    return r;
  }

  /** statfs and allocations before the run (freed-bytes.ts); a failure to measure never stops a cleanup. */
  private async freedBaseline(plan: CleanupPlan): Promise<import('../cleanup/freed-bytes.js').FreedBaseline | null> {
    try {
      const { measureBefore } = await import('../cleanup/freed-bytes.js');
      const snap = this.snapshot(plan.snapshotId);
      const inPlace = new Map<string, import('../cleanup/freed-bytes.js').InPlaceTarget>();
      for (const i of plan.items) {
        const meta = snap.item(i.id)?.metadata;
        if (typeof meta?.dbPath === 'string') inPlace.set(i.id, { path: meta.dbPath, kind: 'database' });
        else if (typeof meta?.measureTree === 'string') inPlace.set(i.id, { path: meta.measureTree, kind: 'tree' });
      }
      return await measureBefore(plan, inPlace);
    } catch {
      return null;
    }
  }

  private async freedAfter(base: import('../cleanup/freed-bytes.js').FreedBaseline, r: ExecuteResult): Promise<ExecuteResult['freed']> {
    try {
      const { measureAfter } = await import('../cleanup/freed-bytes.js');
      const rec = r.backupId ? (await this.backups.list(this.dirs.data)).find((x) => x.id === r.backupId) : undefined;
      return await measureAfter(base, r, rec ? { backup: { path: rec.path, bytes: rec.archiveBytes } } : {});
    } catch {
      return undefined;
    }
  }

  // ---- backups --------------------------------------------------------------

  private backupRoots(agent: AgentKind, inst: Installation): { label: string; dir: string }[] {
    const route = this.adapter(agent).fileRoute;
    return (route?.roots(inst, this.ctx) ?? []).map((dir, i) => ({ label: i === 0 ? `${agent}_home` : `${agent}_root${i}`, dir }));
  }

  private async unlockOrCreateKey(passphrase: string): Promise<{ identity: string; recipient: string }> {
    return this.backups.unlockOrCreateKey(this.dirs.data, (await this.settings()).backupKeyStore, passphrase);
  }

  private async unlock(passphrase: string): Promise<{ identity: string; recipient: string }> {
    return this.backups.unlockKey(this.dirs.data, (await this.settings()).backupKeyStore, passphrase);
  }

  async keyInfo(): Promise<KeyInfo> {
    const store = (await this.settings()).backupKeyStore;
    return { ...(await this.backups.keyStatus(this.dirs.data)), store, needsPassphrase: store === 'file' };
  }

  /** Export always checks the file's passphrase, whatever unlocks the key day to day. */
  async keyExport(passphrase: string): Promise<string> {
    return this.backups.exportKey(this.dirs.data, passphrase);
  }

  async keyStoreSet(store: 'file' | 'keyring', passphrase: string): Promise<KeyInfo> {
    if (store !== 'file' && store !== 'keyring') throw new RequestError('The key store is "file" or "keyring".');
    const loaded = await loadSettings(this.dirs.config);
    if (loaded.warning) throw new RequestError(`${loaded.warning} Fix or save the settings first.`);
    await this.backups.switchKeyStore(this.dirs.data, store, passphrase);
    await saveSettings(this.dirs.config, { ...loaded.settings, backupKeyStore: store });
    this.settingsCache = null;
    return this.keyInfo();
  }

  async backupsList(): Promise<BackupSummary[]> {
    return this.backups.list(this.dirs.data);
  }

  private async record(id: string): Promise<BackupSummary> {
    const r = (await this.backups.list(this.dirs.data)).find((x) => x.id === id);
    if (!r) throw new RequestError(`No backup ${id} in the catalog.`);
    return r;
  }

  async backupVerify(id: string, passphrase: string, onProgress?: (p: BackupProgress) => void): Promise<{ entries: number; bytes: number }> {
    const r = await this.record(id);
    const progress = throttledProgress(onProgress);
    progress({ step: 'unlocking', done: 0, total: 0, bytesDone: 0, bytesTotal: r.originalBytes });
    const key = await this.unlock(passphrase);
    return this.backups.verify(this.dirs.data, r, key.identity, progress);
  }

  /**
   * A restore writes into the agent's dirs: never beside a cleanup (or another restore) of the same agent.
   * `onPlanned` (in-process callers only, the CLI's `--yes`; not part of EngineApi) gets what the dry run
   * would return, once the archive is checked and the destinations preflighted, before any is written.
   */
  async backupRestore(
    id: string,
    passphrase: string,
    dryRun = false,
    onProgress?: (p: BackupProgress) => void,
    onPlanned?: (planned: RestoreSummary) => void,
  ): Promise<RestoreSummary> {
    const progress = throttledProgress(onProgress);
    if (dryRun) return this.restoreBackup(id, passphrase, true, undefined, undefined, progress);
    const r = await this.record(id);
    // A refused restore leaves cleanerx's state dir as it was: the lock's dirs made here go again once empty.
    const locks = join(this.dirs.state, 'locks');
    const made = await fsp.mkdir(locks, { recursive: true, mode: 0o700 });
    try {
      const lock = (await import('../cleanup/agent-lock.js')).acquireAgentLock(this.dirs.state, r.agent);
      try {
        return await this.restoreBackup(id, passphrase, false, undefined, onPlanned, progress);
      } finally {
        lock.release();
      }
    } finally {
      if (made) await removeEmptyDirsUpTo(locks, made);
    }
  }

  /** The restore itself; the caller holds the agent's lock (recovery takes it for its whole action). */
  private async restoreBackup(
    id: string,
    passphrase: string,
    dryRun: boolean,
    onlyPaths?: readonly string[],
    onPlanned?: (planned: RestoreSummary) => void,
    progress: (p: BackupProgress) => void = () => undefined,
  ): Promise<RestoreSummary> {
    const r = await this.record(id);
    const adapter = this.adapter(r.agent);
    const route = adapter.fileRoute;
    if (!route) throw new RequestError(`${agentName(r.agent)} backups cannot be restored by this version of cleanerx.`);
    const s = await this.settings();
    const inst = await detectOne(adapter, this.ctx, s.homeOverrides[r.agent], false);
    const writers = await route.writers(inst, this.ctx);
    if (writers.length && !dryRun) throw new RequestError(`Quit ${agentName(r.agent)} before restoring (running: ${describeWriters(writers)}).`);
    progress({ step: 'unlocking', done: 0, total: 0, bytesDone: 0, bytesTotal: r.originalBytes });
    const key = await this.unlock(passphrase);
    const roots = Object.fromEntries(this.backupRoots(r.agent, inst).map((x) => [x.label, x.dir]));
    const imp = adapter.sessionRoute?.importSessions;
    const importSessions = imp
      ? async (exports: SessionExportEntry[], dry: boolean) => {
          if (dry) return exports.map((e) => `${agentName(r.agent)} session ${e.id} (${e.directory})`);
          return (await imp(inst, this.ctx, exports)).imported.map((id) => `${agentName(r.agent)} session ${id}`);
        }
      : undefined;
    if (!dryRun) {
      // An interrupted restore is settled first: the plan the caller shows is the one a check before the settle sees.
      if (onPlanned && (await this.restoresPending())) {
        onPlanned(await this.restoreBackup(id, passphrase, true));
        onPlanned = undefined;
      }
      const settled = await this.settleRestores(r.agent);
      const stuck = settled.find((x) => x.outcome === 'pending' || x.outcome === 'unknown');
      if (stuck) throw new RequestError(stuck.message);
      // This very backup's interrupted restore was just finished: that is the answer.
      const done = settled.find((x) => x.outcome === 'completed' && x.backupId === r.id && !onlyPaths);
      if (done)
        return {
          restored: done.restored.length,
          alreadyPresent: 0,
          bytes: r.originalBytes,
          paths: done.restored,
          unit: 'files',
          emptyDirs: [],
          notInBackup: [],
        };
    }
    return this.backups.restore({
      dataDir: this.dirs.data,
      id: r.id,
      identity: key.identity,
      agent: r.agent,
      roots,
      uid: this.ctx.uid,
      stagingParent: join(this.dirs.data, 'restore-staging'),
      journalDir: join(this.dirs.state, 'restores'),
      dryRun,
      importSessions,
      onlyPaths,
      onPlanned,
      onProgress: progress,
    });
  }

  async backupDelete(id: string): Promise<void> {
    await this.backups.delete(this.dirs.data, id);
  }

  private executorDeps(adapter: AgentAdapter): ExecutorDeps {
    const route = adapter.fileRoute;
    return {
      sessionRoute: adapter.sessionRoute,
      itemRoute: adapter.itemRoute,
      archiveRoute: adapter.archiveRoute,
      residue: adapter.residue,
      ctx: this.ctx,
      stateDir: this.dirs.state,
      snapshot: (id) => this.snapshot(id),
      latestSnapshotId: (agent) => this.latestByAgent.get(agent),
      mutationRoots: (_agent, snap) => route?.roots(snap.installation, this.ctx) ?? [],
      writers: async (_agent, snap) => (route ? route.writers(snap.installation, this.ctx) : []),
      rescan: (agent) => this.scan(agent),
      stopRequested: () => this.stop,
    };
  }

  private recoveryDeps(): RecoveryDeps {
    return {
      stateDir: this.dirs.state,
      rescan: (agent) => this.scan(agent),
      snapshot: (id) => this.snapshot(id),
      boundBackup: async (operationId, agent) =>
        (await this.backups.list(this.dirs.data)).find((r) => r.operationId === operationId && r.agent === agent)?.id ?? null,
      restore: async (backupId, passphrase, scope) => {
        // Only what the cleanup took: intact paths are left alone.
        await this.restoreBackup(
          backupId,
          passphrase,
          false,
          scope.paths.filter((x) => x.state !== 'intact').map((x) => x.path),
        );
      },
      discardCandidate: (backupId) => this.backups.discardCandidate(this.dirs.data, backupId),
    };
  }

  /** Finishes (or rolls back) restores a kill interrupted; a running agent's is left for later. Loads the backup code only when one exists. */
  private async settleRestores(agent?: AgentKind): Promise<SettledRestore[]> {
    const journalDir = join(this.dirs.state, 'restores');
    const stagingParent = join(this.dirs.data, 'restore-staging');
    if (!(await this.restoresPending())) return [];
    const s = await this.settings();
    return this.backups.settleRestores({
      journalDir,
      stagingParent,
      agent,
      rootsFor: async (a) => {
        const adapter = this.adapter(a);
        const inst = await detectOne(adapter, this.ctx, s.homeOverrides[a], false);
        const writers = adapter.fileRoute ? await adapter.fileRoute.writers(inst, this.ctx) : [];
        if (writers.length) return `Quit ${agentName(a)} so cleanerx can finish an interrupted restore (running: ${describeWriters(writers)}).`;
        return Object.fromEntries(this.backupRoots(a, inst).map((x) => [x.label, x.dir]));
      },
    });
  }

  /** A journal or staging dir of a restore is there (interrupted, or running in another process). */
  private async restoresPending(): Promise<boolean> {
    const journalDir = join(this.dirs.state, 'restores');
    const stagingParent = join(this.dirs.data, 'restore-staging');
    const names = [...(await fsp.readdir(journalDir).catch(() => [] as string[])), ...(await fsp.readdir(stagingParent).catch(() => [] as string[]))];
    return names.some((n) => n.startsWith('restore-'));
  }

  private settledLog: SettledRestore[] = [];

  /** The interrupted restores recoveryList / recoveryAction finished, rolled back or left pending since last asked (the CLI reports them). */
  takeSettledRestores(): SettledRestore[] {
    return this.settledLog.splice(0);
  }

  async recoveryList(): Promise<ObservedRecoveryOperation[]> {
    // Plaintext session exports of a killed backup never outlive it.
    await sweepExportStaging(this.dirs.data).catch(() => undefined);
    // An interrupted restore is finished first, so what recovery observes is not a half-restored item.
    this.settledLog.push(...(await this.settleRestores().catch(() => [])));
    return (await import('../cleanup/recovery.js')).listRecovery(this.recoveryDeps());
  }

  async recoveryAction(operationId: string, action: 'accept' | 'close' | 'restore', passphrase?: string): Promise<ObservedRecoveryOperation[]> {
    await sweepExportStaging(this.dirs.data).catch(() => undefined);
    this.settledLog.push(...(await this.settleRestores().catch(() => [])));
    await (await import('../cleanup/recovery.js')).recoveryAction(this.recoveryDeps(), operationId, action, passphrase);
    return this.recoveryList();
  }

  async close(): Promise<void> {
    this.snapshots.clear();
  }
}

/**
 * A backup's progress as the UI wants it: every change of step at once, the
 * counts at most every 100 ms (an archive's read reports each chunk, and
 * across the worker each report is a message).
 */
function throttledProgress(onProgress: ((p: BackupProgress) => void) | undefined): (p: BackupProgress) => void {
  if (!onProgress) return () => undefined;
  let step = '';
  let at = 0;
  return (p) => {
    const now = Date.now();
    if (p.step === step && now - at < 100 && p.done < p.total) return;
    step = p.step;
    at = now;
    onProgress(p);
  };
}
