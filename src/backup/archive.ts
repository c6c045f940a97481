// The .cxb archive: tar (manifest.json first, then payload/<root>/<path>)
// → zstd frames → age X25519. Readable with the stock tools:
//   age -d -i key.txt x.cxb | zstd -d | tar -t
// Written to <id>.cxb.partial, renamed, then reopened and checked entry by
// entry. Both directions stream: memory is bounded whatever the size.

import { Decrypter, Encrypter } from 'age-encryption';
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, promises as fsp } from 'node:fs';
import { relative, sep } from 'node:path';
import { Readable, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import tar from 'tar-stream';
import { ZstdFrameReader, ZstdFrameWriter } from './zstd-frames.js';
import type { AgentKind } from '../engine/model.js';

export const MANIFEST_NAME = 'manifest.json';

export interface ManifestEntry {
  root: string;
  relativePath: string;
  sha256: string;
  sizeBytes: number;
}

export interface Manifest {
  formatVersion: 1;
  id: string;
  agent: AgentKind;
  createdAt: string;
  expiresAt: string;
  operationId: string;
  itemCount: number;
  originalBytes: number;
  archiveBytes: 0;
  entries: ManifestEntry[];
}

export interface SourceFile {
  root: string;
  rootDir: string;
  path: string;
}

export class ArchiveError extends Error {
  readonly archive = true;
}

/** Regular files under each planned path (links were refused by the preflight), in stable order. */
export async function collectFiles(paths: readonly string[], roots: { label: string; dir: string }[]): Promise<SourceFile[]> {
  const out: SourceFile[] = [];
  const visit = async (p: string, root: { label: string; dir: string }): Promise<void> => {
    const st = await fsp.lstat(p);
    if (st.isSymbolicLink()) throw new ArchiveError(`${p} is a symbolic link; backups never follow links.`);
    if (st.isDirectory()) {
      for (const name of (await fsp.readdir(p)).sort()) await visit(`${p}${sep}${name}`, root);
    } else if (st.isFile()) out.push({ root: root.label, rootDir: root.dir, path: p });
  };
  for (const p of paths) {
    const root = roots.find((r) => p.startsWith(r.dir + sep));
    if (!root) throw new ArchiveError(`${p} is not under a backup root.`);
    await visit(p, root);
  }
  return out;
}

async function hashFile(path: string): Promise<{ sha256: string; size: number }> {
  const h = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(path)) {
    h.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { sha256: h.digest('hex'), size };
}

export interface WriteOptions {
  archivePath: string;
  recipient: string;
  agent: AgentKind;
  operationId: string;
  id: string;
  itemCount: number;
  retentionDays: number;
  files: SourceFile[];
  onBytes?: (done: number, total: number) => void;
}

/** Writes `<archivePath>.partial`, then renames it into place. Returns the manifest and the archive size. */
export async function writeArchive(o: WriteOptions): Promise<{ manifest: Manifest; archiveBytes: number }> {
  const entries: ManifestEntry[] = [];
  for (const f of o.files) {
    const { sha256, size } = await hashFile(f.path);
    entries.push({ root: f.root, relativePath: relative(f.rootDir, f.path).split(sep).join('/'), sha256, sizeBytes: size });
  }
  const now = new Date();
  const manifest: Manifest = {
    formatVersion: 1,
    id: o.id,
    agent: o.agent,
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + o.retentionDays * 86_400_000).toISOString(),
    operationId: o.operationId,
    itemCount: o.itemCount,
    originalBytes: entries.reduce((a, e) => a + e.sizeBytes, 0),
    archiveBytes: 0,
    entries,
  };
  const pack = tar.pack();
  const feed = (async () => {
    const m = Buffer.from(JSON.stringify(manifest, null, 2));
    await new Promise<void>((res, rej) => pack.entry({ name: MANIFEST_NAME, size: m.length, mode: 0o600 }, m, (e) => (e ? rej(e) : res())));
    let done = 0;
    for (let i = 0; i < o.files.length; i++) {
      const f = o.files[i]!;
      const e = entries[i]!;
      const sink = pack.entry({ name: `payload/${e.root}/${e.relativePath}`, size: e.sizeBytes, mode: 0o600 });
      await pipeline(createReadStream(f.path, { start: 0, end: Math.max(0, e.sizeBytes - 1) }), sink);
      done += e.sizeBytes;
      o.onBytes?.(done, manifest.originalBytes);
    }
    pack.finalize();
  })();
  const partial = `${o.archivePath}.partial`;
  const enc = new Encrypter();
  enc.addRecipient(o.recipient);
  // pipeline, not pipe: a source that fails mid-entry (it shrank, vanished, EIO) destroys the
  // pack, and that error must reject this write, not escape as an uncaught exception.
  const compressed = new ZstdFrameWriter();
  const packing = pipeline(pack, compressed);
  const encrypted = await enc.encrypt(Readable.toWeb(compressed) as unknown as ReadableStream<Uint8Array>);
  const out = createWriteStream(partial, { flags: 'wx', mode: 0o600 });
  // Only a partial this write created is ever removed ('wx' refuses an existing one).
  let created = false;
  out.once('open', () => (created = true));
  try {
    await Promise.all([pipeline(Readable.fromWeb(encrypted as unknown as WebReadableStream<Uint8Array>), out), feed, packing]);
    const fh = await fsp.open(partial, 'r');
    await fh.sync();
    await fh.close();
    await fsp.rename(partial, o.archivePath);
  } catch (e) {
    pack.destroy();
    out.destroy();
    if (!out.closed) await new Promise<void>((r) => out.once('close', () => r()));
    if (created) await fsp.unlink(partial).catch(() => undefined);
    throw e;
  }
  const st = await fsp.stat(o.archivePath);
  return { manifest, archiveBytes: st.size };
}

export interface ReadHandlers {
  /** Called once with the validated manifest, before any payload. */
  manifest?(m: Manifest): void | Promise<void>;
  /** Receives each payload's bytes (already checked against the manifest when the entry ends). */
  payload?(entry: ManifestEntry, stream: Readable): Promise<void>;
}

const SAFE_SEGMENT = /^(?!\.\.?$)[^/\0]+$/;

function validManifest(v: unknown, expectAgent?: AgentKind): Manifest {
  const m = v as Manifest;
  if (!m || m.formatVersion !== 1 || typeof m.id !== 'string' || !Array.isArray(m.entries)) throw new ArchiveError('The archive has no valid cleanerx manifest.');
  if (expectAgent && m.agent !== expectAgent) throw new ArchiveError(`The archive belongs to ${m.agent}, not ${expectAgent}.`);
  const seen = new Set<string>();
  for (const e of m.entries) {
    if (typeof e.root !== 'string' || !/^[a-z_]+$/.test(e.root) || typeof e.relativePath !== 'string') throw new ArchiveError('The manifest names an invalid entry.');
    if (!e.relativePath.split('/').every((s) => SAFE_SEGMENT.test(s))) throw new ArchiveError(`The manifest names an unsafe path: ${e.relativePath}`);
    if (!/^[0-9a-f]{64}$/.test(e.sha256) || !Number.isSafeInteger(e.sizeBytes) || e.sizeBytes < 0) throw new ArchiveError('The manifest has an invalid hash or size.');
    const key = `${e.root}/${e.relativePath}`;
    if (seen.has(key)) throw new ArchiveError(`The manifest names ${key} twice.`);
    seen.add(key);
  }
  return m;
}

/**
 * Decrypts and walks an archive, checking it entry by entry: manifest first,
 * only regular files, each payload named once and exactly as the manifest
 * says, sizes and SHA-256 equal, nothing missing and nothing extra.
 */
export async function readArchive(archivePath: string, identity: string, handlers: ReadHandlers = {}, expectAgent?: AgentKind): Promise<Manifest> {
  const d = new Decrypter();
  d.addIdentity(identity);
  let plain: Readable;
  try {
    const web = Readable.toWeb(createReadStream(archivePath)) as unknown as ReadableStream<Uint8Array>;
    plain = Readable.fromWeb((await d.decrypt(web)) as unknown as WebReadableStream<Uint8Array>);
  } catch (e) {
    throw new ArchiveError(`The archive cannot be decrypted with this key (${(e as Error).message}).`);
  }
  const extract = tar.extract();
  let manifest: Manifest | null = null;
  const byName = new Map<string, ManifestEntry>();
  const seen = new Set<string>();
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
        manifest = validManifest(JSON.parse(Buffer.concat(chunks).toString('utf8')), expectAgent);
        for (const e of manifest.entries) byName.set(`payload/${e.root}/${e.relativePath}`, e);
        await handlers.manifest?.(manifest);
        continue;
      }
      const e = byName.get(h.name);
      if (!e) throw new ArchiveError(`The archive holds an entry the manifest does not name: ${h.name}`);
      if (seen.has(h.name)) throw new ArchiveError(`The archive holds ${h.name} twice.`);
      seen.add(h.name);
      const hash = createHash('sha256');
      let size = 0;
      const checked = new Transform({
        transform(c: Buffer, _enc, cb) {
          hash.update(c);
          size += c.length;
          cb(null, c);
        },
      });
      entry.pipe(checked);
      if (handlers.payload) await handlers.payload(e, checked);
      else for await (const _ of checked) void _;
      if (size !== e.sizeBytes || hash.digest('hex') !== e.sha256) throw new ArchiveError(`${h.name} does not match its manifest entry (size or SHA-256).`);
    }
  })();
  try {
    await Promise.all([pipeline(plain, new ZstdFrameReader(), extract), consume]);
  } catch (e) {
    if (e instanceof ArchiveError) throw e;
    throw new ArchiveError(`The archive is damaged: ${(e as Error).message}`);
  }
  if (!manifest) throw new ArchiveError('The archive is empty.');
  const missing = [...byName.keys()].filter((k) => !seen.has(k));
  if (missing.length) throw new ArchiveError(`The archive is missing ${missing.length} payload(s), e.g. ${missing[0]}.`);
  return manifest;
}

export function newBackupId(): string {
  return randomUUID();
}

/** Only Writable sink that discards (verify without writing anywhere). */
export const discard = (): Writable => new Writable({ write: (_c, _e, cb) => cb() });
