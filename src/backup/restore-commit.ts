// The write side of a restore, anchored: every destination dir is reached
// from the allowlisted root by directory handles opened one component at a
// time without following links, and each handle's identity is pinned the
// first time it is seen, so an ancestor exchanged for a symlink (or for
// another directory) mid-run stops the restore instead of redirecting it.
// Files go into place as a no-replace link of the staged copy (one inode,
// no data copied, the holes of a sparse file kept); only across filesystems
// is a sparse copy made, under the one partial name the journal announces.

import { createHash } from 'node:crypto';
import { constants as C, closeSync, fstatSync, fsyncSync, futimesSync, openSync, read, write, type Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { promisify } from 'node:util';
import { AnchoredError, DirHandle, linkAt, lstatAt, mkdirAt, openChildDir, openFileAt, openRootDir, rmdirAt, unlinkAt } from '../engine/host/anchored-fs.js';
import { crashPoint } from '../engine/core/faults.js';
import { ArchiveError } from './archive.js';
import { partialName } from './restore-journal.js';

const readP = promisify(read);
const writeP = promisify(write);
const readFd = async (fd: number, b: Buffer, off: number, len: number, pos: number): Promise<number> => (await readP(fd, b, off, len, pos)).bytesRead;
const writeFd = async (fd: number, b: Buffer, off: number, len: number, pos: number): Promise<number> => (await writeP(fd, b, off, len, pos)).bytesWritten;

interface DirId {
  dev: number;
  ino: number;
}

const key = (root: string, rel: string): string => `${root}\0${rel}`;
const CACHED = 64;
const PINNED = 512;

/** Directory handles below each allowlisted root, reached without following links, identities pinned. */
export class AnchoredTree {
  private readonly roots = new Map<string, { h: DirHandle; dev: number }>();
  private readonly cache = new Map<string, DirHandle>();
  /** Parents of committed files stay open so a rollback needs no fresh walk (bounded; beyond, it walks again). */
  private readonly pinned = new Map<string, DirHandle>();
  private readonly ids = new Map<string, DirId>();
  /** Dirs that gained an entry (a link or a mkdir): fsync'd before their handle closes. */
  private readonly dirty = new Set<DirHandle>();

  constructor(
    private readonly rootDirs: Record<string, string>,
    private readonly uid: number,
  ) {}

  display(root: string, rel: string): string {
    const base = this.rootDirs[root] ?? root;
    return rel ? `${base}/${rel}` : base;
  }

  private root(label: string): { h: DirHandle; dev: number } {
    let r = this.roots.get(label);
    if (r) return r;
    const abs = this.rootDirs[label];
    if (!abs) throw new ArchiveError(`The archive restores into "${label}", which is not a root of this agent.`);
    let h: DirHandle;
    try {
      h = openRootDir(abs);
    } catch (e) {
      throw new ArchiveError(`The restore root ${abs} is missing or not a plain directory (${(e as Error).message})`);
    }
    const st = h.stat();
    r = { h, dev: st.dev };
    this.roots.set(label, r);
    return r;
  }

  /**
   * The handle of `rel` (a '/'-joined dir path, '' for the root). A missing
   * component is created only when `mayCreate(rel)` says so (then reported
   * to `created`), otherwise the answer is null.
   */
  dir(label: string, rel: string, mayCreate?: (rel: string) => boolean, created?: (rel: string) => void): DirHandle | null {
    const root = this.root(label);
    if (!rel) return root.h;
    const hit = this.pinned.get(key(label, rel)) ?? this.cache.get(key(label, rel));
    if (hit) return hit;
    while (this.cache.size >= CACHED) {
      const [k, h] = this.cache.entries().next().value as [string, DirHandle];
      this.cache.delete(k);
      if (![...this.pinned.values()].includes(h)) this.release(h, true);
    }
    const comps = rel.split('/');
    let cur = root.h;
    // Stryker disable next-line EqualityOperator: a turn past the end finds the whole rel, cached the turn before (`>=` goes too: no turn, the root, is held by every walk)
    for (let i = 0; i < comps.length; i++) {
      const sub = comps.slice(0, i + 1).join('/');
      const k = key(label, sub);
      const known = this.pinned.get(k) ?? this.cache.get(k);
      if (known) {
        cur = known;
        continue;
      }
      const name = comps[i]!;
      const where = this.display(label, sub);
      let st = lstatAt(cur, name);
      if (!st) {
        if (!mayCreate?.(sub)) return null;
        mkdirAt(cur, name, 0o700);
        this.dirty.add(cur);
        created?.(sub);
        st = lstatAt(cur, name);
        if (!st) throw new ArchiveError(`${where} vanished right after it was created; the restore stopped.`);
      }
      if (st.isSymbolicLink() || !st.isDirectory()) throw new ArchiveError(`${where} is not a plain directory; nothing was restored.`);
      if (this.uid >= 0 && st.uid !== this.uid) throw new ArchiveError(`${where} belongs to another user; nothing was restored.`);
      if (st.dev !== root.dev) throw new ArchiveError(`${where} is on another filesystem; nothing was restored.`);
      let h: DirHandle;
      try {
        h = openChildDir(cur, name);
      } catch (e) {
        throw swapped(where, e);
      }
      const hs = h.stat();
      const seen = this.ids.get(k);
      // Another filesystem's dir with the very inode number would trip this alone; seen.dev is the root's, as st.dev is (checked above).
      // Stryker disable next-line ConditionalExpression: no test can make a dir of another filesystem with the same inode number (→ true is held too)
      const otherFs = hs.dev !== st.dev;
      if (otherFs || hs.ino !== st.ino || (seen && seen.ino !== hs.ino)) {
        closeQuietly(h);
        throw swapped(where);
      }
      this.ids.set(k, { dev: hs.dev, ino: hs.ino });
      this.cache.set(k, h);
      cur = h;
    }
    return cur;
  }

  /**
   * Walks to `rel` afresh (no cached handle) and checks every dir on the way
   * is the one seen before: after the commits, a dir that was swapped away
   * while its handle kept the writes in the real dir is noticed, not reported
   * as restored under a path that now leads elsewhere.
   */
  verify(label: string, rel: string): void {
    if (!rel) return;
    const root = this.root(label);
    const comps = rel.split('/');
    // Stryker disable next-line ArrayDeclaration: closeQuietly's catch takes the TypeError of a non-handle
    const opened: DirHandle[] = [];
    try {
      let cur = root.h;
      for (let i = 0; i < comps.length; i++) {
        const sub = comps.slice(0, i + 1).join('/');
        const where = this.display(label, sub);
        const st = lstatAt(cur, comps[i]!);
        if (!st || st.isSymbolicLink() || !st.isDirectory()) throw swapped(where);
        let h: DirHandle;
        try {
          h = openChildDir(cur, comps[i]!);
        } catch (e) {
          throw swapped(where, e);
        }
        opened.push(h);
        const hs = h.stat();
        const seen = this.ids.get(key(label, sub));
        // Stryker disable next-line ConditionalExpression: no test can make a dir of another filesystem with the same inode number (→ true is held too)
        const otherFs = seen !== undefined && seen.dev !== hs.dev;
        if (!seen || otherFs || seen.ino !== hs.ino || hs.ino !== st.ino) throw swapped(where);
        cur = h;
      }
    } finally {
      for (const h of opened) closeQuietly(h);
    }
  }

  /** Marks `h` as holding a commit; keeps it open for a rollback while there is room. */
  pin(label: string, rel: string, h: DirHandle): void {
    this.dirty.add(h);
    if (!rel || this.pinned.size >= PINNED) return;
    this.pinned.set(key(label, rel), h);
  }

  private release(h: DirHandle, sync: boolean): void {
    if (sync && this.dirty.has(h)) {
      try {
        fsyncSync(h.fd);
      } catch {
        // best effort: the dir may have been removed by a rollback
      }
    }
    // Stryker disable next-line CallExpression: memory only; a released handle has left every set, so it is never released again
    this.dirty.delete(h);
    closeQuietly(h);
  }

  /** A dir this restore has seen (for rollback without a walk). */
  pinnedDir(label: string, rel: string): DirHandle | undefined {
    return rel ? this.pinned.get(key(label, rel)) : this.roots.get(label)?.h;
  }

  /** Closes every handle; with `sync`, the dirs that gained entries are fsync'd first (the links and mkdirs become durable). */
  close(sync: boolean): void {
    const all = new Set<DirHandle>([...this.cache.values(), ...this.pinned.values(), ...[...this.roots.values()].map((r) => r.h)]);
    for (const h of all) this.release(h, sync);
    this.cache.clear();
    this.pinned.clear();
    this.roots.clear();
  }

  /** Drops the cached (unpinned) handles after a failed walk, so a retry walks afresh. */
  forget(): void {
    for (const h of this.cache.values()) if (![...this.pinned.values()].includes(h)) this.release(h, true);
    this.cache.clear();
  }
}

function closeQuietly(h: DirHandle): void {
  try {
    h.close();
  } catch {
    // already closed
  }
}

function swapped(where: string, e?: unknown): ArchiveError {
  const why = e instanceof AnchoredError ? ` (${e.message})` : '';
  return new ArchiveError(`${where} was replaced while the restore was running${why}; the restore stopped and undid what it had put back.`);
}

/** The staging dir as a handle (cleanerx's own private dir: its ancestors are not the agent's to swap). */
export function openStaging(path: string): DirHandle {
  return new DirHandle(openSync(path, C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW), path);
}

// ---- sparse writing ---------------------------------------------------------------------

const BLOCK = 4096;
const ZERO = Buffer.alloc(BLOCK);

/**
 * Writes a byte stream with holes: every all-zero 4 KiB block (aligned to
 * the file offset) is skipped, the rest written at its position, and the
 * size set last by ftruncate. The target must be new (unwritten ranges read
 * as zeros). With `inFlight` > 1, up to that many writes run at once
 * (positional, each to its own range) and write() may resolve while
 * inFlight − 1 of them are still under way: the caller hashes the next piece
 * meanwhile, and must leave the pieces untouched until finish() resolves.
 */
export class SparseWriter {
  private pos = 0;
  private readonly pending = new Set<Promise<void>>();
  private failed: unknown = null;

  constructor(
    private readonly out: FileHandle | number,
    private readonly inFlight = 1,
  ) {}

  async write(c: Buffer): Promise<void> {
    let runStart = -1;
    let off = 0;
    while (off < c.length) {
      const end = Math.min(c.length, off + BLOCK - ((this.pos + off) % BLOCK));
      const zero = c.compare(ZERO, 0, end - off, off, end) === 0;
      if (zero) {
        if (runStart >= 0) await this.put(c, runStart, off);
        runStart = -1;
      } else if (runStart < 0) runStart = off;
      off = end;
    }
    if (runStart >= 0) await this.put(c, runStart, c.length);
    this.pos += c.length;
    // At most inFlight − 1 writes outlive this call (none by default: the caller may reuse `c` at once).
    while (this.pending.size > this.inFlight - 1) await Promise.race(this.pending);
    if (this.failed) throw this.failed;
  }

  private async put(c: Buffer, from: number, to: number): Promise<void> {
    while (this.pending.size >= this.inFlight) await Promise.race(this.pending);
    if (this.failed) throw this.failed;
    const at = this.pos;
    const p: Promise<void> = this.writeRange(c, from, to, at).then(
      () => void this.pending.delete(p),
      (e: unknown) => {
        this.pending.delete(p);
        this.failed ??= e;
      },
    );
    this.pending.add(p);
  }

  private async writeRange(c: Buffer, from: number, to: number, at: number): Promise<void> {
    for (let done = from; done < to; ) {
      const n =
        typeof this.out === 'number'
          ? await writeFd(this.out, c, done, to - done, at + done)
          : (await this.out.write(c, done, to - done, at + done)).bytesWritten;
      done += n;
    }
  }

  /** Waits for every write (the first failure is thrown), then sets the size. */
  async finish(): Promise<number> {
    await Promise.all(this.pending);
    if (this.failed) throw this.failed;
    if (typeof this.out === 'number') {
      const { ftruncate } = await import('node:fs');
      await promisify(ftruncate)(this.out, this.pos);
    } else await this.out.truncate(this.pos);
    return this.pos;
  }

  /** After a failure elsewhere: lets the writes under way end (their errors are moot) before the file is closed. */
  async settle(): Promise<void> {
    await Promise.all(this.pending);
  }
}

// ---- times ---------------------------------------------------------------------------

/**
 * Seconds for futimes from a time in ns. libuv keeps whole microseconds (it
 * truncates what the double carries), so the value aims half a microsecond
 * past the mark: the float's rounding cannot push it below, and the time
 * set is the recorded one truncated to the microsecond.
 */
export function futimesSeconds(ns: string): number {
  const v = BigInt(ns);
  let s = v / 1_000_000_000n;
  let r = v % 1_000_000_000n;
  if (r < 0n) {
    s -= 1n;
    r += 1_000_000_000n;
  }
  return Number(s) + (Number(r / 1000n) * 1000 + 500) / 1e9;
}

/** Gives an open file or dir its recorded mtime (atime: now, which nothing reads back). */
export function setMtime(fd: number, mtimeNs: string): void {
  futimesSync(fd, Date.now() / 1000, futimesSeconds(mtimeNs));
}

/** SHA-256 and size of an open fd, read in bounded chunks. */
export async function hashFd(fd: number): Promise<{ sha256: string; size: number }> {
  const h = createHash('sha256');
  const buf = Buffer.allocUnsafe(1 << 20);
  let size = 0;
  for (;;) {
    const n = await readFd(fd, buf, 0, buf.length, size);
    if (n === 0) break;
    h.update(buf.subarray(0, n));
    size += n;
  }
  return { sha256: h.digest('hex'), size };
}

/** Opens an entry for reading if it is a regular file of this user; null otherwise (absent, link, FIFO, foreign). */
function openRegular(dir: DirHandle, name: string, uid: number): { fd: number; st: Stats } | null {
  let fd: number;
  try {
    fd = openFileAt(dir, name, C.O_RDONLY);
  } catch {
    return null;
  }
  const st = fstatSync(fd);
  if (!st.isFile() || (uid >= 0 && st.uid !== uid)) {
    closeSync(fd);
    return null;
  }
  return { fd, st };
}

/** True when `name` in `dir` is a regular file of this user with exactly this content. */
export async function holdsContent(dir: DirHandle, name: string, uid: number, want: { sha256: string; sizeBytes: number }): Promise<boolean> {
  const f = openRegular(dir, name, uid);
  if (!f) return false;
  try {
    if (f.st.size !== want.sizeBytes) return false;
    return (await hashFd(f.fd)).sha256 === want.sha256;
  } finally {
    closeSync(f.fd);
  }
}

/**
 * Puts the staged file `staged` in place as `name` in `parent`, never
 * replacing anything (EEXIST). Returns the identity of what was committed.
 */
export async function commitFile(
  stage: DirHandle,
  staged: string,
  parent: DirHandle,
  name: string,
  restoreId: string,
  index: number,
  mode: number,
  mtimeNs?: string,
): Promise<DirId> {
  try {
    linkAt(stage, staged, parent, name);
    const st = lstatAt(parent, name);
    const src = lstatAt(stage, staged);
    // Stryker disable next-line ConditionalExpression: no test can put a file of another filesystem with the same inode number there (→ true is held too)
    const otherFs = st !== null && src !== null && st.dev !== src.dev;
    if (!st || !src || st.ino !== src.ino || otherFs)
      throw new ArchiveError(`${parent.display}/${name} is not the file the restore just put there; the restore stopped.`);
    return st;
  } catch (e) {
    if (!(e instanceof AnchoredError) || e.code !== 'EXDEV') throw e;
  }
  // Across filesystems: a sparse copy under the journal's partial name, then the same no-replace link.
  const partial = partialName(restoreId, index);
  const src = openRegular(stage, staged, -1);
  if (!src) throw new ArchiveError(`The staged copy of ${parent.display}/${name} is gone; the restore stopped.`);
  try {
    const out = openFileAt(parent, partial, C.O_WRONLY | C.O_CREAT | C.O_EXCL, 0o600);
    try {
      const w = new SparseWriter(out);
      const buf = Buffer.allocUnsafe(1 << 20);
      for (let pos = 0; ; ) {
        const n = await readFd(src.fd, buf, 0, buf.length, pos);
        if (n === 0) break;
        await w.write(buf.subarray(0, n));
        pos += n;
      }
      await w.finish();
      const { fchmodSync } = await import('node:fs');
      fchmodSync(out, mode);
      if (mtimeNs !== undefined) setMtime(out, mtimeNs);
      fsyncSync(out);
    } finally {
      closeSync(out);
    }
    crashPoint(`restore:${index}:copied`);
    linkAt(parent, partial, parent, name);
    const st = lstatAt(parent, name);
    const p = lstatAt(parent, partial);
    if (!st || !p || st.ino !== p.ino) throw new ArchiveError(`${parent.display}/${name} is not the file the restore just put there; the restore stopped.`);
    unlinkAt(parent, partial);
    return st;
  } finally {
    closeSync(src.fd);
  }
}

/** Removes `name` from `parent` only if it is still the inode this restore committed. */
export function uncommit(parent: DirHandle, name: string, id: DirId): boolean {
  const st = lstatAt(parent, name);
  if (!st || st.dev !== id.dev || st.ino !== id.ino) return false;
  unlinkAt(parent, name);
  return true;
}

/** Removes an empty dir this restore created (a dir someone filled meanwhile stays). */
export function removeCreatedDir(parent: DirHandle, name: string): void {
  try {
    rmdirAt(parent, name);
  } catch {
    // not empty, or already gone: left as it is
  }
}

export { lstatAt, unlinkAt };
