// The rule for a new backup-key passphrase. Pure (no I/O), so the TUI's
// prompt checks it as it is typed and the key store applies the same rule to
// standard input.

import { t } from '../i18n/index.js';

export const MIN_PASSPHRASE = 8;
export const MAX_PASSPHRASE = 512;

/**
 * The one rule for a new passphrase, wherever it is typed (stdin or the TUI
 * prompt), so a key can always be unlocked where it was created:
 * - no control characters (tab, line breaks, escape, DEL, C1): the prompt
 *   cannot type them, and a terminal may turn them into something else;
 * - at least 8 characters, counted in code points, after trimming the
 *   whitespace at both ends ("sp" and six spaces is two characters);
 * - at most 512 code points.
 * Returns the sentence that says what to change, or null when it is fine.
 * Only creation applies it: an existing key unlocks with whatever it has.
 */
export function passphraseProblem(p: string): string | null {
  if (/\p{Cc}/u.test(p)) return t('pass.control');
  // A lone surrogate (possible from a JS string, not from UTF-8 input) cannot be encoded as typed.
  if (/\p{Cs}/u.test(p)) return t('pass.invalid');
  const n = Array.from(p.trim()).length;
  if (n < MIN_PASSPHRASE) return t('pass.short', { min: MIN_PASSPHRASE });
  if (Array.from(p).length > MAX_PASSPHRASE) return t('pass.long', { max: MAX_PASSPHRASE });
  return null;
}

/**
 * The passphrase does not open the backup key. A refusal, not a usage error:
 * the command line was right, so the CLI exits 1 with this one sentence
 * (#27.6); the app's prompt asks again instead of failing the operation. It
 * crosses the worker as its own kind (worker-client.ts).
 */
export class WrongPassphraseError extends Error {
  readonly wrongPassphrase = true;
}

/** Whether an error (from the engine, in process or across the worker) is a wrong passphrase. */
export function isWrongPassphrase(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { wrongPassphrase?: unknown }).wrongPassphrase === true;
}
