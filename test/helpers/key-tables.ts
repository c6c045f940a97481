// Every key table the app dispatches on, built headless (no terminal, an
// engine that never answers): the bindings test checks them and the key
// reference in docs/keys.md is generated from them.

import blessed from 'blessed';
import { PassThrough } from 'node:stream';
import type { EngineApi } from '../../src/engine/api/api.js';
import type { CleanupPlan, RecoveryOperation } from '../../src/engine/core/model.js';
import { appKeys, type AppActions } from '../../src/app/app-keys.js';
import { buildScreens } from '../../src/app/frame.js';
import { tabEntries } from '../../src/app/tabs.js';
import { BackupsScreen } from '../../src/screens/backups.js';
import { ItemsScreen } from '../../src/screens/items.js';
import { Marks } from '../../src/screens/marks.js';
import { OverviewScreen } from '../../src/screens/overview.js';
import { BusyModal } from '../../src/modals/busy.js';
import { RecoveryModal } from '../../src/modals/recovery.js';
import { ReviewModal } from '../../src/modals/review.js';
import { GroupReviewModal } from '../../src/modals/review-all.js';
import type { AppContext, Screen } from '../../src/screens/screen.js';
import { SessionsScreen } from '../../src/screens/sessions.js';
import { SettingsScreen } from '../../src/screens/settings.js';
import type { KeyContext } from '../../src/widgets/bindings.js';
import { TextInput } from '../../src/widgets/text-input.js';
import { makeTheme } from '../../src/widgets/theme.js';

let screen: blessed.Widgets.Screen | null = null;

/** Destroys the screen headless() made last. */
export function closeHeadless(): void {
  screen?.destroy();
  screen = null;
}

export function headless(): blessed.Widgets.Screen {
  const output = Object.assign(new PassThrough(), { isTTY: true, columns: 100, rows: 30 });
  const input = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => undefined });
  screen = blessed.screen({ input: input as never, output: output as never, terminal: 'xterm-256color', warnings: false, fullUnicode: true });
  return screen;
}

const never = new Proxy({}, { get: () => () => new Promise(() => undefined) }) as EngineApi;

export function appContext(s: blessed.Widgets.Screen, readOnly = false): AppContext {
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
    reviewSuggested: () => undefined,
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
export function everyContext(): Record<string, KeyContext> {
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
  // The tab keys as the app derives them from its own list of screens.
  const k = appKeys(
    actions,
    tabEntries(buildScreens(app)).map((e) => e.key),
  );
  Object.assign(out, { always: k.always, global: k.global, selector: k.selector, hold: k.hold });
  out.dialog = k.dialog({ title: 'Help', scroll: () => undefined, page: () => 5 }, () => undefined);
  out.review = new ReviewModal(
    s,
    makeTheme({}),
    plan,
    [],
    () => undefined,
    () => undefined,
  ).keyContext();
  // The one review of several agents' marks, and Back up only (its own word, no backup toggle).
  out.reviewAll = new GroupReviewModal(
    s,
    makeTheme({}),
    [plan, { ...plan, id: 'plan-2', agent: 'claude' }],
    () => undefined,
    () => undefined,
  ).keyContext();
  out.backupOnly = new GroupReviewModal(s, makeTheme({}), [{ ...plan, action: 'backupOnly' }], () => undefined).keyContext();
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
