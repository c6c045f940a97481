// cleanerx's hand-written age v1 (src/backup/age-stream.ts) held to the two
// reference implementations on a corpus, both ways: Debian's `age` (the Go
// reference, with the test file its source package golang-filippo-age-dev
// ships) and the `age-encryption` npm package (a pinned dependency).
//
// - Every stanza and size cleanerx writes: X25519 files at 0, 1, 64 KiB − 1,
//   64 KiB, 64 KiB + 1 bytes, several chunks and several MiB, sealed in
//   order and out of order (as the archive writer does), and whole archives,
//   open with `age -d` and with age-encryption; files both of them write open
//   with cleanerx. The scrypt (passphrase) file identity.age: one written by
//   `age -p` unlocks in cleanerx (the other way, `age -d identity.age`, is in
//   backup-interop.test.ts).
// - Malformed files built from the spec (test/helpers/age-forge.ts, which
//   shares no code with src/), one defect each, in a file otherwise valid:
//   each is rejected by `age -d`, by age-encryption and by cleanerx, at the
//   same stage (header or payload), cleanerx with a clear error and without
//   releasing one byte of plaintext. Controls — unusual but valid files — open
//   in all three, so each rejection is about its defect.
//
// `age -d` reads a passphrase only from a terminal: those runs go through a PTY.

import { spawn } from '@lydell/node-pty';
import { Decrypter, Encrypter } from 'age-encryption';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, promises as fsp, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AGE_CHUNK, AgeDecryptStream, AgeEncryptor, AgeHeaderError, AgePayloadError, AgePayloadReader, openAgeFile } from '../../src/backup/age-stream.js';
import { collectFiles, MANIFEST_NAME, readArchive, writeArchive, type Manifest } from '../../src/backup/archive.js';
import { identityPath, unlockIdentity } from '../../src/backup/keystore.js';
import { ensurePrivateDir } from '../../src/engine/host/atomic.js';
import { ownDirs } from '../../src/engine/host/own-dirs.js';
import { b64, bodyLines, CHUNK, chunksOf, type ForgeChunk, type ForgeKey, forge, newKey, scryptStanza, x25519Stanza } from '../helpers/age-forge.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

const AGE = '/usr/bin/age';
const ZSTD = '/usr/bin/zstd';
const TAR = '/usr/bin/tar';
/** golang-filippo-age-dev: the reference's own test file and its key (installed by scripts/ensure-system-tools.mjs). */
const GO_TESTDATA = '/usr/share/gocode/src/filippo.io/age/testdata';
const PASS = 'correct horse battery staple';
/**
 * A stock tool that has not answered in this long is stuck: killed, and the
 * test fails saying so (never a hang). Under vitest's 30 s per test; the
 * slowest run here (`age -p` at scrypt 2^18) takes ~1 s quiet, ~5 s at load 8
 * on 2 cores.
 */
const TOOL_LIMIT_MS = 25_000;

let t: TempEnv;
let key: ForgeKey;
let keyTxt: string;
beforeEach(() => {
  t = makeTempEnv('cleanerx-age-ref-');
  key = newKey();
  keyTxt = join(t.root, 'key.txt');
  writeFileSync(keyTxt, `${key.identity}\n`, { mode: 0o600 });
});
afterEach(() => t.cleanup());

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
let n = 0;
const fileOf = (b: Buffer): string => {
  const p = join(t.root, `f${n++}.age`);
  writeFileSync(p, b);
  return p;
};

// ---- the three implementations, each as a function of bytes --------------------------------

/** Debian's age: exit status, stdout, stderr. */
function goDecrypt(file: string, identityFile = keyTxt): { status: number | null; stdout: Buffer; stderr: string } {
  const r = spawnSync(AGE, ['-d', '-i', identityFile, file], { env: t.env, maxBuffer: 64 << 20, timeout: TOOL_LIMIT_MS, stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.error) throw new Error(`age -d did not finish: ${r.error.message}`);
  return { status: r.status, stdout: r.stdout, stderr: r.stderr.toString() };
}

function goEncrypt(data: Buffer, recipients: string[], armor = false): Buffer {
  const plain = join(t.root, `plain${n++}`);
  const out = `${plain}.age`;
  writeFileSync(plain, data);
  execFileSync(AGE, ['-e', ...(armor ? ['-a'] : []), ...recipients.flatMap((r) => ['-r', r]), '-o', out, plain], {
    env: t.env,
    timeout: TOOL_LIMIT_MS,
    stdio: 'ignore',
  });
  return readFileSync(out);
}

async function jsDecrypt(file: Buffer, identity = key.identity): Promise<Buffer> {
  const d = new Decrypter();
  d.addIdentity(identity);
  return Buffer.from(await d.decrypt(file));
}

async function jsEncrypt(data: Buffer, recipients: string[]): Promise<Buffer> {
  const e = new Encrypter();
  for (const r of recipients) e.addRecipient(r);
  return Buffer.from(await e.encrypt(data));
}

/**
 * cleanerx's reader as readArchive uses it (header, then AgePayloadReader on
 * the same handle). `emitted` counts every plaintext byte it released, also
 * when it fails afterwards.
 */
async function oursDecrypt(file: string, identity = key.identity): Promise<{ plain?: Buffer; error?: Error; emitted: number }> {
  const fh = await fsp.open(file, 'r');
  const out: Buffer[] = [];
  try {
    const { payloadKey, payloadOffset } = await openAgeFile(fh, identity);
    for await (const c of new AgePayloadReader(fh, payloadKey, payloadOffset)) out.push(c as Buffer);
    return { plain: Buffer.concat(out), emitted: Buffer.concat(out).length };
  } catch (error) {
    return { error: error as Error, emitted: Buffer.concat(out).length };
  } finally {
    await fh.close();
  }
}

/** The same file through the AgeDecryptStream transform, fed in pieces of `piece` bytes. */
async function oursDecryptPieces(file: string, piece: number, identity = key.identity): Promise<{ plain?: Buffer; error?: Error; emitted: Buffer }> {
  const fh = await fsp.open(file, 'r');
  const out: Buffer[] = [];
  try {
    const { payloadKey, payloadOffset } = await openAgeFile(fh, identity);
    const rest = readFileSync(file).subarray(payloadOffset);
    const pieces: Buffer[] = [];
    for (let o = 0; o < rest.length; o += piece) pieces.push(rest.subarray(o, o + piece));
    for await (const c of Readable.from(pieces).pipe(new AgeDecryptStream(payloadKey))) out.push(c as Buffer);
    return { plain: Buffer.concat(out), emitted: Buffer.concat(out) };
  } catch (error) {
    return { error: error as Error, emitted: Buffer.concat(out) };
  } finally {
    await fh.close();
  }
}

/** cleanerx's writer, chunk by chunk in order. */
function oursEncrypt(data: Buffer, recipient = key.recipient): Buffer {
  const enc = new AgeEncryptor(recipient);
  const parts = [enc.prefix];
  const count = Math.max(1, Math.ceil(data.length / AGE_CHUNK));
  for (let i = 0; i < count; i++) parts.push(...enc.seal(i, data.subarray(i * AGE_CHUNK, (i + 1) * AGE_CHUNK), i === count - 1));
  return Buffer.concat(parts);
}

/** cleanerx's writer as the archive writer uses it: chunks sealed in reverse order, each written at offsetOf(i). */
function oursEncryptOutOfOrder(data: Buffer, recipient = key.recipient): Buffer {
  const enc = new AgeEncryptor(recipient);
  const count = Math.max(1, Math.ceil(data.length / AGE_CHUNK));
  const file = Buffer.alloc(enc.offsetOf(0) + data.length + count * 16);
  enc.prefix.copy(file, 0);
  for (let i = count - 1; i >= 0; i--)
    Buffer.concat(enc.seal(i, data.subarray(i * AGE_CHUNK, (i + 1) * AGE_CHUNK), i === count - 1)).copy(file, enc.offsetOf(i));
  return file;
}

// ---- the reference's own test file ----------------------------------------------------------

describe("the Go reference's test file (golang-filippo-age-dev testdata/example.age)", () => {
  const example = join(GO_TESTDATA, 'example.age');
  const exampleKeys = join(GO_TESTDATA, 'example_keys.txt');
  const exampleIdentity = (): string =>
    readFileSync(exampleKeys, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('AGE-SECRET-KEY-1'))!;

  it('is installed (scripts/ensure-system-tools.mjs installs the package)', () => {
    for (const f of [example, exampleKeys]) expect(existsSync(f), f).toBe(true);
  });

  it('opens in cleanerx with its key, to the plaintext age -d and age-encryption give (the Go example test expects "Black lives matter.")', async () => {
    const go = goDecrypt(example, exampleKeys);
    expect(go.stderr).toBe('');
    expect(go.stdout.toString()).toBe('Black lives matter.');
    expect((await jsDecrypt(readFileSync(example), exampleIdentity())).equals(go.stdout)).toBe(true);
    expect((await oursDecrypt(example, exampleIdentity())).plain?.equals(go.stdout)).toBe(true);
    expect((await oursDecryptPieces(example, 7, exampleIdentity())).plain?.equals(go.stdout)).toBe(true);
  });

  it('with one byte cut, one byte appended, or one MAC character changed, all three refuse it', async () => {
    const good = readFileSync(example);
    const macAt = good.indexOf('\n--- ') + 5;
    const mac = Buffer.from(good);
    mac[macAt] = mac[macAt] === 0x41 ? 0x42 : 0x41;
    for (const [bad, at] of [
      [good.subarray(0, -1), AgePayloadError],
      [Buffer.concat([good, Buffer.from([0])]), AgePayloadError],
      [mac, AgeHeaderError],
    ] as const) {
      const f = fileOf(bad);
      expect(goDecrypt(f, exampleKeys).status).not.toBe(0);
      await expect(jsDecrypt(bad, exampleIdentity())).rejects.toThrow();
      const ours = await oursDecrypt(f, exampleIdentity());
      expect(ours.error).toBeInstanceOf(at);
      expect(ours.emitted).toBe(0);
    }
  });
});

// ---- X25519 files, both ways, at every size ------------------------------------------------

const SIZES: [string, number][] = [
  ['empty', 0],
  ['1 byte', 1],
  ['64 KiB − 1', AGE_CHUNK - 1],
  ['64 KiB (one full final chunk)', AGE_CHUNK],
  ['64 KiB + 1', AGE_CHUNK + 1],
  ['several chunks', 3 * AGE_CHUNK + 12_345],
  ['several MiB (more chunks than the reader reads ahead)', 5 * 1024 * 1024 + 7],
];

describe('X25519 files, both ways, at every size', () => {
  it.each(SIZES)('cleanerx → age -d and age-encryption: %s', async (_name, size) => {
    const data = randomBytes(size);
    for (const file of [oursEncrypt(data), oursEncryptOutOfOrder(data)]) {
      const go = goDecrypt(fileOf(file));
      expect(go.stderr).toBe('');
      expect(go.stdout.equals(data)).toBe(true);
      expect((await jsDecrypt(file)).equals(data)).toBe(true);
    }
  });

  it.each(SIZES)('age -e and age-encryption → cleanerx: %s', async (_name, size) => {
    const data = randomBytes(size);
    for (const file of [goEncrypt(data, [key.recipient]), await jsEncrypt(data, [key.recipient])]) {
      const f = fileOf(file);
      expect((await oursDecrypt(f)).plain?.equals(data)).toBe(true);
      for (const piece of [1000, AGE_CHUNK + 16, 1 << 20]) expect((await oursDecryptPieces(f, piece)).plain?.equals(data), `piece ${piece}`).toBe(true);
    }
  });

  it('files for several recipients, from both references: cleanerx finds its stanza among the others', async () => {
    const others = [newKey().recipient, newKey().recipient];
    const data = randomBytes(100_000);
    for (const file of [goEncrypt(data, [others[0]!, key.recipient, others[1]!]), await jsEncrypt(data, [...others, key.recipient])]) {
      expect((await oursDecrypt(fileOf(file))).plain?.equals(data)).toBe(true);
    }
  });

  describe('whole archives', () => {
    function tree(files: Record<string, Buffer>): string {
      const src = t.env.PI_CODING_AGENT_DIR!;
      for (const [rel, body] of Object.entries(files)) {
        mkdirSync(dirname(join(src, rel)), { recursive: true });
        writeFileSync(join(src, rel), body, { mode: 0o600 });
        chmodSync(join(src, rel), 0o600);
      }
      return src;
    }

    it('an archive cleanerx writes (several MiB, chunks placed out of order) is the same plaintext to age -d and age-encryption: zstd -d | tar -t lists it', async () => {
      const files: Record<string, Buffer> = {
        'sessions/--p--/a.jsonl': Buffer.from('{"type":"session"}\n'.repeat(5000)),
        'sessions/--p--/random.bin': randomBytes(6 * 1024 * 1024 + 3),
        'sessions/--p--/empty.jsonl': Buffer.alloc(0),
      };
      const src = tree(files);
      const cxb = join(t.root, `${randomUUID()}.cxb`);
      await writeArchive({
        archivePath: cxb,
        recipient: key.recipient,
        agent: 'pi',
        operationId: 'op',
        id: randomUUID(),
        itemCount: 1,
        retentionDays: 1,
        files: await collectFiles([join(src, 'sessions')], [{ label: 'pi_home', dir: src }]),
      });
      const go = goDecrypt(cxb);
      expect(go.stderr).toBe('');
      const js = await jsDecrypt(readFileSync(cxb));
      expect(sha(js)).toBe(sha(go.stdout));
      const list = spawnSync('/bin/bash', ['-o', 'pipefail', '-c', `${ZSTD} -d -q | ${TAR} -t`], {
        env: t.env,
        input: js,
        encoding: 'utf8',
        timeout: TOOL_LIMIT_MS,
      });
      expect(list.status, list.stderr).toBe(0);
      const names = list.stdout.trim().split('\n');
      expect(names[0]).toBe(MANIFEST_NAME);
      expect(names.slice(1).sort()).toEqual(
        Object.keys(files)
          .map((f) => `payload/pi_home/${f}`)
          .sort(),
      );
    });

    it('an archive age-encryption encrypts (tar | zstd, then age-encryption) is read and checked by cleanerx', async () => {
      const body = randomBytes(200_000);
      const manifest: Manifest = {
        formatVersion: 1,
        id: randomUUID(),
        agent: 'pi',
        createdAt: new Date().toISOString(),
        expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
        operationId: 'op-js',
        itemCount: 1,
        originalBytes: body.length,
        archiveBytes: 0,
        entries: [{ root: 'pi_home', relativePath: 'sessions/s.jsonl', sha256: sha(body), sizeBytes: body.length }],
      };
      const stage = join(t.root, 'stage');
      mkdirSync(join(stage, 'payload/pi_home/sessions'), { recursive: true });
      writeFileSync(join(stage, MANIFEST_NAME), JSON.stringify(manifest));
      writeFileSync(join(stage, 'payload/pi_home/sessions/s.jsonl'), body);
      const tarZst = execFileSync('/bin/bash', ['-o', 'pipefail', '-c', `${TAR} -cf - ${MANIFEST_NAME} payload/pi_home/sessions/s.jsonl | ${ZSTD} -3 -q -c`], {
        cwd: stage,
        env: t.env,
        maxBuffer: 64 << 20,
        timeout: TOOL_LIMIT_MS,
      });
      const cxb = join(t.root, 'js.cxb');
      writeFileSync(cxb, await jsEncrypt(tarZst, [key.recipient]));
      const got = new Map<string, string>();
      expect(
        await readArchive(cxb, key.identity, { payload: async (e, s) => void got.set(e.relativePath, sha(Buffer.concat(await s.toArray()))) }, 'pi'),
      ).toEqual(manifest);
      expect(Object.fromEntries(got)).toEqual({ 'sessions/s.jsonl': sha(body) });
    });
  });
});

// ---- malformed X25519 files ----------------------------------------------------------------

/** Three full chunks: the final one is full, so only its flag marks the end. */
const DATA = randomBytes(3 * CHUNK);
const fresh = (): Buffer => randomBytes(16);
/** A valid file for `key`, with `edit` applied to its spec. */
function x25519File(edit: (fileKey: Buffer) => Partial<Parameters<typeof forge>[0]> = () => ({})): Buffer {
  const fileKey = fresh();
  return forge({ fileKey, stanzas: [x25519Stanza(key.publicKey, fileKey)], chunks: chunksOf(DATA), ...edit(fileKey) });
}
/** A copy of `b` with `bit` of byte `i` flipped. */
const flipped = (b: Buffer, i: number, bit: number): Buffer => {
  const c = Buffer.from(b);
  c[i]! ^= bit;
  return c;
};
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
/** The same bytes in a non-canonical spelling: the last character's unused low bits set. */
const nonCanonical = (s: string): string => {
  const bits = s.length % 4 === 2 ? 4 : 2;
  const last = ALPHABET.indexOf(s[s.length - 1]!);
  expect(last & ((1 << bits) - 1)).toBe(0);
  return s.slice(0, -1) + ALPHABET[last | 1];
};
const withBody = (lines: (l: string[]) => string[]) => (fileKey: Buffer) => {
  const s = x25519Stanza(key.publicKey, fileKey);
  return { stanzas: [{ args: s.args, lines: lines(s.lines) }] };
};
const withArgs = (args: (a: string[]) => string[], body?: (fileKey: Buffer) => Buffer) => (fileKey: Buffer) => {
  const s = x25519Stanza(key.publicKey, body ? body(fileKey) : fileKey);
  return { stanzas: [{ args: args(s.args), lines: s.lines }] };
};
const sealedChunks = (chunks: ForgeChunk[]) => () => ({ chunks });
const part = (i: number): Buffer => DATA.subarray(i * CHUNK, (i + 1) * CHUNK);
/** A stanza for no one, put before ours: the share is a low-order point. */
const lowOrder = (share: string) => (fileKey: Buffer) => ({
  stanzas: [{ args: ['X25519', b64(Buffer.from(share, 'hex'))], lines: bodyLines(randomBytes(32)) }, x25519Stanza(key.publicKey, fileKey)],
});

interface Malformed {
  name: string;
  file: () => Buffer;
  /** Where every implementation stops: in the header (nothing decrypted) or in the payload. */
  at: 'header' | 'payload';
  /** What each one says. */
  go: RegExp;
  js: RegExp;
  ours: RegExp;
}

const MALFORMED: Malformed[] = [
  // -- the header MAC
  {
    name: 'bad header MAC (one bit of it flipped)',
    file: () => x25519File(() => ({ editMac: (m) => b64(flipped(m, 7, 0x10)) })),
    at: 'header',
    go: /bad header MAC/,
    js: /invalid header HMAC/,
    ours: /bad header MAC/,
  },
  {
    name: 'bad header MAC (a stanza argument changed after the MAC was computed)',
    file: () => {
      const f = x25519File((fileKey) => ({ stanzas: [{ args: ['example.com/other', 'AAAA'], lines: [''] }, x25519Stanza(key.publicKey, fileKey)] }));
      const at = f.indexOf('-> example.com/other AAAA');
      f[at + 21] = 0x42; // AAAA → AABA
      return f;
    },
    at: 'header',
    go: /bad header MAC/,
    js: /invalid header HMAC/,
    ours: /bad header MAC/,
  },
  // -- non-canonical base64 (the spec: canonical, no padding)
  {
    name: 'non-canonical base64 in a stanza body',
    file: () => x25519File(withBody((l) => [nonCanonical(l[0]!)])),
    at: 'header',
    go: /malformed body line.*illegal base64/,
    js: /Non-zero padding/,
    ours: /non-canonical base64 in a stanza body/,
  },
  {
    name: 'non-canonical base64 in the X25519 share',
    file: () => x25519File(withArgs((a) => [a[0]!, nonCanonical(a[1]!)])),
    at: 'header',
    go: /failed to parse X25519 recipient: illegal base64/,
    js: /Non-zero padding/,
    ours: /non-canonical base64 in an X25519 share/,
  },
  {
    name: 'non-canonical base64 in the header MAC',
    file: () => x25519File(() => ({ editMac: (m) => nonCanonical(b64(m)) })),
    at: 'header',
    go: /malformed closing line.*illegal base64/,
    js: /Non-zero padding/,
    ours: /non-canonical base64 in the header MAC/,
  },
  // -- padding: '=' where age allows none, and the stanza body's line structure
  {
    name: 'wrong padding: "=" after a stanza body',
    file: () => x25519File(withBody((l) => [`${l[0]}=`])),
    at: 'header',
    go: /malformed body line.*illegal base64/,
    js: /Unknown letter "="/,
    ours: /invalid base64 in a stanza body/,
  },
  {
    name: 'wrong padding: "=" after the X25519 share',
    file: () => x25519File(withArgs((a) => [a[0]!, `${a[1]}=`])),
    at: 'header',
    go: /failed to parse X25519 recipient: illegal base64/,
    js: /Unknown letter "="/,
    ours: /invalid base64 in an X25519 share/,
  },
  {
    name: 'wrong padding: "=" after the header MAC',
    file: () => x25519File(() => ({ editMac: (m) => m.toString('base64') })),
    at: 'header',
    go: /malformed closing line.*illegal base64/,
    js: /Unknown letter "="/,
    ours: /malformed age header MAC line/,
  },
  {
    name: 'a body of whole 64-column lines without the short line that must end it',
    file: () => x25519File((fileKey) => ({ stanzas: [{ args: ['example.com/other'], lines: [b64(randomBytes(48))] }, x25519Stanza(key.publicKey, fileKey)] })),
    at: 'header',
    go: /stanza ended without a short line/,
    js: /Unknown letter "-"/,
    ours: /invalid base64 in a stanza body/,
  },
  {
    name: 'a body line of 65 columns',
    file: () =>
      x25519File((fileKey) => ({ stanzas: [{ args: ['example.com/other'], lines: [`${b64(randomBytes(48))}A`, ''] }, x25519Stanza(key.publicKey, fileKey)] })),
    at: 'header',
    go: /malformed body line/,
    js: /Excess padding/,
    ours: /malformed stanza body/,
  },
  // -- the header's other structure
  {
    name: 'another version line (age-encryption.org/v2)',
    file: () => x25519File(() => ({ editHeader: (h) => h.replace('/v1\n', '/v2\n') })),
    at: 'header',
    go: /unexpected intro/,
    js: /invalid version/,
    ours: /unsupported age version/,
  },
  {
    name: 'a CRLF line end',
    file: () => x25519File(() => ({ editHeader: (h) => h.replace('/v1\n', '/v1\r\n') })),
    at: 'header',
    go: /intro/,
    js: /non-ASCII|invalid version/,
    ours: /unsupported age version/,
  },
  {
    name: 'an empty stanza argument (two spaces)',
    file: () => x25519File((fileKey) => ({ stanzas: [{ args: ['example.com/other', '', 'x'], lines: [''] }, x25519Stanza(key.publicKey, fileKey)] })),
    at: 'header',
    go: /malformed stanza/,
    js: /invalid stanza/,
    ours: /malformed stanza arguments/,
  },
  {
    name: 'a stanza argument outside printable ASCII (DEL)',
    file: () => x25519File((fileKey) => ({ stanzas: [{ args: ['example.com/x\x7f'], lines: [''] }, x25519Stanza(key.publicKey, fileKey)] })),
    at: 'header',
    go: /malformed stanza/,
    js: /non-ASCII/,
    ours: /malformed stanza arguments/,
  },
  {
    name: 'an X25519 stanza with a second argument',
    file: () => x25519File(withArgs((a) => [...a, 'extra'])),
    at: 'header',
    go: /invalid X25519 recipient block/,
    js: /invalid X25519 stanza/,
    ours: /malformed X25519 stanza/,
  },
  {
    name: 'an X25519 share of 31 bytes',
    file: () => x25519File(withArgs((a) => [a[0]!, b64(Buffer.from(`${a[1]}=`, 'base64').subarray(0, 31))])),
    at: 'header',
    go: /invalid X25519 recipient block/,
    js: /invalid X25519 stanza/,
    ours: /malformed X25519 stanza/,
  },
  {
    name: 'an X25519 body of 33 bytes (a 17-byte file key)',
    file: () =>
      x25519File(
        withArgs(
          (a) => a,
          (fileKey) => Buffer.concat([fileKey, Buffer.from([0])]),
        ),
      ),
    at: 'header',
    go: /incorrect file key size/,
    js: /invalid stanza/,
    ours: /malformed X25519 stanza body/,
  },
  ...[
    ['0', '0000000000000000000000000000000000000000000000000000000000000000'],
    ['1', '0100000000000000000000000000000000000000000000000000000000000000'],
    ['of order 8', 'e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800'],
    ['p (= 0)', 'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f'],
  ].map(
    ([what, hex]): Malformed => ({
      name: `a low-order X25519 share (${what}) in a stanza before ours: an all-zero shared secret`,
      file: () => x25519File(lowOrder(hex!)),
      at: 'header',
      go: /low order point/,
      js: /operation failed/,
      ours: /invalid X25519 share/,
    }),
  ),
  {
    name: 'no stanza at all',
    file: () => forge({ fileKey: fresh(), stanzas: [], chunks: chunksOf(DATA) }),
    at: 'header',
    go: /no identity matched/,
    js: /no identity matched/,
    ours: /no recipient stanza/,
  },
  {
    name: 'a header cut before its MAC line',
    file: () => {
      const f = x25519File();
      return f.subarray(0, f.indexOf('\n---') + 1);
    },
    at: 'header',
    go: /failed to read header/,
    js: /invalid stanza|stream ended/,
    ours: /incomplete header/,
  },
  // -- the payload: nonce, truncation, order, the final-chunk flag, trailing data
  {
    name: 'a payload nonce cut short (10 of 16 bytes)',
    file: () => x25519File(() => ({ payloadNonce: randomBytes(10), chunks: [] })),
    at: 'payload',
    go: /failed to read nonce/,
    js: /stream ended before reading 16 bytes/,
    ours: /ends before its payload/,
  },
  {
    name: 'no chunk after the nonce',
    file: () => x25519File(() => ({ chunks: [] })),
    at: 'payload',
    go: /unexpected EOF/,
    js: /tagLength|ciphertext/,
    ours: /ends without its final chunk/,
  },
  {
    name: 'truncated: the final chunk cut by one byte',
    file: () => x25519File().subarray(0, -1),
    at: 'payload',
    go: /failed to decrypt and authenticate payload chunk/,
    js: /invalid tag/,
    ours: /chunk 2 failed authentication as the final chunk/,
  },
  {
    name: 'truncated at a chunk boundary: the final chunk missing',
    file: () => x25519File(() => ({ editPayload: (s) => s.slice(0, 2) })),
    at: 'payload',
    go: /unexpected EOF/,
    js: /invalid tag/,
    ours: /chunk 1 failed authentication as the final chunk/,
  },
  {
    name: 'reordered: chunks 0 and 1 swapped',
    file: () => x25519File(() => ({ editPayload: (s) => [s[1]!, s[0]!, s[2]!] })),
    at: 'payload',
    go: /failed to decrypt and authenticate payload chunk/,
    js: /invalid tag/,
    ours: /chunk 0 failed authentication/,
  },
  {
    name: 'a chunk sealed under another counter (chunk 0 sealed as 1)',
    file: () => x25519File(sealedChunks([{ plain: part(0), last: false, counter: 1 }, ...chunksOf(DATA).slice(1)])),
    at: 'payload',
    go: /failed to decrypt and authenticate payload chunk/,
    js: /invalid tag/,
    ours: /chunk 0 failed authentication/,
  },
  {
    name: 'the last chunk marked twice (chunks 0 and 1 both sealed as final)',
    file: () =>
      x25519File(
        sealedChunks([
          { plain: part(0), last: true },
          { plain: part(1), last: true },
        ]),
      ),
    at: 'payload',
    go: /trailing data after end of encrypted file/,
    js: /invalid tag/,
    ours: /chunk 0 failed authentication \(tampered, or data after the final chunk\)/,
  },
  {
    name: 'a middle chunk marked final (1 of 0, 1, 2)',
    file: () =>
      x25519File(
        sealedChunks([
          { plain: part(0), last: false },
          { plain: part(1), last: true },
          { plain: part(2), last: true },
        ]),
      ),
    at: 'payload',
    go: /trailing data after end of encrypted file/,
    js: /invalid tag/,
    ours: /chunk 1 failed authentication/,
  },
  {
    name: 'no chunk marked final',
    file: () => x25519File(sealedChunks(chunksOf(DATA).map((c) => ({ ...c, last: false })))),
    at: 'payload',
    go: /unexpected EOF/,
    js: /invalid tag/,
    ours: /chunk 2 failed authentication as the final chunk/,
  },
  {
    name: 'an empty final chunk after a full one',
    file: () =>
      x25519File(
        sealedChunks([
          { plain: part(0), last: false },
          { plain: Buffer.alloc(0), last: true },
        ]),
      ),
    at: 'payload',
    go: /last chunk is empty/,
    js: /final chunk is empty/,
    ours: /empty final chunk/,
  },
  {
    name: 'a short chunk that is not the last',
    file: () =>
      x25519File(
        sealedChunks([
          { plain: part(0).subarray(0, 100), last: false },
          { plain: part(1), last: true },
        ]),
      ),
    at: 'payload',
    go: /failed to decrypt and authenticate payload chunk/,
    js: /invalid tag/,
    ours: /chunk 0 failed authentication/,
  },
  ...(
    [
      ['one byte', 1],
      ['16 bytes', 16],
      ['a whole chunk', CHUNK + 16],
    ] as const
  ).map(
    ([what, len]): Malformed => ({
      name: `trailing data after the final chunk: ${what}`,
      file: () => Buffer.concat([x25519File(), randomBytes(len)]),
      at: 'payload',
      go: /trailing data after end of encrypted file/,
      js: /invalid tag/,
      ours: /chunk 2 failed authentication \(tampered, or data after the final chunk\)/,
    }),
  ),
];

describe('malformed X25519 files from the spec: rejected by age -d, by age-encryption and by cleanerx, at the same stage', () => {
  it.each(MALFORMED.map((m) => [m.name, m] as const))('%s', async (_name, m) => {
    const bytes = m.file();
    const f = fileOf(bytes);
    const go = goDecrypt(f);
    expect(go.status, 'age -d refuses it').not.toBe(0);
    expect(go.stderr).toMatch(m.go);
    // A header defect: the reference releases nothing either.
    if (m.at === 'header') expect(go.stdout.length).toBe(0);
    await expect(jsDecrypt(bytes), 'age-encryption refuses it').rejects.toThrow(m.js);

    // cleanerx: the right error class (header or payload), the reason, and no plaintext.
    const ours = await oursDecrypt(f);
    expect(ours.plain, 'cleanerx returned plaintext').toBeUndefined();
    expect(ours.error).toBeInstanceOf(m.at === 'header' ? AgeHeaderError : AgePayloadError);
    expect(ours.error!.message).toMatch(m.ours);
    expect(ours.emitted, 'plaintext bytes released before the refusal').toBe(0);
    // The transform reader too; what it released before refusing is whole authenticated chunks before the defect, never more.
    for (const piece of [4096, AGE_CHUNK + 16]) {
      const p = await oursDecryptPieces(f, piece);
      expect(p.plain).toBeUndefined();
      expect(p.error).toBeInstanceOf(m.at === 'header' ? AgeHeaderError : AgePayloadError);
      expect(p.emitted.length % CHUNK).toBe(0);
      expect(p.emitted.length).toBeLessThan(DATA.length);
      expect(p.emitted.equals(DATA.subarray(0, p.emitted.length))).toBe(true);
    }
    // And the backup reader says which, in a sentence.
    await expect(readArchive(f, key.identity)).rejects.toThrow(
      m.at === 'header' ? /^The archive cannot be decrypted with this key \(.+\)\.$/ : /^The archive is damaged: .+/,
    );
  });

  it('the defects are the only ones: the same files without them (controls) open in all three', async () => {
    const other = newKey();
    const controls: [string, Buffer][] = [
      ['as forged', x25519File()],
      ['an empty file (one empty final chunk)', x25519File(() => ({ chunks: chunksOf(Buffer.alloc(0)) }))],
      [
        'other stanzas before ours: an unknown type with a 48-byte body (so an empty last line), another key, an all-zero-free share with its unused top bit set',
        x25519File((fileKey) => ({
          stanzas: [
            { args: ['example.com/other', 'AAAA'], lines: bodyLines(randomBytes(48)) },
            x25519Stanza(other.publicKey, fileKey),
            x25519Stanza(key.publicKey, fileKey, (s) => {
              const c = Buffer.from(s);
              c[31]! |= 0x80;
              return c;
            }),
          ],
        })),
      ],
      [
        // The spec's "scrypt stanza alone" rule binds the passphrase identity; an X25519 identity ignores the scrypt stanza, as both references do.
        'an scrypt stanza beside ours',
        x25519File((fileKey) => ({ stanzas: [scryptStanza(PASS, 10, fileKey), x25519Stanza(key.publicKey, fileKey)] })),
      ],
    ];
    for (const [name, bytes] of controls) {
      const data = name.startsWith('an empty') ? Buffer.alloc(0) : DATA;
      const f = fileOf(bytes);
      const go = goDecrypt(f);
      expect(go.stderr, name).toBe('');
      expect(go.stdout.equals(data), name).toBe(true);
      expect((await jsDecrypt(bytes)).equals(data), name).toBe(true);
      expect((await oursDecrypt(f)).plain?.equals(data), name).toBe(true);
    }
  });

  it('stricter than the references by design, with a clear error: more than 64 stanzas, and the ASCII armor (`age -a`)', async () => {
    const many = x25519File((fileKey) => ({
      stanzas: [...Array.from({ length: 65 }, (_, i) => ({ args: [`example.com/${i}`], lines: [''] })), x25519Stanza(key.publicKey, fileKey)],
    }));
    expect(goDecrypt(fileOf(many)).stdout.equals(DATA)).toBe(true);
    expect((await jsDecrypt(many)).equals(DATA)).toBe(true);
    const m = await oursDecrypt(fileOf(many));
    expect(m.error?.message).toMatch(/too many stanzas/);
    // The armor is an encoding of the binary file that cleanerx never writes; age -d reads both.
    const armored = goEncrypt(DATA, [key.recipient], true);
    expect(armored.toString('latin1')).toMatch(/^-----BEGIN AGE ENCRYPTED FILE-----\n/);
    expect(goDecrypt(fileOf(armored)).stdout.equals(DATA)).toBe(true);
    const a = await oursDecrypt(fileOf(armored));
    expect(a.error).toBeInstanceOf(AgeHeaderError);
    expect(a.error?.message).toMatch(/not an age file/);
    expect(a.emitted).toBe(0);
  });
});

// ---- the passphrase-protected key file -----------------------------------------------------

/**
 * `age` at a terminal (its passphrase prompts go to /dev/tty): answers each
 * prompt with `pass`, and resolves with its exit code, its stderr (sent to a
 * file: a PTY may report the exit before the last output) and the screen.
 * Killed (and rejected) if it has not exited within TOOL_LIMIT_MS.
 */
function ageAtTerminal(args: string[], pass: string): Promise<{ code: number; stderr: string; screen: string }> {
  const errFile = join(t.root, `age-stderr-${n++}`);
  return new Promise((resolve, reject) => {
    const pty = spawn('/bin/sh', ['-c', 'exec "$0" "$@" 2>"$AGE_STDERR"', AGE, ...args], {
      name: 'xterm-256color',
      cols: 200,
      rows: 30,
      cwd: t.root,
      env: { ...t.env, TERM: 'xterm-256color', AGE_STDERR: errFile },
    });
    let screen = '';
    let answered = 0;
    pty.onData((d) => {
      screen += d;
      for (const prompts = (screen.match(/(Enter|Confirm) passphrase[^:]*:/g) ?? []).length; answered < prompts; answered++) pty.write(`${pass}\r`);
    });
    const timer = setTimeout(() => {
      pty.kill('SIGKILL');
      reject(new Error(`age ${args.join(' ')} did not exit within ${TOOL_LIMIT_MS} ms; its screen: ${screen}`));
    }, TOOL_LIMIT_MS);
    pty.onExit(({ exitCode }) => {
      clearTimeout(timer);
      resolve({ code: exitCode, stderr: existsSync(errFile) ? readFileSync(errFile, 'utf8') : '', screen });
    });
  });
}

interface MalformedKeyFile {
  name: string;
  file: (identityText: string) => Buffer;
  go: RegExp;
  js: RegExp;
  ours: RegExp;
}

const identityText = (k: ForgeKey): string => `# created: 2026-01-01T00:00:00.000Z\n# public key: ${k.recipient}\n${k.identity}\n`;
/** A passphrase file of `text` at work factor 2^10, with `edit` applied to its spec. */
function scryptFile(text: string, edit: (fileKey: Buffer) => Partial<Parameters<typeof forge>[0]> = () => ({})): Buffer {
  const fileKey = fresh();
  return forge({ fileKey, stanzas: [scryptStanza(PASS, 10, fileKey)], chunks: chunksOf(Buffer.from(text)), ...edit(fileKey) });
}
const withScryptArgs = (args: (a: string[]) => string[], salt?: Buffer) => (fileKey: Buffer) => {
  const s = scryptStanza(PASS, 10, fileKey, salt);
  return { stanzas: [{ args: args(s.args), lines: s.lines }] };
};

const MALFORMED_KEY_FILES: MalformedKeyFile[] = [
  {
    name: 'a second scrypt stanza (both wrap the file key under the passphrase)',
    file: (text) => scryptFile(text, (fileKey) => ({ stanzas: [scryptStanza(PASS, 10, fileKey), scryptStanza(PASS, 10, fileKey)] })),
    go: /an scrypt recipient must be the only one/,
    js: /scrypt recipient is not the only one/,
    ours: /not the only one/,
  },
  {
    name: 'an X25519 stanza beside the scrypt one',
    file: (text) => scryptFile(text, (fileKey) => ({ stanzas: [scryptStanza(PASS, 10, fileKey), x25519Stanza(key.publicKey, fileKey)] })),
    go: /an scrypt recipient must be the only one/,
    js: /scrypt recipient is not the only one/,
    ours: /not the only one/,
  },
  {
    name: 'bad header MAC',
    file: (text) => scryptFile(text, () => ({ editMac: (m) => b64(flipped(m, 0, 1)) })),
    go: /bad header MAC/,
    js: /invalid header HMAC/,
    ours: /invalid header HMAC/,
  },
  {
    name: 'a work factor not in canonical decimal ("010")',
    file: (text) =>
      scryptFile(
        text,
        withScryptArgs((a) => [a[0]!, a[1]!, '010']),
      ),
    go: /work factor encoding invalid/,
    js: /invalid scrypt stanza/,
    ours: /invalid scrypt stanza/,
  },
  {
    name: 'a work factor beyond every limit (2^23)',
    file: (text) =>
      scryptFile(
        text,
        withScryptArgs((a) => [a[0]!, a[1]!, '23']),
      ),
    go: /work factor too large/,
    js: /work factor is too high/,
    ours: /work factor is too high/,
  },
  {
    name: 'a salt of 15 bytes',
    file: (text) =>
      scryptFile(
        text,
        withScryptArgs((a) => a, randomBytes(15)),
      ),
    go: /invalid scrypt recipient block/,
    js: /invalid scrypt stanza/,
    ours: /invalid scrypt stanza/,
  },
  {
    name: 'non-canonical base64 in the salt',
    file: (text) =>
      scryptFile(
        text,
        withScryptArgs((a) => [a[0]!, nonCanonical(a[1]!), a[2]!]),
      ),
    go: /failed to parse scrypt salt/,
    js: /Non-zero padding/,
    ours: /Non-zero padding/,
  },
  {
    name: 'the payload cut by one byte',
    file: (text) => scryptFile(text).subarray(0, -1),
    go: /failed to decrypt and authenticate payload chunk/,
    js: /invalid tag/,
    ours: /invalid tag/,
  },
  {
    name: 'trailing data after the final chunk',
    file: (text) => Buffer.concat([scryptFile(text), Buffer.from([0])]),
    go: /trailing data|failed to decrypt and authenticate payload chunk/,
    js: /invalid tag/,
    ours: /invalid tag/,
  },
];

describe('the key file identity.age (scrypt): both ways, and malformed ones refused by all three', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = ownDirs(t.env).data;
  });
  const place = async (bytes: Buffer): Promise<string> => {
    await ensurePrivateDir(dataDir);
    const p = identityPath(dataDir);
    await fsp.rm(p, { force: true });
    writeFileSync(p, bytes, { mode: 0o600 });
    return p;
  };
  async function jsPassphraseDecrypt(bytes: Buffer, pass = PASS): Promise<string> {
    const d = new Decrypter();
    d.addPassphrase(pass);
    return await d.decrypt(bytes, 'text');
  }

  it(
    'a key file `age -p` writes (work factor 2^18) unlocks in cleanerx',
    async () => {
      const plain = join(t.root, 'identity.txt');
      writeFileSync(plain, identityText(key));
      const out = join(t.root, 'by-go.age');
      const r = await ageAtTerminal(['-p', '-o', out, plain], PASS);
      expect(r.code, r.stderr).toBe(0);
      expect(readFileSync(out, 'latin1')).toMatch(/^age-encryption\.org\/v1\n-> scrypt [A-Za-z0-9+/]{22} 18\n/);
      await place(readFileSync(out));
      expect(await unlockIdentity(dataDir, PASS)).toEqual({ identity: key.identity, recipient: key.recipient });
    },
    // age -p, then age-encryption's scrypt at 2^18 in JS: ~3 s quiet, ~20 s measured at load 8 on 2 cores.
    TOOL_LIMIT_MS + 60_000,
  );

  it('the forger is right: its key file opens in all three', async () => {
    const bytes = scryptFile(identityText(key));
    const p = await place(bytes);
    const go = await ageAtTerminal(['-d', '-o', join(t.root, 'out.txt'), p], PASS);
    expect(go.code, go.stderr).toBe(0);
    expect(readFileSync(join(t.root, 'out.txt'), 'utf8')).toBe(identityText(key));
    expect(await jsPassphraseDecrypt(bytes)).toBe(identityText(key));
    expect((await unlockIdentity(dataDir, PASS)).identity).toBe(key.identity);
  });

  it.each(MALFORMED_KEY_FILES.map((m) => [m.name, m] as const))('%s', async (_name, m) => {
    const bytes = m.file(identityText(key));
    const p = await place(bytes);
    const out = join(t.root, 'out.txt');
    const go = await ageAtTerminal(['-d', '-o', out, p], PASS);
    expect(go.code, 'age -d refuses it').not.toBe(0);
    expect(go.stderr).toMatch(m.go);
    await expect(jsPassphraseDecrypt(bytes), 'age-encryption refuses it').rejects.toThrow(m.js);
    // cleanerx: not "wrong passphrase" (it is the right one), the file named, the reason given; no key comes out.
    const err = await unlockIdentity(dataDir, PASS).then(
      () => null,
      (e: Error) => e,
    );
    expect(err, 'cleanerx unlocked it').not.toBeNull();
    expect(err!.message).not.toMatch(/Wrong passphrase/);
    expect(err!.message).toContain(p);
    expect(err!.message).toMatch(m.ours);
  });

  it('the wrong passphrase is still called that, by all three', async () => {
    const p = await place(scryptFile(identityText(key)));
    const go = await ageAtTerminal(['-d', '-o', join(t.root, 'out.txt'), p], 'another passphrase');
    expect(go.code).not.toBe(0);
    expect(go.stderr).toMatch(/incorrect passphrase/);
    await expect(jsPassphraseDecrypt(readFileSync(p), 'another passphrase')).rejects.toThrow(/no identity matched/);
    await expect(unlockIdentity(dataDir, 'another passphrase')).rejects.toThrow(/^Wrong passphrase for the backup key; try again\.$/);
  });
});
