// Where the tests' temp homes go. About 40% of the unit tier's CPU was the
// kernel making and removing hundreds of thousands of files on the disk's
// /tmp; on tmpfs the tier takes ~164 s instead of 214–246 s. The global setup
// points TMPDIR at a fresh /dev/shm/cxt-<pid> when /dev/shm is a tmpfs with
// room to spare (Docker's 64 MB one is not), else leaves it alone;
// CLEANERX_TEST_TMPDIR=<dir> puts them in that dir itself. The name is short
// on purpose: a socket's path must stay under the kernel's 108 bytes. A test
// that needs a disk's semantics (directories that take blocks) asks for
// diskTmp(), one that needs a second filesystem asks for otherFilesystem().

import { chmodSync, lstatSync, mkdirSync, readdirSync, rmSync, statfsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const TMPFS_MAGIC = 0x01021994;
const MIN_FREE = 8 * 1024 ** 3;
const SHM = '/dev/shm';
/** The system's temp dir before the setup moved TMPDIR: a disk's, as users' homes are. */
const DISK_TMPDIR = 'CLEANERX_DISK_TMPDIR';
/** The scratch dir this run made. */
const SCRATCH = 'CLEANERX_TEST_SCRATCH';
const NAME = /^cxt-(\d+)$/;

/**
 * Run by the global setup (once per project, so the first call decides):
 * moves TMPDIR for this process and the workers it starts; returns the
 * teardown that removes the scratch this call made.
 */
export function useScratch(): () => void {
  const nothing = (): void => {};
  if (process.env[SCRATCH] || process.env[DISK_TMPDIR]) return nothing;
  process.env[DISK_TMPDIR] = tmpdir();
  const chosen = process.env.CLEANERX_TEST_TMPDIR;
  if (chosen) {
    process.env.TMPDIR = chosen;
    return nothing;
  }
  if (!roomyTmpfs(SHM)) return nothing;
  removeOrphans(SHM);
  const dir = join(SHM, `cxt-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { mode: 0o700 });
  // As /tmp is: tests drop children to user nobody, who makes temp dirs of their own.
  chmodSync(dir, 0o1777);
  process.env[SCRATCH] = dir;
  process.env.TMPDIR = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}

/** A killed run leaves its scratch behind, in memory: the next run removes this user's whose run is gone. */
function removeOrphans(parent: string): void {
  const uid = process.getuid?.() ?? -1;
  for (const name of readdirSync(parent)) {
    const pid = NAME.exec(name)?.[1];
    if (!pid || Number(pid) === process.pid || alive(Number(pid))) continue;
    const p = join(parent, name);
    const st = lstatSync(p, { throwIfNoEntry: false });
    if (st?.isDirectory() && st.uid === uid) rmSync(p, { recursive: true, force: true });
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
  for (const c of [SHM, diskTmp(), '/var/tmp', '/tmp']) {
    try {
      if (statSync(c).dev !== dev) return c;
    } catch {
      // not on this machine
    }
  }
  throw new Error(`no temp dir on another filesystem than ${of}'s (tried ${SHM}, ${diskTmp()}, /var/tmp, /tmp)`);
}
