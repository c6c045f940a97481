// Detection runs `<agent> --version` while a scan may be looking for running
// agents; the probe is an agent process for a moment (pi even renames itself
// "pi"), yet never writes a store. Every probe carries VERSION_PROBE_ENV in
// its environment, which its own children (npm launchers start the real
// binary as a child) inherit.

import { VERSION_PROBE_ENV } from '../engine/detect.js';
import { readProcessEnviron } from '../engine/processes.js';

export async function isVersionProbe(procRoot: string, pid: number): Promise<boolean> {
  return (await readProcessEnviron(procRoot, pid))?.get(VERSION_PROBE_ENV) === '1';
}
