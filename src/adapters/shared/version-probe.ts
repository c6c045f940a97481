// Detection runs `<agent> --version` while a scan may be looking for running
// agents; the probe is an agent process for a moment (pi even renames itself
// "pi"), yet never writes a store. Every probe carries VERSION_PROBE_ENV in
// its environment, which its own children (npm launchers start the real
// binary as a child) inherit. listProcesses already leaves out this
// process's own descendants (and zombies); the marker is what tells apart
// the probes of another cleanerx process (a `cleanerx scan` beside the TUI)
// and a probe reparented away when its launcher exited. (opencode 1.18.33's
// `--version` starts no child at all: sampled every 5 ms, none seen.)

import { VERSION_PROBE_ENV } from '../../engine/host/detect.js';
import { readProcessEnviron } from '../../engine/host/processes.js';

export async function isVersionProbe(procRoot: string, pid: number): Promise<boolean> {
  return (await readProcessEnviron(procRoot, pid))?.get(VERSION_PROBE_ENV) === '1';
}
