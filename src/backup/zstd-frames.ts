// Streaming zstd on top of a buffer-only binding: the writer compresses
// fixed-size chunks into independent frames (a concatenation every zstd
// decoder reads, `zstd -d` included); the reader finds each frame's end by
// walking its block headers and decompresses frame by frame. Memory stays
// bounded by the chunk size whatever the archive's size. The binding runs
// on the libuv thread pool, so both sides keep a few frames in flight (in
// order) to use more than one core.

import { createRequire } from 'node:module';
import { Transform, type TransformCallback } from 'node:stream';

const CHUNK = 8 * 1024 * 1024;
/** Uncompressed bytes per frame of the archive writer: half of ZstdFrameWriter's 8 MiB costs ~0.5% of archive size and ~100 MB of peak RSS less (buffers in flight, the binding's per-thread allocations). */
export const FRAME_BYTES = 4 * 1024 * 1024;
/** Compression level: the reference pipeline's `zstd -3` (level 6 cost 3× the CPU for ~1% on this data). */
const LEVEL = 3;
/** Frames compressed or decompressed at once: the two cores' worth plus one queued. */
export const FRAMES_IN_FLIGHT = 3;
const MAGIC = 0xfd2fb528;
/**
 * The reader's bound on one frame (the writer's frames hold CHUNK bytes).
 * The frames carry no content size, and the binding inflates a whole frame
 * in memory — a 32 KB frame of RLE blocks would become 1 GB — so the block
 * headers are summed first: raw and RLE blocks give their size, a
 * compressed block at most 128 KiB. A frame that could expand beyond this,
 * or whose compressed length exceeds it, is refused before inflating.
 */
const MAX_FRAME = 64 * 1024 * 1024;
const MAX_BLOCK = 128 * 1024;

interface Binding {
  compress(data: Buffer, level: number): Promise<Buffer>;
  decompress(data: Buffer): Promise<Buffer>;
}

/**
 * The package's index.js drops the level argument; its native binding
 * honours it. What this module relies on in there (the path, promises, the
 * level, the frame header it writes) is pinned by test/unit/zstd-internals.test.ts.
 */
export const BINDING_MODULE = '@mongodb-js/zstd/bindings.js';
const binding = createRequire(import.meta.url)(BINDING_MODULE) as Binding;

/**
 * One independent zstd frame of `data`, compressed on the thread pool, as
 * the pieces to write in order (`data` must stay untouched until it
 * resolves). Incompressible data goes through zstd too (it stores such
 * blocks raw by itself): writing our own raw frames for it saved no
 * measurable write time, and decompressing those through the binding
 * then cost a verify ~2× the page faults.
 */
export async function compressFrame(data: Buffer, level = LEVEL): Promise<Buffer[]> {
  return withContentSize(await binding.compress(data, level), data.length);
}

/**
 * The binding writes frames without their content size; a frame that
 * declares it decompresses ~30% faster through the same binding (the
 * output is allocated once). Only the exact header shape the binding
 * writes (descriptor 0: window descriptor, no size, no checksum, no
 * dictionary) is rewritten; anything else is returned as it is.
 */
function withContentSize(frame: Buffer, size: number): Buffer[] {
  if (frame.length < 6 || frame.readUInt32LE(0) !== MAGIC || frame[4] !== 0 || size > 0xffffffff) return [frame];
  const head = Buffer.allocUnsafe(10);
  frame.copy(head, 0, 0, 4);
  head[4] = 0x80; // FCS field of 4 bytes, window descriptor kept
  head[5] = frame[5]!;
  head.writeUInt32LE(size, 6);
  // The blocks are not copied: (copying into fresh memory costs more than the compression saves here).
  return [head, frame.subarray(6)];
}

const RAW_BLOCK = 128 * 1024;
const RAW_FRAME_MAX = CHUNK;

/** Length of rawFrames(data) for `n` bytes of data: known before the data is. */
export function rawFramesLength(n: number): number {
  let total = 0;
  for (let left = n; left > 0 || total === 0; left -= RAW_FRAME_MAX) {
    const size = Math.min(left, RAW_FRAME_MAX);
    total += 9 + Math.max(1, Math.ceil(size / RAW_BLOCK)) * 3 + size;
    if (left <= RAW_FRAME_MAX) break;
  }
  return total;
}

/**
 * `data` stored, not compressed, as standard zstd frames of raw blocks
 * (single segment, 4-byte content size, ≤ 8 MiB each), so their length is
 * a function of the data's length alone. Any zstd decoder reads them.
 * The pieces refer to `data` (headers apart): nothing is copied.
 */
function rawFrameParts(data: Buffer): Buffer[] {
  const parts: Buffer[] = [];
  let off = 0;
  do {
    const size = Math.min(data.length - off, RAW_FRAME_MAX);
    const blocks = Math.max(1, Math.ceil(size / RAW_BLOCK));
    const heads = Buffer.allocUnsafe(9 + 3 * blocks);
    heads.writeUInt32LE(MAGIC, 0);
    heads[4] = 0x80 | 0x20; // FCS field 4 bytes, single segment, no checksum, no dictionary
    heads.writeUInt32LE(size, 5);
    let left = size;
    for (let b = 0; b < blocks; b++) {
      const n = Math.min(left, RAW_BLOCK);
      const h = ((n << 3) | (left === n ? 1 : 0)) >>> 0; // raw block (type 0), last flag
      const at = b === 0 ? 9 : 9 + 3 * b;
      heads[at] = h & 255;
      heads[at + 1] = (h >>> 8) & 255;
      heads[at + 2] = (h >>> 16) & 255;
      parts.push(b === 0 ? heads.subarray(0, 12) : heads.subarray(at, at + 3), data.subarray(off, off + n));
      off += n;
      left -= n;
    }
  } while (off < data.length);
  return parts;
}

/**
 * The bytes of rawFrames(data) for data that arrives in pieces totalling
 * `total` bytes, without ever holding the data whole: the frame and block
 * headers are emitted where rawFrameParts would put them, between the pieces.
 */
export function* rawFramesOf(total: number, pieces: Iterable<Buffer>): Generator<Buffer> {
  let off = 0; // data bytes emitted so far
  let frameLeft = 0; // data bytes left in the current frame
  let blockLeft = 0; // data bytes left in the current block
  const startBlock = (): Buffer => {
    const n = Math.min(frameLeft, RAW_BLOCK);
    blockLeft = n;
    const h = ((n << 3) | (frameLeft === n ? 1 : 0)) >>> 0; // raw block (type 0), last flag
    return Buffer.from([h & 255, (h >>> 8) & 255, (h >>> 16) & 255]);
  };
  const startFrame = (): Buffer => {
    frameLeft = Math.min(total - off, RAW_FRAME_MAX);
    const head = Buffer.allocUnsafe(9);
    head.writeUInt32LE(MAGIC, 0);
    head[4] = 0x80 | 0x20; // FCS field 4 bytes, single segment, no checksum, no dictionary
    head.writeUInt32LE(frameLeft, 5);
    return Buffer.concat([head, startBlock()]);
  };
  if (total === 0) yield startFrame();
  for (let data of pieces) {
    while (data.length) {
      if (off >= total) throw new Error('raw zstd frame length mismatch');
      if (frameLeft === 0) yield startFrame();
      else if (blockLeft === 0) yield startBlock();
      const n = Math.min(data.length, blockLeft);
      yield data.subarray(0, n);
      data = data.subarray(n);
      off += n;
      blockLeft -= n;
      frameLeft -= n;
    }
  }
  if (off !== total) throw new Error('raw zstd frame length mismatch');
}

/** rawFrameParts in one buffer. */
export function rawFrames(data: Buffer): Buffer {
  const parts = rawFrameParts(data);
  const out = Buffer.concat(parts);
  if (out.length !== rawFramesLength(data.length)) throw new Error('raw zstd frame length mismatch');
  return out;
}

export class ZstdFrameWriter extends Transform {
  private parts: Buffer[] = [];
  private size = 0;

  constructor(private level = LEVEL) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.addInput(chunk).then(() => cb(), cb);
  }

  /** Every frame holds at most CHUNK bytes, however large the input chunk (a big manifest is one chunk). */
  private async addInput(chunk: Buffer): Promise<void> {
    while (chunk.length) {
      const n = Math.min(chunk.length, CHUNK - this.size);
      this.parts.push(chunk.subarray(0, n));
      this.size += n;
      chunk = chunk.subarray(n);
      if (this.size === CHUNK) await this.flushFrame();
    }
  }

  override _flush(cb: TransformCallback): void {
    this.flushFrame().then(() => cb(), cb);
  }

  private async flushFrame(): Promise<void> {
    if (this.size === 0) return;
    const data = Buffer.concat(this.parts, this.size);
    this.parts = [];
    this.size = 0;
    this.push(Buffer.concat(await compressFrame(data, this.level)));
  }
}

export class ZstdFrameReader extends Transform {
  // Pending input in a buffer that grows by doubling: appending a chunk is
  // amortized O(1). (Concatenating every chunk onto the pending bytes copied
  // a whole frame once per 64 KiB chunk: quadratic in the frame size, ~64×
  // the data for an 8 MiB frame of incompressible input.) Complete frames
  // are decompressed straight out of it; the bytes after them move to
  // another buffer, and this one is reused once its frames are done (fresh
  // memory is what copies cost most here).
  private buf: Buffer = Buffer.alloc(0);
  private len = 0;
  private pool: Buffer[] = [];
  /** Decompressions under way, oldest first; their output is pushed in this order. `release`: the input buffer their last frame frees. */
  private inflight: { out: Promise<Buffer>; release?: Buffer }[] = [];
  /** Set while a push was refused: resolved by the next _read. */
  private readWaiter: (() => void) | null = null;

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    if (this.len + chunk.length > this.buf.length) {
      // Doubling, but not past one of the writers' frames plus a read (which would only be held in the pool).
      const next = this.takeBuffer(Math.max(Math.min(this.buf.length * 2, CHUNK + 1024 * 1024), this.len + chunk.length, 64 * 1024));
      this.buf.copy(next, 0, 0, this.len);
      this.buf = next;
    }
    chunk.copy(this.buf, this.len);
    this.len += chunk.length;
    this.drain().then(() => cb(), cb);
  }

  override _flush(cb: TransformCallback): void {
    this.drain()
      .then(async () => {
        if (this.len) throw new Error('The archive ends in the middle of a compressed frame (truncated).');
        while (this.inflight.length) await this.shiftOne();
      })
      .then(() => cb(), cb);
  }

  // Backpressure inside one input chunk: a few KiB of frames of zeros (a
  // sparse file) inflate to gigabytes, so one chunk may yield hundreds of
  // frames. Each output waits until the reader wants more, which keeps the
  // memory at the frames in flight whatever the archive holds.
  override _read(size: number): void {
    const w = this.readWaiter;
    this.readWaiter = null;
    w?.();
    super._read(size);
  }

  private async pushPaced(data: Buffer): Promise<void> {
    if (this.push(data) || this.destroyed) return;
    await new Promise<void>((resolve) => (this.readWaiter = resolve));
  }

  override _destroy(err: Error | null, cb: (error?: Error | null) => void): void {
    this.readWaiter?.();
    this.readWaiter = null;
    // Let native work that is still running finish before its buffers are dropped; its errors are moot now.
    void Promise.allSettled(this.inflight.map((f) => f.out)).then(() => cb(err));
    this.inflight = [];
  }

  private takeBuffer(min: number): Buffer {
    const i = this.pool.findIndex((b) => b.length >= min);
    return i >= 0 ? this.pool.splice(i, 1)[0]! : Buffer.allocUnsafe(min);
  }

  private async shiftOne(): Promise<void> {
    const { out, release } = this.inflight.shift()!;
    const data = await out;
    if (release) {
      // Keep the largest few: a buffer only ever grows, so small ones would never be taken again.
      this.pool.push(release);
      if (this.pool.length > FRAMES_IN_FLIGHT)
        this.pool.splice(
          this.pool.reduce((m, b, i, a) => (b.length < a[m]!.length ? i : m), 0),
          1,
        );
    }
    await this.pushPaced(data);
  }

  private async drain(): Promise<void> {
    let start = 0;
    for (;;) {
      const end = frameEnd(this.buf.subarray(start, this.len));
      if (end < 0) break;
      // No copy: this buffer is not written again until its frames are done.
      const out = binding.decompress(this.buf.subarray(start, start + end));
      out.catch(() => undefined); // observed when its turn comes
      this.inflight.push({ out });
      start += end;
      // Never more than a few at once, even when this buffer holds hundreds of (tiny, highly compressed) frames.
      while (this.inflight.length >= FRAMES_IN_FLIGHT) await this.shiftOne();
    }
    if (start) {
      // The last frame still in flight is this buffer's (or none is, and it is free now).
      const last = this.inflight[this.inflight.length - 1];
      if (last) last.release = this.buf;
      else this.pool.push(this.buf);
      const next = this.takeBuffer(Math.max(this.buf.length, 64 * 1024));
      this.buf.copy(next, 0, start, this.len);
      this.len -= start;
      this.buf = next;
    }
    while (this.inflight.length >= FRAMES_IN_FLIGHT) await this.shiftOne();
  }
}

/** Byte length of the complete zstd frame at the start of `b`, or -1 when more input is needed. */
function frameEnd(b: Buffer): number {
  if (b.length < 6) return -1;
  if (b.readUInt32LE(0) !== MAGIC) throw new Error('The archive is not zstd data (bad frame magic).');
  const fhd = b[4]!;
  const fcsFlag = fhd >> 6;
  const single = (fhd >> 5) & 1;
  const checksum = (fhd >> 2) & 1;
  const dictFlag = fhd & 3;
  let pos = 5 + (single ? 0 : 1) + [0, 1, 2, 4][dictFlag]! + [single ? 1 : 0, 2, 4, 8][fcsFlag]!;
  let bound = 0;
  for (;;) {
    if (b.length < pos + 3) return -1;
    const h = b[pos]! | (b[pos + 1]! << 8) | (b[pos + 2]! << 16);
    const last = h & 1;
    const type = (h >> 1) & 3;
    const size = h >>> 3;
    if (type === 3) throw new Error('The archive holds a corrupt zstd block.');
    pos += 3 + (type === 1 ? 1 : size);
    bound += type === 2 ? MAX_BLOCK : size;
    if (bound > MAX_FRAME || pos > MAX_FRAME + 1024 * 1024) throw new Error(`The archive holds a zstd frame that could expand beyond ${MAX_FRAME} bytes.`);
    if (last) break;
  }
  pos += checksum ? 4 : 0;
  return b.length >= pos ? pos : -1;
}
