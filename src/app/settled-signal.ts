// A "settled" signal for the PTY tests (CLEANERX_SETTLED_FILE=<absolute
// path>): one line `settled <n>\n` is appended each time the app goes idle
// after a render — no engine call in flight, no dialog on its way (its
// queued keys), no scan, no render queued, and the frame written. A test
// then waits for the next line instead of guessing with sleeps. A change the
// app makes by itself, on a timer (a notice that fades), appends `changed <k>`
// the moment it is made: a test that compares a frame with a redraw of it
// then tells the state moving on from a stale cell.
//
// This is the only file of the UI that writes to the filesystem, and only in
// that test mode: the signal has to leave the process without going through
// the terminal (which is what the test reads), and without it the app writes
// nothing at all. Unset, every method is a no-op and the engine is returned
// as it is.

import { appendFileSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import type { EngineApi } from '../engine/api/api.js';

/**
 * How long the app must stay idle before the line is written. Screens
 * debounce some engine calls by timers (the detail pane 60 ms, the filter
 * 80 ms): a timer set before this one fires first, starts its call, and
 * the wait begins again.
 */
const QUIET_MS = 100;

export class SettledSignal {
  private readonly file: string | null;
  private inFlight = 0;
  private count = 0;
  private changes = 0;
  /** A frame was rendered since the last line. */
  private dirty = false;
  private timer: NodeJS.Timeout | null = null;
  /**
   * Calls made before the engine exists go to a placeholder that never
   * answers (a screen's constructor loads early; its onSummary asks again):
   * they are not waited for.
   */
  private engineUp = false;

  constructor(
    file: string | undefined,
    /** The app's own part of idle: no dialog on its way, no scan, no render queued. */
    private readonly appIdle: () => boolean,
  ) {
    this.file = file && isAbsolute(file) ? file : null;
  }

  get enabled(): boolean {
    return this.file !== null;
  }

  /** Busy until `p` settles. */
  track<T>(p: Promise<T>): Promise<T> {
    if (!this.file) return p;
    this.inFlight++;
    this.cancel();
    const done = (): void => {
      this.inFlight--;
      this.check();
    };
    p.then(done, done);
    return p;
  }

  /** The engine with every call counted while it is in flight. */
  wrapEngine(engine: EngineApi): EngineApi {
    if (!this.file) return engine;
    const tracked = {} as Record<string, unknown>;
    // Looked up at each call: the app's engine object is filled in once the worker is up.
    for (const k of Object.keys(engine) as (keyof EngineApi)[]) {
      tracked[k] = (...args: unknown[]): unknown => {
        const r = (engine[k] as (...a: unknown[]) => unknown)(...args);
        return this.engineUp && r instanceof Promise ? this.track(r) : r;
      };
    }
    return tracked as unknown as EngineApi;
  }

  /** The engine's calls are real from now on. */
  engineReady(): void {
    this.engineUp = true;
  }

  /** Called after every screen.render(). */
  painted(): void {
    if (!this.file) return;
    this.dirty = true;
    this.check();
  }

  /** A change of state no key or call caused (a timer's): said at once, before its frame. */
  changedByItself(): void {
    if (!this.file) return;
    this.changes++;
    appendFileSync(this.file, `changed ${this.changes}\n`);
  }

  private cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private idle(): boolean {
    return this.inFlight === 0 && this.appIdle();
  }

  private check(): void {
    this.cancel();
    if (!this.dirty || !this.idle()) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (!this.dirty || !this.idle()) return;
      this.dirty = false;
      this.count++;
      appendFileSync(this.file!, `settled ${this.count}\n`);
    }, QUIET_MS);
    this.timer.unref();
  }
}
