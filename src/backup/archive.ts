// The .cxb archive: tar (manifest.json first, then payload/<root>/<path>)
// → zstd frames → age X25519. Readable with the stock tools:
//   age -d -i key.txt x.cxb | zstd -d | tar -t
// Written to <id>.cxb.partial, renamed, then reopened and checked entry by
// entry. Both directions stream: memory is bounded whatever the size.
//
// The writer reads each file once. The manifest (which must come first and
// holds every SHA-256) has a length known before any file is read: hashes
// are 64 hex digits and sizes come from lstat, and it is stored in raw
// (uncompressed) zstd frames, whose length is a function of the data's. So
// the payload frames are compressed, encrypted and written at their final
// offsets while the files are hashed, and the manifest's age chunks (plus
// the one chunk it shares with the first payload bytes) are sealed and
// written last, at the start of the file.
// zstd runs on the thread pool with a few frames in flight; ChaCha20-Poly1305,
// HKDF and X25519 come from node:crypto (./age-stream.ts).

import { createHash, randomUUID } from 'node:crypto';
import { constants, promises as fsp, type Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { relative, sep } from 'node:path';
import { Transform, Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-stream';
import { AGE_CHUNK, AgeEncryptor, AgePayloadError, AgePayloadReader, openAgeFile } from './age-stream.js';
import { archiveIdentity, markVerified, wasVerified } from './verified-archives.js';
import { compressFrame, FRAME_BYTES, FRAMES_IN_FLIGHT, rawFrames, ZstdFrameReader } from './zstd-frames.js';
import type { AgentKind } from '../engine/core/model.js';
import { BoundedReadError, openRegularFileAsync } from '../engine/host/bounded-read.js';
import { parseBoundedJson } from '../engine/core/bounded-json.js';

export const MANIFEST_NAME = 'manifest.json';

export interface ManifestEntry {
  root: string;
  relativePath: string;
  sha256: string;
  sizeBytes: number;
  /** Permission bits (0–0o777) the file had; a restore gives them back (older archives: 0600). */
  mode?: number;
  /** The file had holes (fewer blocks allocated than its size): a restore may write its runs of zeros as holes. The payload holds every byte (zeros included) all the same. */
  sparse?: true;
  /** Modification time in ns since the epoch, a decimal string (beyond a JSON number's precision); format 2 on. */
  mtimeNs?: string;
}

/** A directory under a planned path with no archived file anywhere below it: restore recreates it (the payload has nothing that would). */
export interface ManifestDir {
  root: string;
  relativePath: string;
  mode: number;
}

/**
 * A directory on the way to or under a planned path (format 2 on): a restore
 * that has to create it gives it this mode and mtime once its contents are
 * in place. Below the root only; the root itself is never recorded.
 */
export interface ManifestDirAttrs {
  root: string;
  relativePath: string;
  mode: number;
  mtimeNs: string;
}

export type SkippedKind = 'fifo' | 'socket' | 'device';

/** Something under a planned path that is not a regular file or directory: not archived (it holds no data to keep), named here and reported. */
interface ManifestSkipped {
  root: string;
  relativePath: string;
  kind: SkippedKind;
}

/** 2: files carry mtimeNs, and `dirs` holds every directory's mode and mtime. 1 (still restored): neither. */
const MANIFEST_FORMAT = 2;

export interface Manifest {
  formatVersion: 1 | 2;
  id: string;
  agent: AgentKind;
  createdAt: string;
  expiresAt: string;
  operationId: string;
  itemCount: number;
  originalBytes: number;
  archiveBytes: 0;
  entries: ManifestEntry[];
  /** Present when there are any (archives before it: none recorded). */
  emptyDirs?: ManifestDir[];
  skipped?: ManifestSkipped[];
  /** Format 2 on: every directory a restore may create, parents first. */
  dirs?: ManifestDirAttrs[];
}

export interface SourceFile {
  root: string;
  rootDir: string;
  path: string;
}

export class ArchiveError extends Error {
  readonly archive = true;
}

interface CollectedEntries {
  /** Regular files, archived. */
  files: SourceFile[];
  /** Directories with no regular file below them, recorded in the manifest (parents first). */
  emptyDirs: ManifestDir[];
  /** FIFOs, sockets and devices: not archived, recorded in the manifest, and each reported (`path` is for the report). */
  skipped: (ManifestSkipped & { path: string })[];
  /** Every directory below its root on the way to a planned path and under it (parents first, each once). */
  dirs: ManifestDirAttrs[];
}

const relPath = (rootDir: string, p: string): string => relative(rootDir, p).split(sep).join('/');

function skippedKind(st: { isFIFO(): boolean; isSocket(): boolean }): SkippedKind {
  return st.isFIFO() ? 'fifo' : st.isSocket() ? 'socket' : 'device';
}

const KIND_TEXT: Record<SkippedKind, string> = { fifo: 'a FIFO (named pipe)', socket: 'a socket', device: 'a device file' };

/** One plain sentence per entry the backup does not hold. */
export function skippedWarning(e: { path: string; kind: SkippedKind }): string {
  return `Not in the backup: ${e.path} is ${KIND_TEXT[e.kind]}, which holds no data to keep; a restore will not bring it back.`;
}

/** Everything under each planned path (links were refused by the preflight, and are again here), in stable order. */
export async function collectEntries(paths: readonly string[], roots: { label: string; dir: string }[]): Promise<CollectedEntries> {
  const out: CollectedEntries = { files: [], emptyDirs: [], skipped: [], dirs: [] };
  const seenDirs = new Set<string>();
  const addDir = (root: { label: string; dir: string }, p: string, st: { mode: bigint; mtimeNs: bigint }): void => {
    const relativePath = relPath(root.dir, p);
    const k = `${root.label}/${relativePath}`;
    if (seenDirs.has(k)) return;
    seenDirs.add(k);
    out.dirs.push({ root: root.label, relativePath, mode: Number(st.mode & 0o777n), mtimeNs: String(st.mtimeNs) });
  };
  // Returns how many regular files lie at or below p.
  const visit = async (p: string, root: { label: string; dir: string }): Promise<number> => {
    const st = await fsp.lstat(p, { bigint: true });
    if (st.isSymbolicLink()) throw new ArchiveError(`${p} is a symbolic link; backups never follow links.`);
    if (st.isDirectory()) {
      // Read before the walk below: listing a dir never changes its mtime.
      addDir(root, p, st);
      const at = out.emptyDirs.length;
      let n = 0;
      for (const name of (await fsp.readdir(p)).sort()) n += await visit(`${p}${sep}${name}`, root);
      // Parents first: inserted where this directory's walk began.
      if (n === 0) out.emptyDirs.splice(at, 0, { root: root.label, relativePath: relPath(root.dir, p), mode: Number(st.mode & 0o777n) });
      return n;
    }
    if (st.isFile()) {
      out.files.push({ root: root.label, rootDir: root.dir, path: p });
      return 1;
    }
    out.skipped.push({ root: root.label, relativePath: relPath(root.dir, p), kind: skippedKind(st), path: p });
    return 0;
  };
  for (const p of paths) {
    const root = roots.find((r) => p.startsWith(r.dir + sep));
    if (!root) throw new ArchiveError(`${p} is not under a backup root.`);
    // The dirs between the root and p: a restore recreates them too when the cleanup (or anyone) removed them.
    // One that is not a plain dir is not recorded (the restore refuses to pass it anyway).
    const comps = relPath(root.dir, p).split('/');
    for (let i = 1; i < comps.length; i++) {
      const d = `${root.dir}${sep}${comps.slice(0, i).join(sep)}`;
      const st = await fsp.lstat(d, { bigint: true }).catch(() => null);
      if (!st || st.isSymbolicLink() || !st.isDirectory()) break;
      addDir(root, d, st);
    }
    await visit(p, root);
  }
  return out;
}

/** Only the regular files of collectEntries. */
export async function collectFiles(paths: readonly string[], roots: { label: string; dir: string }[]): Promise<SourceFile[]> {
  return (await collectEntries(paths, roots)).files;
}

interface WriteOptions {
  archivePath: string;
  recipient: string;
  agent: AgentKind;
  operationId: string;
  id: string;
  itemCount: number;
  retentionDays: number;
  files: SourceFile[];
  /** Recorded in the manifest (from collectEntries). */
  emptyDirs?: ManifestDir[];
  skipped?: ManifestSkipped[];
  /** Recorded in the manifest (from collectEntries). */
  dirs?: ManifestDirAttrs[];
  onBytes?: (done: number, total: number) => void;
}

// ---- tar headers (POSIX ustar; pax `path` records for long or non-ASCII names) --------

const BLOCK = 512;
const pad512 = (n: number): number => (BLOCK - (n % BLOCK)) % BLOCK;

function octal(h: Buffer, off: number, width: number, value: number): void {
  h.write(`${value.toString(8).padStart(width - 1, '0')}\0`, off, width, 'latin1');
}

function ustarHeader(name: string, prefix: string, size: number, mtime: number, type: '0' | 'x'): Buffer {
  const h = Buffer.alloc(BLOCK);
  h.write(name, 0, 100, 'utf8');
  octal(h, 100, 8, 0o600);
  octal(h, 108, 8, 0);
  octal(h, 116, 8, 0);
  if (size < 8 ** 11) octal(h, 124, 12, size);
  else {
    // base-256 (GNU) for 8 GiB and more
    h[124] = 0x80;
    let v = size;
    for (let i = 135; i > 124; i--, v = Math.floor(v / 256)) h[i] = v % 256;
  }
  octal(h, 136, 12, mtime);
  h.fill(0x20, 148, 156);
  h.write(type, 156, 1, 'latin1');
  h.write('ustar\u000000', 257, 8, 'latin1');
  octal(h, 329, 8, 0);
  octal(h, 337, 8, 0);
  if (prefix) h.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8, 'latin1');
  return h;
}

function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  const n = Buffer.byteLength(body);
  let digits = 1;
  while (String(n + digits).length !== digits) digits++;
  return `${n + digits}${body}`;
}

/** The header block(s) of a regular 0600 file entry. */
function tarHeader(path: string, size: number, mtime: number): Buffer {
  if (/^[\x20-\x7e]+$/.test(path)) {
    if (path.length <= 100) return ustarHeader(path, '', size, mtime, '0');
    for (let i = path.indexOf('/'); i > 0 && i <= 155; i = path.indexOf('/', i + 1)) {
      if (path.length - i - 1 <= 100) return ustarHeader(path.slice(i + 1), path.slice(0, i), size, mtime, '0');
    }
  }
  const pax = Buffer.from(paxRecord('path', path), 'utf8');
  return Buffer.concat([
    ustarHeader('PaxHeader', '', pax.length, mtime, 'x'),
    pax,
    Buffer.alloc(pad512(pax.length)),
    ustarHeader('PaxHeader', '', size, mtime, '0'),
  ]);
}

// ---- the payload side: tar bytes → zstd frames (in flight) → age chunks at their offsets ----

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
class PayloadSink {
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

  /** Flushes everything, then seals the manifest region (`manifest`, exactly `start` bytes) and writes it and the age header at the start of the file. */
  async finish(manifest: Buffer): Promise<void> {
    await this.dispatch();
    while (this.queue.length) await this.emitNext();
    const lastIndex = this.curIndex;
    this.sealCurrent(true);
    await this.flushWrites();
    await this.writing;
    if (manifest.length !== this.start || !this.held) throw new Error('internal: the manifest region does not have its reserved length');
    const parts: Buffer[] = [this.enc.prefix];
    for (let k = 0; k <= this.k0; k++) {
      const plain = k < this.k0 ? manifest.subarray(k * AGE_CHUNK, (k + 1) * AGE_CHUNK) : Buffer.concat([manifest.subarray(k * AGE_CHUNK), this.held]);
      parts.push(...this.enc.seal(k, plain, k === lastIndex));
    }
    await writeAll(this.fh, parts, 0, this.enc.offsetOf(0) + parts.slice(1).reduce((a, b) => a + b.length, 0));
    await this.syncing;
  }

  /** After a failure: lets native work and the write in progress end (their errors are moot). */
  async abort(): Promise<void> {
    await Promise.allSettled([...this.queue.map((q) => q.frame), this.writing, this.syncing]);
    this.queue = [];
  }
}

async function lstatSizes(files: SourceFile[]): Promise<{ sizes: number[]; modes: number[]; sparse: boolean[]; mtimes: bigint[] }> {
  const sizes = new Array<number>(files.length);
  const modes = new Array<number>(files.length);
  const sparse = new Array<boolean>(files.length);
  const mtimes = new Array<bigint>(files.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < files.length; i = next++) {
      const st = await fsp.lstat(files[i]!.path, { bigint: true });
      if (!st.isFile()) throw new ArchiveError(`${files[i]!.path} is no longer a regular file.`);
      sizes[i] = Number(st.size);
      modes[i] = Number(st.mode & 0o777n);
      sparse[i] = st.size > 0n && st.blocks * 512n < st.size;
      mtimes[i] = st.mtimeNs;
    }
  };
  await Promise.all(Array.from({ length: Math.min(16, files.length) }, worker));
  return { sizes, modes, sparse, mtimes };
}

/** Whole seconds for a ustar header (0 to 8^11 − 1; the manifest keeps the exact time). */
const tarSeconds = (ns: bigint): number => Math.min(8 ** 11 - 1, Math.max(0, Number(ns / 1_000_000_000n)));

const READ_MAX = 4 * 1024 * 1024;
const SYNC_EVERY = 64 * 1024 * 1024;
const ZERO_BLOCKS = Buffer.alloc(2 * BLOCK);

/** Writes `<archivePath>.partial`, then renames it into place. Returns the manifest and the archive size. */
export async function writeArchive(o: WriteOptions): Promise<{ manifest: Manifest; archiveBytes: number }> {
  let enc: AgeEncryptor;
  try {
    enc = new AgeEncryptor(o.recipient);
  } catch (e) {
    throw new ArchiveError(`The backup key's recipient cannot be used (${(e as Error).message}).`);
  }
  // Sizes first: with fixed-width hashes they fix the manifest's length before any file is read.
  const { sizes, modes, sparse, mtimes } = await lstatSizes(o.files);
  const entries: ManifestEntry[] = o.files.map((f, i) => ({
    root: f.root,
    relativePath: relPath(f.rootDir, f.path),
    sha256: '0'.repeat(64),
    sizeBytes: sizes[i]!,
    mode: modes[i]!,
    mtimeNs: String(mtimes[i]!),
    ...(sparse[i] ? { sparse: true as const } : {}),
  }));
  const now = new Date();
  const mtime = Math.floor(now.getTime() / 1000);
  const manifest: Manifest = {
    formatVersion: MANIFEST_FORMAT,
    id: o.id,
    agent: o.agent,
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + o.retentionDays * 86_400_000).toISOString(),
    operationId: o.operationId,
    itemCount: o.itemCount,
    originalBytes: entries.reduce((a, e) => a + e.sizeBytes, 0),
    archiveBytes: 0,
    entries,
    ...(o.emptyDirs?.length ? { emptyDirs: o.emptyDirs.map(({ root, relativePath, mode }) => ({ root, relativePath, mode })) } : {}),
    ...(o.skipped?.length ? { skipped: o.skipped.map(({ root, relativePath, kind }) => ({ root, relativePath, kind })) } : {}),
    dirs: (o.dirs ?? []).map(({ root, relativePath, mode, mtimeNs }) => ({ root, relativePath, mode, mtimeNs })),
  };
  const manifestEntry = (): Buffer => {
    const m = Buffer.from(JSON.stringify(manifest, null, 2));
    return rawFrames(Buffer.concat([tarHeader(MANIFEST_NAME, m.length, mtime), m, Buffer.alloc(pad512(m.length))]));
  };
  const reserved = manifestEntry().length;

  const partial = `${o.archivePath}.partial`;
  // Only a partial this write created is ever removed ('wx' refuses an existing one).
  const fh = await fsp.open(partial, 'wx', 0o600);
  const sink = new PayloadSink(fh, enc, reserved);
  try {
    let done = 0;
    for (let i = 0; i < o.files.length; i++) {
      const f = o.files[i]!;
      const e = entries[i]!;
      await sink.write(tarHeader(`payload/${e.root}/${e.relativePath}`, e.sizeBytes, tarSeconds(mtimes[i]!)));
      // O_NOFOLLOW: a path swapped for a link since it was collected is refused; O_NONBLOCK: a FIFO cannot hang the open.
      const src = await fsp.open(f.path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
      const hash = createHash('sha256');
      try {
        if (!(await src.stat()).isFile()) throw new ArchiveError(`${f.path} is no longer a regular file.`);
        // Exactly the size the manifest names: a file that grew is archived as it was; one that shrank fails the backup.
        // Straight into the frame buffer; the next read is under way while this piece is hashed.
        const readAt = (buf: Buffer, off: number, len: number) => src.read(buf, off, len, null).then((r) => ({ buf, off, n: r.bytesRead }));
        let left = e.sizeBytes;
        const fresh = () => {
          const r = sink.region();
          return readAt(r.buf, r.off, Math.min(left, r.len, READ_MAX));
        };
        let next = left > 0 ? fresh() : null;
        while (next) {
          const { buf, off, n } = await next;
          if (n === 0) throw new ArchiveError(`${f.path} shrank while it was being backed up.`);
          left -= n;
          const room = FRAME_BYTES - (off + n);
          next = left > 0 && room > 0 ? readAt(buf, off + n, Math.min(left, room, READ_MAX)) : null;
          hash.update(buf.subarray(off, off + n));
          await sink.commit(n); // dispatches only a full frame, i.e. never one with a read under way
          if (!next && left > 0) next = fresh();
        }
      } finally {
        await src.close();
      }
      await sink.write(ZERO_BLOCKS.subarray(0, pad512(e.sizeBytes)));
      e.sha256 = hash.digest('hex');
      done += e.sizeBytes;
      o.onBytes?.(done, manifest.originalBytes);
    }
    await sink.write(ZERO_BLOCKS);
    await sink.finish(manifestEntry());
    await fh.sync();
    await fh.close();
    await fsp.rename(partial, o.archivePath);
  } catch (e) {
    await sink.abort();
    await fh.close().catch(() => undefined);
    await fsp.unlink(partial).catch(() => undefined);
    throw e;
  }
  const st = await fsp.stat(o.archivePath);
  return { manifest, archiveBytes: st.size };
}

interface ReadHandlers {
  /** Called once with the validated manifest, before any payload. */
  manifest?(m: Manifest): void | Promise<void>;
  /** Receives each payload's bytes (already checked against the manifest when the entry ends). */
  payload?(entry: ManifestEntry, stream: Readable): Promise<void>;
}

interface ReadOptions {
  /**
   * When this process has just read this very archive whole and every
   * payload matched its SHA-256 (./verified-archives.ts), check sizes,
   * names and authentication only: a restore's second read after its check.
   */
  reuseVerified?: boolean;
  /**
   * After each chunk of payload is checked: entries done (the one under way
   * counts once it ends) of the manifest's, and bytes read of its original bytes.
   */
  onRead?(entriesDone: number, entriesTotal: number, bytesDone: number, bytesTotal: number): void;
}

const SAFE_SEGMENT = /^(?!\.\.?$)[^/\0]+$/;
/** A root's label as the engine names them: `<agent>_home`, `<agent>_root<n>` (Claude's temp roots), `<agent>_session_export`. */
const ROOT_LABEL = /^[a-z_]+[0-9]*$/;
/** A time in ns as a decimal string, within what a 64-bit timespec holds. */
const validNs = (v: unknown): v is string => typeof v === 'string' && /^-?[0-9]{1,19}$/.test(v) && BigInt(v) < 2n ** 63n && BigInt(v) > -(2n ** 63n);

function validManifest(v: unknown, expectAgent?: AgentKind): Manifest {
  const m = v as Manifest;
  if (!m || (m.formatVersion !== 1 && m.formatVersion !== 2) || typeof m.id !== 'string' || !Array.isArray(m.entries))
    throw new ArchiveError('The archive has no valid cleanerx manifest.');
  if (expectAgent && m.agent !== expectAgent) throw new ArchiveError(`The archive belongs to ${m.agent}, not ${expectAgent}.`);
  const seen = new Set<string>();
  for (const e of m.entries) {
    if (typeof e.root !== 'string' || !ROOT_LABEL.test(e.root) || typeof e.relativePath !== 'string')
      throw new ArchiveError('The manifest names an invalid entry.');
    if (!e.relativePath.split('/').every((s) => SAFE_SEGMENT.test(s))) throw new ArchiveError(`The manifest names an unsafe path: ${e.relativePath}`);
    if (!/^[0-9a-f]{64}$/.test(e.sha256) || !Number.isSafeInteger(e.sizeBytes) || e.sizeBytes < 0)
      throw new ArchiveError('The manifest has an invalid hash or size.');
    if (e.mode !== undefined && (!Number.isInteger(e.mode) || e.mode < 0 || e.mode > 0o777)) throw new ArchiveError('The manifest has an invalid file mode.');
    if (e.sparse !== undefined && e.sparse !== true) throw new ArchiveError('The manifest has an invalid sparse flag.');
    if (e.mtimeNs !== undefined && !validNs(e.mtimeNs)) throw new ArchiveError('The manifest has an invalid modification time.');
    const key = `${e.root}/${e.relativePath}`;
    if (seen.has(key)) throw new ArchiveError(`The manifest names ${key} twice.`);
    seen.add(key);
  }
  const safeRef = (e: { root?: unknown; relativePath?: unknown }): boolean =>
    typeof e.root === 'string' && ROOT_LABEL.test(e.root) && typeof e.relativePath === 'string' && e.relativePath.split('/').every((s) => SAFE_SEGMENT.test(s));
  if (m.emptyDirs !== undefined) {
    if (!Array.isArray(m.emptyDirs)) throw new ArchiveError('The manifest has an invalid list of empty directories.');
    for (const d of m.emptyDirs) {
      if (!d || !safeRef(d) || !Number.isInteger(d.mode) || d.mode < 0 || d.mode > 0o777)
        throw new ArchiveError('The manifest names an invalid or unsafe empty directory.');
      if (seen.has(`${d.root}/${d.relativePath}`)) throw new ArchiveError(`The manifest names ${d.root}/${d.relativePath} as a file and a directory.`);
    }
  }
  if (m.dirs !== undefined) {
    if (!Array.isArray(m.dirs)) throw new ArchiveError('The manifest has an invalid list of directories.');
    const dirSeen = new Set<string>();
    for (const d of m.dirs) {
      if (!d || !safeRef(d) || !Number.isInteger(d.mode) || d.mode < 0 || d.mode > 0o777 || !validNs(d.mtimeNs))
        throw new ArchiveError('The manifest names an invalid or unsafe directory.');
      const key = `${d.root}/${d.relativePath}`;
      if (seen.has(key)) throw new ArchiveError(`The manifest names ${key} as a file and a directory.`);
      if (dirSeen.has(key)) throw new ArchiveError(`The manifest names the directory ${key} twice.`);
      dirSeen.add(key);
    }
  }
  if (m.skipped !== undefined) {
    if (!Array.isArray(m.skipped)) throw new ArchiveError('The manifest has an invalid list of skipped entries.');
    for (const k of m.skipped)
      if (!k || !safeRef(k) || !['fifo', 'socket', 'device'].includes(k.kind)) throw new ArchiveError('The manifest names an invalid skipped entry.');
  }
  return m;
}

/**
 * Decrypts and walks an archive, checking it entry by entry: manifest first,
 * only regular files, each payload named once and exactly as the manifest
 * says, sizes and SHA-256 equal (the hashes not computed again for an
 * archive this process has just verified, when `opts.reuseVerified`),
 * nothing missing and nothing extra.
 */
export async function readArchive(
  archivePath: string,
  identity: string,
  handlers: ReadHandlers = {},
  expectAgent?: AgentKind,
  opts: ReadOptions = {},
): Promise<Manifest> {
  let fh: FileHandle;
  let st: Stats;
  let key: { payloadKey: Buffer; payloadOffset: number };
  try {
    // Not followed if a link, never blocked on if a FIFO, refused unless a regular file.
    ({ fh, stat: st } = await openRegularFileAsync(archivePath));
  } catch (e) {
    if (e instanceof BoundedReadError) throw new ArchiveError(e.reason === 'missing' ? `The archive ${archivePath} is missing.` : e.message);
    throw new ArchiveError(`The archive ${archivePath} cannot be opened (${(e as Error).message}).`);
  }
  try {
    key = await openAgeFile(fh, identity);
  } catch (e) {
    await fh.close();
    if (e instanceof AgePayloadError) throw new ArchiveError(`The archive is damaged: ${e.message}`);
    throw new ArchiveError(`The archive cannot be decrypted with this key (${(e as Error).message}).`);
  }
  const archiveId = archiveIdentity(archivePath, st, key.payloadKey);
  const hashed = !(opts.reuseVerified && wasVerified(archiveId));
  // The same open file for the payload: the header just authenticated is this file's.
  const plain = new AgePayloadReader(fh, key.payloadKey, key.payloadOffset);
  const extract = tar.extract();
  let manifest: Manifest | null = null;
  const byName = new Map<string, ManifestEntry>();
  const seen = new Set<string>();
  let bytesRead = 0;
  let entriesRead = 0;
  const reported = (): void => opts.onRead?.(entriesRead, manifest?.entries.length ?? 0, bytesRead, manifest?.originalBytes ?? 0);
  const consume = (async () => {
    for await (const entry of extract) {
      const h = entry.header;
      if (h.type !== 'file') throw new ArchiveError(`The archive holds a non-file entry (${h.type}: ${h.name}).`);
      if (!manifest) {
        if (h.name !== MANIFEST_NAME) throw new ArchiveError('The archive does not start with its manifest.');
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const c of entry) {
          size += (c as Buffer).length;
          if (size > 64 * 1024 * 1024) throw new ArchiveError('The manifest is too large.');
          chunks.push(c as Buffer);
        }
        manifest = validManifest(parseBoundedJson(Buffer.concat(chunks).toString('utf8')), expectAgent);
        for (const e of manifest.entries) byName.set(`payload/${e.root}/${e.relativePath}`, e);
        await handlers.manifest?.(manifest);
        reported();
        continue;
      }
      const e = byName.get(h.name);
      if (!e) throw new ArchiveError(`The archive holds an entry the manifest does not name: ${h.name}`);
      if (seen.has(h.name)) throw new ArchiveError(`The archive holds ${h.name} twice.`);
      seen.add(h.name);
      const hash = hashed ? createHash('sha256') : null;
      let size = 0;
      const checked = new Transform({
        transform(c: Buffer, _enc, cb) {
          hash?.update(c);
          size += c.length;
          bytesRead += c.length;
          reported();
          cb(null, c);
        },
      });
      entry.pipe(checked);
      if (handlers.payload) await handlers.payload(e, checked);
      else for await (const _ of checked) void _;
      if (size !== e.sizeBytes || (hash && hash.digest('hex') !== e.sha256))
        throw new ArchiveError(`${h.name} does not match its manifest entry (size or SHA-256).`);
      entriesRead++;
      reported();
    }
  })();
  try {
    await Promise.all([pipeline(plain, new ZstdFrameReader(), extract), consume]);
  } catch (e) {
    if (e instanceof ArchiveError) throw e;
    throw new ArchiveError(`The archive is damaged: ${(e as Error).message}`);
  } finally {
    plain.destroy();
    await fh.close(); // after any read still under way
  }
  if (!manifest) throw new ArchiveError('The archive is empty.');
  const missing = [...byName.keys()].filter((k) => !seen.has(k));
  if (missing.length) throw new ArchiveError(`The archive is missing ${missing.length} payload(s), e.g. ${missing[0]}.`);
  if (hashed) markVerified(archiveId);
  return manifest;
}

export function newBackupId(): string {
  return randomUUID();
}

/** Only Writable sink that discards (verify without writing anywhere). */
export const discard = (): Writable => new Writable({ write: (_c, _e, cb) => cb() });
