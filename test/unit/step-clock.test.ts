// A long counted step (the backup's session exports, an agent's root-by-root
// delete) reports again every second while one unit takes long, with an
// estimate from its pace so far, and the busy box shows the estimate. Fake
// timers and a fake clock: nothing here depends on the machine's speed.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { type StepReport, stepClock } from '../../src/engine/core/step-clock.js';
import { cleanupState } from '../../src/modals/progress.js';

afterEach(() => vi.useRealTimers());

describe('stepClock', () => {
  it('repeats the last report every second while a unit runs, with the time left at the pace so far', () => {
    vi.useFakeTimers();
    let now = 0;
    const seen: StepReport[] = [];
    const clock = stepClock(
      10,
      (r) => seen.push(r),
      () => now,
    );
    expect(seen).toEqual([{ done: 0, total: 10, current: undefined, etaMs: undefined }]);
    now = 4000;
    clock.step(2, 'second');
    // 2 units in 4 s: 8 left take 16 s.
    expect(seen.at(-1)).toEqual({ done: 2, total: 10, current: 'second', etaMs: 16_000 });
    // The third unit takes long: the box hears again every second, the estimate growing with the wait.
    const before = seen.length;
    now = 7000;
    vi.advanceTimersByTime(3000);
    expect(seen.length - before).toBe(3);
    expect(seen.at(-1)).toEqual({ done: 2, total: 10, current: 'second', etaMs: 28_000 });
    now = 20_000;
    clock.step(10, 'last');
    expect(seen.at(-1)?.etaMs).toBe(0);
    clock.stop();
    const stopped = seen.length;
    vi.advanceTimersByTime(5000);
    expect(seen.length).toBe(stopped);
  });

  it('the busy box shows the estimate in seconds, and in minutes from two minutes on', () => {
    const base = { phase: 'deleting' as const, done: 3, total: 9, bytesDone: 0, bytesTotal: 0, current: 'Fix the build' };
    expect(cleanupState({ ...base, etaMs: 14_200 }).current).toBe('Fix the build · about 15 s left');
    expect(cleanupState({ ...base, etaMs: 300_000 }).current).toBe('Fix the build · about 5 min left');
    expect(cleanupState(base).current).toBe('Fix the build');
    expect(cleanupState({ ...base, phase: 'backup', current: 'Exporting', etaMs: 61_000 }).current).toBe('Exporting · about 61 s left');
  });
});
