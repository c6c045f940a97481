// Key dispatch: what has the keyboard now (a dialog on its way, the input
// line, a modal, a dialog, the agent selector, else the screen and the app's
// keys), and the keys typed while a dialog is on its way, which wait for it.

import { t } from '../engine/i18n/index.js';
import { appKeys, type AppActions, type AppKeys } from './app-keys.js';
import type { AppContext } from '../screens/screen.js';
import { dispatch, keyId, typedKeys, type KeyContext } from '../widgets/bindings.js';
import { Dialog } from '../widgets/dialog.js';
import type { KeyEvent } from '../widgets/text-input.js';
import { braces } from '../widgets/theme.js';
import type { AppState, Hold } from './context.js';
import { tabEntries } from './tabs.js';

export class KeyDispatch {
  private readonly keys: AppKeys;

  constructor(
    private readonly st: AppState,
    private readonly ctx: AppContext,
    actions: Omit<AppActions, 'cancelHold' | 'leaveSelector'>,
  ) {
    const tabKeys = tabEntries(st.screens).map((e) => e.key);
    this.keys = appKeys({ ...actions, leaveSelector: () => (st.selectorFocused = false), cancelHold: () => this.releaseHold() }, tabKeys);
  }

  private get always(): KeyContext {
    return this.keys.always;
  }

  /** What has the keyboard now, first asked first; the footer and help show the same. */
  focusedContexts(): KeyContext[] {
    const st = this.st;
    // A long operation has every key until it ends: none reaches what is behind it.
    if (st.busy) return [st.busy.keyContext(), this.always];
    if (st.hold) return [{ ...this.keys.hold, title: st.hold.title }, this.always];
    if (st.input) return [st.input.keyContext(), this.always];
    if (st.modal) return [st.modal.keyContext(), this.always];
    if (st.dialog) return [this.dialogContext(st.dialog), this.always];
    if (st.selectorFocused) return [this.keys.selector, this.always];
    return [st.screens[st.current]!.keyContext(), this.keys.global, this.always];
  }

  private dialogContext(d: Dialog): KeyContext {
    return this.keys.dialog(d, () => {
      d.destroy();
      if (this.st.dialog === d) this.st.dialog = null;
    });
  }

  /** Waits for `p` with a "…" box; keys typed meanwhile go to what `then` opens. */
  hold<T>(title: string, p: Promise<T>, then: (v: T) => void): void {
    const st = this.st;
    st.hold?.box.destroy();
    const h: Hold = { title, queue: [], box: new Dialog(st.screen, st.theme, title, [`${braces(title)}…`], t('app.holdFooter')) };
    st.hold = h;
    st.requestRender();
    p.then(
      (v) => {
        if (st.hold !== h) return;
        this.releaseHold();
        then(v);
        for (const [ch, k] of h.queue) this.onKey(ch, k);
        st.requestRender();
      },
      (e: Error) => {
        if (st.hold !== h) return;
        this.releaseHold();
        this.ctx.openDialog(title, [braces(e.message)]);
      },
    );
  }

  private releaseHold(): void {
    this.st.hold?.box.destroy();
    this.st.hold = null;
    this.st.requestRender();
  }

  onKey(ch: string | undefined, k: KeyEvent): void {
    const typed = typedKeys(ch, k);
    if (typed.length > 1) {
      for (const [c, key] of typed) this.onKey(c, key);
      return;
    }
    const st = this.st;
    // blessed reports "\r" twice, as "enter" and then "return": act on "enter" only.
    if (k.name === 'return') return;
    const always = this.always.bindings.some((b) => b.keys.includes(keyId(ch, k)));
    // Everything typed after the key that opened a dialog belongs to that dialog, even before it is there.
    if (st.hold && keyId(ch, k) !== 'escape' && !always) {
      st.hold.queue.push([ch, k]);
      return;
    }
    // A redraw or a suspend keeps the message the user is reading.
    if (st.message && k.name !== undefined && !st.input && !always) st.message = null;
    const m = st.modal;
    const r = dispatch(this.focusedContexts(), ch, k);
    if (r.kind === 'disabled') this.ctx.message(`${r.why[0]!.toUpperCase()}${r.why.slice(1)}.`);
    // A confirm may open the next modal (progress) from inside its binding.
    if (m?.closed) {
      m.destroy();
      if (st.modal === m) st.modal = null;
    }
    st.requestRender();
  }
}
