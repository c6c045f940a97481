// Which demo home belongs to which cleanerx. Each demo home holds an owner
// file (pid and process start time); a demo home whose owner is gone — killed
// with SIGKILL, or a machine that lost power — is removed by the next
// `--demo`. Only homes that are certainly ours are touched: a directory (not
// a link) in the temp dir named like ours, owned by this user, with our owner
// file as a regular, single-link file of this user.

import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readFileSync, readSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const DEMO_PREFIX = 'cleanerx-demo-';
export const OWNER_FILE = '.cleanerx-demo-owner';
const NAME = /^cleanerx-demo-[A-Za-z0-9]{6}$/;
const MAX_ENTRIES = 4096;
const MAX_SWEPT = 64;
const MAX_OWNER_BYTES = 1024;

interface Owner {
  pid: number;
  /** Field 22 of /proc/<pid>/stat (clock ticks since boot); null where there is no /proc. */
  start: string | null;
}

/** The start time of a process, from /proc; null when it cannot be read (no /proc, or no such process). */
export function processStart(pid: number, procRoot = '/proc'): string | null {
  try {
    const s = readFileSync(join(procRoot, String(pid), 'stat'), 'latin1');
    return s.slice(s.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

export function writeOwner(root: string): void {
  const owner: Owner = { pid: process.pid, start: processStart(process.pid) };
  writeFileSync(join(root, OWNER_FILE), JSON.stringify(owner) + '\n', { mode: 0o600, flag: 'wx' });
}

/** A kept home (`--keep`) is the user's now: no owner file, so no sweep ever removes it. */
export function releaseOwner(root: string): void {
  try {
    unlinkSync(join(root, OWNER_FILE));
  } catch {
    // already gone
  }
}

function readOwner(dir: string, uid: number): Owner | null {
  const file = join(dir, OWNER_FILE);
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.uid !== uid || st.nlink !== 1 || st.size > MAX_OWNER_BYTES) return null;
    const buf = Buffer.alloc(MAX_OWNER_BYTES);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const v = JSON.parse(buf.toString('utf8', 0, n)) as Partial<Owner>;
    if (!Number.isInteger(v.pid) || (v.pid as number) <= 0) return null;
    return { pid: v.pid as number, start: typeof v.start === 'string' ? v.start : null };
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

function ownerAlive(o: Owner, procRoot: string): boolean {
  if (o.pid === process.pid) return true;
  const start = processStart(o.pid, procRoot);
  if (start !== null) return o.start === null || start === o.start;
  if (o.start !== null && process.platform === 'linux') return false;
  try {
    process.kill(o.pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the demo homes in `tmp` whose owner is no longer running; returns the paths removed. */
export function sweepStaleDemoHomes(tmp: string, procRoot = '/proc'): string[] {
  const uid = process.getuid?.() ?? -1;
  let names: string[];
  try {
    names = readdirSync(tmp).slice(0, MAX_ENTRIES);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (removed.length >= MAX_SWEPT) break;
    if (!NAME.test(name)) continue;
    const dir = join(tmp, name);
    try {
      const st = lstatSync(dir);
      if (!st.isDirectory() || st.uid !== uid) continue;
    } catch {
      continue;
    }
    const owner = readOwner(dir, uid);
    if (!owner || ownerAlive(owner, procRoot)) continue;
    // rm never follows a link inside the tree: it removes the link itself.
    try {
      removeOwnerLast(dir);
      removed.push(dir);
    } catch {
      // busy or not ours to remove after all: the next --demo tries again
    }
  }
  return removed;
}

/**
 * Removes a demo home with its owner file last: when an agent process still
 * writes into it and the removal fails half way, the owner file stays, so a
 * later --demo can tell the rest is ours and sweep it.
 */
export function removeOwnerLast(dir: string): void {
  // Rounds, because a process that is still quitting may add an entry after a
  // round listed the dir (the whole-tree rm's own retries covered that before).
  let failed: unknown = null;
  for (let round = 0; round < 10; round++) {
    failed = null;
    const names = readdirSync(dir).filter((n) => n !== OWNER_FILE);
    if (!names.length) break;
    for (const name of names) {
      try {
        rmSync(join(dir, name), { recursive: true, force: true, maxRetries: 3, retryDelay: 50 });
      } catch (e) {
        failed ??= e; // the others still go: as little as possible is left behind
      }
    }
    if (!failed) continue;
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
  }
  if (failed) throw failed;
  rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
}
