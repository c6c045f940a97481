// Timing hooks for the benches (CLEANERX_PERF_LOG=<file>): keypress → the
// first frame that shows its result (a frame still drawing placeholders or a
// stale page does not count), and start → first painted data rows / scan
// done. One JSON line per event; nothing is recorded when the variable is
// unset. `ms` counts from the app's start (runApp), `sinceProcess` from the
// process's own start (module loading included).

import { appendFileSync } from 'node:fs';

export class PerfLog {
  private pendingKey: number | null = null;
  private readonly t0 = performance.now();

  constructor(private readonly file: string | undefined) {}

  get enabled(): boolean {
    return Boolean(this.file);
  }

  /** A key arrived; while an earlier key still waits for its frame, that earlier time is kept (pessimistic). */
  key(name?: string): void {
    if (!this.file || this.pendingKey !== null) return;
    this.pendingKey = performance.now();
    this.pendingName = name ?? '';
  }

  /** Called at the start of a paint: splits a key's latency into waiting and painting. */
  paintStart(): void {
    if (this.file) this.paintAt = performance.now();
  }

  painted(extra: { rows: number; scanning: boolean; settled: boolean }): void {
    if (!this.file) return;
    const now = performance.now();
    if (this.pendingKey !== null && extra.settled) {
      this.write({
        e: 'key',
        k: this.pendingName,
        ms: now - this.pendingKey,
        paint: now - this.paintAt,
        scanning: extra.scanning,
        at: this.pendingKey - this.t0,
      });
      this.pendingKey = null;
    }
    if (extra.rows > 0 && !this.firstRows) {
      this.firstRows = true;
      this.write({ e: 'firstRows', ms: now - this.t0, sinceProcess: now, scanning: extra.scanning });
    }
  }

  mark(e: string, extra: object = {}): void {
    if (this.file) this.write({ e, ms: performance.now() - this.t0, ...extra });
  }

  private firstRows = false;
  private paintAt = 0;
  private pendingName = '';

  private write(o: object): void {
    appendFileSync(this.file!, JSON.stringify(o) + '\n');
  }
}
