// A wait's timeout is a budget measured on a quiet 2-core machine. On a
// loaded one (other builds, a CPU burner, the suite's own workers) every
// process gets its share of the cores, so the same step takes longer in
// proportion to the run queue: the budget grows with the load it meets when
// the wait starts, up to 8×. CLEANERX_TEST_SLOWDOWN fixes the factor.

import { availableParallelism, loadavg } from 'node:os';

const MAX = 8;

export function slowdown(): number {
  const fixed = Number(process.env.CLEANERX_TEST_SLOWDOWN);
  if (fixed > 0) return fixed;
  return Math.min(MAX, Math.max(1, loadavg()[0]! / availableParallelism()));
}

/** `ms` on a quiet machine, as many ms as the present load makes it. */
export const budget = (ms: number): number => Math.round(ms * slowdown());
