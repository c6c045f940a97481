// A restore after its dry-run check does not hash the payloads again
// (src/backup/verified-archives.ts), but only for the very archive the check
// verified: a different archive at the same path — renamed over it, or
// rewritten in place — whose payloads do not match their manifest is
// refused as before, and nothing reaches the destination.
import { Encrypter, generateX25519Identity, identityToRecipient } from 'age-encryption';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import tar from 'tar-stream';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openAgeFile } from '../../src/backup/age-stream.js';
import { MANIFEST_NAME, readArchive, type Manifest } from '../../src/backup/archive.js';
import { restoreArchive } from '../../src/backup/restore.js';
import { archiveIdentity, wasVerified } from '../../src/backup/verified-archives.js';
import { ZstdFrameWriter } from '../../src/backup/zstd-frames.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';

let t: TempEnv;
let identity: string;
let recipient: string;
beforeAll(async () => {
  identity = await generateX25519Identity();
  recipient = await identityToRecipient(identity);
});
beforeEach(() => {
  t = makeTempEnv('cleanerx-restore-reuse-');
});
afterEach(() => t.cleanup());

const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');

const FILES = [
  { relativePath: 'sessions/--home-u-src-api--/2026_s1.jsonl', body: Buffer.from('{"type":"session","id":"s1"}\n{"type":"message"}\n') },
  { relativePath: 'sessions/--home-u-src-api--/2026_s2.jsonl', body: randomBytes(200_000) },
];

function manifestFor(id: string, hashes = FILES.map((f) => sha(f.body))): Manifest {
  return {
    formatVersion: 1,
    id,
    agent: 'pi',
    createdAt: new Date().toISOString(),
    expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    operationId: 'op-reuse',
    itemCount: FILES.length,
    originalBytes: FILES.reduce((a, f) => a + f.body.length, 0),
    archiveBytes: 0,
    entries: FILES.map((f, i) => ({ root: 'pi_home', relativePath: f.relativePath, sha256: hashes[i]!, sizeBytes: f.body.length })),
  };
}

/** tar → zstd frames → age, the layers cleanerx writes; a fresh file key every time. */
async function archiveBytes(m: Manifest): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  pack.on('data', (c) => chunks.push(c as Buffer));
  const ended = new Promise<void>((res, rej) => {
    pack.on('end', res);
    pack.on('error', rej);
  });
  const entries = [
    { name: MANIFEST_NAME, body: Buffer.from(JSON.stringify(m)) },
    ...FILES.map((f) => ({ name: `payload/pi_home/${f.relativePath}`, body: f.body })),
  ];
  for (const e of entries)
    await new Promise<void>((res, rej) => pack.entry({ name: e.name, size: e.body.length, mode: 0o600 }, e.body, (err) => (err ? rej(err) : res())));
  pack.finalize();
  await ended;
  const z: Buffer[] = [];
  for await (const c of Readable.from([Buffer.concat(chunks)]).pipe(new ZstdFrameWriter())) z.push(c as Buffer);
  const enc = new Encrypter();
  enc.addRecipient(recipient);
  return Buffer.from(await enc.encrypt(Buffer.concat(z)));
}

describe('a restore reuses its check only for the archive the check verified', () => {
  let dest: string;
  let staging: string;
  let archive: string;
  const id = randomUUID();
  beforeEach(() => {
    dest = t.env.PI_CODING_AGENT_DIR!;
    mkdirSync(join(dest, 'sessions'), { recursive: true });
    writeFileSync(join(dest, 'sessions', 'keep.jsonl'), '{"type":"session"}\n');
    staging = join(t.root, 'staging');
    archive = join(t.root, 'backups', `${id}.cxb`);
    mkdirSync(dirname(archive), { recursive: true });
  });
  const restore = (dryRun: boolean) =>
    restoreArchive({
      archivePath: archive,
      identity,
      agent: 'pi',
      roots: { pi_home: dest },
      uid: process.getuid!(),
      stagingParent: staging,
      dryRun,
      expectId: id,
    });
  /** The identity readArchive binds a verification to, for the file now at `archive`. */
  const currentIdentity = async (): Promise<string> => {
    const fh = await open(archive, 'r');
    try {
      return archiveIdentity(archive, await fh.stat(), (await openAgeFile(fh, identity)).payloadKey);
    } finally {
      await fh.close();
    }
  };
  // Same id, same names and sizes; the second payload's SHA-256 in the manifest is not its content's.
  const badManifest = () => manifestFor(id, [sha(FILES[0]!.body), sha('something else')]);

  it('control: check then restore of one archive puts everything back; the check marked exactly that file verified', async () => {
    writeFileSync(archive, await archiveBytes(manifestFor(id)));
    expect(wasVerified(await currentIdentity())).toBe(false);
    const dry = await restore(true);
    expect(dry.restored).toHaveLength(2);
    expect(wasVerified(await currentIdentity())).toBe(true);
    const r = await restore(false);
    expect(r.restored).toHaveLength(2);
    for (const f of FILES) expect(readFileSync(join(dest, f.relativePath)).equals(f.body)).toBe(true);
    expect(readdirSync(staging)).toEqual([]);
  });

  it('a read that finds a mismatch marks nothing verified', async () => {
    writeFileSync(archive, await archiveBytes(badManifest()));
    await expect(readArchive(archive, identity, {}, 'pi')).rejects.toThrow(/2026_s2\.jsonl does not match its manifest entry \(size or SHA-256\)/);
    expect(wasVerified(await currentIdentity())).toBe(false);
  });

  for (const how of ['renamed over it', 'rewritten in place'] as const) {
    it(`an archive ${how} after the check is hashed again and refused; the destination stays as it was`, async () => {
      writeFileSync(archive, await archiveBytes(manifestFor(id)));
      await restore(true);
      const bad = await archiveBytes(badManifest());
      if (how === 'renamed over it') {
        writeFileSync(`${archive}.new`, bad);
        renameSync(`${archive}.new`, archive);
      } else writeFileSync(archive, bad);
      expect(wasVerified(await currentIdentity())).toBe(false);
      const before = hashTree(t.root, [staging]);
      await expect(restore(false)).rejects.toThrow(/2026_s2\.jsonl does not match its manifest entry \(size or SHA-256\)/);
      await expect(readArchive(archive, identity, {}, 'pi', { reuseVerified: true })).rejects.toThrow(/does not match its manifest entry/);
      expect(treeDiff(before, hashTree(t.root, [staging]))).toEqual([]);
      expect(readdirSync(staging)).toEqual([]);
    });
  }

  it('a verified archive whose bytes are then damaged still fails authentication on the reuse', async () => {
    writeFileSync(archive, await archiveBytes(manifestFor(id)));
    await restore(true);
    const fh = await open(archive, 'r+');
    try {
      const st = await fh.stat();
      const b = Buffer.alloc(1);
      await fh.read(b, 0, 1, st.size - 3000);
      b[0]! ^= 0x01;
      await fh.write(b, 0, 1, st.size - 3000);
    } finally {
      await fh.close();
    }
    const before = hashTree(t.root, [staging]);
    await expect(restore(false)).rejects.toThrow(/The archive is damaged: /);
    expect(treeDiff(before, hashTree(t.root, [staging]))).toEqual([]);
  });
});
