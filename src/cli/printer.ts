// Where a command's output goes. Commands take a Printer, never the process
// streams: the real one is terminal-out (SafeText only), a test's keeps the lines.

import type { SafeText } from '../engine/core/text.js';
import { printErr, printOut, printOutPiece, printProgress, printPrompt } from '../terminal/terminal-out.js';

export interface Printer {
  /** Each line, then a newline, on standard output. */
  out(...lines: SafeText[]): void;
  /** A piece of a streamed output, no newline added (absent: the command joins the pieces and prints them with out). */
  outPiece?(text: SafeText): Promise<void>;
  /** Each line, then a newline, on standard error. */
  err(...lines: SafeText[]): void;
  /** Text without a newline on standard error (a prompt). */
  prompt(text: SafeText): void;
  /** Rewrites the current progress line (only where there is a terminal to rewrite). */
  progress(text: SafeText): void;
}

export const terminalPrinter: Printer = { out: printOut, outPiece: printOutPiece, err: printErr, prompt: printPrompt, progress: printProgress };
