// Small, hostile-data-safe filesystem helpers. Nothing here follows a link
// or blocks on a FIFO: agent stores are outside data.

import { closeSync, constants, fstatSync, lstatSync, openSync, promises as fsp, readdirSync, readSync, realpathSync, type Dirent, type Stats } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

/** Allocated size on disk (512-byte blocks), the figure du reports. Links count as 0. */
export function allocatedBytes(st: Stats): number {
  if (st.isSymbolicLink()) return 0;
  return typeof st.blocks === 'number' && st.blocks >= 0 ? st.blocks * 512 : st.size;
}

export async function lstatOrNull(p: string): Promise<Stats | null> {
  try {
    return await fsp.lstat(p);
  } catch {
    return null;
  }
}

interface Prefix {
  buf: Buffer;
  stat: Stats;
  truncated: boolean;
}

/**
 * Reads at most `max` bytes from the start of a regular file. Refuses links
 * (O_NOFOLLOW) and never waits on a FIFO or device (O_NONBLOCK + fstat check).
 */
export async function readPrefix(path: string, max: number): Promise<Prefix> {
  const fh = await fsp.open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const stat = await fh.stat();
    if (!stat.isFile()) throw Object.assign(new Error('not a regular file'), { code: 'ENOTFILE' });
    const want = Math.min(max, stat.size);
    const buf = Buffer.allocUnsafe(want);
    let got = 0;
    while (got < want) {
      const { bytesRead } = await fh.read(buf, got, want - got, got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    return { buf: got === want ? buf : buf.subarray(0, got), stat, truncated: stat.size > got };
  } finally {
    await fh.close();
  }
}

interface PrefixSync {
  length: number;
  stat: Stats;
  truncated: boolean;
}

/**
 * readPrefix into a caller-owned buffer, synchronously: a scan reads
 * thousands of small files, and one reused buffer with no thread-pool round
 * trips is several times faster. Only for worker threads and CLI commands.
 */
export function readPrefixSync(path: string, buf: Buffer): PrefixSync {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw Object.assign(new Error('not a regular file'), { code: 'ENOTFILE' });
    const got = readAtSync(fd, buf, Math.min(buf.length, stat.size), 0);
    return { length: got, stat, truncated: stat.size > got };
  } finally {
    closeSync(fd);
  }
}

/** Reads up to `want` bytes at `pos` into the start of `buf`; returns how many arrived. */
export function readAtSync(fd: number, buf: Buffer, want: number, pos: number): number {
  let got = 0;
  while (got < want) {
    const n = readSync(fd, buf, got, want - got, pos + got);
    if (n === 0) break;
    got += n;
  }
  return got;
}

export function lstatSyncOrNull(p: string): Stats | null {
  try {
    // No exception built for the common miss (a residue check of 1,000 removed files, say).
    return lstatSync(p, { throwIfNoEntry: false }) ?? null;
  } catch {
    return null;
  }
}

/**
 * Whether names exist, from one listing of each parent directory instead of
 * one lstat per path: a residue check asks about thousands of removed files
 * in a few folders. A parent that cannot be listed (other than missing) is
 * answered by lstat, so an unreadable folder never reads as empty.
 */
export class DirPresence {
  private readonly names = new Map<string, Set<string> | null>();

  has(path: string): boolean {
    const cut = path.lastIndexOf('/');
    if (cut <= 0) return lstatSyncOrNull(path) !== null;
    const dir = path.slice(0, cut);
    let names = this.names.get(dir);
    if (names === undefined) {
      names = this.list(dir);
      this.names.set(dir, names);
    }
    return names ? names.has(path.slice(cut + 1)) : lstatSyncOrNull(path) !== null;
  }

  private list(dir: string): Set<string> | null {
    try {
      return new Set(readdirSync(dir));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      return code === 'ENOENT' || code === 'ENOTDIR' ? new Set() : null;
    }
  }
}

/**
 * Directory entries in byte order (stable across runs); an unreadable dir lists as empty.
 * Synchronous on purpose, like the other *Sync helpers: the engine runs in a worker (or a
 * CLI command), and thousands of awaited thread-pool round trips cost more than the syscalls.
 */
export function listDirSorted(dir: string, onUnreadable?: (code: string) => void): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch (e) {
    // A missing dir is simply empty; any other failure hides what is inside, so the caller may say so.
    const code = (e as NodeJS.ErrnoException).code ?? 'error';
    if (code !== 'ENOENT') onUnreadable?.(code);
    return [];
  }
}

/** realpath, or the realpath of the parent plus the name, or the path as given. */
export function canonicalPath(p: string): string {
  // realpath(3) in one call: the JS realpathSync lstats every component, and a
  // stale reference (a moved store's fork parents) paid that twice per path.
  try {
    return realpathSync.native(p);
  } catch {
    try {
      return join(realpathSync.native(dirname(p)), basename(p));
    } catch {
      return resolve(p);
    }
  }
}
