// Settings: the four agents as detected (state, home, executable, version),
// editable absolute home overrides, Detect again, and an atomic Save.
// settings-render draws the tab; this class holds the draft and the keys.

import { agentKinds, agentName } from '../engine/core/agents.js';
import blessed from 'blessed';
import type { AgentKind, KeyInfo } from '../engine/core/model.js';
import { getLanguage, LANGUAGE_NAMES, t as tr, type LanguageSetting } from '../engine/i18n/index.js';
import { isWrongPassphrase } from '../engine/core/passphrase-rule.js';
import type { Settings } from '../engine/api/api.js';
import type { KeyContext } from '../widgets/bindings.js';
import type { AppContext, PassphraseVerdict, Screen } from './screen.js';

import { settingsLines } from './settings-render.js';

/** The L key's cycle; each language is named in its own script. */
const LANGUAGE_CYCLE: LanguageSetting[] = ['auto', 'en', 'zh'];

export class SettingsScreen implements Screen {
  readonly title = tr('tab.settings');
  readonly root: blessed.Widgets.BoxElement;
  private cursor = 0;
  private draft: Settings | null = null;
  private busy = false;
  private keyPath = '…';
  private keyNote = '';
  private storeLine = '…';
  private key: KeyInfo | null = null;

  constructor(private app: AppContext) {
    // Lines are laid out here (paths cut in the middle, prose wrapped at spaces): blessed's wrap would break a path mid-word.
    this.root = blessed.box({ parent: app.screen, top: 1, left: 0, width: '100%', bottom: 2, tags: true, scrollable: true, hidden: true, wrap: false });
  }

  onSummary(): void {
    this.app.engine.keyInfo().then(
      (k) => {
        this.key = k;
        this.keyPath = k.path;
        this.keyNote = k.exists ? (k.problem ? tr('settings.keyExistsProblem', { problem: k.problem }) : tr('settings.keyExists')) : tr('settings.keyNone');
        this.storeLine = tr(k.store === 'keyring' ? 'settings.storeKeyring' : 'settings.storeFile');
        this.app.requestRender();
      },
      () => undefined,
    );
  }

  private current(): Settings | null {
    return this.draft ?? this.app.settings()?.settings ?? null;
  }

  paint(): void {
    const W = Math.max(40, ((this.app.screen.width as number) || 80) - 2);
    const state = {
      cursor: this.cursor,
      draft: this.draft,
      settings: this.current(),
      loaded: this.app.settings(),
      installations: this.app.installations(),
      busy: this.busy,
      keyPath: this.keyPath,
      keyNote: this.keyNote,
      storeLine: this.storeLine,
      language: languageLabel(this.current()?.language ?? 'auto'),
    };
    this.root.setContent(settingsLines(state, W, this.app.theme).join('\n'));
  }

  private readonly context: KeyContext = {
    title: tr('tab.settings'),
    bindings: [
      { keys: ['up', 'k'], label: '↑ k', does: tr('key.previousAgent'), run: () => this.whenIdle(() => (this.cursor = Math.max(0, this.cursor - 1))) },
      {
        keys: ['down', 'j'],
        label: '↓ j',
        does: tr('key.nextAgent'),
        run: () => this.whenIdle(() => (this.cursor = Math.min(agentKinds().length - 1, this.cursor + 1))),
      },
      {
        keys: ['enter', 'e'],
        does: tr('settings.editKey'),
        footer: tr('settings.footer.edit'),
        run: () => this.whenIdle(() => this.editOverride(agentKinds()[this.cursor]!)),
      },
      { keys: ['D'], does: tr('settings.detectKey'), footer: tr('settings.footer.detect'), run: () => this.whenIdle(() => void this.detectAgain(null)) },
      { keys: ['S'], does: tr('settings.saveKey'), footer: tr('settings.footer.save'), run: () => this.whenIdle(() => void this.save()) },
      {
        keys: ['escape'],
        does: tr('settings.discardKey'),
        disabled: () => (this.draft ? undefined : tr('settings.nothingUnsaved')),
        run: () =>
          this.whenIdle(() => {
            this.draft = null;
            this.app.message(tr('settings.discarded'));
          }),
      },
      { keys: ['L'], does: tr('settings.languageKey'), run: () => this.whenIdle(() => this.cycleLanguage()) },
      { keys: ['X'], does: tr('settings.exportKey'), run: () => this.whenIdle(() => this.exportKey()) },
      { keys: ['K'], does: tr('settings.storeKey'), run: () => this.whenIdle(() => this.switchKeyStore()) },
    ],
  };

  keyContext(): KeyContext {
    return this.context;
  }

  private whenIdle(f: () => void): void {
    f();
    this.app.requestRender();
  }

  /** Into the draft like an override: S saves it; the running process keeps its language (one per process). */
  private cycleLanguage(): void {
    const base = this.current();
    if (!base) return;
    const next: Settings = JSON.parse(JSON.stringify(base)) as Settings;
    next.language = LANGUAGE_CYCLE[(LANGUAGE_CYCLE.indexOf(base.language) + 1) % LANGUAGE_CYCLE.length]!;
    this.draft = next;
    this.app.message(tr('settings.languageChanged', { value: languageLabel(next.language) }));
  }

  private editOverride(kind: AgentKind): void {
    const base = this.current();
    if (!base) return;
    this.app.openInput({
      label: tr('settings.homePrompt', { agent: agentName(kind) }),
      value: base.homeOverrides[kind] ?? '',
      maxLength: 4096,
      onSubmit: (v) => {
        const value = v.trim();
        if (value && !value.startsWith('/')) {
          this.app.message(tr('settings.homeNotAbsolute', { agent: agentName(kind) }), 'error');
          return;
        }
        const next: Settings = JSON.parse(JSON.stringify(base)) as Settings;
        if (value) next.homeOverrides[kind] = value;
        else delete next.homeOverrides[kind];
        this.draft = next;
        this.app.message(tr('settings.overrideSet', { agent: agentName(kind) }));
      },
      onCancel: () => this.app.message(tr('settings.editCancelled')),
    });
  }

  /** To the key ring: the file's passphrase once (a new key: twice), asked again while wrong. Back to the file: nothing asked. */
  private switchKeyStore(): void {
    const k = this.key;
    if (!k) return;
    const to = k.store === 'keyring' ? 'file' : 'keyring';
    const run = (passphrase: string): Promise<PassphraseVerdict> =>
      this.app
        .busy(
          {
            title: tr('settings.keyBusyTitle'),
            first: { phase: tr(to === 'keyring' ? 'settings.askingKeyring' : 'settings.removingKeyring') },
            cancel: { never: tr('busy.never.key') },
          },
          () => this.app.engine.keyStoreSet(to, passphrase),
        )
        .then(
          (): PassphraseVerdict => {
            if (this.draft) this.draft.backupKeyStore = to;
            this.onSummary();
            void this.app.redetect();
            this.app.message(tr(to === 'keyring' ? 'settings.nowKeyring' : 'settings.nowFile'));
            return undefined;
          },
          (e: Error): PassphraseVerdict => {
            if (isWrongPassphrase(e)) return 'wrong';
            this.app.message(e.message, 'error');
            return undefined;
          },
        );
    if (to === 'file') return void run('');
    const fresh = { label: tr('settings.newPass'), repeat: tr('settings.repeatPass') };
    this.app.askPassphrase(
      { needed: true, label: tr('settings.passForKeyring'), newKey: k.exists ? undefined : fresh, cancelled: tr('common.cancelled') },
      run,
    );
  }

  private exportKey(): void {
    this.app.askPassphrase({ needed: true, label: tr('settings.passForExport'), cancelled: tr('common.cancelled') }, (p) =>
      this.app
        .busy({ title: tr('settings.keyBusyTitle'), first: { phase: tr('busy.unlocking') }, cancel: { cancelled: tr('common.cancelled') } }, () =>
          this.app.engine.keyExport(p),
        )
        .then(
          (text): PassphraseVerdict => {
            this.app.openDialog(tr('settings.exportTitle'), [...text.trim().split('\n'), '', tr('settings.exportHow')]);
            return undefined;
          },
          (e: Error): PassphraseVerdict => {
            if (isWrongPassphrase(e)) return 'wrong';
            this.app.message(e.message, 'error');
            return undefined;
          },
        ),
    );
  }

  private async detectAgain(save: Settings | null): Promise<void> {
    this.busy = true;
    this.app.requestRender();
    try {
      await this.app.redetect(save ?? undefined);
      if (save) this.draft = null;
      this.app.message(tr(save ? 'settings.savedDetected' : 'settings.detected'));
    } catch (e) {
      this.app.message((e as Error).message, 'error');
    } finally {
      this.busy = false;
      this.app.requestRender();
    }
  }

  private async save(): Promise<void> {
    const s = this.current();
    if (!s) return;
    await this.detectAgain(s);
  }
}

/** 'auto' names the language the locale gives this process; a language is named in its own script. */
function languageLabel(v: LanguageSetting): string {
  return v === 'auto' ? tr('settings.languageAuto', { language: LANGUAGE_NAMES[getLanguage()] }) : LANGUAGE_NAMES[v];
}
