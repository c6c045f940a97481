// Detection runs `<agent> --version` while a scan may be looking for running
// agents; the probe is an agent process for a moment (pi even renames itself
// "pi"), yet never writes a store. Every probe carries VERSION_PROBE_ENV in
// its environment, which its own children (npm launchers start the real
// binary as a child) inherit. listProcesses already leaves out this
// process's own descendants (and zombies); the marker is what tells apart
// the probes of another cleanerx process (a `cleanerx scan` beside the TUI)
// and a probe reparented away when its launcher exited. (opencode 1.18.33's
// `--version` starts no child at all: sampled every 5 ms, none seen.) An
// npm install states its version in its manifest: no probe at all.

import { promises as fsp } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { readRegularTextAsync } from '../../engine/host/bounded-read.js';
import { VERSION_PROBE_ENV } from '../../engine/host/detect.js';
import { readProcessEnviron } from '../../engine/host/processes.js';

export async function isVersionProbe(procRoot: string, pid: number): Promise<boolean> {
  return (await readProcessEnviron(procRoot, pid))?.get(VERSION_PROBE_ENV) === '1';
}

const MAX_MANIFEST_BYTES = 64 * 1024;
/** What a manifest's version may look like to be shown: semver, ASCII, bounded. */
const PLAIN_VERSION = /^\d{1,9}\.\d{1,9}\.\d{1,9}(?:[-+][0-9A-Za-z.-]{1,30})?$/;

/**
 * An npm-installed agent's version without starting it. The executable, links
 * resolved, is either `<package>/bin/<name>` (OpenCode's platform packages)
 * or the file the package's own `bin` field names (pi: `dist/cli.js`); the
 * package's manifest (a regular file, not a link, bounded, at most three
 * folders up) names one of the agent's own packages and a plain version. npm
 * writes the binary and its manifest in one install, so they agree; anything
 * else (a standalone binary, a foreign or malformed manifest) answers null,
 * and detection asks `--version`.
 */
export async function manifestVersion(executable: string, packageName: RegExp): Promise<string | null> {
  let real: string;
  try {
    real = await fsp.realpath(executable);
  } catch {
    return null;
  }
  let dir = dirname(real);
  for (let up = 0; up < 3; up++, dir = dirname(dir)) {
    const pkg = await readManifest(join(dir, 'package.json'));
    if (!pkg) continue;
    if (typeof pkg.name !== 'string' || !packageName.test(pkg.name)) return null;
    const binOk = (basename(dirname(real)) === 'bin' && dir === dirname(dirname(real))) || namesBin(pkg.bin, dir, real);
    if (!binOk) return null;
    return typeof pkg.version === 'string' && PLAIN_VERSION.test(pkg.version) ? pkg.version : null;
  }
  return null;
}

async function readManifest(p: string): Promise<{ name?: unknown; version?: unknown; bin?: unknown } | null> {
  try {
    const pkg = JSON.parse(await readRegularTextAsync(p, MAX_MANIFEST_BYTES)) as unknown;
    return pkg && typeof pkg === 'object' ? (pkg as { name?: unknown; version?: unknown; bin?: unknown }) : null;
  } catch {
    return null;
  }
}

/** The manifest's `bin` (a path or a map of names to paths) names exactly `file`. */
function namesBin(bin: unknown, pkgDir: string, file: string): boolean {
  const targets = typeof bin === 'string' ? [bin] : bin && typeof bin === 'object' ? Object.values(bin as Record<string, unknown>) : [];
  return targets.some((b) => typeof b === 'string' && join(pkgDir, b) === file);
}
