// The frame around the screens: the blessed screen itself, the tab bar on
// top, the deck at the bottom (agent selector, status, marks, footer keys,
// the message or the input line), the tabs' screens, help (?), a full
// redraw (Ctrl-L) and suspend (Ctrl-Z). The only place that paints.

import blessed from 'blessed';
import { formatAgo, formatBytes, formatCount } from '../engine/core/format.js';
import { t } from '../engine/i18n/index.js';
import { padWidth } from '../engine/core/text.js';
import { BackupsScreen } from '../screens/backups.js';
import { ItemsScreen } from '../screens/items.js';
import { OverviewScreen } from '../screens/overview.js';
import type { AppContext, Screen } from '../screens/screen.js';
import { SessionsScreen } from '../screens/sessions.js';
import { SettingsScreen } from '../screens/settings.js';
import { footerHints, helpSections, type KeyContext } from '../widgets/bindings.js';
import { Deck, type DeckAgent } from '../widgets/deck.js';
import { TabBar } from '../widgets/tab-bar.js';
import { braces } from '../widgets/theme.js';
import { type Field, ranked, wrapTagged } from '../widgets/wrap.js';
import type { AppState } from './context.js';
import { tabEntries } from './tabs.js';

export function createScreen(): blessed.Widgets.Screen {
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
  return screen;
}

/** The screens, in the order of their tabs: the one list the tab bar and the tab keys are derived from (tabs.ts). */
export function buildScreens(ctx: AppContext): Screen[] {
  // The notice of the agent on screen comes from its descriptor, in the app's language (detection picks it).
  const memoryNotice = (name: string): string =>
    ctx.installations().find((i) => i.agent === ctx.summary()?.agent)?.memoryNotice ?? t('app.memoryNotice', { agent: name });
  return [
    new OverviewScreen(ctx),
    new SessionsScreen(ctx),
    new ItemsScreen(ctx, t('tab.memory'), ['memory'], memoryNotice),
    new ItemsScreen(ctx, t('tab.logs'), ['log', 'cache', 'temporary', 'protected'], () => t('app.logsNotice'), t('tab.logsShort')),
    new BackupsScreen(ctx),
    new SettingsScreen(ctx),
  ];
}

/** How long an info notice stays on screen. */
const NOTICE_MS = 6000;

export class Frame {
  private readonly tabs: TabBar;
  private readonly deck: Deck;
  /** The notices whose fade is armed. */
  private readonly fading = new WeakSet<object>();

  constructor(
    private readonly st: AppState,
    private readonly ctx: AppContext,
    /** What has the keyboard now (the footer and help show it). */
    private readonly focused: () => KeyContext[],
  ) {
    // Made before the screens: blessed stacks elements in the order they are made.
    this.tabs = new TabBar(st.screen, st.theme);
    this.deck = new Deck(st.screen, st.theme);
  }

  paint(): void {
    const st = this.st;
    const { screen, theme, screens, summary } = st;
    st.notePainted();
    st.perf.paintStart();
    // A notice fades after 6 s, by its own timer (not at whichever paint comes first, or a redraw would drop a
    // notice the screen still shows); an error stays until the next key, so one that left the app without an agent is read.
    const msg = st.message;
    if (msg?.kind === 'info' && !this.fading.has(msg)) {
      this.fading.add(msg);
      this.fadeLater(msg, NOTICE_MS - (Date.now() - msg.at));
    }
    const W = (screen.width as number) || 80;
    this.tabs.paint(
      // The Sessions tab by identity, not by its title (which is the catalog's, in either language).
      tabEntries(screens, (s) =>
        s instanceof SessionsScreen && summary
          ? t('tab.sessionsCount', { count: `${formatCount(summary.sessionCount)}${summary.provisional ? '…' : ''}` })
          : s.title,
      ),
      st.current,
      W >= 90 ? theme.dim('cleanerx') + (st.flags.readOnly ? ' ' + theme.warn(t('app.readOnlyBadge')) : '') : '',
    );
    screens.forEach((s, i) => (i === st.current ? s.root.show() : s.root.hide()));
    screens[st.current]!.paint();
    const agents: DeckAgent[] = st.selector.map((e) => ({ label: st.nameOf(e.agent), note: e.note }));
    const focused = this.focused();
    this.deck.paint({
      agents,
      current: Math.max(
        0,
        st.selector.findIndex((e) => e.agent === st.agent),
      ),
      selectorFocused: st.selectorFocused,
      status: this.deckStatus(),
      marks: this.marksField(),
      focus: focused[0]!.title,
      hints: footerHints(focused),
      message: st.message ? { text: st.message.text, kind: st.message.kind } : undefined,
      inputLine: st.input ? st.input.render(W - 2) : undefined,
    });
    if (st.modal) st.modal.paint();
    if (st.dialog) {
      st.dialog.layout();
      st.dialog.box.setFront();
    }
    if (st.hold) {
      st.hold.box.layout();
      st.hold.box.box.setFront();
    }
    if (st.input && st.inputNote) {
      st.inputNote.layout();
      st.inputNote.box.setFront();
    }
    if (st.busy) st.busy.paint();
    screen.render();
    st.settled.painted();
    if (st.perf.enabled) {
      const ps = screens[st.current]!.paintState?.() ?? { rows: 0, settled: true };
      st.perf.painted({ rows: ps.rows, settled: ps.settled, scanning: st.scanning !== null });
    }
  }

  /** Clears the notice once its time is up, unless another replaced it; an open prompt keeps it until it closes. */
  private fadeLater(msg: object, ms: number): void {
    setTimeout(
      () => {
        const st = this.st;
        if (st.message !== msg) return;
        if (st.input) return this.fadeLater(msg, 500);
        st.message = null;
        st.settled.changedByItself();
        st.requestRender();
      },
      Math.max(0, ms),
    ).unref();
  }

  /** This agent's marks, and those of every agent when others hold some too (the review takes them all). */
  private marksField(): Field[] {
    const st = this.st;
    const all = st.perAgent.totals();
    const own = st.marks.count ? t('app.marks', { count: formatCount(st.marks.count), size: formatBytes(st.marks.bytes) }) : '';
    if (all.count === st.marks.count) return own ? ranked(own) : [];
    const every = t('app.marksAll', { marks: formatCount(all.count), count: all.agents });
    return ranked(own ? `${own} · ${every}` : every);
  }

  /** The status line's fields; the deck drops whole ones, highest rank first, when the line is short. */
  private deckStatus(): Field[] {
    const { scanning, summary, agent } = this.st;
    if (scanning) {
      const files = t('count.files', { count: scanning.files });
      return ranked(t(summary?.provisional ? 'app.deck.scanningPartial' : 'app.deck.scanning', { files }));
    }
    if (!summary) return ranked(t(agent ? 'common.waitingForScan' : this.st.detected ? 'app.deck.noAgent' : 'app.deck.detecting'));
    // What blocks a cleanup and what needs a look go last; when the scan ran matters least.
    const ro = this.st.flags.readOnly ? t('app.deck.readOnly') : summary.writers.length ? t('app.deck.running', { agent: this.st.nameOf(summary.agent) }) : '';
    return [
      { text: t('app.deck.lastScan', { ago: formatAgo(summary.scannedAt, Date.now()) }), rank: 4 },
      { text: t('count.items', { count: summary.totals.items }), rank: 3 },
      { text: t('app.deck.onDisk', { bytes: formatBytes(summary.totals.bytes) }), rank: 2 },
      { text: ro, rank: 0 },
      { text: summary.warnings.length ? t('count.warnings', { count: summary.warnings.length }) : '', rank: 1 },
    ];
  }

  repaintAll(): void {
    // Forget what blessed believes is on the terminal, so every cell is written again.
    this.st.screen.program.clear();
    this.st.screen.realloc();
    this.paint();
  }

  suspend(): void {
    // blessed's pause buffers its "leave the alternate screen, show the cursor"
    // and then silences the output before the buffer goes out: the shell's
    // prompt would land on our frame. Unbuffered, those reach the terminal.
    const program = this.st.screen.program as unknown as { useBuffer: boolean; flush(): void };
    program.flush();
    program.useBuffer = false;
    (this.st.screen as unknown as { sigtstp(cb: () => void): void }).sigtstp(() => {
      program.useBuffer = true;
      this.repaintAll();
    });
  }

  openHelp(): void {
    const theme = this.st.theme;
    const sections = helpSections(this.focused());
    // The dialog's widest text line at this size (its border and right margin off): rows wrap under their text, whole.
    const W = Math.max(30, ((this.st.screen.width as number) || 80) - 5);
    const lines: string[] = [];
    for (const sec of sections) {
      if (lines.length) lines.push('');
      lines.push(theme.accent(braces(sec.title)));
      for (const r of sec.rows) {
        const why = r.disabled ? t('app.helpUnavailable', { why: r.disabled }) : '';
        const does = `${r.does}${why}`;
        lines.push(...wrapTagged(`  ${theme.bold(braces(padWidth(r.keys, 16)))}${r.disabled ? theme.dim(braces(does)) : braces(does)}`, W, 18));
      }
    }
    this.ctx.openDialog(t('app.helpTitle'), lines, t('app.helpFooter'));
  }
}
