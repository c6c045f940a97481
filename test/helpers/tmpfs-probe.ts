// Whether this process may mount a tmpfs (root, and not in a container that
// forbids mount(2)): the tests of a filesystem mounted inside a planned tree
// need one, and say why they cannot run where it is refused.

import { spawnSync } from 'node:child_process';
import { makeTempEnv } from './temp-env.js';

/** Null when a 1 MiB tmpfs could be mounted (and was unmounted again); else why not, in a phrase. */
export function tmpfsMountRefusal(): string | null {
  const probe = makeTempEnv('cleanerx-mount-probe-');
  try {
    const r = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe.root], { encoding: 'utf8' });
    if (r.error || r.status !== 0) return (r.error?.message ?? r.stderr.trim()) || `mount exited ${r.status}`;
    spawnSync('umount', [probe.root]);
    return null;
  } finally {
    probe.cleanup();
  }
}
