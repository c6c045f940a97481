// Settings: the four agents as detected (state, home, executable, version),
// editable absolute home overrides, Detect again, and an atomic Save.

import blessed from 'blessed';
import { AGENT_KINDS, AGENT_NAMES, type AgentKind, type KeyInfo } from '../engine/core/model.js';
import { fitPath } from '../engine/core/format.js';
import { padWidth } from '../engine/core/text.js';
import { wrapWords } from '../widgets/detail-pane.js';
import { passphraseProblem } from '../engine/core/passphrase-rule.js';
import type { Settings } from '../engine/host/settings.js';
import { braces, cell } from '../widgets/theme.js';
import type { KeyContext } from '../widgets/bindings.js';
import type { AppContext, Screen } from './screen.js';

const STATE_LABEL = { installed: 'Installed', dataOnly: 'Local data only', notFound: 'Not detected' } as const;

export class SettingsScreen implements Screen {
  readonly title = 'Settings';
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
        this.keyNote = k.exists ? `passphrase-protected age identity${k.problem ? `; ${k.problem}` : ''} · X exports it` : 'none yet; the first backup creates it';
        this.storeLine =
          k.store === 'keyring'
            ? 'OS key ring (no passphrase asked; the file stays the recovery path) · K switches back to the file'
            : 'the file, unlocked with your passphrase · K keeps it in the OS key ring instead (desktop sessions)';
        this.app.requestRender();
      },
      () => undefined,
    );
  }

  private current(): Settings | null {
    return this.draft ?? this.app.settings()?.settings ?? null;
  }

  paint(): void {
    const t = this.app.theme;
    const W = Math.max(40, ((this.app.screen.width as number) || 80) - 2);
    const loaded = this.app.settings();
    const s = this.current();
    const L: string[] = [` ${t.accent('Agents')} ${t.dim(this.busy ? '· detecting…' : '')}`];
    const installs = this.app.installations();
    const room = Math.max(10, W - 17);
    AGENT_KINDS.forEach((kind, i) => {
      const inst = installs.find((x) => x.agent === kind);
      const sel = i === this.cursor;
      const state = this.busy ? 'Detecting' : inst ? STATE_LABEL[inst.state] : 'Detecting';
      const head = `${sel ? '›' : ' '} ${padWidth(AGENT_NAMES[kind], 12)} ${padWidth(state, 16)} ${inst?.version ? braces(inst.version) : ''}`;
      L.push(sel ? t.cursor(padWidth(head, W)) : head);
      const override = s?.homeOverrides[kind];
      const source = inst?.homeSource === 'override' ? ' (override)' : inst?.homeSource === 'env' ? ' (environment)' : '';
      L.push(path('home', inst ? inst.home : '…', source));
      if (override !== undefined || this.draft) L.push(override === undefined ? text('override', '— (none)')[0]! : path('override', override));
      L.push(inst?.executable ? path('executable', inst.executable) : text('executable', 'not found')[0]!);
      for (const w of inst?.warnings ?? []) L.push(...warnLines(w));
    });
    // Labels padded to 12 after 5 columns; a path is cut in the middle (suffix kept), prose wraps at spaces.
    function path(label: string, value: string, suffix = ''): string {
      return `     ${t.dim(padWidth(label, 12))}${cell(fitPath(value, Math.max(8, room - suffix.length)) + suffix, room)}`;
    }
    function text(label: string, value: string): string[] {
      return wrapWords(value, room).map((l, i) => `     ${t.dim(padWidth(i === 0 ? label : '', 12))}${braces(l)}`);
    }
    function warnLines(w: string): string[] {
      return wrapWords(w, W - 6).map((l) => `     ${t.warn(braces(l))}`);
    }
    L.push('', ` ${t.accent('cleanerx')}`);
    L.push(path('config', loaded?.path ?? '…'));
    if (loaded?.warning) L.push(...warnLines(loaded.warning));
    if (s) L.push(...text('retention', `backups ${s.retention.backupDays} d · logs ${s.retention.logDays} d · temporary ${s.retention.tempHours} h`));
    L.push(path('backup key', this.keyPath));
    if (this.keyNote) L.push(...text('', this.keyNote));
    L.push(...text('unlocked by', this.storeLine));
    if (this.draft) L.push('', ...warnLines('Unsaved changes — S saves (and detects again), Esc discards.'));
    this.root.setContent(L.join('\n'));
  }

  private readonly context: KeyContext = {
    title: 'Settings',
    bindings: [
      { keys: ['up', 'k'], label: '↑ k', does: 'previous agent', run: () => this.then(() => (this.cursor = Math.max(0, this.cursor - 1))) },
      { keys: ['down', 'j'], label: '↓ j', does: 'next agent', run: () => this.then(() => (this.cursor = Math.min(AGENT_KINDS.length - 1, this.cursor + 1))) },
      { keys: ['enter', 'e'], does: 'edit its home override', footer: 'edit home', run: () => this.then(() => this.editOverride(AGENT_KINDS[this.cursor]!)) },
      { keys: ['D'], does: 'detect again', footer: 'detect', run: () => this.then(() => void this.detectAgain(null)) },
      { keys: ['S'], does: 'save (atomic) and detect again', footer: 'save', run: () => this.then(() => void this.save()) },
      {
        keys: ['escape'],
        does: 'discard unsaved changes',
        disabled: () => (this.draft ? undefined : 'there are no unsaved changes'),
        run: () =>
          this.then(() => {
            this.draft = null;
            this.app.message('Discarded unsaved settings.');
          }),
      },
      { keys: ['X'], does: 'export the backup key (after a passphrase check)', run: () => this.then(() => this.exportKey()) },
      { keys: ['K'], does: 'unlock the backup key by the OS key ring / by its passphrase', run: () => this.then(() => this.switchKeyStore()) },
    ],
  };

  keyContext(): KeyContext {
    return this.context;
  }

  private then(f: () => void): void {
    f();
    this.app.requestRender();
  }

  private editOverride(kind: AgentKind): void {
    const base = this.current();
    if (!base) return;
    this.app.openInput({
      label: `${AGENT_NAMES[kind]} home (absolute path, empty = default):`,
      value: base.homeOverrides[kind] ?? '',
      maxLength: 4096,
      onSubmit: (v) => {
        const value = v.trim();
        if (value && !value.startsWith('/')) {
          this.app.message(`The ${AGENT_NAMES[kind]} home must be an absolute path (starting with /); nothing changed.`, 'error');
          return;
        }
        const next: Settings = JSON.parse(JSON.stringify(base)) as Settings;
        if (value) next.homeOverrides[kind] = value;
        else delete next.homeOverrides[kind];
        this.draft = next;
        this.app.message(`Override set for ${AGENT_NAMES[kind]}; press S to save and detect again.`);
      },
      onCancel: () => this.app.message('Edit cancelled.'),
    });
  }

  /** To the key ring: the file's passphrase once (a new key: twice). Back to the file: nothing asked. */
  private switchKeyStore(): void {
    const k = this.key;
    if (!k) return;
    const to = k.store === 'keyring' ? 'file' : 'keyring';
    const run = (passphrase: string): void => {
      this.app.message(to === 'keyring' ? 'Asking the OS key ring (at most 3 s)…' : 'Removing the key ring copy…');
      this.app.engine.keyStoreSet(to, passphrase).then(
        () => {
          if (this.draft) this.draft.backupKeyStore = to;
          this.onSummary();
          void this.app.redetect();
          this.app.message(to === 'keyring' ? 'The backup key is now unlocked by the OS key ring.' : 'The backup key is unlocked by its passphrase again.');
        },
        (e: Error) => this.app.message(e.message, 'error'),
      );
    };
    if (to === 'file') return run('');
    const ask = (label: string, done: (v: string) => void): void => this.app.openInput({ label, mask: true, maxLength: 1024, onSubmit: done, onCancel: () => this.app.message('Cancelled.') });
    if (k.exists) return ask('Backup key passphrase (to put the key in the OS key ring):', run);
    ask('New backup key passphrase (8+ characters):', (first) => {
      const problem = passphraseProblem(first);
      if (problem) return this.app.message(`${problem} Nothing was done.`, 'error');
      ask('Repeat the passphrase:', (second) => (second === first ? run(first) : this.app.message('The passphrases differ; nothing was done.', 'error')));
    });
  }

  private exportKey(): void {
    this.app.openInput({
      label: 'Backup key passphrase (to export the identity):',
      mask: true,
      maxLength: 1024,
      onSubmit: (p) =>
        this.app.engine.keyExport(p).then(
          (text) => this.app.openDialog('Backup key (keep it safe, e.g. in a password manager)', [...text.trim().split('\n'), '', 'With it: age -d -i key.txt <id>.cxb | zstd -d | tar -x']),
          (e: Error) => this.app.message(e.message, 'error'),
        ),
      onCancel: () => this.app.message('Cancelled.'),
    });
  }

  private async detectAgain(save: Settings | null): Promise<void> {
    this.busy = true;
    this.app.requestRender();
    try {
      await this.app.redetect(save ?? undefined);
      if (save) this.draft = null;
      this.app.message(save ? 'Settings saved; agents detected again.' : 'Agents detected again.');
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
