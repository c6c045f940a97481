// The manifest's place at the start of an archive: its tar entry (header,
// JSON, padding) stored in raw zstd frames. For 200,000 files the JSON is
// tens of MB, so it is never built as one string: its text comes one entry
// at a time, once to measure it (the payload is written after the region it
// reserves) and once, with the real hashes, to seal it.

import { jsonBytes, jsonPieces } from './json-pieces.js';
import { pad512, tarHeader } from './tar-header.js';
import { rawFramesLength, rawFramesOf } from './zstd-frames.js';

export const MANIFEST_NAME = 'manifest.json';

function* tarEntryPieces(m: object, length: number, mtime: number): Generator<Buffer> {
  yield tarHeader(MANIFEST_NAME, length, mtime);
  for (const piece of jsonPieces(m)) yield Buffer.from(piece);
  yield Buffer.alloc(pad512(length));
}

/**
 * The manifest region of an archive: its length (fixed by the sizes, since
 * every hash has 64 hex digits) and a fresh stream of its bytes each time
 * `pieces()` is called.
 */
/** `m` is the archive's Manifest (any JSON record: the region only writes its text). */
export function manifestRegion(m: object, mtime: number): { length: number; pieces(): Iterable<Buffer> } {
  const length = jsonBytes(m);
  const tarBytes = tarHeader(MANIFEST_NAME, length, mtime).length + length + pad512(length);
  return {
    length: rawFramesLength(tarBytes),
    pieces: () => rawFramesOf(tarBytes, tarEntryPieces(m, jsonBytes(m), mtime)),
  };
}
