// Reading a file cleanerx did not necessarily write (archives, catalogs,
// journals, settings): anyone may have put a symlink, a FIFO, a device or a
// huge file in its place. The open never follows a final symlink (O_NOFOLLOW)
// and never waits for a FIFO's writer (O_NONBLOCK); the type is checked on
// the opened descriptor (fstat), so a swap between a check and the open
// cannot slip through; and reads stop at a byte bound.
//
// Every refusal is a BoundedReadError with one plain sentence and a `reason`;
// a missing file keeps `code === 'ENOENT'` so callers can treat it as absent.

import { closeSync, constants, fstatSync, openSync, readSync, promises as fsp, type Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';

type RefusalReason = 'missing' | 'link' | 'notRegular' | 'tooLarge' | 'unreadable';

export class BoundedReadError extends Error {
  /** 'ENOENT' when the file does not exist (as fs errors have it), else undefined. */
  readonly code?: string;
  constructor(
    message: string,
    readonly reason: RefusalReason,
    readonly path: string,
  ) {
    super(message);
    if (reason === 'missing') this.code = 'ENOENT';
  }
}

/**
 * Why a state file (`what`: "The journal") could not be read: a refusal says
 * what the file is; a raw I/O error (EIO from a failing disk) is named by its
 * code, never reported as bad JSON.
 */
export function unreadableReason(what: string, e: unknown): string {
  if (e instanceof BoundedReadError) return `${what} cannot be read safely: ${e.message}`;
  const code = (e as NodeJS.ErrnoException | null)?.code;
  return `${what} cannot be read (${code ?? (e instanceof Error ? e.message : String(e))}).`;
}

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

const mib = (n: number): string => (n >= 1024 * 1024 ? `${Math.round(n / (1024 * 1024))} MiB` : n >= 1024 ? `${Math.round(n / 1024)} KiB` : `${n} bytes`);

function openError(path: string, e: unknown): BoundedReadError {
  const code = (e as NodeJS.ErrnoException).code;
  // ELOOP: the final component is a symlink (O_NOFOLLOW). EMLINK on some BSDs.
  if (code === 'ELOOP' || code === 'EMLINK')
    return new BoundedReadError(`${path} is a symbolic link; cleanerx does not follow links there, so replace it with the real file.`, 'link', path);
  if (code === 'ENOENT') return new BoundedReadError(`${path} does not exist.`, 'missing', path);
  if (code === 'ENOTDIR') return new BoundedReadError(`${path} cannot be opened: one of its parent directories is not a directory.`, 'notRegular', path);
  if (code === 'EACCES' || code === 'EPERM')
    return new BoundedReadError(`${path} is not readable by you; fix its permissions or remove it.`, 'unreadable', path);
  // ENXIO: a socket; ENODEV etc.
  if (code === 'ENXIO') return new BoundedReadError(`${path} is a socket or device, not a regular file; remove it or move it away.`, 'notRegular', path);
  return new BoundedReadError(`${path} cannot be opened (${code ?? (e as Error).message}).`, 'unreadable', path);
}

function typeError(path: string, st: Stats): BoundedReadError {
  return new BoundedReadError(`${path} is ${kindOf(st)}, not a regular file; remove it or move it away.`, 'notRegular', path);
}

function sizeError(path: string, maxBytes: number): BoundedReadError {
  return new BoundedReadError(`${path} is larger than ${mib(maxBytes)}; it is not read (move it away if it is not cleanerx's).`, 'tooLarge', path);
}

// ---- synchronous ----------------------------------------------------------------------

/** Opens a regular file without following a final link and without blocking on a FIFO. Close `fd` when done. */
export function openRegularFile(path: string): { fd: number; stat: Stats } {
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (e) {
    throw openError(path, e);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw typeError(path, stat);
    return { fd, stat };
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}

/** The whole regular file, refused (BoundedReadError) when it is larger than `maxBytes` or grows past it while read. */
export function readRegularFile(path: string, maxBytes: number): Buffer {
  const { fd, stat } = openRegularFile(path);
  try {
    if (stat.size > maxBytes) throw sizeError(path, maxBytes);
    // One byte more than the bound: a file that grew since fstat is caught too.
    const buf = Buffer.allocUnsafe(Math.min(maxBytes, stat.size) + 1);
    let len = 0;
    for (;;) {
      const n = readSync(fd, buf, len, buf.length - len, null);
      if (n === 0) break;
      len += n;
      if (len === buf.length) {
        if (len > maxBytes) throw sizeError(path, maxBytes);
        // Grew but still within the bound: read on into a bigger buffer.
        return Buffer.concat([buf, readRest(fd, path, maxBytes - len)]);
      }
    }
    return buf.subarray(0, len);
  } finally {
    closeSync(fd);
  }
}

function readRest(fd: number, path: string, left: number): Buffer {
  const parts: Buffer[] = [];
  const chunk = Buffer.allocUnsafe(64 * 1024);
  let total = 0;
  for (;;) {
    const n = readSync(fd, chunk, 0, chunk.length, null);
    if (n === 0) return Buffer.concat(parts, total);
    total += n;
    if (total > left) throw sizeError(path, left);
    parts.push(Buffer.from(chunk.subarray(0, n)));
  }
}

export function readRegularText(path: string, maxBytes: number): string {
  return readRegularFile(path, maxBytes).toString('utf8');
}

// ---- asynchronous ---------------------------------------------------------------------

/** openRegularFile on a FileHandle (the open runs on the thread pool; O_NONBLOCK keeps a FIFO from holding it). */
export async function openRegularFileAsync(path: string): Promise<{ fh: FileHandle; stat: Stats }> {
  let fh: FileHandle;
  try {
    fh = await fsp.open(path, OPEN_FLAGS);
  } catch (e) {
    throw openError(path, e);
  }
  try {
    const stat = await fh.stat();
    if (!stat.isFile()) throw typeError(path, stat);
    return { fh, stat };
  } catch (e) {
    await fh.close();
    throw e;
  }
}

export async function readRegularFileAsync(path: string, maxBytes: number): Promise<Buffer> {
  const { fh, stat } = await openRegularFileAsync(path);
  try {
    if (stat.size > maxBytes) throw sizeError(path, maxBytes);
    const parts: Buffer[] = [];
    let total = 0;
    const chunk = Math.min(Math.max(stat.size, 1), 1024 * 1024) + 1;
    for (;;) {
      const buf = Buffer.allocUnsafe(chunk);
      const { bytesRead } = await fh.read(buf, 0, chunk, null);
      if (bytesRead === 0) return Buffer.concat(parts, total);
      total += bytesRead;
      if (total > maxBytes) throw sizeError(path, maxBytes);
      parts.push(bytesRead === chunk ? buf : buf.subarray(0, bytesRead));
    }
  } finally {
    await fh.close();
  }
}

export async function readRegularTextAsync(path: string, maxBytes: number): Promise<string> {
  return (await readRegularFileAsync(path, maxBytes)).toString('utf8');
}
