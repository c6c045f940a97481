// The CLI's only way to the terminal. Every function takes SafeText, which
// only engine/text.ts makes (the sanitizer, or the `safe` template whose
// interpolated values it cleans), so a process name, a path from a settings
// file or an error message cannot reach stdout or stderr raw.

import { safe, safeLines, safeText, type SafeText } from '../engine/core/text.js';
import { type ClipboardRoute, clipboardRoute, osc52Sequence } from './osc52.js';

/** Each line, then a newline, on standard output. */
export function printOut(...lines: SafeText[]): void {
  process.stdout.write(lines.map((l) => `${l}\n`).join(''));
}

/**
 * A piece of a long output (`scan --json`) on standard output, no newline
 * added; resolves once the stream has room again, so a slow reader holds the
 * writer back instead of the pieces piling up in memory.
 */
export function printOutPiece(text: SafeText): Promise<void> {
  if (process.stdout.write(text)) return Promise.resolve();
  return new Promise((resolve) => process.stdout.once('drain', resolve));
}

/** Each line, then a newline, on standard error. */
export function printErr(...lines: SafeText[]): void {
  process.stderr.write(lines.map((l) => `${l}\n`).join(''));
}

/** Text without a newline on standard error (a prompt, or the end of a progress line). */
export function printPrompt(text: SafeText): void {
  process.stderr.write(text);
}

/** Rewrites the current line of standard error (progress), only on a terminal. */
export function printProgress(text: SafeText): void {
  if (process.stderr.isTTY) process.stderr.write(`\r${text}`);
}

/**
 * Asks the user's terminal to put `text` on its clipboard (OSC 52, through
 * tmux or screen as `env` says). The one write that is not SafeText: the
 * sequence holds the text as base64 only. Null when it is too large to send.
 */
export function printClipboard(text: string, env: Readonly<Record<string, string | undefined>>): ClipboardRoute | null {
  const route = clipboardRoute(env);
  const seq = osc52Sequence(text, route);
  if (seq === null) return null;
  process.stdout.write(seq);
  return route;
}

type CommandError = (Error & { usage?: boolean; request?: boolean }) | undefined;

/** The exit code for the error that ended a command: 2 for a usage error or a request the engine refused, else 1. */
export function exitCodeFor(e: unknown): number {
  const err = e as CommandError;
  return err?.usage || err?.request ? 2 : 1;
}

/** The error that ended a command: one line on stderr (and the stack with CLEANERX_DEBUG=1). Returns its exit code. */
export function printError(e: unknown, debug = process.env.CLEANERX_DEBUG === '1'): number {
  const err = e as CommandError;
  if (debug) printErr(safeLines(err?.stack ?? String(e)));
  printErr(safe`cleanerx: ${safeText(err?.message ?? e)}`);
  return exitCodeFor(e);
}
