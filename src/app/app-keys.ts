// The app's own key tables: the keys that work everywhere (dialogs too),
// the screen-level keys under every screen, the agent selector, an open
// dialog, and the wait for a dialog on its way. As data, like every
// screen's, so dispatch, the footer and help read the same tables.

import { t } from '../engine/i18n/index.js';
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

interface ScrollableDialog {
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

/** `tabKeys`: the digits of the tabs, in order (tabs.ts derives them from the screens). */
export function appKeys(a: AppActions, tabKeys: readonly string[]): AppKeys {
  const tabsLabel = tabKeys.length > 1 ? `${tabKeys[0]}–${tabKeys.at(-1)}` : tabKeys[0];
  const quit = { keys: ['q'], does: t('app.quit'), footer: t('app.footer.quit'), run: () => a.quit() };
  return {
    always: {
      title: t('app.always'),
      bindings: [
        { keys: ['C-c'], does: t('app.quit'), disabled: () => a.quitBlocked(), run: () => a.quit() },
        { keys: ['C-l'], does: t('app.redraw'), run: () => a.repaintAll() },
        { keys: ['C-z'], does: t('app.suspend'), run: () => a.suspend() },
      ],
    },
    global: {
      title: t('app.everywhere'),
      bindings: [
        { keys: [...tabKeys], label: tabsLabel, does: t('app.switchTab'), run: (ch) => a.showTab(tabKeys.indexOf(ch ?? '')) },
        { keys: ['['], does: t('key.previousAgent'), run: () => a.switchAgent(-1) },
        { keys: [']'], does: t('key.nextAgent'), run: () => a.switchAgent(1) },
        { keys: ['tab'], does: t('app.nextPane'), run: () => a.focusNext() },
        { keys: ['r'], does: t('app.rescan'), footer: t('app.footer.rescan'), run: () => a.rescan() },
        { keys: ['x'], does: t('app.review'), footer: t('app.footer.review'), disabled: () => a.reviewBlocked(), run: () => a.review() },
        { keys: ['?'], does: t('app.help'), footer: t('app.footer.help'), run: () => a.help() },
        quit,
      ],
    },
    selector: {
      title: t('app.selector'),
      modal: true,
      bindings: [
        { keys: ['left', 'h', '['], label: '← h [', does: t('key.previousAgent'), footer: t('app.footer.chooseAgent'), run: () => a.switchAgent(-1) },
        { keys: ['right', 'l', ']'], label: '→ l ]', does: t('key.nextAgent'), run: () => a.switchAgent(1) },
        { keys: ['escape', 'tab', 'enter'], label: 'Esc Tab Enter', does: t('app.backToScreen'), footer: t('app.footer.back'), run: () => a.leaveSelector() },
        quit,
      ],
    },
    hold: {
      title: t('app.waiting'),
      modal: true,
      bindings: [{ keys: ['escape'], does: t('app.cancelHold'), footer: t('app.footer.cancel'), run: () => a.cancelHold() }],
    },
    dialog: (d, close) => ({
      title: d.title,
      modal: true,
      bindings: [
        { keys: ['escape', 'enter', '?', 'q'], label: 'Esc Enter ? q', does: t('key.close'), footer: t('footer.close'), run: close },
        { keys: ['up', 'k'], label: '↑ k', does: t('key.scrollUp'), footer: t('footer.scroll'), run: () => d.scroll(-1) },
        { keys: ['down', 'j'], label: '↓ j', does: t('key.scrollDown'), run: () => d.scroll(1) },
        { keys: ['pageup'], does: t('key.scrollPageUp'), run: () => d.scroll(-d.page()) },
        { keys: ['pagedown', 'space'], label: 'PgDn Space', does: t('key.scrollPageDown'), run: () => d.scroll(d.page()) },
      ],
    }),
  };
}
