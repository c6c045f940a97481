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
import { AgeEncryptor, AgePayloadError, AgePayloadReader, openAgeFile } from './age-stream.js';
import { ArchiveError } from './archive-error.js';
import { MANIFEST_NAME, manifestRegion } from './manifest-region.js';
import { parseManifest, type TableManifest, unpackManifest } from './manifest-read.js';
import type { ManifestTable } from './manifest-table.js';
import { PayloadSink } from './payload-sink.js';
import { BLOCK, pad512, tarHeader } from './tar-header.js';
import { archiveIdentity, markVerified, wasVerified } from './verified-archives.js';
import { FRAME_BYTES, ZstdFrameReader } from './zstd-frames.js';
import type { AgentKind } from '../engine/core/model.js';
import { BoundedReadError, openRegularFileAsync } from '../engine/host/bounded-read.js';

export { ArchiveError, MANIFEST_NAME };
export type { Manifest, ManifestDir, ManifestDirAttrs, ManifestEntry, SkippedKind } from './manifest.js';
import type { Manifest, ManifestDir, ManifestDirAttrs, ManifestEntry, ManifestSkipped, SkippedKind } from './manifest.js';

/** 2: files carry mtimeNs, and `dirs` holds every directory's mode and mtime. 1 (still restored): neither. */
const MANIFEST_FORMAT = 2;

export interface SourceFile {
  root: string;
  rootDir: string;
  path: string;
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

// Stryker disable next-line ObjectLiteral,StringLiteral: a module-level constant, set once at load, which Stryker's run cannot switch per test (mutation-archive-collect checks each sentence).
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
    // Stryker disable next-line EqualityOperator: `<=` adds p itself when it is a dir, which visit(p) adds next anyway (once: seenDirs), in the same place.
    for (let i = 1; i < comps.length; i++) {
      const d = `${root.dir}${sep}${comps.slice(0, i).join(sep)}`;
      // Stryker disable next-line ArrowFunction: undefined and null are both refused by the `!st` below.
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

/**
 * One manifest entry per file, from one lstat each (its hash filled in as the
 * file is written). Nothing per file is kept beside the entries: at 200,000
 * files a parallel array or a bigint each is megabytes of peak heap.
 */
type WrittenEntry = ManifestEntry & { mtimeNs: string };

async function lstatEntries(files: SourceFile[]): Promise<WrittenEntry[]> {
  // Stryker disable next-line ArrayDeclaration: sized up front only to save regrowth; the workers fill every index either way.
  const entries = new Array<WrittenEntry>(files.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < files.length; i = next++) {
      const f = files[i]!;
      const st = await fsp.lstat(f.path, { bigint: true });
      if (!st.isFile()) throw new ArchiveError(`${f.path} is no longer a regular file.`);
      entries[i] = {
        root: f.root,
        relativePath: relPath(f.rootDir, f.path),
        sha256: ZERO_HASH,
        sizeBytes: Number(st.size),
        mode: Number(st.mode & 0o777n),
        mtimeNs: String(st.mtimeNs),
        // An empty file is never sparse: its blocks are never fewer than 0.
        ...(st.blocks * 512n < st.size ? { sparse: true as const } : {}),
      };
    }
  };
  // Stryker disable next-line MethodExpression: more workers than files is equivalent: each extra one finds no index left and returns.
  await Promise.all(Array.from({ length: Math.min(16, files.length) }, worker));
  return entries;
}

// Stryker disable next-line StringLiteral: a module-level constant, set once at load, which Stryker's run cannot switch per test.
const ZERO_HASH = '0'.repeat(64);

/** Whole seconds for a ustar header (0 to 8^11 − 1; the manifest keeps the exact time). */
const tarSeconds = (mtimeNs: string): number => Math.min(8 ** 11 - 1, Math.max(0, Number(BigInt(mtimeNs) / 1_000_000_000n)));

// Stryker disable next-line ArithmeticOperator: a module-level constant, set once at load, which Stryker's run cannot switch per test.
const READ_MAX = 4 * 1024 * 1024;
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
  const entries = await lstatEntries(o.files);
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
  const region = manifestRegion(manifest, mtime);
  const reserved = region.length;

  const partial = `${o.archivePath}.partial`;
  // Only a partial this write created is ever removed ('wx' refuses an existing one).
  const fh = await fsp.open(partial, 'wx', 0o600);
  const sink = new PayloadSink(fh, enc, reserved);
  try {
    let done = 0;
    for (let i = 0; i < o.files.length; i++) {
      const f = o.files[i]!;
      const e = entries[i]!;
      await sink.write(tarHeader(`payload/${e.root}/${e.relativePath}`, e.sizeBytes, tarSeconds(e.mtimeNs)));
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
          // Stryker disable next-line ConditionalExpression: `false` is equivalent (the `fresh()` below starts the same read, only later); the `true` variants read 0 bytes and are refused as a shrink.
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
    await sink.finish(region.pieces());
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
  manifest?(m: TableManifest): void | Promise<void>;
  /** Receives each payload's bytes (already checked against the manifest when the entry ends); `index` is its entry's in the manifest. */
  payload?(entry: ManifestEntry, stream: Readable, index: number): Promise<void>;
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

const MAX_MANIFEST = 64 * 1024 * 1024;

/** The manifest entry's bytes, into one buffer of the size its tar header names (no list of chunks, no second copy). */
async function manifestBytes(entry: AsyncIterable<unknown>, declared: number): Promise<Buffer> {
  if (declared > MAX_MANIFEST) throw new ArchiveError('The manifest is too large.');
  const buf = Buffer.allocUnsafe(declared);
  let size = 0;
  for await (const c of entry) {
    const b = c as Buffer;
    // Stryker disable next-line ConditionalExpression,ArithmeticOperator,StringLiteral,CallExpression: tar-stream's entry stream yields exactly the size its header declares, never more; kept so that a parser that did could not write past the buffer.
    if (size + b.length > declared) throw new ArchiveError('The manifest is too large.');
    b.copy(buf, size);
    size += b.length;
  }
  return buf.subarray(0, size);
}

// A declaration, not an arrow in a const: Stryker mutates the latter at module load, out of reach of each test.
function payloadName(t: ManifestTable, i: number): string {
  return `payload/${t.root(i)}/${t.relativePath(i)}`;
}

/**
 * Matches payload names to manifest entries. cleanerx writes the payloads in
 * the manifest's order, so the next entry is checked first and nothing is
 * kept per path; an archive in any other order is matched through the
 * table's own index, one bit per entry marking it seen.
 */
class PayloadNames {
  private next = 0;
  private seen: Uint8Array | null = null;

  constructor(private readonly entries: ManifestTable) {}

  /** The index of the entry named `name`; refuses a name the manifest lacks or one seen before. */
  take(name: string): number {
    // Stryker disable next-line ConditionalExpression: `false` (never the fast path) is equivalent: the lookup below finds the same entry (a root label has no '/', so the regex splits the name back into its root and path) and the bits it sets for the entries before `next` are those the fast path took; this takes the killed `true` variants of the line out of the count too.
    if (!this.seen && this.next < this.entries.length && name === payloadName(this.entries, this.next)) return this.next++;
    if (!this.seen) {
      this.seen = new Uint8Array(this.entries.length);
      this.seen.fill(1, 0, this.next);
    }
    // Stryker disable next-line Regex: dropping `$` is equivalent (`.+` with the s flag runs to the end anyway); the killed variants go out of the count with it.
    const m = /^payload\/([^/]+)\/(.+)$/s.exec(name);
    const i = m ? this.entries.indexOf(m[1]!, m[2]!) : -1;
    if (i < 0) throw new ArchiveError(`The archive holds an entry the manifest does not name: ${name}`);
    if (this.seen[i]) throw new ArchiveError(`The archive holds ${name} twice.`);
    this.seen[i] = 1;
    return i;
  }

  /** Refuses an archive that ended before every entry of its manifest had its payload. */
  checkComplete(): void {
    let missing = 0;
    let first = -1;
    for (let i = this.seen ? 0 : this.next; i < this.entries.length; i++)
      if (!this.seen?.[i]) {
        missing++;
        if (first < 0) first = i;
      }
    if (missing) throw new ArchiveError(`The archive is missing ${missing} payload(s), e.g. ${payloadName(this.entries, first)}.`);
  }
}

/**
 * Decrypts and walks an archive, checking it entry by entry: manifest first,
 * only regular files, each payload named once and exactly as the manifest
 * says, sizes and SHA-256 equal (the hashes not computed again for an
 * archive this process has just verified, when `opts.reuseVerified`),
 * nothing missing and nothing extra.
 */
export async function readArchiveTable(
  archivePath: string,
  identity: string,
  handlers: ReadHandlers = {},
  expectAgent?: AgentKind,
  opts: ReadOptions = {},
): Promise<TableManifest> {
  let fh: FileHandle;
  let st: Stats;
  let key: { payloadKey: Buffer; payloadOffset: number };
  try {
    // Not followed if a link, never blocked on if a FIFO, refused unless a regular file.
    ({ fh, stat: st } = await openRegularFileAsync(archivePath));
  } catch (e) {
    // Stryker disable next-line ConditionalExpression,StringLiteral,CallExpression: openRegularFileAsync makes every open error a BoundedReadError; only an fstat failing (EIO) on the descriptor it has just opened throws another, which no test can cause.
    if (!(e instanceof BoundedReadError)) throw new ArchiveError(`The archive ${archivePath} cannot be opened (${(e as Error).message}).`);
    throw new ArchiveError(e.reason === 'missing' ? `The archive ${archivePath} is missing.` : e.message);
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
  let manifest: TableManifest | null = null;
  let payloads: PayloadNames | null = null;
  let bytesRead = 0;
  let entriesRead = 0;
  // Only ever called once the manifest is read.
  const reported = (): void => opts.onRead?.(entriesRead, manifest!.entries.length, bytesRead, manifest!.originalBytes);
  const consume = (async () => {
    for await (const entry of extract) {
      const h = entry.header;
      if (h.type !== 'file') throw new ArchiveError(`The archive holds a non-file entry (${h.type}: ${h.name}).`);
      if (!manifest) {
        if (h.name !== MANIFEST_NAME) throw new ArchiveError('The archive does not start with its manifest.');
        manifest = parseManifest(await manifestBytes(entry, h.size ?? 0), expectAgent);
        payloads = new PayloadNames(manifest.entries);
        await handlers.manifest?.(manifest);
        reported();
        continue;
      }
      const i = payloads!.take(h.name);
      const size0 = manifest.entries.sizeBytes(i);
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
      if (handlers.payload) await handlers.payload(manifest.entries.entry(i), checked, i);
      else for await (const _ of checked) void _;
      // Stryker disable next-line ConditionalExpression: `size !== size0` → false is equivalent: a hashed payload of another size has another SHA-256, and a reused verification is of the very plaintext (authenticated chunk by chunk) whose sizes were checked; the killed variants of the line go out of the count with it.
      if (size !== size0 || (hash && hash.digest('hex') !== manifest.entries.sha256(i)))
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
    // Stryker disable next-line CallExpression: equivalent: when consume's loop leaves extract early its iterator destroys extract, and pipeline() then destroys the whole chain, this reader too; kept so as not to depend on that before the close below.
    plain.destroy();
    await fh.close(); // after any read still under way
  }
  if (!manifest) throw new ArchiveError('The archive is empty.');
  payloads!.checkComplete();
  if (hashed) markVerified(archiveId);
  return manifest;
}

/** readArchiveTable, every entry then unpacked into an object: for a caller that wants them all (a small archive). */
export async function readArchive(...args: Parameters<typeof readArchiveTable>): Promise<Manifest> {
  return unpackManifest(await readArchiveTable(...args));
}

export function newBackupId(): string {
  return randomUUID();
}

/** Only Writable sink that discards (verify without writing anywhere). */
export function discard(): Writable {
  return new Writable({ write: (_c, _e, cb) => cb() });
}
