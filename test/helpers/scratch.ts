// Where the tests' temp homes go. About 40% of the unit tier's CPU is the
// kernel making and removing hundreds of thousands of files on the disk's
// /tmp; with CLEANERX_TEST_TMPDIR=/dev/shm (a tmpfs) the tier took 164 s
// instead of 214–246 s. A test that needs a disk's semantics (directories
// that take blocks) asks for diskTmp(), one that needs a second filesystem
// asks for otherFilesystem(): both hold wherever TMPDIR points.

import { statSync } from 'node:fs';
import { tmpdir } from 'node:os';

/** The system's temp dir before the setup moved TMPDIR: a disk's, as users' homes are. */
const DISK_TMPDIR = 'CLEANERX_DISK_TMPDIR';

/**
 * Run by the global setup: with CLEANERX_TEST_TMPDIR set, points TMPDIR (for
 * this process and the workers it starts) at that dir itself, so a temp path
 * is no longer than its name makes it. Not the default: with the temp homes
 * under /dev/shm/cleanerx-tests-<pid>-* (31 characters longer than /tmp) a
 * socket path passed the kernel's 108 bytes and a typed path overran a
 * journey's field (docs/testing.md).
 */
export function useScratch(): void {
  process.env[DISK_TMPDIR] ??= tmpdir();
  const chosen = process.env.CLEANERX_TEST_TMPDIR;
  if (chosen) process.env.TMPDIR = chosen;
}

/** A temp dir on the disk (directories take blocks there), wherever TMPDIR points. */
export function diskTmp(): string {
  return process.env[DISK_TMPDIR] ?? tmpdir();
}

/** A writable temp dir on another filesystem than `of`'s: the tmpfs when `of` is on the disk, the disk's when it is on the tmpfs. */
export function otherFilesystem(of: string): string {
  const dev = statSync(of).dev;
  for (const c of ['/dev/shm', diskTmp(), '/var/tmp', '/tmp']) {
    try {
      if (statSync(c).dev !== dev) return c;
    } catch {
      // not on this machine
    }
  }
  throw new Error(`no temp dir on another filesystem than ${of}'s (tried /dev/shm, ${diskTmp()}, /var/tmp, /tmp)`);
}
