// Timing hooks for the benches (CLEANERX_PERF_LOG=<file>): keypress → painted
// frame, and start → first painted rows / scan done. One JSON line per event;
// nothing is recorded when the variable is unset.

import { appendFileSync } from 'node:fs';

export class PerfLog {
  private pendingKey: number | null = null;
  private readonly t0 = performance.now();

  constructor(private readonly file: string | undefined) {}

  get enabled(): boolean {
    return Boolean(this.file);
  }

  key(): void {
    if (this.file && this.pendingKey === null) this.pendingKey = performance.now();
  }

  painted(extra: { rows: number; scanning: boolean }): void {
    if (!this.file) return;
    const now = performance.now();
    if (this.pendingKey !== null) {
      this.write({ e: 'key', ms: now - this.pendingKey, scanning: extra.scanning });
      this.pendingKey = null;
    }
    if (extra.rows > 0 && !this.firstRows) {
      this.firstRows = true;
      this.write({ e: 'firstRows', ms: now - this.t0 });
    }
  }

  mark(e: string): void {
    if (this.file) this.write({ e, ms: performance.now() - this.t0 });
  }

  private firstRows = false;

  private write(o: object): void {
    appendFileSync(this.file!, JSON.stringify(o) + '\n');
  }
}
