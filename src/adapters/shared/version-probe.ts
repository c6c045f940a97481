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
 * An npm-installed agent's version without starting it: the executable,
 * links resolved, is `<package>/bin/<name>`, and `<package>/package.json`
 * (a regular file, not a link, bounded) names one of the agent's own
 * packages and a plain version. npm writes the binary and its manifest in
 * one install, so they agree; anything else (a standalone binary, a foreign
 * or malformed manifest) answers null, and detection asks `--version`.
 */
export async function manifestVersion(executable: string, packageName: RegExp): Promise<string | null> {
  try {
    const bin = dirname(await fsp.realpath(executable));
    if (basename(bin) !== 'bin') return null;
    const pkg = JSON.parse(await readRegularTextAsync(join(dirname(bin), 'package.json'), MAX_MANIFEST_BYTES)) as unknown;
    if (!pkg || typeof pkg !== 'object') return null;
    const { name, version } = pkg as { name?: unknown; version?: unknown };
    if (typeof name !== 'string' || !packageName.test(name)) return null;
    return typeof version === 'string' && PLAIN_VERSION.test(version) ? version : null;
  } catch {
    return null;
  }
}
