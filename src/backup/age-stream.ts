// age v1 (c2sp.org/age) for the X25519 recipient type, on node:crypto:
// the header (version line, one X25519 stanza, HMAC-SHA-256 header MAC)
// and the payload STREAM (ChaCha20-Poly1305 over 64 KiB chunks, nonce =
// 11-byte big-endian counter || last-chunk flag, payload key =
// HKDF-SHA-256(file key, salt = 16-byte payload nonce, "payload")).
// Written from the public spec. The pure-JS age-encryption package stays
// for key generation and the passphrase-protected key store.
//
// Output is readable by stock `age -d`; input from stock `age -e` (any
// other stanzas it adds are ignored, as the spec requires). Reading is
// strict: canonical base64, exact stanza shapes, the header MAC checked
// before any payload byte is released, every chunk authenticated before
// its plaintext leaves this module, and a missing final chunk, an empty
// final chunk after others, or trailing bytes after the final chunk
// rejected.

import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  createPrivateKey,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
  type KeyObject,
} from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { Readable, Transform, type TransformCallback } from 'node:stream';

export const AGE_CHUNK = 64 * 1024;
const AGE_TAG = 16;
const AGE_SEALED_CHUNK = AGE_CHUNK + AGE_TAG;
const VERSION_LINE = 'age-encryption.org/v1';
const X25519_INFO = 'age-encryption.org/v1/X25519';
/** A header larger than this (or with more stanzas) is refused before any key agreement runs. */
const MAX_HEADER = 64 * 1024;
const MAX_STANZAS = 64;

/** A header problem: not age, not for this key, or tampered. Callers map it to "cannot be decrypted". */
export class AgeHeaderError extends Error {}
/** A payload problem: tampered, truncated, or with trailing data. */
export class AgePayloadError extends Error {}

// ---- Bech32 (BIP 173, no length limit) ----------------------------------------------

const CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const GEN = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];

function polymod(values: number[]): number {
  let chk = 1;
  for (const v of values) {
    const top = chk >>> 25;
    chk = ((chk & 0x1ffffff) << 5) ^ v;
    for (let i = 0; i < 5; i++) if ((top >>> i) & 1) chk ^= GEN[i]!;
  }
  return chk >>> 0;
}

function hrpExpand(hrp: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < hrp.length; i++) out.push(hrp.charCodeAt(i) >> 5);
  out.push(0);
  for (let i = 0; i < hrp.length; i++) out.push(hrp.charCodeAt(i) & 31);
  return out;
}

/** Decodes a Bech32 string to its HRP (lower case) and 8-bit data; throws on any defect. */
export function bech32Decode(s: string): { hrp: string; data: Buffer } {
  if (s !== s.toLowerCase() && s !== s.toUpperCase()) throw new Error('mixed-case Bech32');
  const str = s.toLowerCase();
  const sep = str.lastIndexOf('1');
  if (sep < 1 || sep + 7 > str.length) throw new Error('malformed Bech32');
  const hrp = str.slice(0, sep);
  for (let i = 0; i < hrp.length; i++) {
    const c = hrp.charCodeAt(i);
    if (c < 33 || c > 126) throw new Error('malformed Bech32');
  }
  const values: number[] = [];
  for (const ch of str.slice(sep + 1)) {
    const v = CHARSET.indexOf(ch);
    if (v < 0) throw new Error('malformed Bech32');
    values.push(v);
  }
  if (polymod([...hrpExpand(hrp), ...values]) !== 1) throw new Error('bad Bech32 checksum');
  // 5-bit groups → bytes; leftover padding must be under 5 bits and zero.
  let acc = 0;
  let bits = 0;
  const out: number[] = [];
  for (const v of values.slice(0, -6)) {
    acc = (acc << 5) | v;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out.push((acc >> bits) & 0xff);
    }
    acc &= (1 << bits) - 1;
  }
  if (bits >= 5 || acc !== 0) throw new Error('non-canonical Bech32 padding');
  return { hrp, data: Buffer.from(out) };
}

// ---- X25519 on node:crypto ----------------------------------------------------------

const PKCS8_X25519 = Buffer.from('302e020100300506032b656e04220420', 'hex');
const SPKI_X25519 = Buffer.from('302a300506032b656e032100', 'hex');

const privateKeyOf = (raw: Buffer): KeyObject => createPrivateKey({ key: Buffer.concat([PKCS8_X25519, raw]), format: 'der', type: 'pkcs8' });
const publicKeyOf = (raw: Buffer): KeyObject => createPublicKey({ key: Buffer.concat([SPKI_X25519, raw]), format: 'der', type: 'spki' });
const rawPublic = (k: KeyObject): Buffer => k.export({ format: 'der', type: 'spki' }).subarray(SPKI_X25519.length);

function sharedSecret(privateKey: KeyObject, publicRaw: Buffer): Buffer {
  let s: Buffer;
  try {
    s = diffieHellman({ privateKey, publicKey: publicKeyOf(publicRaw) });
  } catch {
    throw new AgeHeaderError('invalid X25519 share');
  }
  if (s.every((b) => b === 0)) throw new AgeHeaderError('invalid X25519 share (all-zero shared secret)');
  return s;
}

const hkdf = (ikm: Buffer, salt: Buffer, info: string): Buffer => Buffer.from(hkdfSync('sha256', ikm, salt, info, 32));

/** The 32-byte X25519 public key of an `age1…` recipient. */
export function parseRecipient(recipient: string): Buffer {
  let d: { hrp: string; data: Buffer };
  try {
    d = bech32Decode(recipient);
  } catch (e) {
    throw new Error(`not an age X25519 recipient (${(e as Error).message})`);
  }
  if (d.hrp !== 'age' || d.data.length !== 32 || recipient !== recipient.toLowerCase()) throw new Error('not an age X25519 recipient (age1…)');
  return d.data;
}

/** An `AGE-SECRET-KEY-1…` identity: its private key and its own public key (the stanza salt needs it). */
interface X25519Identity {
  privateKey: KeyObject;
  publicKey: Buffer;
}

export function parseIdentity(identity: string): X25519Identity {
  let d: { hrp: string; data: Buffer };
  try {
    d = bech32Decode(identity.trim());
  } catch (e) {
    throw new AgeHeaderError(`not an age X25519 identity (${(e as Error).message})`);
  }
  if (d.hrp !== 'age-secret-key-' || d.data.length !== 32) throw new AgeHeaderError('not an age X25519 identity (AGE-SECRET-KEY-1…)');
  const privateKey = privateKeyOf(d.data);
  return { privateKey, publicKey: rawPublic(createPublicKey(privateKey)) };
}

// ---- base64 as age uses it: standard alphabet, no padding, canonical only -------------

const b64 = (b: Buffer): string => b.toString('base64').replace(/=+$/, '');

function unb64(s: string, what: string): Buffer {
  if (!/^[A-Za-z0-9+/]*$/.test(s) || s.length % 4 === 1) throw new AgeHeaderError(`invalid base64 in ${what}`);
  const b = Buffer.from(s, 'base64');
  if (b64(b) !== s) throw new AgeHeaderError(`non-canonical base64 in ${what}`);
  return b;
}

function aeadSeal(key: Buffer, nonce: Buffer, plain: Buffer): Buffer {
  const c = createCipheriv('chacha20-poly1305', key, nonce, { authTagLength: AGE_TAG });
  const body = c.update(plain);
  c.final();
  return Buffer.concat([body, c.getAuthTag()]);
}

function aeadOpen(key: Buffer, nonce: Buffer, sealed: Buffer): Buffer | null {
  if (sealed.length < AGE_TAG) return null;
  const d = createDecipheriv('chacha20-poly1305', key, nonce, { authTagLength: AGE_TAG });
  d.setAuthTag(sealed.subarray(sealed.length - AGE_TAG));
  const body = d.update(sealed.subarray(0, sealed.length - AGE_TAG));
  try {
    d.final();
  } catch {
    return null;
  }
  return body;
}

const ZERO_NONCE = Buffer.alloc(12);

// ---- encryption -----------------------------------------------------------------------

/**
 * One age file being written to one X25519 recipient. `prefix` is the
 * header plus the payload nonce (the ciphertext of chunk i starts at
 * prefix.length + i × (64 KiB + 16)); `seal` encrypts any chunk by index,
 * so chunks may be produced and placed out of order.
 */
export class AgeEncryptor {
  readonly prefix: Buffer;
  private readonly payloadKey: Buffer;
  private readonly nonce = Buffer.alloc(12);

  constructor(recipient: string) {
    const recipientKey = parseRecipient(recipient);
    const fileKey = randomBytes(16);
    const eph = generateKeyPairSync('x25519');
    const share = rawPublic(eph.publicKey);
    const secret = sharedSecret(eph.privateKey, recipientKey);
    const wrapKey = hkdf(secret, Buffer.concat([share, recipientKey]), X25519_INFO);
    const body = aeadSeal(wrapKey, ZERO_NONCE, fileKey);
    const head = `${VERSION_LINE}\n-> X25519 ${b64(share)}\n${b64(body)}\n---`;
    const mac = createHmac('sha256', hkdf(fileKey, Buffer.alloc(0), 'header'))
      .update(head)
      .digest();
    const payloadNonce = randomBytes(16);
    this.payloadKey = hkdf(fileKey, payloadNonce, 'payload');
    this.prefix = Buffer.concat([Buffer.from(`${head} ${b64(mac)}\n`, 'latin1'), payloadNonce]);
  }

  /** Ciphertext of chunk `index` (1..64 KiB of plaintext, or 0 bytes only for an empty file's sole chunk). */
  seal(index: number, plain: Buffer, last: boolean): Buffer[] {
    setChunkNonce(this.nonce, index, last);
    const c = createCipheriv('chacha20-poly1305', this.payloadKey, this.nonce, { authTagLength: AGE_TAG });
    const body = c.update(plain);
    c.final();
    return [body, c.getAuthTag()];
  }

  /** File offset of chunk `index`. */
  offsetOf(index: number): number {
    return this.prefix.length + index * AGE_SEALED_CHUNK;
  }
}

function setChunkNonce(nonce: Buffer, index: number, last: boolean): void {
  if (!Number.isSafeInteger(index) || index < 0) throw new Error('age chunk counter out of range');
  nonce.fill(0, 0, 5);
  // Bytes 5..10: the low 48 bits of the 88-bit big-endian counter (2^48 chunks = 16 EiB).
  nonce.writeUIntBE(index, 5, 6);
  nonce[11] = last ? 1 : 0;
}

// ---- decryption -----------------------------------------------------------------------

interface Stanza {
  args: string[];
  body: Buffer;
}

/** Parses and authenticates the header at the start of `head`; throws AgeHeaderError. Returns null if `head` ends before the header does. */
function parseHeader(head: Buffer, identity: X25519Identity): { payloadKey: Buffer; payloadOffset: number } | null {
  let pos = 0;
  const line = (): string | null => {
    const nl = head.indexOf(0x0a, pos);
    if (nl < 0) return null;
    const s = head.subarray(pos, nl).toString('latin1');
    pos = nl + 1;
    return s;
  };
  const version = line();
  if (version === null) {
    if (head.length >= MAX_HEADER) throw new AgeHeaderError('not an age file (no version line)');
    return null;
  }
  if (version !== VERSION_LINE)
    throw new AgeHeaderError(version.startsWith('age-encryption.org/') ? `unsupported age version ${JSON.stringify(version.slice(0, 40))}` : 'not an age file');
  const stanzas: Stanza[] = [];
  let macLine: string | null = null;
  let macEnd = 0;
  for (;;) {
    const start = pos;
    const l = line();
    if (l === null) return null;
    if (l.startsWith('---')) {
      macEnd = start + 3;
      macLine = l;
      break;
    }
    if (!l.startsWith('-> ')) throw new AgeHeaderError('malformed age header (expected a stanza or the MAC line)');
    if (stanzas.length >= MAX_STANZAS) throw new AgeHeaderError('too many stanzas in the age header');
    const args = l.slice(3).split(' ');
    if (args.some((a) => !/^[\x21-\x7e]+$/.test(a))) throw new AgeHeaderError('malformed stanza arguments in the age header');
    const parts: Buffer[] = [];
    for (;;) {
      const b = line();
      if (b === null) return null;
      if (b.length > 64) throw new AgeHeaderError('malformed stanza body in the age header');
      parts.push(unb64(b, 'a stanza body'));
      if (b.length < 64) break;
    }
    stanzas.push({ args, body: Buffer.concat(parts) });
  }
  if (!/^--- [A-Za-z0-9+/]{43}$/.test(macLine)) throw new AgeHeaderError('malformed age header MAC line');
  if (stanzas.length === 0) throw new AgeHeaderError('the age header has no recipient stanza');
  const mac = unb64(macLine.slice(4), 'the header MAC');
  if (head.length < pos + 16) return null;
  const payloadNonce = head.subarray(pos, pos + 16);

  let fileKey: Buffer | null = null;
  for (const s of stanzas) {
    if (s.args[0] !== 'X25519') continue;
    if (s.args.length !== 2) throw new AgeHeaderError('malformed X25519 stanza');
    const share = unb64(s.args[1]!, 'an X25519 share');
    if (share.length !== 32) throw new AgeHeaderError('malformed X25519 stanza');
    if (s.body.length !== 32) throw new AgeHeaderError('malformed X25519 stanza body');
    const secret = sharedSecret(identity.privateKey, share);
    const wrapKey = hkdf(secret, Buffer.concat([share, identity.publicKey]), X25519_INFO);
    const k = aeadOpen(wrapKey, ZERO_NONCE, s.body);
    if (k) {
      fileKey = k;
      break;
    }
  }
  if (!fileKey) throw new AgeHeaderError("no identity matched any of the file's recipients");
  const expected = createHmac('sha256', hkdf(fileKey, Buffer.alloc(0), 'header'))
    .update(head.subarray(0, macEnd))
    .digest();
  if (!timingSafeEqual(expected, mac)) throw new AgeHeaderError('bad header MAC');
  return { payloadKey: hkdf(fileKey, Buffer.from(payloadNonce), 'payload'), payloadOffset: pos + 16 };
}

/**
 * Reads and authenticates the age header of the file at `path` with an
 * X25519 identity. Resolves with the payload key and where the encrypted
 * chunks start; rejects with AgeHeaderError (not age, wrong key, tampered
 * header) or AgePayloadError (the file ends inside the payload nonce).
 */
export async function openAgeFile(fh: FileHandle, identity: string): Promise<{ payloadKey: Buffer; payloadOffset: number }> {
  const id = parseIdentity(identity);
  let buf = Buffer.alloc(0);
  for (;;) {
    const more = Buffer.allocUnsafe(4096);
    const { bytesRead } = await fh.read(more, 0, more.length, buf.length);
    buf = Buffer.concat([buf, more.subarray(0, bytesRead)]);
    const r = parseHeader(buf, id);
    if (r) return r;
    if (bytesRead === 0) {
      // A complete, authentic header without the payload nonce is a truncated file; anything less is not an age header.
      if (/\n--- [A-Za-z0-9+/]{43}\n/.test(buf.toString('latin1'))) throw new AgePayloadError('the age file ends before its payload (truncated)');
      throw new AgeHeaderError('not an age file (incomplete header)');
    }
    if (buf.length > MAX_HEADER) throw new AgeHeaderError('the age header is too large');
  }
}

/**
 * The payload STREAM, decrypting: ciphertext in (from payloadOffset on),
 * authenticated plaintext out. A sealed chunk is opened only once it is
 * known whether another follows, so the final-chunk flag is always
 * checked; the end of input without a valid final chunk is an error.
 */
export class AgeDecryptStream extends Transform {
  /** Sealed bytes not yet opened: at most one chunk, which may be the final one. */
  private pending: Buffer = Buffer.alloc(0);
  private index = 0;
  private readonly nonce = Buffer.alloc(12);

  constructor(private readonly payloadKey: Buffer) {
    super({ readableHighWaterMark: 1024 * 1024 });
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    try {
      let data = chunk;
      // A chunk is opened as non-final only when more bytes follow it.
      if (this.pending.length) {
        if (this.pending.length + data.length <= AGE_SEALED_CHUNK) {
          this.pending = Buffer.concat([this.pending, data]);
          cb();
          return;
        }
        const need = AGE_SEALED_CHUNK - this.pending.length;
        this.push(this.open(Buffer.concat([this.pending, data.subarray(0, need)]), false));
        data = data.subarray(need);
      }
      while (data.length > AGE_SEALED_CHUNK) {
        this.push(this.open(data.subarray(0, AGE_SEALED_CHUNK), false));
        data = data.subarray(AGE_SEALED_CHUNK);
      }
      this.pending = data;
      cb();
    } catch (e) {
      cb(e as Error);
    }
  }

  override _flush(cb: TransformCallback): void {
    try {
      const rest = this.pending;
      this.pending = Buffer.alloc(0);
      if (rest.length === 0) throw new AgePayloadError('the age payload ends without its final chunk (truncated)');
      const plain = this.open(rest, true);
      if (plain.length === 0 && this.index > 1) throw new AgePayloadError('the age payload ends with an empty final chunk');
      if (plain.length) this.push(plain);
      cb();
    } catch (e) {
      cb(e as Error);
    }
  }

  private open(sealed: Buffer, last: boolean): Buffer {
    const plain = openChunk(this.payloadKey, this.nonce, this.index, sealed, last);
    this.index++;
    return plain;
  }
}

/**
 * The payload STREAM of an open age file, read and decrypted in one stage:
 * reads go into one reused buffer (a fresh buffer per read costs more in
 * page faults than the decryption itself on small VMs), every chunk
 * followed by more bytes is opened as non-final, and the last one as
 * final at end of file. Authenticated plaintext only; errors are
 * AgePayloadError. The file handle stays the caller's to close.
 */
export class AgePayloadReader extends Readable {
  private static readonly READ_CHUNKS = 16;
  private readonly buf = Buffer.allocUnsafe((AgePayloadReader.READ_CHUNKS + 1) * AGE_SEALED_CHUNK);
  private have = 0;
  private pos: number;
  private index = 0;
  private ended = false;
  private readonly nonce = Buffer.alloc(12);

  constructor(
    private readonly fh: FileHandle,
    private readonly payloadKey: Buffer,
    start: number,
  ) {
    super({ highWaterMark: 1024 * 1024 });
    this.pos = start;
  }

  override _read(): void {
    this.step().catch((e: Error) => this.destroy(e));
  }

  private async step(): Promise<void> {
    // All state is updated before the first push: a push may call _read again at once.
    if (this.ended) return;
    let eof = false;
    // Until more than one sealed chunk is buffered (so the first is certainly not the last), or the file ends.
    while (this.have <= AGE_SEALED_CHUNK || this.have < AGE_SEALED_CHUNK * AgePayloadReader.READ_CHUNKS) {
      const { bytesRead } = await this.fh.read(this.buf, this.have, this.buf.length - this.have, this.pos);
      if (bytesRead === 0) {
        eof = true;
        break;
      }
      this.have += bytesRead;
      this.pos += bytesRead;
    }
    const out: Buffer[] = [];
    let off = 0;
    while (this.have - off > AGE_SEALED_CHUNK) {
      out.push(this.open(this.buf.subarray(off, off + AGE_SEALED_CHUNK), false));
      off += AGE_SEALED_CHUNK;
    }
    if (eof) {
      const rest = this.buf.subarray(off, this.have);
      if (rest.length === 0) throw new AgePayloadError('the age payload ends without its final chunk (truncated)');
      const plain = this.open(rest, true);
      if (plain.length === 0 && this.index > 1) throw new AgePayloadError('the age payload ends with an empty final chunk');
      if (plain.length) out.push(plain);
      this.have = 0;
      this.ended = true;
    } else {
      this.buf.copyWithin(0, off, this.have);
      this.have -= off;
    }
    for (const b of out) this.push(b);
    if (eof) this.push(null);
  }

  private open(sealed: Buffer, last: boolean): Buffer {
    const plain = openChunk(this.payloadKey, this.nonce, this.index, sealed, last);
    this.index++;
    return plain;
  }
}

function openChunk(payloadKey: Buffer, nonce: Buffer, index: number, sealed: Buffer, last: boolean): Buffer {
  if (sealed.length < AGE_TAG) throw new AgePayloadError('the age payload ends inside a chunk (truncated)');
  setChunkNonce(nonce, index, last);
  const d = createDecipheriv('chacha20-poly1305', payloadKey, nonce, { authTagLength: AGE_TAG });
  d.setAuthTag(sealed.subarray(sealed.length - AGE_TAG));
  const body = d.update(sealed.subarray(0, sealed.length - AGE_TAG));
  try {
    d.final();
  } catch {
    throw new AgePayloadError(
      last
        ? `age chunk ${index} failed authentication as the final chunk (truncated or tampered)`
        : `age chunk ${index} failed authentication (tampered, or data after the final chunk)`,
    );
  }
  return body;
}
