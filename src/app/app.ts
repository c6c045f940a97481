// The screen controller: tabs, focus, key dispatch, modals, the deck. It
// talks to the engine only through EngineApi (a worker thread), so a long
// scan never freezes the keys.

import blessed from 'blessed';
import '../widgets/terminal-width.js'; // blessed measures with the terminal's widths (before any screen exists)
import type { AppFlags } from './flags.js';
import type { EngineApi } from '../engine/api/api.js';
import { deferred } from './deferred-engine.js';
import { formatAgo, formatBytes, formatCount, plural } from '../engine/core/format.js';
import { AGENT_NAMES, type AgentKind, type Installation, type ScanSummary } from '../engine/core/model.js';
import { passphraseProblem } from '../engine/core/passphrase-rule.js';
import type { LoadedSettings, Settings } from '../engine/host/settings.js';
import { BackupsScreen } from '../screens/backups.js';
import { ItemsScreen } from '../screens/items.js';
import { Marks } from '../screens/marks.js';
import { ProgressModal } from '../screens/progress.js';
import { RecoveryModal } from '../screens/recovery.js';
import { ReviewModal, type Modal } from '../screens/review.js';
import { appKeys } from '../screens/app-keys.js';
import { OverviewScreen } from '../screens/overview.js';
import { dispatch, footerHints, helpSections, keyId, type KeyContext } from '../widgets/bindings.js';
import type { AppContext, Screen } from '../screens/screen.js';
import { SessionsScreen } from '../screens/sessions.js';
import { SettingsScreen } from '../screens/settings.js';
import { Deck, type DeckAgent } from '../widgets/deck.js';
import { Dialog } from '../widgets/dialog.js';
import { TabBar } from '../widgets/tab-bar.js';
import { TextInput, type KeyEvent, type TextInputOptions } from '../widgets/text-input.js';
import { fitWidth } from '../engine/core/text.js';
import { PerfLog } from '../perf-log.js';
import { SettledSignal } from './settled-signal.js';
import { braces, makeTheme } from '../widgets/theme.js';

interface SelectorEntry {
  agent: AgentKind;
  note?: string;
}

export async function runApp(openEngine: () => Promise<EngineApi>, flags: AppFlags, env: Record<string, string | undefined>): Promise<number> {
  // The worker's module loading (the engine and every adapter) is the longest
  // step before the first rows; started here it overlaps the screen set-up on
  // the other core. The demo keeps its order: frame first, then the demo home.
  const early = flags.demo ? null : openEngine();
  early?.catch(() => undefined);
  const theme = makeTheme(env);
  // blessed prints terminfo complaints (e.g. screen-256color) through console.error before the alt screen.
  const origError = console.error;
  console.error = () => undefined;
  let screen: blessed.Widgets.Screen;
  try {
    screen = blessed.screen({
      smartCSR: true,
      fullUnicode: true,
      forceUnicode: true,
      autoPadding: false,
      warnings: false,
      title: 'cleanerx',
      dockBorders: false,
      sendFocus: false,
      useBCE: false,
    });
  } finally {
    console.error = origError;
  }
  // Borders and bullets go out as UTF-8, never through the alternate character
  // set: terminfo's ACS (tmux-256color, screen, xterm) puts shift-in/out state
  // on the wire, and a multiplexer or a capture sees q/x/~ instead of ─│·.
  (screen.tput as unknown as { brokenACS: boolean }).brokenACS = true;

  const rawEngine: EngineApi = deferred(new Promise<EngineApi>(() => undefined));
  const marks = new Marks();
  const perf = new PerfLog(env.CLEANERX_PERF_LOG);
  let installs: Installation[] = [];
  /** Until the first detection answers, the deck says so (not "No agent selected"). */
  let detected = false;
  let selector: SelectorEntry[] = [];
  let agent: AgentKind | null = null;
  let summary: ScanSummary | null = null;
  let settings: LoadedSettings | null = null;
  let scanning: { files: number; phase: string } | null = null;
  let scanGen = 0;
  let input: TextInput | null = null;
  let dialog: Dialog | null = null;
  let modal: Modal | null = null;
  let executing = false;
  let message: { text: string; kind: 'info' | 'error'; at: number } | null = null;
  let selectorFocused = false;
  /** A dialog is on its way (the plan, the key's state): keys typed meanwhile wait for it. */
  let hold: { title: string; queue: [string | undefined, KeyEvent][]; box: Dialog } | null = null;
  let current = 1;
  let renderQueued = false;
  const settled = new SettledSignal(env.CLEANERX_SETTLED_FILE, () => !hold && !scanning && !renderQueued);
  const engine = settled.wrapEngine(rawEngine);

  const requestRender = (): void => {
    if (renderQueued) return;
    renderQueued = true;
    setImmediate(paint);
  };

  const ctx: AppContext = {
    engine,
    theme,
    screen,
    marks,
    readOnly: flags.readOnly,
    demo: flags.demo,
    now: () => Date.now(),
    agent: () => agent,
    summary: () => summary,
    installations: () => installs,
    settings: () => settings,
    scanning: () => scanning !== null,
    requestRender,
    message: (text, kind = 'info') => {
      message = { text, kind, at: Date.now() };
      requestRender();
    },
    openInput: (opts: TextInputOptions) => {
      input = new TextInput({
        ...opts,
        onSubmit: (v) => {
          input = null;
          opts.onSubmit(v);
          requestRender();
        },
        onCancel: () => {
          input = null;
          opts.onCancel();
          requestRender();
        },
        onChange: (v) => {
          opts.onChange?.(v);
          requestRender();
        },
      });
      requestRender();
    },
    openDialog: (title, lines, footer = 'Esc or Enter closes') => {
      dialog?.destroy();
      dialog = new Dialog(screen, theme, title, lines, footer);
      requestRender();
    },
    hold: (title, p, then) => holdKeys(title, p, then),
    redetect: async (save?: Settings) => {
      if (save) await engine.saveSettings(save);
      settings = await engine.loadSettings();
      installs = await engine.detect({ versions: true });
      buildSelector();
      if (agent && !selector.some((e) => e.agent === agent)) agent = selector[0]?.agent ?? null;
      startScan();
    },
    rescan: () => startScan(),
  };

  const tabs = new TabBar(screen, theme);
  const deck = new Deck(screen, theme);
  const screens: Screen[] = [
    new OverviewScreen(ctx),
    new SessionsScreen(ctx),
    new ItemsScreen(ctx, 'Memory', ['memory'], (a) =>
      a === 'pi'
        ? 'pi keeps no automatic memory; AGENTS.md, SYSTEM.md and APPEND_SYSTEM.md are protected instructions, not memory.'
        : `Automatic memory of ${a}. Instructions files (AGENTS.md, CLAUDE.md, rules) are protected and never shown here.`,
    ),
    new ItemsScreen(ctx, 'Logs & caches', ['log', 'cache', 'temporary', 'protected'], () => 'Logs, caches and temporary data; protected configuration is listed so you can see it, never cleaned.'),
    new BackupsScreen(ctx),
    new SettingsScreen(ctx),
  ];

  function buildSelector(): void {
    const installed = installs.filter((i) => i.state === 'installed').map((i) => ({ agent: i.agent }));
    const dataOnly = installs.filter((i) => i.state === 'dataOnly');
    if (flags.demo) selector = [...installed, ...dataOnly.map((i) => ({ agent: i.agent, note: 'demo' }))];
    else if (installed.length) selector = installed;
    // Data without the program (copied home, program elsewhere): still show it rather than nothing.
    else selector = dataOnly.map((i) => ({ agent: i.agent, note: 'data only' }));
    const order = ['codex', 'claude', 'opencode', 'pi'];
    selector.sort((a, b) => order.indexOf(a.agent) - order.indexOf(b.agent));
  }

  function startScan(): void {
    const gen = ++scanGen;
    if (!agent) {
      summary = null;
      marks.rebase(null);
      for (const s of screens) s.onSummary();
      requestRender();
      return;
    }
    const target = agent;
    perf.mark('scanStart');
    scanning = { files: 0, phase: 'Starting' };
    requestRender();
    engine
      .scan(target, (p) => {
        if (gen !== scanGen) return;
        scanning = { files: p.files, phase: p.phase };
        // A partial view fills an empty screen while the scan runs (read-only);
        // it never replaces a finished scan's view, and the final one replaces it.
        if (p.provisional && (!summary || summary.provisional)) {
          summary = p.provisional;
          perf.mark('provisional', { sessions: p.provisional.sessionCount });
          for (const sc of screens) sc.onSummary();
        }
        requestRender();
      })
      .then(
        (s) => {
          if (gen !== scanGen) return;
          scanning = null;
          summary = s;
          perf.mark('scanDone', perf.enabled ? { uiHeapUsed: process.memoryUsage().heapUsed, rss: process.memoryUsage().rss } : {});
          marks.rebase(s);
          for (const sc of screens) sc.onSummary();
          requestRender();
        },
        (e: Error) => {
          if (gen !== scanGen) return;
          scanning = null;
          // The engine dropped the partial view with the failed scan.
          if (summary?.provisional) {
            summary = null;
            for (const sc of screens) sc.onSummary();
          }
          ctx.message(`Scan failed: ${e.message}`, 'error');
        },
      );
  }

  /**
   * First start (no agent chosen yet): scan every detected agent and open on
   * the one with the most data, not on the first one that has none.
   */
  async function openOnLargest(): Promise<void> {
    const gen = ++scanGen;
    let best: ScanSummary | null = null;
    for (const e of selector) {
      scanning = { files: 0, phase: `Looking at ${AGENT_NAMES[e.agent]}` };
      requestRender();
      const s = await engine
        .scan(e.agent, (p) => {
          if (gen === scanGen) scanning = { files: p.files, phase: p.phase };
          requestRender();
        })
        .catch(() => null);
      if (gen !== scanGen) return;
      if (s && (!best || s.totals.bytes > best.totals.bytes)) best = s;
    }
    scanning = null;
    agent = best?.agent ?? selector[0]?.agent ?? null;
    // The winner's scan is the newest of its agent: show it without scanning again.
    if (!best) return startScan();
    summary = best;
    marks.rebase(best);
    for (const sc of screens) sc.onSummary();
    requestRender();
  }

  async function switchAgent(delta: number): Promise<void> {
    if (selector.length === 0) {
      ctx.message('No agent to choose: nothing was detected (see Settings).');
      return;
    }
    const i = selector.findIndex((e) => e.agent === agent);
    const next = selector[(i + delta + selector.length) % selector.length]!.agent;
    if (next === agent) {
      ctx.message(`${AGENT_NAMES[next]} is the only agent here.`);
      return;
    }
    agent = next;
    marks.clear();
    summary = null;
    for (const s of screens) s.onSummary();
    startScan();
    if (settings) {
      const s = { ...settings.settings, targetAgent: next };
      engine.saveSettings(s).then(
        () => settings && (settings.settings = s),
        (e: Error) => ctx.message(`Could not save the target agent: ${e.message}`, 'error'),
      );
    }
  }

  function deckStatus(): string {
    if (scanning && summary?.provisional) return `Scanning… ${plural(scanning.files, 'file')} · partial view (read-only until the scan finishes)`;
    if (scanning) return `Scanning… ${plural(scanning.files, 'file')}`;
    if (!summary) return agent ? 'Waiting for scan data' : detected ? 'No agent selected' : 'Detecting agents…';
    const warn = summary.warnings.length ? ` · ${plural(summary.warnings.length, 'warning')}` : '';
    const ro = flags.readOnly ? ' · read-only' : summary.writers.length ? ` · ${AGENT_NAMES[summary.agent]} running` : '';
    return `Last scan ${formatAgo(summary.scannedAt, Date.now())} · ${plural(summary.totals.items, 'item')} · ${formatBytes(summary.totals.bytes)}${ro}${warn}`;
  }

  const keys = appKeys({
    quit: () => quit(),
    quitBlocked: () => (executing ? 'a cleanup is running; q or Esc asks to stop it after the current step' : undefined),
    repaintAll: () => repaintAll(),
    suspend: () => suspend(),
    showTab: (i) => (current = i),
    switchAgent: (d) => void switchAgent(d),
    focusNext: () => focusNext(),
    rescan: () => startScan(),
    review: () => openReview(),
    reviewBlocked: () => (flags.readOnly ? 'read-only mode (--read-only): no cleanup route is offered' : undefined),
    help: () => openHelp(),
    leaveSelector: () => (selectorFocused = false),
    cancelHold: () => releaseHold(),
  });
  const alwaysContext = keys.always;

  function dialogContext(d: Dialog): KeyContext {
    return keys.dialog(d, () => {
      d.destroy();
      if (dialog === d) dialog = null;
    });
  }

  /** What has the keyboard now, first asked first; the footer and help show the same. */
  function focusedContexts(): KeyContext[] {
    if (hold) return [{ ...keys.hold, title: hold.title }, alwaysContext];
    if (input) return [input.keyContext(), alwaysContext];
    if (modal) return [modal.keyContext(), alwaysContext];
    if (dialog) return [dialogContext(dialog), alwaysContext];
    if (selectorFocused) return [keys.selector, alwaysContext];
    return [screens[current]!.keyContext(), keys.global, alwaysContext];
  }

  function focusNext(): void {
    const sc = screens[current]!;
    if (!sc.focusNext || !sc.focusNext()) selectorFocused = true;
  }

  function repaintAll(): void {
    // Forget what blessed believes is on the terminal, so every cell is written again.
    screen.program.clear();
    screen.realloc();
    paint();
  }

  function suspend(): void {
    // blessed's pause buffers its "leave the alternate screen, show the cursor"
    // and then silences the output before the buffer goes out: the shell's
    // prompt would land on our frame. Unbuffered, those reach the terminal.
    const program = screen.program as unknown as { useBuffer: boolean; flush(): void };
    program.flush();
    program.useBuffer = false;
    (screen as unknown as { sigtstp(cb: () => void): void }).sigtstp(() => {
      program.useBuffer = true;
      repaintAll();
    });
  }

  function holdKeys<T>(title: string, p: Promise<T>, then: (v: T) => void): void {
    hold?.box.destroy();
    const h = { title, queue: [] as [string | undefined, KeyEvent][], box: new Dialog(screen, theme, title, [`${braces(title)}…`], 'Esc cancels') };
    hold = h;
    requestRender();
    p.then(
      (v) => {
        if (hold !== h) return;
        releaseHold();
        then(v);
        for (const [ch, k] of h.queue) onKey(ch, k);
        requestRender();
      },
      (e: Error) => {
        if (hold !== h) return;
        releaseHold();
        ctx.openDialog(title, [braces(e.message)]);
      },
    );
  }

  function releaseHold(): void {
    hold?.box.destroy();
    hold = null;
    requestRender();
  }

  let quit: () => void = () => undefined;

  function paint(): void {
    renderQueued = false;
    perf.paintStart();
    // A notice fades after 6 s; an error stays until the next key, so one that left the app without an agent is read.
    if (message?.kind === 'info' && Date.now() - message.at > 6000 && !input) message = null;
    const W = (screen.width as number) || 80;
    tabs.paint(
      screens.map((s) => (s.title === 'Sessions' && summary ? `Sessions (${formatCount(summary.sessionCount)}${summary.provisional ? '…' : ''})` : s.title)),
      current,
      W >= 90 ? theme.dim('cleanerx') + (flags.readOnly ? ' ' + theme.warn('read-only') : '') : '',
    );
    screens.forEach((s, i) => (i === current ? s.root.show() : s.root.hide()));
    screens[current]!.paint();
    const agents: DeckAgent[] = selector.map((e) => ({ label: AGENT_NAMES[e.agent], note: e.note }));
    const focused = focusedContexts();
    deck.paint({
      agents,
      current: Math.max(0, selector.findIndex((e) => e.agent === agent)),
      selectorFocused,
      status: deckStatus(),
      marks: marks.count ? `${formatCount(marks.count)} marked · ${formatBytes(marks.bytes)}` : '',
      focus: focused[0]!.title,
      hints: footerHints(focused),
      message: message ? { text: message.text, kind: message.kind } : undefined,
      inputLine: input ? input.render(W - 2) : undefined,
    });
    if (modal) modal.paint();
    if (dialog) {
      dialog.layout();
      dialog.box.setFront();
    }
    if (hold) {
      hold.box.layout();
      hold.box.box.setFront();
    }
    screen.render();
    settled.painted();
    if (perf.enabled) {
      const st = screens[current]!.paintState?.() ?? { rows: 0, settled: true };
      perf.painted({ rows: st.rows, settled: st.settled, scanning: scanning !== null });
    }
    if (message?.kind === 'info') setTimeout(requestRender, 6100).unref();
  }

  function openHelp(): void {
    const sections = helpSections(focusedContexts());
    const W = Math.max(30, ((screen.width as number) || 80) - 10);
    const lines: string[] = [];
    for (const sec of sections) {
      if (lines.length) lines.push('');
      lines.push(theme.accent(braces(sec.title)));
      for (const r of sec.rows) {
        const why = r.disabled ? `  — unavailable: ${r.disabled}` : '';
        const does = fitWidth(`${r.does}${why}`, Math.max(10, W - 18));
        lines.push(`  ${theme.bold(braces(r.keys.padEnd(16)))}${r.disabled ? theme.dim(braces(does)) : braces(does)}`);
      }
    }
    ctx.openDialog('Help', lines, 'Esc, Enter or ? closes · ↑↓ PgUp PgDn scroll');
  }

  function openReview(): void {
    if (flags.readOnly) {
      ctx.openDialog('Review', ['Read-only mode (--read-only): no cleanup route is offered.']);
      return;
    }
    if (summary?.provisional) {
      ctx.openDialog('Review', ['The scan is still running: this is a partial, read-only view.', '', 'Marks and the cleanup review open when it finishes.']);
      return;
    }
    if (marks.count === 0 || !summary) {
      ctx.openDialog('Review', ['Nothing is marked.', '', 'Mark sessions with Space (or a for everything in the current filter), then press x.']);
      return;
    }
    const ids = marks.list();
    holdKeys('Preparing the review', engine.plan(summary.snapshotId, ids), (plan) => {
      const blockers = [...plan.blockers, ...plan.operations.flatMap((o) => o.blockers)];
      modal = new ReviewModal(screen, theme, plan, blockers, (backup) => {
        if (!backup) return void runCleanup(plan.id, {});
        askPassphrase('backup', (passphrase) => void runCleanup(plan.id, { backup: true, passphrase }));
      });
    });
  }

  /** Asks for the backup key's passphrase (twice when the key is created now); never stored. */
  function askPassphrase(purpose: string, then: (passphrase: string) => void): void {
    holdKeys('Reading the backup key', engine.keyInfo(), (k) => {
        if (!k.needsPassphrase) return then('');
        if (k.problem) return ctx.openDialog('Backup key', [braces(k.problem)]);
        const ask = (label: string, done: (v: string) => void): void =>
          ctx.openInput({ label, mask: true, maxLength: 1024, onSubmit: done, onCancel: () => ctx.message(`No ${purpose}: cancelled.`) });
        if (k.exists) return ask('Backup key passphrase:', then);
        ask('New backup key passphrase (8+ characters):', (first) => {
          const problem = passphraseProblem(first);
          if (problem) return ctx.message(`${problem} Nothing was done.`, 'error');
          ask('Repeat the passphrase:', (second) => {
            if (second !== first) return ctx.message('The passphrases differ; nothing was done.', 'error');
            then(first);
          });
        });
    });
  }

  async function runCleanup(planId: string, opts: { backup?: boolean; passphrase?: string }): Promise<void> {
    const progress = new ProgressModal(screen, theme, () => void engine.stopExecution());
    modal = progress;
    executing = true;
    requestRender();
    try {
      const r = await engine.execute(planId, opts, (p) => {
        progress.progress = p;
        requestRender();
      });
      if (r.summary) {
        summary = r.summary;
        marks.rebase(r.summary);
        for (const sc of screens) sc.onSummary();
      }
      progress.destroy();
      modal = null;
      if (r.status === 'complete') {
        ctx.openDialog('Cleanup complete', [
          `Removed ${plural(r.removedItems, 'item')} · ${formatBytes(r.removedBytes)}.`,
          '',
          'A fresh scan confirmed that none of them is listed any more.',
          ...(r.backupId ? ['', `Backup ${r.backupId} is verified; restore it from the Backups tab (5).`] : []),
        ]);
        for (const sc of screens) sc.onSummary();
      } else {
        ctx.openDialog('Cleanup failed', [braces(r.message), '', 'Nothing outside the reviewed plan was touched. Any interrupted step is offered for recovery.']);
        void checkRecovery();
      }
    } catch (e) {
      progress.destroy();
      modal = null;
      ctx.openDialog('Cleanup not started', [braces((e as Error).message)]);
    } finally {
      executing = false;
      requestRender();
    }
  }

  async function checkRecovery(): Promise<void> {
    const ops = await engine.recoveryList().catch(() => []);
    if (!ops.length || modal) return;
    modal = new RecoveryModal(screen, theme, ops, async (op, action) => {
      let next: Awaited<ReturnType<typeof engine.recoveryList>>;
      if (action === 'rescan') next = await engine.recoveryList();
      else if (action === 'restore') {
        const passphrase = (await engine.keyInfo()).needsPassphrase
          ? await new Promise<string>((resolve, reject) =>
              ctx.openInput({ label: 'Backup key passphrase:', mask: true, maxLength: 1024, onSubmit: resolve, onCancel: () => reject(new Error('Restore cancelled.')) }),
            )
          : '';
        next = await engine.recoveryAction(op.operationId, 'restore', passphrase);
      } else next = await engine.recoveryAction(op.operationId, action);
      if (op.agent && op.agent === agent) startScan();
      return next;
    });
    requestRender();
  }

  function onKey(ch: string | undefined, k: KeyEvent): void {
    // blessed reports "\r" twice, as "enter" and then "return": act on "enter" only.
    if (k.name === 'return') return;
    if (hold) {
      // Everything typed after the key that opened a dialog belongs to that dialog, even before it is there.
      if (keyId(ch, k) !== 'escape' && !alwaysContext.bindings.some((b) => b.keys.includes(keyId(ch, k)))) {
        hold.queue.push([ch, k]);
        return;
      }
    }
    const always = alwaysContext.bindings.some((b) => b.keys.includes(keyId(ch, k)));
    // A redraw or a suspend keeps the message the user is reading.
    if (message && k.name !== undefined && !input && !always) message = null;
    const m = modal;
    const r = dispatch(focusedContexts(), ch, k);
    if (r.kind === 'disabled') ctx.message(`${r.why[0]!.toUpperCase()}${r.why.slice(1)}.`);
    // A confirm may open the next modal (progress) from inside its binding.
    if (m?.closed) {
      m.destroy();
      if (modal === m) modal = null;
    }
    requestRender();
  }

  return new Promise<number>((resolve) => {
    let quitting = false;
    quit = (): void => {
      if (quitting) return;
      quitting = true;
      screen.destroy();
      resolve(0);
    };

    screen.on('keypress', (ch: string | undefined, key: KeyEvent | undefined) => {
      const k: KeyEvent = key ?? {};
      perf.key(k.name ?? ch);
      onKey(ch, k);
    });
    screen.on('resize', () => requestRender());
    screen.on('cleanerx:repaint', () => requestRender());

    paint();
    void settled.track((async () => {
      try {
        await new Promise((r) => setImmediate(r));
        const real = early ?? openEngine();
        real.catch((e: Error) => ctx.message(e.message, 'error'));
        Object.assign(rawEngine, deferred(real));
        settled.engineReady();
        settings = await engine.loadSettings();
        perf.mark('engineReady');
        if (settings.warning) ctx.message(settings.warning, 'error');
        installs = await engine.detect();
        detected = true;
        perf.mark('detected');
        buildSelector();
        const asked = flags.initialAgent;
        const preferred = asked ?? settings.settings.targetAgent;
        agent = selector.find((e) => e.agent === preferred)?.agent ?? null;
        if (asked && !agent) ctx.message(`${AGENT_NAMES[asked]} was not detected here; see Settings (6).`, 'error');
        if (!agent && !asked && selector.length > 1) await openOnLargest();
        else {
          agent ??= selector[0]?.agent ?? null;
          startScan();
        }
        void checkRecovery();
        // Versions cost a process each; they arrive after the first scan has started.
        const withVersions = await engine.detect({ versions: true });
        installs = withVersions;
        requestRender();
      } catch (e) {
        ctx.message((e as Error).message, 'error');
      }
    })());
  });
}
