// A private, empty home for one `<agent> --version` probe. Codex 0.171 makes
// $CODEX_HOME/tmp/arg0-linux/codex-arg0<random>/ (a lock and three links to
// itself) on every start, --version included, and removes the previous
// one: a scan that asked the user's Codex its version rewrote the user's
// Codex home. Pointed at a 0700 dir under the probe's temp dir, Codex
// refuses to make those links there ("under temporary dir") and writes
// nothing; whatever an agent does write stays in the dir, removed after.

import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tempDirOf } from './host-context.js';

const PREFIX = 'cleanerx-probe-';

/** A new 0700 dir under the env's temp dir, or null when none can be made (the probe is then not run). */
export function makeProbeHome(env: Readonly<Record<string, string | undefined>>): string | null {
  try {
    return mkdtempSync(join(tempDirOf(env), PREFIX));
  } catch {
    return null;
  }
}

/** Removes a dir makeProbeHome made, once the probe has exited (links inside are removed, never followed). */
export function removeProbeHome(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true });
  } catch {
    // a temp dir left behind costs only its few bytes
  }
}
