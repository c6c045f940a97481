// Writing the decrypted payloads into a restore's private staging dir while
// the archive streams. The reader waits on a file only while its bytes flow:
// a few writes of it are under way while the next piece is hashed, and its
// size, mode, mtime and close finish in the background while the next
// payloads arrive (a bounded number at once). Nothing of it is trusted until
// done() has seen every file complete; then every staged file and the dir
// are fsync'd before the journal may say "committing" (a resume links these
// very inodes).

import { constants as C, promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { futimesSeconds, SparseWriter } from './restore-commit.js';

/** Writes of one file under way at once: enough to overlap the next piece's hash (more only queue on libuv's four threads). */
const WRITES_IN_FLIGHT = 2;
/** Files finishing in the background at once. */
const TAILS = 8;
/** How many staged files are fsync'd (or removed) at once (libuv's pool has 4 threads; the rest queue). */
const SYNC_PARALLEL = 8;

/**
 * Removes a staging dir (cleanerx's own, private, flat) and its files, a few
 * unlinks at a time as its listing streams. fs.rm({ recursive }) starts one
 * request per entry at once: for 200,000 staged files that held ~2 KB each
 * (its promises in the heap, libuv's requests outside), 440 MB at the end
 * of a restore. Anything it does not expect (a subdir) is left to fs.rm.
 */
export async function removeStaging(dir: string): Promise<void> {
  // Inside the private 0700 staging parent; a link there is removed itself, never followed.
  // Stryker disable next-line ArrowFunction: undefined is as falsy as null for the test below
  const st = await fsp.lstat(dir).catch(() => null);
  if (!st) return;
  // Stryker disable next-line ObjectLiteral,BooleanLiteral: for a non-dir the options matter only if it is swapped for a dir or removed after the lstat (a race)
  if (!st.isDirectory()) return fsp.rm(dir, { recursive: true, force: true });
  const d = await fsp.opendir(dir);
  const unlinks = new Set<Promise<void>>();
  try {
    for await (const entry of d) {
      if (!entry.isFile()) continue;
      while (unlinks.size >= SYNC_PARALLEL) await Promise.race(unlinks);
      const p: Promise<void> = fsp
        .unlink(join(dir, entry.name))
        .catch(() => undefined)
        .then(() => void unlinks.delete(p));
      unlinks.add(p);
    }
  } finally {
    await Promise.all(unlinks);
  }
  const removed = await fsp.rmdir(dir).then(
    () => true,
    // Stryker disable next-line ArrowFunction: undefined is as falsy as false for the test below
    () => false,
  );
  // Stryker disable next-line BooleanLiteral: force matters only if the dir is removed between the failed rmdir and this rm (a race)
  if (!removed) await fsp.rm(dir, { recursive: true, force: true });
}

export class StagingWriter {
  private readonly tails = new Set<Promise<void>>();
  private failed: { e: unknown } | null = null;

  constructor(private readonly dir: string) {}

  /** Stages one payload as `name` (bounded memory: the stream's backpressure paces the reader); sparse files keep their holes. */
  async stage(name: string, stream: AsyncIterable<Buffer>, mode: number, mtimeNs: string | undefined): Promise<void> {
    while (this.tails.size >= TAILS) await Promise.race(this.tails);
    this.throwIfFailed();
    const fh = await fsp.open(join(this.dir, name), C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW, 0o600);
    const w = new SparseWriter(fh, WRITES_IN_FLIGHT);
    try {
      for await (const c of stream) await w.write(c);
    } catch (e) {
      await w.settle();
      await fh.close().catch(() => undefined);
      throw e;
    }
    const tail: Promise<void> = (async () => {
      try {
        await w.finish();
        await fh.chmod(mode & 0o777);
        // On the staged inode itself: the link that puts it in place keeps it (a link changes only the ctime).
        if (mtimeNs !== undefined) await fh.utimes(Date.now() / 1000, futimesSeconds(mtimeNs));
      } finally {
        await w.settle();
        await fh.close();
      }
    })().then(
      () => void this.tails.delete(tail),
      (e: unknown) => {
        this.tails.delete(tail);
        this.failed ??= { e };
      },
    );
    this.tails.add(tail);
  }

  private throwIfFailed(): void {
    if (this.failed) throw this.failed.e;
  }

  /** Every staged file complete, or the first failure thrown. */
  async done(): Promise<void> {
    await Promise.all(this.tails);
    this.throwIfFailed();
  }

  /** After a failure elsewhere: lets the background work end (its errors are moot) before the staging dir is removed. */
  async settle(): Promise<void> {
    await Promise.all(this.tails);
  }

  /** fsyncs every staged file (names in the staging dir), a few at a time, then the dir itself. */
  async sync(names: Iterable<string>): Promise<void> {
    const all = [...new Set(names)];
    let next = 0;
    const one = async (): Promise<void> => {
      for (let i = next++; i < all.length; i = next++) {
        const fh = await fsp.open(join(this.dir, all[i]!), C.O_RDONLY | C.O_NOFOLLOW);
        try {
          await fh.sync();
        } finally {
          await fh.close();
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(SYNC_PARALLEL, all.length) }, one));
    const dh = await fsp.open(this.dir, C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW);
    try {
      await dh.sync();
    } finally {
      await dh.close();
    }
  }
}
