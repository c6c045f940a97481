// The screen controller, composed: the shared state (context.ts), the agent
// and its scan (agent-scan.ts), the cleanup flow (cleanup-flow.ts), the keys
// (keys.ts) and the frame (frame.ts). It talks to the engine only through
// EngineApi (a worker thread), so a long scan never freezes the keys.

import '../widgets/terminal-width.js'; // blessed measures with the terminal's widths (before any screen exists)
import type { EngineApi } from '../engine/api/api.js';
import { t } from '../engine/i18n/index.js';
import type { KeyEvent } from '../widgets/text-input.js';
import { makeTheme } from '../widgets/theme.js';
import { AgentScan } from './agent-scan.js';
import { CleanupFlow } from './cleanup-flow.js';
import { AppState, makeContext } from './context.js';
import { deferred } from './deferred-engine.js';
import type { AppFlags } from './flags.js';
import { buildScreens, createScreen, Frame } from './frame.js';
import { KeyDispatch } from './keys.js';

export async function runApp(openEngine: () => Promise<EngineApi>, flags: AppFlags, env: Record<string, string | undefined>): Promise<number> {
  // The worker's module loading (the engine and every adapter) is the longest
  // step before the first rows; started here it overlaps the screen set-up on
  // the other core. The demo keeps its order: frame first, then the demo home.
  const early = flags.demo ? null : openEngine();
  early?.catch(() => undefined);
  const theme = makeTheme(env);
  const screen = createScreen();
  const st = new AppState(screen, theme, flags, env);

  // The parts call each other through these (each is made below).
  let quit: () => void = () => undefined;
  const ctx = makeContext(st, {
    hold: (title, p, then) => keys.hold(title, p, then),
    redetect: (save) => scan.redetect(save),
    rescan: () => scan.startScan(),
    reviewArchive: (ids, action) => cleanup.openReview(action, ids),
    reviewSuggested: (byAgent) => cleanup.reviewSuggested(byAgent),
  });
  const frame = new Frame(st, ctx, () => keys.focusedContexts());
  st.paint = () => frame.paint();
  st.screens = buildScreens(ctx);
  const scan = new AgentScan(st, ctx);
  const cleanup = new CleanupFlow(st, ctx, scan);
  const keys = new KeyDispatch(st, ctx, {
    quit: () => quit(),
    quitBlocked: () => st.busy?.quitBlocked(),
    repaintAll: () => frame.repaintAll(),
    suspend: () => frame.suspend(),
    showTab: (i) => (st.current = i),
    switchAgent: (d) => scan.switchAgent(d),
    focusNext: () => {
      const sc = st.screens[st.current]!;
      if (!sc.focusNext?.()) st.selectorFocused = true;
    },
    rescan: () => scan.startScan(),
    review: () => cleanup.reviewAllMarked(),
    reviewBlocked: () => (flags.readOnly ? t('app.reviewBlocked') : undefined),
    help: () => frame.openHelp(),
  });

  return new Promise<number>((resolve) => {
    let quitting = false;
    quit = (): void => {
      if (quitting) return;
      quitting = true;
      screen.destroy();
      resolve(0);
    };

    screen.on('keypress', (ch: string | undefined, key: KeyEvent | undefined) => {
      const k: KeyEvent = key ?? {};
      st.perf.key(k.name ?? ch);
      keys.onKey(ch, k);
    });
    screen.on('resize', () => st.requestRender());
    screen.on('cleanerx:repaint', () => st.requestRender());

    frame.paint();
    void st.settled.track(
      (async () => {
        try {
          await new Promise((r) => setImmediate(r));
          const real = early ?? openEngine();
          real.catch((e: Error) => ctx.message(e.message, 'error'));
          Object.assign(st.rawEngine, deferred(real));
          st.settled.engineReady();
          await scan.start();
          void cleanup.checkRecovery();
          await scan.addVersions();
        } catch (e) {
          ctx.message((e as Error).message, 'error');
        }
      })(),
    );
  });
}
