// The life of one `--demo` home: homes left by a dead cleanerx are swept
// first, the new home is marked as ours, and every way out removes it — a
// quit, Ctrl-C, SIGHUP (the terminal closed), SIGTERM, SIGINT, SIGQUIT, an
// uncaught error. Only SIGKILL escapes, and the next `--demo` sweeps that.

import { constants } from 'node:os';
import { createDemoHome, type DemoHome } from './demo-home.js';
import { releaseOwner, removeOwnerLast, sweepStaleDemoHomes } from './demo-owner.js';
import type { EngineApi } from '../engine/api/api.js';
import { systemTempDir } from '../engine/host/host-context.js';
import { safe } from '../engine/core/text.js';
import { printError, printOut } from '../terminal/terminal-out.js';

const SIGNALS = ['SIGHUP', 'SIGTERM', 'SIGINT', 'SIGQUIT'] as const;
const CLOSE_WAIT_MS = 2000;
const BUILD_WAIT_MS = 5000;

function within(p: Promise<unknown> | null | undefined, ms: number): Promise<unknown> {
  if (!p) return Promise.resolve();
  return Promise.race([p.catch(() => undefined), new Promise((r) => setTimeout(r, ms).unref())]);
}

export class DemoLifetime {
  root: string | null = null;
  /** The background OpenCode build, which writes into the home until it ends. */
  build: Promise<void> | null = null;
  engine: EngineApi | null = null;
  private removed = false;
  private leaving = false;
  private readonly onExit = (): void => this.removeNow();
  private readonly onSignal = (sig: NodeJS.Signals): void => this.leave(128 + (constants.signals[sig] ?? 1));
  // A closed terminal makes every screen write fail (EIO) while the agents the
  // engine runs still write into the home. blessed's own handler would exit
  // at once (and write to the dead terminal again from inside the handler,
  // where a throw ends node without 'exit' handlers); with this one present
  // blessed's steps aside, and the home is removed in order, as for a signal.
  private readonly onUncaught = (err: unknown): void => {
    if (!this.leaving) {
      try {
        printError(err);
      } catch {
        // no terminal left to tell
      }
    }
    this.leave(1);
  };

  /** Stops the engine, removes the home, exits; once, whatever asks first (bounded: see finish). */
  private leave(code: number): void {
    if (this.leaving) return;
    this.leaving = true;
    void this.finish().finally(() => process.exit(code));
  }

  constructor(private readonly keep: boolean) {}

  create(now = Date.now()): Promise<DemoHome> {
    sweepStaleDemoHomes(systemTempDir());
    return createDemoHome(now, (root) => {
      this.root = root;
      process.on('exit', this.onExit);
      process.on('uncaughtException', this.onUncaught);
      for (const s of SIGNALS) process.on(s, this.onSignal);
    });
  }

  /** The orderly end: the engine (and the agents it runs) stops, the build settles, the home goes. */
  async finish(): Promise<void> {
    await within(this.engine?.close(), CLOSE_WAIT_MS);
    await within(this.build, BUILD_WAIT_MS);
    this.removeNow();
  }

  private removeNow(): void {
    if (this.removed || !this.root) return;
    this.removed = true;
    if (!this.leaving) {
      process.off('exit', this.onExit);
      process.off('uncaughtException', this.onUncaught);
      for (const s of SIGNALS) process.off(s, this.onSignal);
    }
    if (this.keep) {
      releaseOwner(this.root);
      printOut(safe`Demo home kept at ${this.root}`);
      return;
    }
    try {
      removeOwnerLast(this.root);
    } catch {
      // Still busy (an agent process writing into it): its owner file stays, so the next --demo removes it.
    }
  }
}
