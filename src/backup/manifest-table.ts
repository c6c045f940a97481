// A manifest's file entries as a reader holds them: one buffer of UTF-8
// paths, one of raw SHA-256 digests and a few typed arrays, about 60 bytes
// per entry plus its path, instead of one object (and four strings) per
// entry — 200,000 entries are ~25 MB here, several times that as objects.
// Each entry is materialised on demand as a short-lived ManifestEntry.
// A hash index over (root, path) finds an entry by name and refuses a
// duplicate as it is added, without a set of key strings.

import type { ManifestEntry } from './manifest.js';

const NO_MODE = -1;
const SPARSE = 1;
const HAS_MTIME = 2;

/** FNV-1a over a root's index and a path's UTF-16 units: the index's hash of an entry. */
function keyHash(rootIx: number, rel: string): number {
  let h = (2166136261 ^ rootIx) >>> 0;
  for (let i = 0; i < rel.length; i++) h = Math.imul(h ^ rel.charCodeAt(i), 16777619);
  return h >>> 0;
}

function grown<T extends Float64Array | Uint32Array | Uint16Array | Int16Array | Uint8Array | BigInt64Array>(a: T, n: number): T {
  const b = new (a.constructor as new (n: number) => T)(n);
  b.set(a as never);
  return b;
}

export class ManifestTable {
  length = 0;
  private readonly roots: string[] = [];
  private rootIx = new Uint16Array(1024);
  private pathEnd = new Uint32Array(1024);
  private paths = Buffer.allocUnsafe(64 * 1024);
  private pathBytes = 0;
  private sha = Buffer.allocUnsafe(32 * 1024);
  private sizes = new Float64Array(1024);
  private modes = new Int16Array(1024);
  private flags = new Uint8Array(1024);
  private mtimes = new BigInt64Array(1024);
  private hashes = new Uint32Array(1024);
  /** Open addressing: entry index + 1, 0 for a free slot; never more than half full. */
  private slots = new Int32Array(2048);

  /** Adds an entry already checked (its hash 64 hex digits, its mtime a 64-bit decimal); false (nothing added) when the manifest already names its root and path. */
  add(e: ManifestEntry): boolean {
    let r = this.roots.indexOf(e.root);
    if (r < 0) r = this.roots.push(e.root) - 1;
    const h = keyHash(r, e.relativePath);
    if (this.find(r, e.relativePath, h) >= 0) return false;
    const i = this.length;
    if (i === this.sizes.length) this.grow(i * 2);
    const rel = Buffer.byteLength(e.relativePath);
    if (this.pathBytes + rel > this.paths.length) {
      const p = Buffer.allocUnsafe(Math.max(this.paths.length * 2, this.pathBytes + rel));
      this.paths.copy(p, 0, 0, this.pathBytes);
      this.paths = p;
    }
    this.pathBytes += this.paths.write(e.relativePath, this.pathBytes, 'utf8');
    this.pathEnd[i] = this.pathBytes;
    this.rootIx[i] = r;
    this.sha.write(e.sha256, 32 * i, 32, 'hex');
    this.sizes[i] = e.sizeBytes;
    this.modes[i] = e.mode ?? NO_MODE;
    this.flags[i] = (e.sparse ? SPARSE : 0) | (e.mtimeNs !== undefined ? HAS_MTIME : 0);
    this.mtimes[i] = e.mtimeNs !== undefined ? BigInt(e.mtimeNs) : 0n;
    this.hashes[i] = h;
    this.length = i + 1;
    if (this.length * 2 > this.slots.length) this.reindex(this.slots.length * 2);
    else this.place(i);
    return true;
  }

  /** The entry's index, or -1 when the manifest does not name it. */
  indexOf(root: string, relativePath: string): number {
    const r = this.roots.indexOf(root);
    return r < 0 ? -1 : this.find(r, relativePath, keyHash(r, relativePath));
  }

  root(i: number): string {
    return this.roots[this.rootIx[i]!]!;
  }

  relativePath(i: number): string {
    return this.paths.toString('utf8', i ? this.pathEnd[i - 1]! : 0, this.pathEnd[i]!);
  }

  sha256(i: number): string {
    return this.sha.toString('hex', 32 * i, 32 * i + 32);
  }

  sizeBytes(i: number): number {
    return this.sizes[i]!;
  }

  /** Every root label an entry names. */
  rootLabels(): readonly string[] {
    return this.roots;
  }

  /** A short-lived object of entry `i`, with the fields its manifest gave (in the writer's order). */
  entry(i: number): ManifestEntry {
    const mode = this.modes[i]!;
    const f = this.flags[i]!;
    return {
      root: this.root(i),
      relativePath: this.relativePath(i),
      sha256: this.sha256(i),
      sizeBytes: this.sizes[i]!,
      ...(mode !== NO_MODE ? { mode } : {}),
      ...(f & HAS_MTIME ? { mtimeNs: String(this.mtimes[i]!) } : {}),
      ...(f & SPARSE ? { sparse: true as const } : {}),
    };
  }

  private find(r: number, rel: string, h: number): number {
    const mask = this.slots.length - 1;
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const at = this.slots[s]!;
      if (at === 0) return -1;
      const i = at - 1;
      if (this.hashes[i] === h && this.rootIx[i] === r && this.relativePath(i) === rel) return i;
    }
  }

  private place(i: number): void {
    const mask = this.slots.length - 1;
    let s = this.hashes[i]! & mask;
    while (this.slots[s] !== 0) s = (s + 1) & mask;
    this.slots[s] = i + 1;
  }

  private reindex(n: number): void {
    this.slots = new Int32Array(n);
    for (let i = 0; i < this.length; i++) this.place(i);
  }

  private grow(n: number): void {
    this.rootIx = grown(this.rootIx, n);
    this.pathEnd = grown(this.pathEnd, n);
    this.sizes = grown(this.sizes, n);
    this.modes = grown(this.modes, n);
    this.flags = grown(this.flags, n);
    this.mtimes = grown(this.mtimes, n);
    this.hashes = grown(this.hashes, n);
    const sha = Buffer.allocUnsafe(32 * n);
    this.sha.copy(sha, 0, 0, 32 * this.length);
    this.sha = sha;
  }
}
