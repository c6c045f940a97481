// A long step counted in units (sessions exported, threads deleted): the
// estimate of what is left comes from the pace so far, and the last report
// is repeated every second while a unit takes long, so a busy box never
// stands still for more than a moment and its estimate keeps moving.

const EVERY_MS = 1000;

export interface StepReport {
  done: number;
  total: number;
  current?: string;
  /** Milliseconds left at the pace so far; absent before the first unit is done. */
  etaMs?: number;
}

export interface StepClock {
  step(done: number, current?: string): void;
  stop(): void;
}

export function stepClock(total: number, report: (r: StepReport) => void, now: () => number = Date.now): StepClock {
  const started = now();
  let done = 0;
  let current: string | undefined;
  const emit = (): void => {
    const elapsed = now() - started;
    const etaMs = done > 0 && done < total ? Math.max(0, Math.round((elapsed / done) * (total - done))) : done >= total ? 0 : undefined;
    report({ done, total, current, etaMs });
  };
  const timer = setInterval(emit, EVERY_MS);
  timer.unref?.();
  emit();
  return {
    step(n, cur) {
      done = n;
      current = cur;
      emit();
    },
    stop() {
      clearInterval(timer);
    },
  };
}
