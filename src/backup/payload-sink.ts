// The payload side of the archive writer: tar bytes → zstd frames (a few in
// flight on the thread pool) → age chunks sealed and written at their final
// file offsets, with the manifest region at the start sealed last.

import type { FileHandle } from 'node:fs/promises';
import { AGE_CHUNK, type AgeEncryptor } from './age-stream.js';
import { compressFrame, FRAME_BYTES, FRAMES_IN_FLIGHT } from './zstd-frames.js';

const SYNC_EVERY = 64 * 1024 * 1024;
const BATCH_BYTES = 1024 * 1024;

async function writeAll(fh: FileHandle, parts: Buffer[], pos: number, len: number): Promise<void> {
  const { bytesWritten } = await fh.writev(parts, pos);
  if (bytesWritten === len) return;
  const all = Buffer.concat(parts, len);
  for (let done = bytesWritten; done < len; ) done += (await fh.write(all, done, len - done, pos + done)).bytesWritten;
}

/**
 * Takes the tar stream from plaintext offset `start` (= the manifest's
 * reserved length) on. Cuts 8 MiB frames, compresses a few at once and, in
 * order, seals their bytes into age chunks written at their final file
 * offsets. The chunk that straddles the end of the manifest region is held
 * back (its payload part only) until finish() knows the manifest.
 */
export class PayloadSink {
  private pool: Buffer[] = [];
  private frame: Buffer;
  private flen = 0;
  private queue: { frame: Promise<Buffer[]>; buf: Buffer }[] = [];
  private readonly cur = Buffer.allocUnsafe(AGE_CHUNK);
  private curLen: number;
  private curIndex: number;
  private readonly k0: number;
  private readonly reserved: number;
  private held: Buffer | null = null;
  private parts: Buffer[] = [];
  private partsLen = 0;
  private partsPos: number;
  private writing: Promise<void> = Promise.resolve();
  private unsynced = 0;
  private syncing: Promise<void> | null = null;

  constructor(
    private readonly fh: FileHandle,
    private readonly enc: AgeEncryptor,
    private readonly start: number,
  ) {
    this.k0 = Math.floor(start / AGE_CHUNK);
    this.reserved = start % AGE_CHUNK;
    this.curIndex = this.k0;
    this.curLen = this.reserved;
    this.partsPos = enc.offsetOf(this.k0 + 1);
    this.frame = Buffer.allocUnsafe(FRAME_BYTES);
  }

  /** Free space in the current frame, for reading file bytes straight into it; commit(n) after. */
  region(): { buf: Buffer; off: number; len: number } {
    return { buf: this.frame, off: this.flen, len: FRAME_BYTES - this.flen };
  }

  async commit(n: number): Promise<void> {
    this.flen += n;
    if (this.flen === FRAME_BYTES) await this.dispatch();
  }

  async write(data: Buffer): Promise<void> {
    while (data.length) {
      const n = Math.min(data.length, FRAME_BYTES - this.flen);
      data.copy(this.frame, this.flen, 0, n);
      data = data.subarray(n);
      await this.commit(n);
    }
  }

  private async dispatch(): Promise<void> {
    if (this.flen === 0) return;
    const buf = this.frame;
    const frame = compressFrame(buf.subarray(0, this.flen));
    frame.catch(() => undefined); // observed in order, below
    this.queue.push({ frame, buf });
    this.frame = this.pool.pop() ?? Buffer.allocUnsafe(FRAME_BYTES);
    this.flen = 0;
    while (this.queue.length >= FRAMES_IN_FLIGHT) await this.emitNext();
  }

  /** The oldest frame, into the age stream; its input buffer (which raw frames still refer to until sealed) back to the pool after. */
  private async emitNext(): Promise<void> {
    const { frame, buf } = this.queue.shift()!;
    const parts = await frame;
    for (const part of parts) this.append(part);
    this.pool.push(buf);
    await this.flushWrites();
  }

  /** Appends compressed bytes to the age stream. A chunk is sealed only once more bytes follow it (so never wrongly as non-final). */
  private append(data: Buffer): void {
    while (data.length) {
      if (this.curLen === AGE_CHUNK) this.sealCurrent(false);
      if (this.curLen === 0 && data.length > AGE_CHUNK) {
        this.seal(this.curIndex++, data.subarray(0, AGE_CHUNK), false);
        data = data.subarray(AGE_CHUNK);
        continue;
      }
      const n = Math.min(AGE_CHUNK - this.curLen, data.length);
      data.copy(this.cur, this.curLen, 0, n);
      this.curLen += n;
      data = data.subarray(n);
    }
  }

  private sealCurrent(last: boolean): void {
    this.seal(this.curIndex++, this.cur.subarray(0, this.curLen), last);
    this.curLen = 0;
  }

  private seal(index: number, plain: Buffer, last: boolean): void {
    if (index === this.k0) {
      this.held = Buffer.from(plain.subarray(this.reserved));
      return;
    }
    for (const b of this.enc.seal(index, plain, last)) {
      this.parts.push(b);
      this.partsLen += b.length;
    }
  }

  /** At most one positional write in progress; the next waits for it. */
  private async flushWrites(): Promise<void> {
    if (!this.partsLen) return;
    const parts = this.parts;
    const pos = this.partsPos;
    const len = this.partsLen;
    this.parts = [];
    this.partsLen = 0;
    this.partsPos += len;
    await this.writing;
    this.writing = writeAll(this.fh, parts, pos, len);
    this.writing.catch(() => undefined);
    // Flush to disk as we go (one sync at a time, off the critical path), so the final fsync has little left to do.
    this.unsynced += len;
    if (this.unsynced >= SYNC_EVERY && !this.syncing) {
      this.unsynced = 0;
      const s = this.writing.then(() => this.fh.datasync());
      const done = (): void => {
        this.syncing = null;
      };
      this.syncing = s.then(done, done); // a failing disk fails the final fsync too
    }
  }

  /**
   * Flushes everything, then seals the manifest region (`region`: pieces of
   * exactly `start` bytes, produced as they are consumed) and writes it and
   * the age header at the start of the file, in batches of about 1 MiB: the
   * region is never held whole (for 200,000 files it is tens of MB).
   */
  async finish(region: Iterable<Buffer>): Promise<void> {
    await this.dispatch();
    while (this.queue.length) await this.emitNext();
    const lastIndex = this.curIndex;
    this.sealCurrent(true);
    await this.flushWrites();
    await this.writing;
    if (!this.held) throw new Error('internal: the manifest region does not have its reserved length');
    const out = new BatchWriter(this.fh, this.enc.prefix);
    const chunk = Buffer.allocUnsafe(AGE_CHUNK);
    let fill = 0;
    let k = 0;
    let seen = 0;
    for (let data of region) {
      seen += data.length;
      if (seen > this.start) throw new Error('internal: the manifest region does not have its reserved length');
      while (data.length) {
        const n = Math.min(AGE_CHUNK - fill, data.length);
        data.copy(chunk, fill, 0, n);
        fill += n;
        data = data.subarray(n);
        if (fill === AGE_CHUNK) {
          await out.add(this.enc.seal(k, chunk, k === lastIndex));
          k++;
          fill = 0;
        }
      }
    }
    if (seen !== this.start || k !== this.k0) throw new Error('internal: the manifest region does not have its reserved length');
    // The chunk shared with the first payload bytes.
    await out.add(this.enc.seal(k, Buffer.concat([chunk.subarray(0, fill), this.held]), k === lastIndex));
    await out.flush();
    await this.syncing;
  }

  /** After a failure: lets native work and the write in progress end (their errors are moot). */
  async abort(): Promise<void> {
    await Promise.allSettled([...this.queue.map((q) => q.frame), this.writing, this.syncing]);
    this.queue = [];
  }
}

/** Positional writes from offset 0 on, gathered into batches of about 1 MiB. */
class BatchWriter {
  private parts: Buffer[];
  private len: number;
  private pos = 0;

  constructor(
    private readonly fh: FileHandle,
    first: Buffer,
  ) {
    this.parts = [first];
    this.len = first.length;
  }

  async add(bufs: Buffer[]): Promise<void> {
    for (const b of bufs) {
      this.parts.push(b);
      this.len += b.length;
    }
    if (this.len >= BATCH_BYTES) await this.flush();
  }

  async flush(): Promise<void> {
    if (!this.len) return;
    await writeAll(this.fh, this.parts, this.pos, this.len);
    this.pos += this.len;
    this.parts = [];
    this.len = 0;
  }
}
