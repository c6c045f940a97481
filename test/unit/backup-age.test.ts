// The native age v1 implementation (src/backup/age-stream.ts) on its own:
// Bech32 keys agree with the age-encryption package; every tampering — a
// flipped bit anywhere, truncation at and between chunk boundaries, trailing
// bytes, reordered chunks, a wrong key — is refused. Plus the archive
// writer's manifest region at its edges. Interop with the two reference
// implementations, both ways at every size, and the spec's malformed files:
// age-reference.test.ts.

import { generateX25519Identity, identityToRecipient } from 'age-encryption';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { chmodSync, mkdirSync, promises as fsp, readFileSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  AGE_CHUNK,
  AgeDecryptStream,
  AgeEncryptor,
  AgeHeaderError,
  AgePayloadError,
  AgePayloadReader,
  bech32Decode,
  openAgeFile,
  parseIdentity,
  parseRecipient,
} from '../../src/backup/age-stream.js';
import { collectFiles, readArchive, writeArchive } from '../../src/backup/archive.js';
import { compressFrame, rawFrames, rawFramesLength } from '../../src/backup/zstd-frames.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

const AGE = '/usr/bin/age';
const ZSTD = '/usr/bin/zstd';

let t: TempEnv;
beforeEach(() => {
  t = makeTempEnv('cleanerx-age-');
});
afterEach(() => t.cleanup());

let identity: string;
let recipient: string;
let keyTxt: string;
beforeAll(async () => {
  identity = await generateX25519Identity();
  recipient = await identityToRecipient(identity);
});
beforeEach(() => {
  keyTxt = join(t.root, 'key.txt');
  writeFileSync(keyTxt, `${identity}\n`, { mode: 0o600 });
});

/** Our encryptor, sequentially: chunks of 64 KiB, the last one flagged (an empty file is one empty final chunk). */
function encrypt(data: Buffer, to = recipient): Buffer {
  const enc = new AgeEncryptor(to);
  const parts = [enc.prefix];
  const n = Math.max(1, Math.ceil(data.length / AGE_CHUNK));
  for (let i = 0; i < n; i++) parts.push(...enc.seal(i, data.subarray(i * AGE_CHUNK, (i + 1) * AGE_CHUNK), i === n - 1));
  return Buffer.concat(parts);
}

/**
 * Our decryptor over a file: header, then the payload — by default through
 * AgePayloadReader (what readArchive uses), or, with `piece`, through the
 * AgeDecryptStream transform fed in pieces of that size.
 */
async function decrypt(file: string, id = identity, piece?: number): Promise<Buffer> {
  const fh = await fsp.open(file, 'r');
  try {
    const { payloadKey, payloadOffset } = await openAgeFile(fh, id);
    let plain: Readable;
    if (piece === undefined) plain = new AgePayloadReader(fh, payloadKey, payloadOffset);
    else {
      const rest = readFileSync(file).subarray(payloadOffset);
      const pieces: Buffer[] = [];
      for (let o = 0; o < rest.length; o += piece) pieces.push(rest.subarray(o, o + piece));
      plain = Readable.from(pieces).pipe(new AgeDecryptStream(payloadKey));
    }
    const out: Buffer[] = [];
    for await (const c of plain) out.push(c as Buffer);
    return Buffer.concat(out);
  } finally {
    await fh.close();
  }
}

describe('keys', () => {
  it('parses identities and recipients exactly as the age-encryption package derives them', async () => {
    for (let i = 0; i < 5; i++) {
      const id = await generateX25519Identity();
      expect(parseIdentity(id).publicKey.equals(parseRecipient(await identityToRecipient(id)))).toBe(true);
    }
  });

  it('refuses a bad checksum, mixed case, the wrong kind of key', () => {
    const bad = recipient.slice(0, -1) + (recipient.endsWith('q') ? 'p' : 'q');
    expect(() => parseRecipient(bad)).toThrow(/checksum/);
    expect(() => bech32Decode(recipient.slice(0, 10).toUpperCase() + recipient.slice(10))).toThrow(/mixed-case/);
    expect(() => parseRecipient(identity)).toThrow(/not an age X25519 recipient/);
    expect(() => parseIdentity(recipient)).toThrow(AgeHeaderError);
  });
});

describe('tampering is refused', () => {
  const expectRefused = async (f: string, kind: typeof AgeHeaderError | typeof AgePayloadError, id = identity): Promise<void> => {
    await expect(decrypt(f, id)).rejects.toBeInstanceOf(kind);
    await expect(decrypt(f, id, 10_007)).rejects.toBeInstanceOf(kind);
    // Debian's age agrees that the file is not valid.
    expect(spawnSync(AGE, ['-d', '-i', keyTxt, f]).status).not.toBe(0);
  };

  it('a flipped bit anywhere: header (version, stanza, MAC) or payload (nonce, any chunk, any tag)', async () => {
    const data = randomBytes(3 * AGE_CHUNK + 500);
    const good = encrypt(data);
    const headerEnd = good.indexOf('\n---') + 1 + 48;
    const f = join(t.root, 'x.age');
    const positions = [
      0,
      30,
      40,
      60,
      90,
      headerEnd - 10,
      headerEnd - 2,
      headerEnd + 3,
      headerEnd + 16,
      headerEnd + 16 + AGE_CHUNK + 5,
      headerEnd + 16 + 2 * (AGE_CHUNK + 16) - 1,
      good.length - 600,
      good.length - 1,
    ];
    for (const at of positions) {
      const b = Buffer.from(good);
      b[at]! ^= 0x04;
      writeFileSync(f, b);
      await expectRefused(f, at < headerEnd ? AgeHeaderError : AgePayloadError);
    }
  });

  it('truncation at every chunk boundary and inside chunks, trailing bytes, reordered chunks', async () => {
    const data = randomBytes(3 * AGE_CHUNK); // the last chunk is full: only its final flag marks the end
    const good = encrypt(data);
    const start = good.length - 3 * (AGE_CHUNK + 16);
    const f = join(t.root, 'x.age');
    for (const cut of [start, start + 1, start + 16, start + AGE_CHUNK + 16, start + AGE_CHUNK + 17, start + 2 * (AGE_CHUNK + 16), good.length - 1]) {
      writeFileSync(f, good.subarray(0, cut));
      await expectRefused(f, AgePayloadError);
    }
    for (const extra of [Buffer.from([0]), randomBytes(16), randomBytes(AGE_CHUNK + 16)]) {
      writeFileSync(f, Buffer.concat([good, extra]));
      await expectRefused(f, AgePayloadError);
    }
    const c = (i: number): Buffer => good.subarray(start + i * (AGE_CHUNK + 16), start + (i + 1) * (AGE_CHUNK + 16));
    writeFileSync(f, Buffer.concat([good.subarray(0, start), c(1), c(0), c(2)]));
    await expectRefused(f, AgePayloadError);
    // And the untouched file still opens.
    writeFileSync(f, good);
    expect((await decrypt(f)).equals(data)).toBe(true);
  });

  it('a wrong key, a file that is not age, a header cut short', async () => {
    const good = encrypt(randomBytes(1000));
    const f = join(t.root, 'x.age');
    writeFileSync(f, good);
    await expect(decrypt(f, await generateX25519Identity())).rejects.toThrow(/no identity matched/);
    writeFileSync(f, 'plain text\n');
    await expect(decrypt(f)).rejects.toBeInstanceOf(AgeHeaderError);
    writeFileSync(f, good.subarray(0, good.indexOf('\n---')));
    await expect(decrypt(f)).rejects.toBeInstanceOf(AgeHeaderError);
  });
});

describe('zstd frames the archive writer uses', () => {
  it('raw frames have the length computed in advance and decompress with zstd -d', () => {
    for (const n of [0, 1, 128 * 1024, 128 * 1024 + 1, 8 * 1024 * 1024, 8 * 1024 * 1024 + 3]) {
      const data = randomBytes(n);
      const z = rawFrames(data);
      expect(z.length).toBe(rawFramesLength(n));
      expect(execFileSync(ZSTD, ['-d', '-c'], { input: z, maxBuffer: 64 << 20 }).equals(data), `size ${n}`).toBe(true);
    }
  });

  it('compressed frames declare their content size and decompress with zstd -d', async () => {
    const rnd = randomBytes(4 << 20);
    const text = Buffer.from('{"type":"message","text":"hello world"}\n'.repeat(100_000));
    for (const data of [rnd, text, Buffer.alloc(0)]) {
      const z = Buffer.concat(await compressFrame(data));
      if (data.length) {
        // (An empty input already comes as a single-segment frame declaring size 0.)
        expect(z[4]! >> 6, 'a 4-byte content size field').toBe(2);
        expect(z.readUInt32LE(6)).toBe(data.length);
      }
      expect(execFileSync(ZSTD, ['-d', '-c'], { input: z, maxBuffer: 64 << 20 }).equals(data)).toBe(true);
    }
    expect(Buffer.concat(await compressFrame(text)).length).toBeLessThan(text.length / 20);
  });
});

describe('the archive writer at the edges of its manifest region', () => {
  const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
  function writeTree(files: Record<string, Buffer>): string {
    const src = t.env.PI_CODING_AGENT_DIR!;
    for (const [rel, body] of Object.entries(files)) {
      mkdirSync(dirname(join(src, rel)), { recursive: true });
      writeFileSync(join(src, rel), body, { mode: 0o600 });
      chmodSync(join(src, rel), 0o600);
    }
    return src;
  }
  async function roundTrip(files: Record<string, Buffer>): Promise<void> {
    const src = writeTree(files);
    const collected = await collectFiles([join(src, 'sessions')], [{ label: 'pi_home', dir: src }]);
    const archivePath = join(t.root, `${randomUUID()}.cxb`);
    const { manifest } = await writeArchive({
      archivePath,
      recipient,
      agent: 'pi',
      operationId: 'op',
      id: randomUUID(),
      itemCount: 1,
      retentionDays: 1,
      files: collected,
    });
    const got = new Map<string, string>();
    const m = await readArchive(archivePath, identity, { payload: async (e, s) => void got.set(e.relativePath, sha(Buffer.concat(await s.toArray()))) }, 'pi');
    expect(m).toEqual(manifest);
    for (const [rel, body] of Object.entries(files)) expect(got.get(rel), rel).toBe(sha(body));
    // The stock tools list every entry, manifest first.
    const list = spawnSync('/bin/bash', ['-o', 'pipefail', '-c', `${AGE} -d -i '${keyTxt}' '${archivePath}' | ${ZSTD} -d -q | tar -t`], { encoding: 'utf8' });
    expect(list.status, list.stderr).toBe(0);
    const names = list.stdout.trim().split('\n');
    expect(names[0]).toBe('manifest.json');
    expect(names.slice(1).sort()).toEqual(
      Object.keys(files)
        .map((f) => `payload/pi_home/${f}`)
        .sort(),
    );
  }

  it('a whole archive inside one age chunk (the held chunk is also the final one)', async () => {
    await roundTrip({ 'sessions/--p--/empty.jsonl': Buffer.alloc(0) });
  });

  it('a manifest spanning several chunks, long and non-ASCII names, mixed text and random payloads', async () => {
    const files: Record<string, Buffer> = {};
    for (let i = 0; i < 700; i++)
      files[`sessions/--home-u-src-project-${i % 7}--/${'deep/'.repeat(i % 50)}2026-01-01T00-00-00_${i}.jsonl`] = Buffer.from(`{"i":${i}}\n`.repeat(i % 50));
    files['sessions/--p--/ünïcode ✓.jsonl'] = Buffer.from('héllo');
    files['sessions/--p--/random.bin'] = randomBytes(9 * 1024 * 1024 + 7);
    files['sessions/--p--/text.jsonl'] = Buffer.from('{"type":"message","text":"lorem ipsum"}\n'.repeat(300_000));
    await roundTrip(files);
  });

  it('archives a file that grew since it was listed as it was (size and hash agree), and refuses one swapped for a link', async () => {
    const src = writeTree({ 'sessions/--p--/a.jsonl': Buffer.from('first line\n'), 'sessions/--p--/b.jsonl': Buffer.from('x') });
    const collected = await collectFiles([join(src, 'sessions')], [{ label: 'pi_home', dir: src }]);
    const archivePath = join(t.root, 'grow.cxb');
    const { manifest } = await writeArchive({
      archivePath,
      recipient,
      agent: 'pi',
      operationId: 'op',
      id: randomUUID(),
      itemCount: 1,
      retentionDays: 1,
      files: collected,
      onBytes: (done) => void (done === 11 && writeFileSync(join(src, 'sessions/--p--/b.jsonl'), 'x and more')),
    });
    expect(await readArchive(archivePath, identity, {}, 'pi')).toEqual(manifest);

    const victim = join(t.root, 'victim');
    writeFileSync(victim, 'not in the backup');
    const linked = join(t.root, 'linked.cxb');
    await expect(
      writeArchive({
        archivePath: linked,
        recipient,
        agent: 'pi',
        operationId: 'op',
        id: randomUUID(),
        itemCount: 1,
        retentionDays: 1,
        files: collected,
        onBytes: (done) => void (done === 11 && (unlinkSync(join(src, 'sessions/--p--/b.jsonl')), symlinkSync(victim, join(src, 'sessions/--p--/b.jsonl')))),
      }),
    ).rejects.toThrow(/ELOOP|link/);
  });
});
