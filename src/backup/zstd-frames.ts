// Streaming zstd on top of a buffer-only binding: the writer compresses
// fixed-size chunks into independent frames (a concatenation every zstd
// decoder reads, `zstd -d` included); the reader finds each frame's end by
// walking its block headers and decompresses frame by frame. Memory stays
// bounded by the chunk size whatever the archive's size.

import { createRequire } from 'node:module';
import { Transform, type TransformCallback } from 'node:stream';

const CHUNK = 8 * 1024 * 1024;
const MAGIC = 0xfd2fb528;

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
    this.parts.push(chunk);
    this.size += chunk.length;
    if (this.size < CHUNK) return cb();
    this.flushFrame().then(() => cb(), cb);
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
  private buf: Buffer = Buffer.alloc(0);

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    this.drain().then(() => cb(), cb);
  }

  override _flush(cb: TransformCallback): void {
    this.drain()
      .then(() => cb(this.buf.length ? new Error('The archive ends in the middle of a compressed frame (truncated).') : undefined))
      .catch(cb);
  }

  private async drain(): Promise<void> {
    for (;;) {
      const end = frameEnd(this.buf);
      if (end < 0) return;
      const frame = this.buf.subarray(0, end);
      this.buf = this.buf.subarray(end);
      this.push(await binding.decompress(Buffer.from(frame)));
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
  for (;;) {
    if (b.length < pos + 3) return -1;
    const h = b[pos]! | (b[pos + 1]! << 8) | (b[pos + 2]! << 16);
    const last = h & 1;
    const type = (h >> 1) & 3;
    const size = h >>> 3;
    if (type === 3) throw new Error('The archive holds a corrupt zstd block.');
    pos += 3 + (type === 1 ? 1 : size);
    if (last) break;
  }
  pos += checksum ? 4 : 0;
  return b.length >= pos ? pos : -1;
}
