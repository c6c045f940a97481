// Builds age v1 files piece by piece, from the spec (c2sp.org/age), for the
// reference corpus (test/unit/age-reference.test.ts): keys, stanzas (X25519,
// scrypt, any other), the header text and its MAC, the payload nonce and
// each STREAM chunk, so that one defect at a time can be put in a file that
// is otherwise valid. Written on node:crypto only — it shares no code with
// src/backup/age-stream.ts, the implementation under test.

import {
  createCipheriv,
  createHmac,
  createPrivateKey,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
  randomBytes,
  scryptSync,
} from 'node:crypto';

export const CHUNK = 64 * 1024;
export const TAG = 16;

/** Standard base64 without padding, as age writes it. */
export const b64 = (b: Buffer): string => b.toString('base64').replace(/=+$/, '');

// ---- Bech32 (BIP 173), encoding only ---------------------------------------------------

const CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';

function polymod(values: number[]): number {
  const gen = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];
  let chk = 1;
  for (const v of values) {
    const top = chk >>> 25;
    chk = ((chk & 0x1ffffff) << 5) ^ v;
    for (let i = 0; i < 5; i++) if ((top >>> i) & 1) chk ^= gen[i]!;
  }
  return chk >>> 0;
}

function bech32(hrp: string, data: Buffer): string {
  const words: number[] = [];
  let acc = 0;
  let bits = 0;
  for (const byte of data) {
    acc = (acc << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      words.push((acc >> bits) & 31);
    }
    acc &= (1 << bits) - 1;
  }
  if (bits) words.push((acc << (5 - bits)) & 31);
  const expanded = [...[...hrp].map((c) => c.charCodeAt(0) >> 5), 0, ...[...hrp].map((c) => c.charCodeAt(0) & 31)];
  const mod = polymod([...expanded, ...words, 0, 0, 0, 0, 0, 0]) ^ 1;
  const check = Array.from({ length: 6 }, (_, i) => (mod >>> (5 * (5 - i))) & 31);
  return `${hrp}1${[...words, ...check].map((w) => CHARSET[w]).join('')}`;
}

// ---- X25519 keys -------------------------------------------------------------------------

export interface ForgeKey {
  /** `AGE-SECRET-KEY-1…` */
  identity: string;
  /** `age1…` */
  recipient: string;
  /** The raw 32-byte public key. */
  publicKey: Buffer;
}

const rawOf = (jwkPart: string | undefined): Buffer => Buffer.from(jwkPart!, 'base64url');

export function newKey(): ForgeKey {
  const { privateKey } = generateKeyPairSync('x25519');
  const jwk = privateKey.export({ format: 'jwk' });
  const publicKey = rawOf(jwk.x);
  return { identity: bech32('age-secret-key-', rawOf(jwk.d)).toUpperCase(), recipient: bech32('age', publicKey), publicKey };
}

const PKCS8 = Buffer.from('302e020100300506032b656e04220420', 'hex');
const SPKI = Buffer.from('302a300506032b656e032100', 'hex');

/** X25519(scalar, point) on node:crypto (the keys as DER: RFC 8410). */
function x25519(scalar: Buffer, point: Buffer): Buffer {
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8, scalar]), format: 'der', type: 'pkcs8' });
  const publicKey = createPublicKey({ key: Buffer.concat([SPKI, point]), format: 'der', type: 'spki' });
  return diffieHellman({ privateKey, publicKey });
}

const hkdf = (ikm: Buffer, salt: Buffer, info: string): Buffer => Buffer.from(hkdfSync('sha256', ikm, salt, info, 32));

export function seal(key: Buffer, nonce: Buffer, plain: Buffer): Buffer {
  const c = createCipheriv('chacha20-poly1305', key, nonce, { authTagLength: TAG });
  const body = c.update(plain);
  c.final();
  return Buffer.concat([body, c.getAuthTag()]);
}

// ---- stanzas -----------------------------------------------------------------------------

export interface ForgeStanza {
  args: string[];
  /** The body as base64 text lines, exactly as written (each line without its newline). */
  lines: string[];
}

/** Body lines as the spec wants them: 64 columns each, the last one shorter (empty if the body fills whole lines). */
export function bodyLines(body: Buffer): string[] {
  const text = b64(body);
  const lines: string[] = [];
  for (let i = 0; i < text.length; i += 64) lines.push(text.slice(i, i + 64));
  if (text.length % 64 === 0) lines.push('');
  return lines;
}

/**
 * The X25519 stanza wrapping `fileKey` to `recipientKey`, from a fresh
 * ephemeral scalar. `editShare` changes the share as written (and as it
 * enters the HKDF salt), e.g. to set its unused top bit.
 */
export function x25519Stanza(recipientKey: Buffer, fileKey: Buffer, editShare: (share: Buffer) => Buffer = (s) => s): ForgeStanza {
  const ephemeral = randomBytes(32);
  const basepoint = Buffer.alloc(32);
  basepoint[0] = 9;
  const share = editShare(x25519(ephemeral, basepoint));
  const secret = x25519(ephemeral, recipientKey);
  const wrap = hkdf(secret, Buffer.concat([share, recipientKey]), 'age-encryption.org/v1/X25519');
  return { args: ['X25519', b64(share)], lines: bodyLines(seal(wrap, Buffer.alloc(12), fileKey)) };
}

/** The scrypt stanza wrapping `fileKey` under `passphrase` at work factor 2^logN. */
export function scryptStanza(passphrase: string, logN: number, fileKey: Buffer, salt: Buffer = randomBytes(16)): ForgeStanza {
  const key = scryptSync(passphrase, Buffer.concat([Buffer.from('age-encryption.org/v1/scrypt'), salt]), 32, {
    N: 2 ** logN,
    r: 8,
    p: 1,
    maxmem: 2 * 128 * 8 * 2 ** logN,
  });
  return { args: ['scrypt', b64(salt), String(logN)], lines: bodyLines(seal(key, Buffer.alloc(12), fileKey)) };
}

// ---- the whole file ----------------------------------------------------------------------

export interface ForgeChunk {
  plain: Buffer;
  /** Sealed with the last-chunk flag. */
  last: boolean;
  /** The STREAM counter sealed under (default: its position). */
  counter?: number;
}

/** The chunks a valid writer makes of `data`: 64 KiB each, the last flagged (an empty file: one empty final chunk). */
export function chunksOf(data: Buffer): ForgeChunk[] {
  const n = Math.max(1, Math.ceil(data.length / CHUNK));
  return Array.from({ length: n }, (_, i) => ({ plain: data.subarray(i * CHUNK, (i + 1) * CHUNK), last: i === n - 1 }));
}

export interface ForgeSpec {
  fileKey: Buffer;
  stanzas: ForgeStanza[];
  /** The header text up to and including `---`, from the stanzas by default (a defect may be put in it here; the MAC is computed over it). */
  editHeader?: (text: string) => string;
  /** The MAC line as written after `--- ` (default: the canonical base64 of the right MAC). */
  editMac?: (mac: Buffer) => string;
  payloadNonce?: Buffer;
  chunks: ForgeChunk[];
  /** What the sealed chunks become (reordered, cut, extended) before they are written. */
  editPayload?: (sealed: Buffer[]) => Buffer[];
}

export function headerText(stanzas: ForgeStanza[]): string {
  return `age-encryption.org/v1\n${stanzas.map((s) => `-> ${s.args.join(' ')}\n${s.lines.map((l) => `${l}\n`).join('')}`).join('')}---`;
}

export function headerMac(fileKey: Buffer, text: string): Buffer {
  return createHmac('sha256', hkdf(fileKey, Buffer.alloc(0), 'header'))
    .update(Buffer.from(text, 'latin1'))
    .digest();
}

export function chunkNonce(counter: number, last: boolean): Buffer {
  const n = Buffer.alloc(12);
  n.writeUIntBE(counter, 5, 6);
  n[11] = last ? 1 : 0;
  return n;
}

/** An age file: header (MAC over the possibly edited text), payload nonce, sealed chunks. */
export function forge(spec: ForgeSpec): Buffer {
  const text = (spec.editHeader ?? ((s: string) => s))(headerText(spec.stanzas));
  const mac = headerMac(spec.fileKey, text);
  const macText = spec.editMac ? spec.editMac(mac) : b64(mac);
  const nonce = spec.payloadNonce ?? randomBytes(16);
  const payloadKey = hkdf(spec.fileKey, nonce, 'payload');
  const sealed = spec.chunks.map((c, i) => seal(payloadKey, chunkNonce(c.counter ?? i, c.last), c.plain));
  return Buffer.concat([Buffer.from(`${text} ${macText}\n`, 'latin1'), nonce, ...(spec.editPayload ?? ((s) => s))(sealed)]);
}
