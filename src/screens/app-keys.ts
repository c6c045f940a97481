// The app's own key tables: the keys that work everywhere (dialogs too),
// the screen-level keys under every screen, the agent selector, an open
// dialog, and the wait for a dialog on its way. As data, like every
// screen's, so dispatch, the footer and help read the same tables.

import type { KeyContext } from '../widgets/bindings.js';

export interface AppActions {
  quit(): void;
  /** Why Ctrl-C does not quit now (a cleanup is running), or undefined. */
  quitBlocked(): string | undefined;
  repaintAll(): void;
  suspend(): void;
  showTab(index: number): void;
  switchAgent(delta: number): void;
  focusNext(): void;
  rescan(): void;
  review(): void;
  /** Why `x` cannot review now (read-only mode), or undefined. */
  reviewBlocked(): string | undefined;
  help(): void;
  leaveSelector(): void;
  cancelHold(): void;
}

export interface ScrollableDialog {
  readonly title: string;
  scroll(n: number): void;
  page(): number;
}

export interface AppKeys {
  always: KeyContext;
  global: KeyContext;
  selector: KeyContext;
  hold: KeyContext;
  dialog(d: ScrollableDialog, close: () => void): KeyContext;
}

export function appKeys(a: AppActions): AppKeys {
  const quit = { keys: ['q'], does: 'quit', footer: 'quit', run: () => a.quit() };
  return {
    always: {
      title: 'Always',
      bindings: [
        { keys: ['C-c'], does: 'quit', disabled: () => a.quitBlocked(), run: () => a.quit() },
        { keys: ['C-l'], does: 'redraw the whole screen', run: () => a.repaintAll() },
        { keys: ['C-z'], does: 'suspend (the shell’s fg resumes)', run: () => a.suspend() },
      ],
    },
    global: {
      title: 'Everywhere',
      bindings: [
        { keys: ['1', '2', '3', '4', '5', '6'], label: '1–6', does: 'switch tab', run: (ch) => a.showTab(Number(ch) - 1) },
        { keys: ['['], does: 'previous agent', run: () => a.switchAgent(-1) },
        { keys: [']'], does: 'next agent', run: () => a.switchAgent(1) },
        { keys: ['tab'], does: 'next pane, then the agent selector', run: () => a.focusNext() },
        { keys: ['r'], does: 'rescan', footer: 'rescan', run: () => a.rescan() },
        { keys: ['x'], does: 'review the cleanup of the marked items', footer: 'review', disabled: () => a.reviewBlocked(), run: () => a.review() },
        { keys: ['?'], does: 'help', footer: 'help', run: () => a.help() },
        quit,
      ],
    },
    selector: {
      title: 'Agent selector',
      modal: true,
      bindings: [
        { keys: ['left', 'h', '['], label: '← h [', does: 'previous agent', footer: 'choose agent', run: () => a.switchAgent(-1) },
        { keys: ['right', 'l', ']'], label: '→ l ]', does: 'next agent', run: () => a.switchAgent(1) },
        { keys: ['escape', 'tab', 'enter'], label: 'Esc Tab Enter', does: 'back to the screen', footer: 'back', run: () => a.leaveSelector() },
        quit,
      ],
    },
    hold: {
      title: 'Waiting',
      modal: true,
      bindings: [{ keys: ['escape'], does: 'cancel (keys typed meanwhile go to the dialog when it opens)', footer: 'cancel', run: () => a.cancelHold() }],
    },
    dialog: (d, close) => ({
      title: d.title,
      modal: true,
      bindings: [
        { keys: ['escape', 'enter', '?', 'q'], label: 'Esc Enter ? q', does: 'close', footer: 'close', run: close },
        { keys: ['up', 'k'], label: '↑ k', does: 'scroll up', footer: 'scroll', run: () => d.scroll(-1) },
        { keys: ['down', 'j'], label: '↓ j', does: 'scroll down', run: () => d.scroll(1) },
        { keys: ['pageup'], does: 'scroll a page up', run: () => d.scroll(-d.page()) },
        { keys: ['pagedown', 'space'], label: 'PgDn Space', does: 'scroll a page down', run: () => d.scroll(d.page()) },
      ],
    }),
  };
}
