// The app's shared state, and the AppContext the screens get from it. One
// object that every part of the app (the agent scan, the cleanup flow, the
// keys, the frame) reads and changes; only the frame paints it.

import type blessed from 'blessed';
import type { EngineApi, LoadedSettings } from '../engine/api/api.js';
import { t, type MessageKey } from '../engine/i18n/index.js';
import type { AgentKind, Installation, ScanSummary } from '../engine/core/model.js';
import { BusyModal, type BusyCancel } from '../modals/busy.js';
import type { Modal } from '../modals/modal.js';
import type { Marks } from '../screens/marks.js';
import type { AppContext, BusyOptions, BusyState, Screen } from '../screens/screen.js';
import { Dialog } from '../widgets/dialog.js';
import { TextInput, type KeyEvent, type TextInputOptions } from '../widgets/text-input.js';
import { braces, type Theme } from '../widgets/theme.js';
import { wrapWords } from '../widgets/detail-pane.js';
import { deferred } from './deferred-engine.js';
import type { AppFlags } from './flags.js';
import { promptPassphrase } from './passphrase-prompt.js';
import { PerAgent } from './per-agent.js';
import { PerfLog } from './perf-log.js';
import { SettledSignal } from './settled-signal.js';
import type { ClipboardRoute } from '../terminal/osc52.js';
import { printClipboard } from '../terminal/terminal-out.js';

const COPY_ROUTE: Record<ClipboardRoute, MessageKey> = { tmux: 'copy.sentTmux', screen: 'copy.sentScreen', terminal: 'copy.sentTerminal' };

interface SelectorEntry {
  agent: AgentKind;
  note?: string;
}

/** A dialog on its way (the plan, the key's state): keys typed meanwhile wait for it. */
export interface Hold {
  title: string;
  queue: [string | undefined, KeyEvent][];
  box: Dialog;
}

export class AppState {
  /** Each agent's marks and last finished scan, kept across switches. */
  readonly perAgent = new PerAgent();
  /** The marks of the agent on screen. */
  get marks(): Marks {
    return this.perAgent.marksOf(this.agent);
  }
  readonly perf: PerfLog;
  readonly settled: SettledSignal;
  /** The engine until the worker is up: calls wait for it (filled in by the start-up). */
  readonly rawEngine: EngineApi = deferred(new Promise<EngineApi>(() => undefined));
  /** What every part of the app calls (counted for the settled signal). */
  readonly engine: EngineApi;
  screens: Screen[] = [];
  installs: Installation[] = [];
  /** Until the first detection answers, the deck says so (not "No agent selected"). */
  detected = false;
  selector: SelectorEntry[] = [];
  agent: AgentKind | null = null;
  summary: ScanSummary | null = null;
  settings: LoadedSettings | null = null;
  scanning: { files: number; phase: string } | null = null;
  scanGen = 0;
  input: TextInput | null = null;
  /** The box over an open input that says why it asks again. */
  inputNote: Dialog | null = null;
  dialog: Dialog | null = null;
  modal: Modal | null = null;
  /** A long operation under way (busy.ts): it has the keys until it ends. */
  busy: BusyModal | null = null;
  message: { text: string; kind: 'info' | 'error'; at: number } | null = null;
  selectorFocused = false;
  hold: Hold | null = null;
  /** The tab shown (Sessions first). */
  current = 1;
  renderQueued = false;
  /** The frame's paint (set when the frame exists). */
  paint: () => void = () => undefined;

  constructor(
    readonly screen: blessed.Widgets.Screen,
    readonly theme: Theme,
    readonly flags: AppFlags,
    readonly env: Readonly<Record<string, string | undefined>>,
  ) {
    this.perf = new PerfLog(env.CLEANERX_PERF_LOG);
    this.settled = new SettledSignal(env.CLEANERX_SETTLED_FILE, () => !this.hold && !this.busy && !this.scanning && !this.renderQueued);
    this.engine = this.settled.wrapEngine(this.rawEngine);
  }

  requestRender(): void {
    if (this.renderQueued) return;
    this.renderQueued = true;
    setImmediate(() => this.paint());
  }

  /** When the last paint ran (performance.now()). */
  private paintedAt = 0;
  private idleRender: NodeJS.Timeout | null = null;
  /** Idle requests so far, and how many of them the last paint had seen. */
  private idleAsked = 0;
  private idleShown = 0;

  /** The frame calls this as it starts a paint: everything asked for so far is on it. */
  notePainted(): void {
    this.renderQueued = false;
    this.paintedAt = performance.now();
    this.idleShown = this.idleAsked;
  }

  /**
   * A paint that may wait up to `gapMs` after the last one: scan progress
   * arrives every few milliseconds, and a paint for each kept the UI thread
   * busy, so a key typed meanwhile waited for the paint in progress (100k
   * sessions: keys up to 300 ms). Any paint in between shows the same state.
   */
  requestIdleRender(gapMs: number): void {
    this.idleAsked++;
    if (this.renderQueued || this.idleRender) return;
    const wait = this.paintedAt + gapMs - performance.now();
    if (wait <= 0) return this.requestRender();
    this.idleRender = setTimeout(() => {
      this.idleRender = null;
      // A paint after the last request already showed it.
      if (this.idleShown < this.idleAsked) this.requestRender();
    }, wait);
    this.idleRender.unref();
  }

  /** The agent's name as detection gives it (from its adapter). */
  nameOf(kind: AgentKind): string {
    return this.installs.find((i) => i.agent === kind)?.displayName ?? kind;
  }

  /** A new summary (or agent): every screen hears of it. */
  summaryChanged(): void {
    for (const s of this.screens) s.onSummary();
  }
}

/** What the context delegates to the other parts of the app. */
interface ContextServices {
  hold: AppContext['hold'];
  redetect: AppContext['redetect'];
  rescan(): void;
  reviewArchive: AppContext['reviewArchive'];
  reviewSuggested: AppContext['reviewSuggested'];
}

export function makeContext(st: AppState, svc: ContextServices): AppContext {
  const requestRender = (): void => st.requestRender();
  const ctx: AppContext = {
    engine: st.engine,
    theme: st.theme,
    screen: st.screen,
    get marks() {
      return st.marks;
    },
    readOnly: st.flags.readOnly,
    demo: st.flags.demo,
    now: () => Date.now(),
    agent: () => st.agent,
    summary: () => st.summary,
    installations: () => st.installs,
    settings: () => st.settings,
    scanning: () => st.scanning !== null,
    requestRender,
    message: (text, kind = 'info') => {
      st.message = { text, kind, at: Date.now() };
      requestRender();
    },
    openInput: (opts: TextInputOptions) => {
      // Closed before the owner's answer runs: that answer may open the next input (a prompt asked again).
      const close = (): void => {
        st.input = null;
        st.inputNote?.destroy();
        st.inputNote = null;
      };
      close();
      if (opts.note) {
        const width = Math.max(20, Math.min(64, ((st.screen.width as number) || 80) - 8));
        const lines = wrapWords(opts.note.text, width).map((l) => ` ${braces(l)}`);
        st.inputNote = new Dialog(st.screen, st.theme, opts.note.title, lines, opts.note.footer ?? t('pass.noteFooter'));
      }
      st.input = new TextInput({
        ...opts,
        onSubmit: (v) => {
          close();
          opts.onSubmit(v);
          requestRender();
        },
        onCancel: () => {
          close();
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
    openDialog: (title, lines, footer = t('app.dialogFooter')) => {
      st.dialog?.destroy();
      st.dialog = new Dialog(st.screen, st.theme, title, lines, footer);
      requestRender();
    },
    copy: (title, what, text) => {
      const route = printClipboard(text, st.env);
      const width = Math.max(20, ((st.screen.width as number) || 80) - 8);
      const how = route === null ? 'copy.tooLarge' : COPY_ROUTE[route];
      const note = [t(how), ...(route === null ? [] : [t('copy.selectIfRefused')])].flatMap((l) => wrapWords(l, width));
      ctx.openDialog(title, [...wrapWords(text, width).map((l) => ` ${braces(l)}`), '', ...note.map((l) => ` ${st.theme.dim(braces(l))}`)]);
      if (route !== null) ctx.message(t('copy.status', { what }));
    },
    askPassphrase: (req, use) => promptPassphrase(ctx, req, use),
    busy: (o, run) => runBusy(st, o, run),
    hold: (title, p, then) => svc.hold(title, p, then),
    redetect: (save) => svc.redetect(save),
    rescan: () => svc.rescan(),
    reviewArchive: (ids, action) => svc.reviewArchive(ids, action),
    reviewSuggested: (byAgent) => svc.reviewSuggested(byAgent),
  };
  return ctx;
}

/** ctx.busy: the busy box has the keys from now until the operation answers (or Esc cancels what may be cancelled). */
function runBusy<T>(st: AppState, o: BusyOptions, run: (update: (s: BusyState) => void) => Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let cancelled = false;
    const c = o.cancel;
    const cancel: BusyCancel =
      'cancelled' in c
        ? {
            kind: 'now',
            run: () => {
              cancelled = true;
              close();
              st.message = { text: c.cancelled, kind: 'info', at: Date.now() };
            },
          }
        : 'stop' in c
          ? { kind: 'ask', run: () => c.stop() }
          : { kind: 'never', why: c.never };
    const b = new BusyModal(st.screen, st.theme, o.title, o.first, cancel);
    st.busy?.destroy();
    st.busy = b;
    function close(): void {
      b.destroy();
      if (st.busy === b) st.busy = null;
      st.requestRender();
    }
    st.requestRender();
    let p: Promise<T>;
    try {
      p = run((s) => {
        b.update(s);
        st.requestRender();
      });
    } catch (e) {
      p = Promise.reject(e as Error);
    }
    p.then(
      (v) => {
        if (cancelled) return;
        close();
        resolve(v);
      },
      (e: unknown) => {
        if (cancelled) return;
        close();
        reject(e as Error);
      },
    );
  });
}
