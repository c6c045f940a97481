// What a screen is, and what the app lends it. Screens hold ids and pages
// from the engine, never paths to open: they cannot reach the filesystem.

import type blessed from 'blessed';
import type { EngineApi, LoadedSettings } from '../engine/api/api.js';
import type { AgentKind, Installation, ScanSummary } from '../engine/core/model.js';
import type { TextInputOptions } from '../widgets/text-input.js';
import type { KeyContext } from '../widgets/bindings.js';
import type { Theme } from '../widgets/theme.js';
import type { Marks } from './marks.js';

export interface AppContext {
  engine: EngineApi;
  theme: Theme;
  screen: blessed.Widgets.Screen;
  marks: Marks;
  readOnly: boolean;
  demo: boolean;
  now(): number;
  agent(): AgentKind | null;
  summary(): ScanSummary | null;
  installations(): Installation[];
  settings(): LoadedSettings | null;
  scanning(): boolean;
  requestRender(): void;
  message(text: string, kind?: 'info' | 'error'): void;
  openInput(opts: TextInputOptions): void;
  openDialog(title: string, lines: string[], footer?: string): void;
  /**
   * Puts `text` on the user's clipboard through the terminal (OSC 52, via
   * tmux or screen) and shows it whole in a dialog titled `title`, for the
   * terminals that refuse it. `what` names it in the status line.
   */
  copy(title: string, what: string, text: string): void;
  /**
   * The one passphrase prompt (masked, never stored): see PassphraseRequest.
   * `use` gets each answer; when it resolves `wrong` the prompt asks again
   * (three tries in all), saying why, and then gives up visibly.
   */
  askPassphrase(req: PassphraseRequest, use: (passphrase: string) => Promise<PassphraseVerdict>): void;
  /**
   * Runs a long operation in the one busy state (a spinner, the phase, the
   * counts and bytes it reports through `update`): while it runs, keys do
   * nothing to the screen behind it. See BusyOptions for what Esc does. The
   * answer is the operation's; after an Esc that cancelled, it never comes.
   */
  busy<T>(o: BusyOptions, run: (update: (s: BusyState) => void) => Promise<T>): Promise<T>;
  /**
   * Waits for `p` before opening the dialog it leads to (`then` opens it):
   * keys typed meanwhile are kept and go to that dialog, not to the screen
   * underneath. A failure is shown in a dialog titled `title`.
   */
  hold<T>(title: string, p: Promise<T>, then: (v: T) => void): void;
  /** Re-reads settings, re-detects and rescans (after Settings → Save). */
  redetect(save?: LoadedSettings['settings']): Promise<void>;
  rescan(): void;
  /** Opens the review of an archive (or unarchive) plan of these sessions. */
  reviewArchive(ids: string[], action: 'archive' | 'unarchive'): void;
  /** Marks these items of each agent (the Overview's suggested plan) and opens the one review of everything marked. */
  reviewSuggested(byAgent: Partial<Record<AgentKind, string[]>>): void;
}

/** What the busy state shows: the phase always, counts and bytes when the operation has them. */
export interface BusyState {
  phase: string;
  done?: number;
  total?: number;
  bytesDone?: number;
  bytesTotal?: number;
  /** The item under way (agent text: shown through `cell`). */
  current?: string;
}

export interface BusyOptions {
  /** The box's title (short: the footer names it). */
  title: string;
  first: BusyState;
  /**
   * `cancelled`: the operation writes nothing, so Esc leaves it at once and
   * this line says so; `stop`: Esc asks, y stops after the current step (a
   * cleanup); `never`: it runs to its end (a restore's writing), this says why.
   */
  cancel: { cancelled: string } | { stop(): void } | { never: string };
}

/** What a passphrase's user found: `wrong` (it does not unlock the key) asks again. */
export type PassphraseVerdict = 'wrong' | undefined;

/**
 * What a passphrase prompt asks. Every prompt for the backup key's
 * passphrase (a cleanup's backup, a restore, the key's export, the move to
 * the key ring) goes through one function with these.
 */
export interface PassphraseRequest {
  /** False (the key ring unlocks the key): nothing is asked and the answer is ''. */
  needed: boolean;
  /** The prompt for the key that exists. */
  label: string;
  /**
   * The key is made now: its passphrase is typed twice and checked against
   * the passphrase rule first (the prompts of the two steps). A refusal
   * asks again, saying why.
   */
  newKey?: { label: string; repeat: string };
  /** What ends without a passphrase (Esc, or a third refusal), as the status line says it ("Verify cancelled."). */
  cancelled: string;
  /** Called after that line is shown. */
  onCancel?(): void;
}

export interface Screen {
  /** Its tab's label (the tab bar derives the tabs, their digits included, from the app's list of screens). */
  readonly title: string;
  /** The tab's label when the whole labels do not fit the width (an 80-column terminal); the title when absent. */
  readonly shortTitle?: string;
  readonly root: blessed.Widgets.BoxElement;
  /** Called when a new scan summary (or agent) arrives. */
  onSummary(): void;
  /** Lays out and fills the widgets; cheap, called on every render. */
  paint(): void;
  /**
   * The bindings of the focused widget (the list, the detail pane): they
   * drive dispatch, the footer and help. Keys the table does not bind go
   * on to the app's (tabs, agent, rescan, review, help, quit).
   */
  keyContext(): KeyContext;
  /** Tab cycles focus inside the screen; false when focus should leave it. */
  focusNext?(): boolean;
  /**
   * For the perf log: data rows drawn by the last paint, and whether that
   * paint showed the current view (no placeholders, no stale page).
   */
  paintState?(): { rows: number; settled: boolean };
}
