// Where the tests' temp homes go. About 40% of the unit tier's CPU was the
// kernel making and removing hundreds of thousands of files on the disk's
// /tmp; on tmpfs the tier takes 164 s instead of 214–246 s. The global setup
// points TMPDIR at a fresh directory on /dev/shm when that is a tmpfs with
// room to spare (Docker's 64 MB one is not), else leaves it alone;
// CLEANERX_TEST_TMPDIR=<dir> picks the place. A test that needs a disk's
// semantics (directories that take blocks) asks for diskTmp(), one that
// needs a second filesystem asks for otherFilesystem().

import { chmodSync, mkdtempSync, readdirSync, rmSync, statfsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const TMPFS_MAGIC = 0x01021994;
const MIN_FREE = 8 * 1024 ** 3;
/** The system's temp dir before the setup moved TMPDIR: a disk's, as users' homes are. */
const DISK_TMPDIR = 'CLEANERX_DISK_TMPDIR';
/** The scratch dir this run made. */
const SCRATCH = 'CLEANERX_TEST_SCRATCH';

/** Run by the global setup (once per project, so the first call decides): moves TMPDIR for this process and the workers it starts; returns the teardown. */
export function useScratch(): () => void {
  if (process.env[SCRATCH]) return () => {};
  const disk = process.env[DISK_TMPDIR] ?? tmpdir();
  const chosen = process.env.CLEANERX_TEST_TMPDIR ?? (roomyTmpfs('/dev/shm') ? '/dev/shm' : null);
  process.env[DISK_TMPDIR] = disk;
  if (!chosen || chosen === disk) return () => {};
  removeOrphans(chosen);
  const dir = mkdtempSync(join(chosen, `cleanerx-tests-${process.pid}-`));
  // As /tmp is: tests drop children to user nobody, who makes temp dirs of their own.
  chmodSync(dir, 0o1777);
  process.env[SCRATCH] = dir;
  process.env.TMPDIR = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}

/** A killed run leaves its scratch behind, in memory on a tmpfs: the next run removes those whose run is gone. */
function removeOrphans(parent: string): void {
  for (const name of readdirSync(parent)) {
    const pid = /^cleanerx-tests-(\d+)-/.exec(name)?.[1];
    if (!pid || alive(Number(pid))) continue;
    rmSync(join(parent, name), { recursive: true, force: true });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function roomyTmpfs(dir: string): boolean {
  try {
    const s = statfsSync(dir);
    return s.type === TMPFS_MAGIC && s.bavail * s.bsize >= MIN_FREE;
  } catch {
    return false;
  }
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
