// What readArchive refuses and reports (#26 item 5: mutants of
// backup/archive.ts's reader): archives built here layer by layer (tar →
// raw zstd frames → age, as cleanerx writes them) with one defect each — a
// payload missing, named twice, not in the manifest, out of order, of the
// wrong size or bytes, a non-file entry, no manifest first, a manifest
// header that declares too much, no entry at all — and files that are
// missing, truncated, not zstd inside, or for another key. Each is refused
// with its own sentence; a sound archive in any order reads back whole,
// with the progress it reports. A temp dir and fresh X25519 keys only.

import { generateX25519Identity, identityToRecipient } from 'age-encryption';
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readlinkSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { afterEach, beforeAll, beforeEach, expect, it, vi } from 'vitest';
import { AGE_CHUNK, AgeEncryptor, openAgeFile } from '../../src/backup/age-stream.js';
import { discard, MANIFEST_NAME, readArchive } from '../../src/backup/archive.js';
import type { Manifest } from '../../src/backup/manifest.js';
import { BLOCK, pad512, tarHeader } from '../../src/backup/tar-header.js';
import { archiveIdentity, wasVerified } from '../../src/backup/verified-archives.js';
import { rawFrames } from '../../src/backup/zstd-frames.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let identity: string;
let recipient: string;
beforeAll(async () => {
  identity = await generateX25519Identity();
  recipient = await identityToRecipient(identity);
});
let t: TempEnv;
beforeEach(() => {
  t = makeTempEnv('cleanerx-read-');
});
afterEach(() => t.cleanup());

/** The message a read is refused with, whole: a refusal wrapped in another ("damaged: …") must not pass. */
const refusal = (p: Promise<unknown>): Promise<string> =>
  p.then(
    () => 'read without a refusal',
    (e: Error) => e.message,
  );

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

interface File {
  relativePath: string;
  body: Buffer;
}

const A: File = { relativePath: 'sessions/a.jsonl', body: Buffer.from('{"id":"a"}\n') };
const B: File = { relativePath: 'sessions/b.jsonl', body: randomBytes(3000) };
const C: File = { relativePath: 'sessions/c.jsonl', body: Buffer.from('ccc') };
const name = (f: File): string => `payload/pi_home/${f.relativePath}`;

function manifestOf(files: File[]): Buffer {
  const m: Manifest = {
    formatVersion: 2,
    id: 'b6a7c1de-0000-4000-8000-000000000001',
    agent: 'pi',
    createdAt: '2026-01-01T00:00:00.000Z',
    expiresAt: '2026-01-08T00:00:00.000Z',
    operationId: 'op-read',
    itemCount: files.length,
    originalBytes: files.reduce((a, f) => a + f.body.length, 0),
    archiveBytes: 0,
    entries: files.map((f) => ({ root: 'pi_home', relativePath: f.relativePath, sha256: sha(f.body), sizeBytes: f.body.length })),
  };
  return Buffer.from(JSON.stringify(m));
}

/** One tar member: a regular file, or with typeflag `type` ('5' a directory, 'x' a pax header). */
function member(path: string, body: Buffer, type = '0'): Buffer {
  const h = tarHeader(path, body.length, 0);
  if (type !== '0') {
    h.write(type, 156, 1, 'latin1');
    h.fill(0x20, 148, 156);
    let sum = 0;
    for (const b of h) sum += b;
    h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8, 'latin1');
  }
  return Buffer.concat([h, body, Buffer.alloc(pad512(body.length))]);
}

/** A regular file whose name is given by a pax `path` record, whatever the name. */
function paxMember(path: string, body: Buffer): Buffer {
  const record = ` path=${path}\n`;
  const n = Buffer.byteLength(record);
  const len = n + String(n + String(n).length).length;
  return Buffer.concat([member('PaxHeader', Buffer.from(`${len}${record}`), 'x'), member('PaxHeader', body)]);
}

const tarOf = (members: Buffer[]): Buffer => Buffer.concat([...members, Buffer.alloc(2 * BLOCK)]);

/** The age layer, chunk by chunk as AgeEncryptor seals them. */
function sealed(plain: Buffer, to = recipient): Buffer {
  const enc = new AgeEncryptor(to);
  const parts = [enc.prefix];
  const n = Math.max(1, Math.ceil(plain.length / AGE_CHUNK));
  for (let i = 0; i < n; i++) parts.push(...enc.seal(i, plain.subarray(i * AGE_CHUNK, (i + 1) * AGE_CHUNK), i === n - 1));
  return Buffer.concat(parts);
}

/** An archive file holding `tar` (zstd-framed and encrypted), its path returned. */
function archive(tar: Buffer): string {
  const p = join(t.root, 'x.cxb');
  writeFileSync(p, sealed(rawFrames(tar)));
  return p;
}

/** The manifest of `listed`, then the payloads of `stored` in that order. */
const archiveOf = (listed: File[], stored: File[]): string =>
  archive(tarOf([member(MANIFEST_NAME, manifestOf(listed)), ...stored.map((f) => member(name(f), f.body))]));

it('reads an archive whose payloads come in another order than the manifest lists them, each to its own entry', async () => {
  const p = archiveOf([A, B, C], [C, A, B]);
  const got: [string, number, string][] = [];
  const progress: number[][] = [];
  const m = await readArchive(p, identity, { payload: async (e, s, i) => void got.push([e.relativePath, i, sha(Buffer.concat(await s.toArray()))]) }, 'pi', {
    onRead: (...a) => progress.push(a),
  });
  expect(got).toEqual([
    [C.relativePath, 2, sha(C.body)],
    [A.relativePath, 0, sha(A.body)],
    [B.relativePath, 1, sha(B.body)],
  ]);
  expect(m.entries.map((e) => e.relativePath)).toEqual([A, B, C].map((f) => f.relativePath));
  const total = A.body.length + B.body.length + C.body.length;
  // After the manifest: nothing read of its three entries and their bytes; at the end all of them.
  expect(progress[0]).toEqual([0, 3, 0, total]);
  expect(progress.at(-1)).toEqual([3, 3, total, total]);
  // Entries count once each has ended, bytes as they pass.
  expect(progress).toContainEqual([0, 3, C.body.length, total]);
  expect(progress).toContainEqual([1, 3, C.body.length, total]);
});

it('gives each in-order payload its manifest index', async () => {
  const idx: number[] = [];
  await readArchive(archiveOf([A, B, C], [A, B, C]), identity, {
    payload: async (_e, s, i) => {
      idx.push(i);
      for await (const _ of s) void _;
    },
  });
  expect(idx).toEqual([0, 1, 2]);
});

it('refuses an archive missing payloads, naming how many and the first one, whatever order it was in', async () => {
  expect(await refusal(readArchive(archiveOf([A, B, C], [A]), identity))).toBe(`The archive is missing 2 payload(s), e.g. ${name(B)}.`);
  expect(await refusal(readArchive(archiveOf([A, B, C], [A, B]), identity))).toBe(`The archive is missing 1 payload(s), e.g. ${name(C)}.`);
  // Out of order: the entries before the first one seen are missing too.
  expect(await refusal(readArchive(archiveOf([A, B, C], [C]), identity))).toBe(`The archive is missing 2 payload(s), e.g. ${name(A)}.`);
  expect(await refusal(readArchive(archiveOf([A, B, C], [B, A]), identity))).toBe(`The archive is missing 1 payload(s), e.g. ${name(C)}.`);
  expect(await refusal(readArchive(archiveOf([A, B, C], [A, C]), identity))).toBe(`The archive is missing 1 payload(s), e.g. ${name(B)}.`);
});

it('refuses a payload named twice, whether it came in order or not', async () => {
  expect(await refusal(readArchive(archiveOf([A, B], [A, A, B]), identity))).toBe(`The archive holds ${name(A)} twice.`);
  expect(await refusal(readArchive(archiveOf([A, B], [A, B, A]), identity))).toBe(`The archive holds ${name(A)} twice.`);
  expect(await refusal(readArchive(archiveOf([A, B], [B, A, B]), identity))).toBe(`The archive holds ${name(B)} twice.`);
});

it('refuses a payload the manifest does not name, also one that only ends like a payload name', async () => {
  const manifest = member(MANIFEST_NAME, manifestOf([A, B]));
  for (const stray of ['payload/pi_home/sessions/z.jsonl', `junk/${name(B)}`, `${name(A)}/x`, 'payload/pi_home', 'payload//x', 'b.jsonl']) {
    const p = archive(tarOf([manifest, member(name(A), A.body), member(stray, Buffer.from('x'))]));
    expect(await refusal(readArchive(p, identity)), stray).toBe(`The archive holds an entry the manifest does not name: ${stray}`);
  }
});

it('refuses a file entry named by a root alone, after every payload and in an empty manifest', async () => {
  // A pax path keeps the trailing slash on a regular file (a ustar name with one reads as a directory).
  for (const listed of [[A, B], []])
    for (const stray of ['payload/pi_home/', 'payload/undefined/']) {
      const p = archive(tarOf([member(MANIFEST_NAME, manifestOf(listed)), ...listed.map((f) => member(name(f), f.body)), paxMember(stray, Buffer.alloc(0))]));
      expect(await refusal(readArchive(p, identity)), `${stray} after ${listed.length}`).toBe(
        `The archive holds an entry the manifest does not name: ${stray}`,
      );
    }
});

it('matches a name with a newline in it out of order, and refuses one that differs from it only there', async () => {
  const nl: File = { relativePath: 'sessions/new\nline.jsonl', body: Buffer.from('nl') };
  await expect(readArchive(archiveOf([A, nl], [nl, A]), identity)).resolves.toMatchObject({ itemCount: 2 });
  const p = archive(tarOf([member(MANIFEST_NAME, manifestOf([A, nl])), member('payload/pi_home/sessions/new\nline.jsonlx', nl.body)]));
  expect(await refusal(readArchive(p, identity))).toBe('The archive holds an entry the manifest does not name: payload/pi_home/sessions/new\nline.jsonlx');
});

it('refuses a payload whose size or bytes differ from its manifest entry', async () => {
  const longer = { ...B, body: Buffer.concat([B.body, Buffer.from('!')]) };
  const shorter = { ...B, body: B.body.subarray(1) };
  const changed = { ...B, body: Buffer.from(B.body).fill(7, 0, 1) };
  for (const bad of [longer, shorter, changed]) {
    const p = archive(tarOf([member(MANIFEST_NAME, manifestOf([A, B])), member(name(A), A.body), member(name(B), bad.body)]));
    expect(await refusal(readArchive(p, identity))).toBe(`${name(B)} does not match its manifest entry (size or SHA-256).`);
  }
});

it('refuses a directory entry, an archive that does not start with its manifest, and one with no entry at all', async () => {
  const m = member(MANIFEST_NAME, manifestOf([A]));
  const dir = archive(tarOf([m, member('payload/pi_home/sessions', Buffer.alloc(0), '5'), member(name(A), A.body)]));
  expect(await refusal(readArchive(dir, identity))).toBe('The archive holds a non-file entry (directory: payload/pi_home/sessions).');
  expect(await refusal(readArchive(archive(tarOf([member(name(A), A.body), m])), identity))).toBe('The archive does not start with its manifest.');
  expect(await refusal(readArchive(archive(tarOf([])), identity))).toBe('The archive is empty.');
});

it('refuses a manifest whose header declares more than 64 MiB before reading it, and reads one of exactly 64 MiB', async () => {
  // Headers only: the bytes they declare never follow, so only the bound decides which refusal comes.
  const declaring = (n: number): string => archive(tarHeader(MANIFEST_NAME, n, 0));
  expect(await refusal(readArchive(declaring(64 * 1024 * 1024 + 1), identity))).toBe('The manifest is too large.');
  expect(await refusal(readArchive(declaring(64 * 1024 * 1024), identity))).toMatch(/^The archive is damaged: (?!The manifest)/);
});

it('refuses a missing archive, a link, another key, a cut file and a payload that is not zstd, each with its reason', async () => {
  const missing = join(t.root, 'none.cxb');
  expect(await refusal(readArchive(missing, identity))).toBe(`The archive ${missing} is missing.`);
  const good = archiveOf([A, B], [A, B]);
  const link = join(t.root, 'link.cxb');
  symlinkSync(good, link);
  expect(await refusal(readArchive(link, identity))).toBe(
    `${link} is a symbolic link; cleanerx does not follow links there, so replace it with the real file.`,
  );
  expect(await refusal(readArchive(good, await generateX25519Identity()))).toBe(
    "The archive cannot be decrypted with this key (no identity matched any of the file's recipients).",
  );
  const headerOnly = join(t.root, 'h.cxb');
  writeFileSync(headerOnly, new AgeEncryptor(recipient).prefix.subarray(0, -16));
  expect(await refusal(readArchive(headerOnly, identity))).toBe('The archive is damaged: the age file ends before its payload (truncated)');
  const notZstd = join(t.root, 'z.cxb');
  writeFileSync(notZstd, sealed(Buffer.from('this is no zstd frame at all')));
  expect(await refusal(readArchive(notZstd, identity))).toBe('The archive is damaged: The archive is not zstd data (bad frame magic).');
  truncateSync(good, 200);
  expect(await refusal(readArchive(good, identity))).toBe(
    'The archive is damaged: age chunk 0 failed authentication as the final chunk (truncated or tampered)',
  );
});

/** Descriptors this process holds open on files under the test's temp dir. */
function openUnderRoot(): string[] {
  const out: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(t.root)) out.push(target);
    } catch {
      // closed between the listing and the readlink (the listing's own descriptor)
    }
  }
  return out;
}

it('closes the archive after a read, whether it was sound or refused mid-way', async () => {
  await readArchive(archiveOf([A, B, C], [C, A, B]), identity);
  expect(openUnderRoot()).toEqual([]);
  expect(await refusal(readArchive(archiveOf([A, B], [A, A, B]), identity))).toBe(`The archive holds ${name(A)} twice.`);
  expect(openUnderRoot()).toEqual([]);
  expect(await refusal(readArchive(archive(rawFrames(Buffer.from('x'))), identity))).toMatch(/^The archive is damaged: /);
  expect(openUnderRoot()).toEqual([]);
});

it('discard() takes every payload and keeps none: a read through it completes', async () => {
  const seen: number[] = [];
  await readArchive(archiveOf([A, B], [A, B]), identity, {
    payload: async (_e, s, i) => {
      await pipeline(s, discard());
      seen.push(i);
    },
  });
  expect(seen).toEqual([0, 1]);
});

/** The identity a read binds its verification to, for the file now at `p`. */
async function identityOf(p: string): Promise<string> {
  const fh = await open(p, 'r');
  try {
    return archiveIdentity(p, await fh.stat(), (await openAgeFile(fh, identity)).payloadKey);
  } finally {
    await fh.close();
  }
}

it('a read that reuses a verification hashes nothing, so it does not extend it; a plain read hashes and renews it', async () => {
  const p = archiveOf([A, B], [A, B]);
  const start = Date.now();
  vi.useFakeTimers({ toFake: ['Date'], now: start });
  try {
    await readArchive(p, identity);
    expect(wasVerified(await identityOf(p))).toBe(true);
    vi.setSystemTime(start + 10 * 60_000);
    await readArchive(p, identity, {}, 'pi', { reuseVerified: true });
    // 16 minutes after the read that hashed: past the 15 it vouches for, however recent the reuse.
    vi.setSystemTime(start + 16 * 60_000);
    expect(wasVerified(await identityOf(p))).toBe(false);
    // A plain read hashes every time, the verification renewed by each.
    await readArchive(p, identity);
    vi.setSystemTime(start + 26 * 60_000);
    await readArchive(p, identity);
    vi.setSystemTime(start + 32 * 60_000);
    expect(wasVerified(await identityOf(p))).toBe(true);
  } finally {
    vi.useRealTimers();
  }
});
