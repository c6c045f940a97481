// One pass over an agent's JSONL file, line by line, in bounded memory:
// outside data can hold a 2 GB line, so each line keeps at most `maxLine`
// bytes of its head (enough to tell its record type) while every byte of it
// is still counted. Opened like every outside file (bounded-read.ts:
// O_NOFOLLOW, O_NONBLOCK, a regular file); never written.

import { openRegularFileAsync } from './bounded-read.js';

interface BoundedLine {
  /** The line's bytes, its newline included. */
  bytes: number;
  /** Its first `maxLine` bytes as UTF-8 (a cut character decodes to U+FFFD). */
  head: string;
  /** False when the line is longer than `maxLine`: `head` is only its start. */
  whole: boolean;
}

const CHUNK = 1024 * 1024;

/** Calls `onLine` for every line of the file at `path`; resolves to the bytes read. */
export async function forEachBoundedLine(path: string, maxLine: number, onLine: (line: BoundedLine) => void): Promise<number> {
  const { fh } = await openRegularFileAsync(path);
  const buf = Buffer.allocUnsafe(CHUNK);
  let parts: Buffer[] = [];
  let kept = 0;
  let length = 0;
  let total = 0;
  const take = (seg: Buffer): void => {
    length += seg.length;
    if (kept >= maxLine || !seg.length) return;
    // Copied: the read buffer is reused by the next read.
    const part = Buffer.from(seg.subarray(0, maxLine - kept));
    parts.push(part);
    kept += part.length;
  };
  const emit = (newline: number): void => {
    onLine({ bytes: length + newline, head: Buffer.concat(parts, kept).toString('utf8'), whole: length <= maxLine });
    parts = [];
    kept = 0;
    length = 0;
  };
  try {
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, CHUNK, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      let at = 0;
      while (at < bytesRead) {
        const nl = buf.indexOf(10, at);
        if (nl < 0 || nl >= bytesRead) {
          take(buf.subarray(at, bytesRead));
          break;
        }
        take(buf.subarray(at, nl));
        emit(1);
        at = nl + 1;
      }
    }
    if (length > 0) emit(0);
  } finally {
    await fh.close();
  }
  return total;
}
