// The command line's errors the user caused and can fix: one line, exit 2.

import { ConfigError } from '../engine/core/config-error.js';

/** An error the user caused and can fix; the CLI prints it as one line and exits 2. */
export class UsageError extends Error {
  readonly usage = true;
}

/** The engine's refusal of the environment is the user's to fix as well: the same sentence (and stack), as a usage error. */
export function asUsageError(e: unknown): unknown {
  if (!(e instanceof ConfigError)) return e;
  const usage = new UsageError(e.message, { cause: e });
  usage.stack = e.stack;
  return usage;
}
