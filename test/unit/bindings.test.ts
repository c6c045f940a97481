// Key bindings as data: every table the app dispatches on (each screen's
// focused widgets, the app's own, every dialog) lists each key once, shows
// every binding in help and nothing in the footer that help does not list;
// blessed's key events map to the names the tables use; a screen's table
// never shadows a key of the app's (the Backups `r` that was both restore
// and rescan).

import blessed from 'blessed';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { EngineApi } from '../../src/engine/api/api.js';
import type { CleanupPlan, RecoveryOperation } from '../../src/engine/core/model.js';
import { appKeys, type AppActions } from '../../src/screens/app-keys.js';
import { BackupsScreen } from '../../src/screens/backups.js';
import { ItemsScreen } from '../../src/screens/items.js';
import { Marks } from '../../src/screens/marks.js';
import { OverviewScreen } from '../../src/screens/overview.js';
import { BusyModal } from '../../src/modals/busy.js';
import { RecoveryModal } from '../../src/modals/recovery.js';
import { ReviewModal } from '../../src/modals/review.js';
import type { AppContext, Screen } from '../../src/screens/screen.js';
import { SessionsScreen } from '../../src/screens/sessions.js';
import { SettingsScreen } from '../../src/screens/settings.js';
import { bindingLabel, dispatch, duplicateKeys, footerHints, helpSections, keyId, type KeyContext } from '../../src/widgets/bindings.js';
import { TextInput, type KeyEvent } from '../../src/widgets/text-input.js';
import { makeTheme } from '../../src/widgets/theme.js';

let screen: blessed.Widgets.Screen | null = null;
afterEach(() => {
  screen?.destroy();
  screen = null;
});

function headless(): blessed.Widgets.Screen {
  const output = Object.assign(new PassThrough(), { isTTY: true, columns: 100, rows: 30 });
  const input = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => undefined });
  screen = blessed.screen({ input: input as never, output: output as never, terminal: 'xterm-256color', warnings: false, fullUnicode: true });
  return screen;
}

const never = new Proxy({}, { get: () => () => new Promise(() => undefined) }) as EngineApi;

function appContext(s: blessed.Widgets.Screen, readOnly = false): AppContext {
  return {
    engine: never,
    theme: makeTheme({}),
    screen: s,
    marks: new Marks(),
    readOnly,
    demo: false,
    now: () => 0,
    agent: () => 'pi',
    summary: () => null,
    installations: () => [],
    settings: () => null,
    scanning: () => false,
    requestRender: () => undefined,
    message: () => undefined,
    openInput: () => undefined,
    openDialog: () => undefined,
    copy: () => undefined,
    askPassphrase: () => undefined,
    busy: () => new Promise(() => undefined),
    hold: () => undefined,
    redetect: async () => undefined,
    rescan: () => undefined,
    reviewArchive: () => undefined,
  };
}

const actions: AppActions = {
  quit: () => undefined,
  quitBlocked: () => undefined,
  repaintAll: () => undefined,
  suspend: () => undefined,
  showTab: () => undefined,
  switchAgent: () => undefined,
  focusNext: () => undefined,
  rescan: () => undefined,
  review: () => undefined,
  reviewBlocked: () => undefined,
  help: () => undefined,
  leaveSelector: () => undefined,
  cancelHold: () => undefined,
};

const plan: CleanupPlan = {
  id: 'plan-1',
  snapshotId: 'snap-1',
  agent: 'pi',
  items: [{ id: 'session:a', label: 'Fix the parser', category: 'session', bytes: 10, paths: [], recoverable: true, depth: 0 }],
  operations: [],
  estimatedBytes: 10,
  estimatedBackupBytes: 10,
  backupEligible: true,
  routeNotes: [],
  blockers: [],
} as unknown as CleanupPlan;

const op = {
  operationId: 'op-1',
  agent: 'pi',
  status: 'running',
  recorded: '',
  observed: 'Partly applied',
  reason: '',
  canAccept: false,
  canRestore: false,
  canClose: true,
  restoreWhyNot: 'no backup',
  unknown: false,
} as unknown as RecoveryOperation;

/** Every table the app can dispatch on, by name. */
function everyContext(): Record<string, KeyContext> {
  const s = headless();
  const app = appContext(s);
  const screens: Screen[] = [
    new OverviewScreen(app),
    new SessionsScreen(app),
    new ItemsScreen(app, 'Memory', ['memory'], () => ''),
    new BackupsScreen(app),
    new SettingsScreen(app),
  ];
  const out: Record<string, KeyContext> = {};
  for (const sc of screens) {
    out[`screen ${sc.title}`] = sc.keyContext();
    // Tab moves focus inside a screen (the Sessions detail pane); each focus has its own table.
    if (sc.focusNext?.()) out[`screen ${sc.title}, second focus`] = sc.keyContext();
  }
  const k = appKeys(actions);
  Object.assign(out, { always: k.always, global: k.global, selector: k.selector, hold: k.hold });
  out.dialog = k.dialog({ title: 'Help', scroll: () => undefined, page: () => 5 }, () => undefined);
  out.review = new ReviewModal(s, makeTheme({}), plan, [], () => undefined).keyContext();
  // The busy state with each of its Esc rules: a cleanup's (ask), a read-only operation's (now), a restore's (never).
  const busy = (cancel: ConstructorParameters<typeof BusyModal>[4]): KeyContext => {
    const b = new BusyModal(s, makeTheme({}), 'Busy', { phase: 'x' }, cancel);
    const c = b.keyContext();
    b.destroy();
    return c;
  };
  out.progress = busy({ kind: 'ask', run: () => undefined });
  out.busyNow = busy({ kind: 'now', run: () => undefined });
  out.busyNever = busy({ kind: 'never', why: 'it runs to its end' });
  out.recovery = new RecoveryModal(s, makeTheme({}), [op], async () => []).keyContext();
  out.input = new TextInput({ label: 'Filter:', onSubmit: () => undefined, onCancel: () => undefined }).keyContext();
  return out;
}

describe('key tables', () => {
  it('bind no key twice in one context', () => {
    const all = everyContext();
    expect(Object.keys(all).length).toBeGreaterThan(12);
    for (const [name, ctx] of Object.entries(all)) expect({ name, dup: duplicateKeys(ctx) }).toEqual({ name, dup: [] });
  });

  it('list every binding in help, and show in the footer only what help lists', () => {
    for (const [name, ctx] of Object.entries(everyContext())) {
      const [section] = helpSections([ctx]);
      expect(section!.title).toBe(ctx.title);
      for (const b of ctx.bindings)
        expect({ name, help: section!.rows.some((r) => r.keys === bindingLabel(b) && r.does === b.does) }).toEqual({ name, help: true });
      for (const [keys, does] of footerHints([ctx]))
        expect({ name, keys, found: ctx.bindings.some((b) => bindingLabel(b).startsWith(keys) && b.footer === does) }).toEqual({ name, keys, found: true });
      if (ctx.text) expect(section!.rows.some((r) => r.does === ctx.text!.does)).toBe(true);
    }
  });

  it('never let a screen take a key the app binds everywhere', () => {
    const all = everyContext();
    const appKeyIds = new Set([...all.global!.bindings, ...all.always!.bindings].flatMap((b) => b.keys));
    for (const [name, ctx] of Object.entries(all)) {
      if (!name.startsWith('screen ')) continue;
      const shadowed = ctx.bindings.flatMap((b) => b.keys).filter((k) => appKeyIds.has(k));
      expect({ name, shadowed }).toEqual({ name, shadowed: [] });
    }
  });

  it('give a disabled key its reason, in help and on dispatch, without running it', () => {
    const s = headless();
    const items = new ItemsScreen(appContext(s, true), 'Memory', ['memory'], () => '');
    const ctx = items.keyContext();
    const [section] = helpSections([ctx]);
    expect(section!.rows.find((r) => r.keys === 'Space')?.disabled).toMatch(/read-only/);
    expect(footerHints([ctx]).map(([k]) => k)).not.toContain('Space');
    const r = dispatch([ctx], ' ', { name: 'space', full: 'space' });
    expect(r.kind).toBe('disabled');
  });
});

describe('keyId', () => {
  /** The (ch, key) pairs a blessed screen reports for these bytes (its program parses them). */
  async function parse(bytes: string): Promise<[string | undefined, KeyEvent][]> {
    const s = headless();
    const out: [string | undefined, KeyEvent][] = [];
    s.on('keypress', (ch: string | undefined, key: KeyEvent | undefined) => out.push([ch, key ?? {}]));
    s.program.input.emit('data', Buffer.from(bytes));
    await new Promise((r) => setImmediate(r));
    screen?.destroy();
    screen = null;
    return out;
  }

  it('names keys as the tables do', async () => {
    const cases: [string, string][] = [
      ['x', 'x'],
      ['G', 'G'],
      ['?', '?'],
      [' ', 'space'],
      ['\x1b[A', 'up'],
      ['\x1b[6~', 'pagedown'],
      ['\t', 'tab'],
      ['\x1b[Z', 'S-tab'],
      ['\x7f', 'backspace'],
      ['\x0c', 'C-l'],
      ['\x1a', 'C-z'],
      ['\x03', 'C-c'],
      ['\x15', 'C-u'],
      ['é', 'é'],
    ];
    for (const [bytes, id] of cases) {
      const events = (await parse(bytes)).filter(([, k]) => k.name !== 'return');
      expect({ bytes, ids: events.map(([ch, k]) => keyId(ch, k)) }).toEqual({ bytes, ids: [id] });
    }
    // blessed reports Enter twice, as "enter" and as "return"; the app acts on "enter" alone.
    const enter = (await parse('\r')).map(([ch, k]) => keyId(ch, k));
    expect(enter).toEqual(['enter', 'return']);
  });
});
