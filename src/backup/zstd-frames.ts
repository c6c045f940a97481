// Streaming zstd on top of a buffer-only binding: the writer compresses
// fixed-size chunks into independent frames (a concatenation every zstd
// decoder reads, `zstd -d` included); the reader finds each frame's end by
// walking its block headers and decompresses frame by frame. Memory stays
// bounded by the chunk size whatever the archive's size.

import { createRequire } from 'node:module';
import { Transform, type TransformCallback } from 'node:stream';

const CHUNK = 8 * 1024 * 1024;
const MAGIC = 0xfd2fb528;
/**
 * The reader's bound on one frame (the writer's frames hold CHUNK bytes).
 * The frames carry no content size, and the binding inflates a whole frame
 * in memory — a 32 KB frame of RLE blocks would become 1 GB — so the block
 * headers are summed first: raw and RLE blocks give their size, a
 * compressed block at most 128 KiB. A frame that could expand beyond this,
 * or whose compressed length exceeds it, is refused before inflating.
 */
export const MAX_FRAME = 64 * 1024 * 1024;
const MAX_BLOCK = 128 * 1024;

interface Binding {
  compress(data: Buffer, level: number): Promise<Buffer>;
  decompress(data: Buffer): Promise<Buffer>;
}

// The package's index.js drops the level argument; its native binding honours it.
const binding = createRequire(import.meta.url)('@mongodb-js/zstd/bindings.js') as Binding;

export class ZstdFrameWriter extends Transform {
  private parts: Buffer[] = [];
  private size = 0;

  constructor(private level = 6) {
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
    this.push(await binding.compress(data, this.level));
  }
}

export class ZstdFrameReader extends Transform {
  // Pending input in a buffer that grows by doubling: appending a chunk is
  // amortized O(1). (Concatenating every chunk onto the pending bytes copied
  // a whole frame once per 64 KiB chunk: quadratic in the frame size, ~64×
  // the data for an 8 MiB frame of incompressible input.)
  private buf: Buffer = Buffer.alloc(0);
  private len = 0;

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    if (this.len + chunk.length > this.buf.length) {
      const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.len + chunk.length, 64 * 1024));
      this.buf.copy(next, 0, 0, this.len);
      this.buf = next;
    }
    chunk.copy(this.buf, this.len);
    this.len += chunk.length;
    this.drain().then(() => cb(), cb);
  }

  override _flush(cb: TransformCallback): void {
    this.drain()
      .then(() => cb(this.len ? new Error('The archive ends in the middle of a compressed frame (truncated).') : undefined))
      .catch(cb);
  }

  private async drain(): Promise<void> {
    for (;;) {
      const end = frameEnd(this.buf.subarray(0, this.len));
      if (end < 0) return;
      // A copy: the pending buffer is reused while the native side decompresses.
      const frame = Buffer.from(this.buf.subarray(0, end));
      this.buf.copy(this.buf, 0, end, this.len);
      this.len -= end;
      this.push(await binding.decompress(frame));
    }
  }
}

/** Byte length of the complete zstd frame at the start of `b`, or -1 when more input is needed. */
export function frameEnd(b: Buffer): number {
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
