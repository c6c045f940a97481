// Backups, unit by unit: the passphrase-protected key store; the .cxb archive
// round trip; every bad archive of the Bad-input list (each crafted
// here with tar-stream + ZstdFrameWriter + age, under the same key) refused
// with a clear reason before anything reaches the destination root; restore
// preflight refusals; fault injection on both sides of every restore commit;
// and the catalog's delete rules.

import { Encrypter, generateX25519Identity, identityToRecipient } from 'age-encryption';
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { tmpdir } from 'node:os';
import { Readable } from 'node:stream';
import tar from 'tar-stream';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readArchive, writeArchive, collectFiles, MANIFEST_NAME, type Manifest, type ManifestEntry } from '../../src/backup/archive.js';
import { addRecord, archivePathFor, backupsDir, deleteBackup, loadCatalog, type BackupRecord } from '../../src/backup/catalog.js';
import { createIdentity, exportIdentity, identityPath, keyStatus, passphraseProblem, unlockIdentity } from '../../src/backup/keystore.js';
import { restoreArchive } from '../../src/backup/restore.js';
import { ZstdFrameWriter } from '../../src/backup/zstd-frames.js';
import type { BackupProgress } from '../../src/engine/core/model.js';
import { isWrongPassphrase } from '../../src/engine/core/passphrase-rule.js';
import { createServer } from 'node:net';
import { ownDirs } from '../../src/engine/host/own-dirs.js';
import { Engine } from '../../src/engine/api/engine.js';
import { backupService } from '../../src/backup/service.js';
import { ADAPTERS } from '../../src/adapters/registry.js';
import { backUpPiSession } from '../helpers/pi-backup.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';

// Only in test mode does the key store accept a cheaper scrypt (2^12 instead of 2^18).
process.env.CLEANERX_TEST_MODE = '1';
process.env.CLEANERX_SCRYPT_LOG_N = '12';

let t: TempEnv;
let dataDir: string;
beforeEach(() => {
  t = makeTempEnv('cleanerx-backup-');
  dataDir = ownDirs(t.env).data;
});
afterEach(() => {
  delete process.env.CLEANERX_FAIL_AT;
  delete process.env.CLEANERX_FAULT;
  t.cleanup();
});

let identity: string;
let recipient: string;
beforeAll(async () => {
  identity = await generateX25519Identity();
  recipient = await identityToRecipient(identity);
});

const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');

function writeFile(path: string, data: Buffer | string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, data, { mode: 0o600 });
  chmodSync(path, 0o600);
}

// ---- key store ---------------------------------------------------------------

describe('key store', () => {
  it('creates a 0600 identity in a 0700 dir, never overwrites it, and unlocks only with its passphrase', async () => {
    const { recipient: rcpt, path } = await createIdentity(dataDir, 'correct horse battery');
    expect(path).toBe(identityPath(dataDir));
    expect(rcpt).toMatch(/^age1[0-9a-z]+$/);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(readFileSync(path, 'latin1')).toMatch(/^age-encryption\.org\/v1\n-> scrypt /);
    // Nothing of the secret is stored in the clear.
    expect(readFileSync(path, 'latin1')).not.toContain('AGE-SECRET-KEY');
    expect(await keyStatus(dataDir)).toEqual({ path, exists: true });

    const bytes = readFileSync(path);
    await expect(createIdentity(dataDir, 'another passphrase')).rejects.toThrow(/already exists .*never replaced/);
    expect(readFileSync(path).equals(bytes)).toBe(true);

    await expect(unlockIdentity(dataDir, 'wrong passphrase!')).rejects.toThrow(/Wrong passphrase/);
    const k = await unlockIdentity(dataDir, 'correct horse battery');
    expect(k.identity).toMatch(/^AGE-SECRET-KEY-1[0-9A-Z]+$/);
    expect(k.recipient).toBe(rcpt);
  });

  it('refuses a short passphrase and writes nothing', async () => {
    await expect(createIdentity(dataDir, 'short')).rejects.toThrow(/at least 8 characters/);
    expect(existsSync(identityPath(dataDir))).toBe(false);
  });

  it('one passphrase rule for stdin and the prompt: code points after trimming, no control characters', async () => {
    const refused: [string, RegExp][] = [
      ['sp      ', /at least 8 characters, not counting spaces at its start and end/],
      ['        ', /at least 8 characters/],
      ['  abc   ', /at least 8 characters/],
      ['\u3000\u3000ab\u3000cd\u3000\u3000', /at least 8 characters/], // ideographic spaces are whitespace too
      ['😀😀😀😀', /at least 8 characters/], // 4 code points (8 UTF-16 units)
      ['correct\thorse', /cannot hold control characters such as tabs/],
      ['correct horse\n', /cannot hold control characters/],
      ['correct\x1b[31mhorse', /cannot hold control characters/],
      ['correct\x7fhorse', /cannot hold control characters/],
      ['correct\u0085horse', /cannot hold control characters/],
      ['correct \ud800 horse', /invalid character/],
      ['x'.repeat(513), /at most 512 characters/],
    ];
    for (const [p, why] of refused) {
      expect(passphraseProblem(p), JSON.stringify(p)).toMatch(why);
      await expect(createIdentity(dataDir, p)).rejects.toThrow(why);
      expect(existsSync(identityPath(dataDir))).toBe(false);
    }
    for (const p of ['correct horse', ' 8 chars! ', 'pässwörd', '😀😀😀😀😀😀😀😀', 'x'.repeat(512)])
      expect(passphraseProblem(p), JSON.stringify(p)).toBeNull();
    await createIdentity(dataDir, '  inner spaces count  ');
    expect((await unlockIdentity(dataDir, '  inner spaces count  ')).identity).toMatch(/^AGE-SECRET-KEY-1/);
  });

  it('refuses an identity readable by others, with the chmod that fixes it', async () => {
    const { path } = await createIdentity(dataDir, 'correct horse battery');
    chmodSync(path, 0o644);
    expect((await keyStatus(dataDir)).problem).toMatch(/chmod 600/);
    await expect(unlockIdentity(dataDir, 'correct horse battery')).rejects.toThrow(
      new RegExp(`readable by others; run chmod 600 ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
    );
    await expect(exportIdentity(dataDir, 'correct horse battery')).rejects.toThrow(/chmod 600/);
    chmodSync(path, 0o600);
    await expect(unlockIdentity(dataDir, 'correct horse battery')).resolves.toBeTruthy();
  });

  it('refuses an identity that is a symbolic link', async () => {
    const { path } = await createIdentity(join(t.root, 'elsewhere'), 'correct horse battery');
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    symlinkSync(path, identityPath(dataDir));
    await expect(unlockIdentity(dataDir, 'correct horse battery')).rejects.toThrow(/not a regular file/);
  });

  it('says so when no key exists yet', async () => {
    expect((await keyStatus(dataDir)).exists).toBe(false);
    await expect(unlockIdentity(dataDir, 'correct horse battery')).rejects.toThrow(/No backup key exists yet/);
  });

  it('exports the identity as an AGE-SECRET-KEY-1 line after the passphrase check', async () => {
    const { recipient: rcpt } = await createIdentity(dataDir, 'correct horse battery');
    await expect(exportIdentity(dataDir, 'not the passphrase')).rejects.toThrow(/Wrong passphrase/);
    const text = await exportIdentity(dataDir, 'correct horse battery');
    const lines = text.trim().split('\n');
    expect(lines).toContain(`# public key: ${rcpt}`);
    const key = lines.filter((l) => /^AGE-SECRET-KEY-1[0-9A-Z]+$/.test(l));
    expect(key).toHaveLength(1);
    expect(await identityToRecipient(key[0]!)).toBe(rcpt);
  });
});

// ---- what is not a regular file: empty dirs and FIFOs/sockets, never dropped without a word ----

describe('backup of empty dirs, FIFOs and sockets', () => {
  it('records empty dirs (parents first) and skipped entries in the manifest, and reports each skipped one', async () => {
    const src = t.env.PI_CODING_AGENT_DIR!;
    const s = join(src, 'sessions', '--home-u-src-api--');
    writeFile(join(s, 'a.jsonl'), '{"type":"session"}\n');
    mkdirSync(join(s, 'empty', 'inner', 'deeper'), { recursive: true });
    chmodSync(join(s, 'empty'), 0o750);
    mkdirSync(join(s, 'only-fifo'), { recursive: true });
    execFileSync('mkfifo', [join(s, 'only-fifo', 'pipe')]);
    execFileSync('mkfifo', [join(s, 'beside.fifo')]);
    const server = createServer();
    // Bound at a short path and moved into place: a socket's own path must stay under 108 bytes, the session's need not.
    const short = mkdtempSync(join(tmpdir(), 's'));
    await new Promise<void>((r) => server.listen(join(short, 'a.sock'), r));
    renameSync(join(short, 'a.sock'), join(s, 'agent.sock'));
    rmSync(short, { recursive: true });
    try {
      const { taken } = await backUpPiSession({ path: s, root: src, env: t.env, key: { identity, recipient } });
      expect(taken.warnings).toEqual([
        `Not in the backup: ${join(s, 'agent.sock')} is a socket, which holds no data to keep; a restore will not bring it back.`,
        `Not in the backup: ${join(s, 'beside.fifo')} is a FIFO (named pipe), which holds no data to keep; a restore will not bring it back.`,
        `Not in the backup: ${join(s, 'only-fifo', 'pipe')} is a FIFO (named pipe), which holds no data to keep; a restore will not bring it back.`,
      ]);
      const m = await readArchive(archivePathFor(dataDir, taken.id), identity);
      const rel = 'sessions/--home-u-src-api--';
      expect(m.entries.map((e) => e.relativePath)).toEqual([`${rel}/a.jsonl`]);
      expect(m.emptyDirs).toEqual([
        { root: 'pi_home', relativePath: `${rel}/empty`, mode: 0o750 },
        { root: 'pi_home', relativePath: `${rel}/empty/inner`, mode: statSync(join(s, 'empty', 'inner')).mode & 0o777 },
        { root: 'pi_home', relativePath: `${rel}/empty/inner/deeper`, mode: statSync(join(s, 'empty', 'inner', 'deeper')).mode & 0o777 },
        { root: 'pi_home', relativePath: `${rel}/only-fifo`, mode: statSync(join(s, 'only-fifo')).mode & 0o777 },
      ]);
      expect(m.skipped).toEqual([
        { root: 'pi_home', relativePath: `${rel}/agent.sock`, kind: 'socket' },
        { root: 'pi_home', relativePath: `${rel}/beside.fifo`, kind: 'fifo' },
        { root: 'pi_home', relativePath: `${rel}/only-fifo/pipe`, kind: 'fifo' },
      ]);
    } finally {
      server.close();
    }
  });

  it('refuses a manifest whose empty-dir or skipped list is unsafe', async () => {
    const src = t.env.PI_CODING_AGENT_DIR!;
    writeFile(join(src, 'sessions/x/a.jsonl'), 'a');
    const files = await collectFiles([join(src, 'sessions')], [{ label: 'pi_home', dir: src }]);
    for (const [opts, why] of [
      [{ emptyDirs: [{ root: 'pi_home', relativePath: '../escape', mode: 0o700 }] }, /unsafe empty directory/],
      [{ emptyDirs: [{ root: 'pi_home', relativePath: 'sessions/x/a.jsonl', mode: 0o700 }] }, /as a file and a directory/],
      [{ skipped: [{ root: 'pi_home', relativePath: 'sessions/x/p', kind: 'symlink' as never }] }, /invalid skipped entry/],
    ] as [Partial<Parameters<typeof writeArchive>[0]>, RegExp][]) {
      const archivePath = join(t.root, `${randomUUID()}.cxb`);
      await writeArchive({ archivePath, recipient, agent: 'pi', operationId: 'op', id: randomUUID(), itemCount: 1, retentionDays: 1, files, ...opts });
      await expect(readArchive(archivePath, identity)).rejects.toThrow(why);
    }
  });
});

// ---- archive round trip ---------------------------------------------------------

describe('archive', () => {
  it('round-trips a tree with text, binary, empty and multi-frame files, streaming both ways', async () => {
    const src = t.env.PI_CODING_AGENT_DIR!;
    const big = randomBytes(9 * 1024 * 1024 + 12345); // crosses an 8 MiB zstd frame and many age chunks
    const files: Record<string, Buffer> = {
      'sessions/--home-u-src-api--/2026-01-01_a.jsonl': Buffer.from('{"type":"session"}\n'.repeat(5000)),
      'sessions/--home-u-src-api--/binary.bin': randomBytes(70_000),
      'sessions/--home-u-src-api--/empty.jsonl': Buffer.alloc(0),
      'sessions/--home-u-src-web--/big.bin': big,
      'sessions/--home-u-src-web--/nested dir/ünïcode name.jsonl': Buffer.from('héllo\0world'),
    };
    for (const [rel, body] of Object.entries(files)) writeFile(join(src, rel), body);
    const before = hashTree(src);

    const collected = await collectFiles([join(src, 'sessions')], [{ label: 'pi_home', dir: src }]);
    expect(collected).toHaveLength(5);
    const archivePath = join(t.root, 'out.cxb');
    const progress: number[] = [];
    const { manifest, archiveBytes } = await writeArchive({
      archivePath,
      recipient,
      agent: 'pi',
      operationId: 'op-1',
      id: randomUUID(),
      itemCount: 2,
      retentionDays: 30,
      files: collected,
      onBytes: (d) => progress.push(d),
    });
    expect(existsSync(`${archivePath}.partial`)).toBe(false);
    expect(statSync(archivePath).mode & 0o777).toBe(0o600);
    expect(archiveBytes).toBe(statSync(archivePath).size);
    expect(readFileSync(archivePath).subarray(0, 21).toString()).toBe('age-encryption.org/v1');
    expect(manifest.originalBytes).toBe(Object.values(files).reduce((a, b) => a + b.length, 0));
    expect(progress.at(-1)).toBe(manifest.originalBytes);
    expect(manifest.entries.map((e) => e.relativePath).sort()).toEqual(Object.keys(files).sort());
    for (const e of manifest.entries) {
      expect(e.root).toBe('pi_home');
      expect(e.sha256).toBe(sha(files[e.relativePath]!));
      expect(e.sizeBytes).toBe(files[e.relativePath]!.length);
    }

    // Verify-only read.
    const m = await readArchive(archivePath, identity, {}, 'pi');
    expect(m).toEqual(manifest);

    // Restore into an empty root: byte-identical.
    const dest = join(t.root, 'restored-agent');
    mkdirSync(dest);
    const r = await restoreArchive({
      archivePath,
      identity,
      agent: 'pi',
      roots: { pi_home: dest },
      uid: process.getuid!(),
      stagingParent: join(t.root, 'staging'),
    });
    expect(r.restored.sort()).toEqual(
      Object.keys(files)
        .map((f) => join(dest, f))
        .sort(),
    );
    expect(treeDiff(before, hashTree(dest))).toEqual([]);
    expect(readdirSync(join(t.root, 'staging'))).toEqual([]);
  });

  it('the zstd writer cuts frames of at most 8 MiB, whatever the input chunk size', async () => {
    const frames: Buffer[] = [];
    const w = new ZstdFrameWriter();
    w.on('data', (c: Buffer) => frames.push(c));
    const done = new Promise((r) => w.on('end', r));
    w.end(randomBytes(20 * 1024 * 1024 + 5)); // one 20 MiB chunk, as a huge manifest would be
    await done;
    expect(frames).toHaveLength(3);
    const sizes = frames.map((f) => execFileSync('/usr/bin/zstd', ['-d', '-c'], { input: f, maxBuffer: 64 << 20 }).length);
    expect(sizes).toEqual([8 * 1024 * 1024, 8 * 1024 * 1024, 4 * 1024 * 1024 + 5]);
  });

  it('never leaves a .partial when the archive cannot be written, and never overwrites one', async () => {
    const src = t.env.PI_CODING_AGENT_DIR!;
    writeFile(join(src, 'sessions/--p--/a.jsonl'), 'x');
    const files = await collectFiles([join(src, 'sessions')], [{ label: 'pi_home', dir: src }]);
    const archivePath = join(t.root, 'w.cxb');
    writeFileSync(`${archivePath}.partial`, 'someone else');
    await expect(
      writeArchive({ archivePath, recipient, agent: 'pi', operationId: 'op', id: randomUUID(), itemCount: 1, retentionDays: 1, files }),
    ).rejects.toThrow(/EEXIST/);
    expect(readFileSync(`${archivePath}.partial`, 'utf8')).toBe('someone else');
    expect(existsSync(archivePath)).toBe(false);
  });

  it('fails (and leaves nothing) when a source file shrinks after it was hashed', async () => {
    const src = t.env.PI_CODING_AGENT_DIR!;
    writeFile(join(src, 'sessions/--p--/a.jsonl'), 'first file\n');
    writeFile(join(src, 'sessions/--p--/b.jsonl'), 'x'.repeat(200_000));
    const files = await collectFiles([join(src, 'sessions')], [{ label: 'pi_home', dir: src }]);
    const archivePath = join(t.root, 'shrink.cxb');
    const pending = writeArchive({
      archivePath,
      recipient,
      agent: 'pi',
      operationId: 'op',
      id: randomUUID(),
      itemCount: 2,
      retentionDays: 1,
      files,
      // After the first payload is packed, the second one loses most of its bytes.
      onBytes: (done) => void (done === 11 && truncateSync(join(src, 'sessions/--p--/b.jsonl'), 10)),
    });
    const outcome = await Promise.race([
      pending.then(
        () => 'resolved',
        (e: Error) => e.message,
      ),
      new Promise((r) => setTimeout(() => r('hung'), 5000)),
    ]);
    expect(outcome).not.toBe('resolved');
    expect(outcome).not.toBe('hung');
    expect(readdirSync(t.root).filter((n) => n.startsWith('shrink'))).toEqual([]);
  });
});

// ---- crafting bad archives -----------------------------------------------------

interface Raw {
  name: string;
  body?: Buffer;
  type?: 'file' | 'symlink' | 'link' | 'directory';
  linkname?: string;
}

interface PayloadSpec {
  root?: string;
  relativePath: string;
  body: Buffer;
}

function manifestFor(payloads: PayloadSpec[], over: Partial<Manifest> = {}): Manifest {
  const entries: ManifestEntry[] = payloads.map((p) => ({
    root: p.root ?? 'pi_home',
    relativePath: p.relativePath,
    sha256: sha(p.body),
    sizeBytes: p.body.length,
  }));
  return {
    formatVersion: 1,
    id: randomUUID(),
    agent: 'pi',
    createdAt: new Date().toISOString(),
    expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    operationId: 'op-crafted',
    itemCount: payloads.length,
    originalBytes: payloads.reduce((a, p) => a + p.body.length, 0),
    archiveBytes: 0,
    entries,
    ...over,
  };
}

const manifestEntry = (m: Manifest): Raw => ({ name: MANIFEST_NAME, body: Buffer.from(JSON.stringify(m)) });
const payloadEntry = (p: PayloadSpec): Raw => ({ name: `payload/${p.root ?? 'pi_home'}/${p.relativePath}`, body: p.body });

/** tar (tar-stream) → ZstdFrameWriter → age X25519 to `recipient`, exactly the layers cleanerx writes. */
async function craft(path: string, entries: Raw[], to = recipient): Promise<void> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  pack.on('data', (c) => chunks.push(c as Buffer));
  const ended = new Promise<void>((res, rej) => {
    pack.on('end', res);
    pack.on('error', rej);
  });
  for (const e of entries) {
    const type = e.type ?? 'file';
    await new Promise<void>((res, rej) => {
      const cb = (err?: Error | null): void => (err ? rej(err) : res());
      if (type === 'file') pack.entry({ name: e.name, size: e.body!.length, mode: 0o600 }, e.body!, cb);
      else pack.entry({ name: e.name, type, linkname: e.linkname, mode: 0o755 }, cb);
    });
  }
  pack.finalize();
  await ended;
  const z: Buffer[] = [];
  for await (const c of Readable.from([Buffer.concat(chunks)]).pipe(new ZstdFrameWriter())) z.push(c as Buffer);
  const enc = new Encrypter();
  enc.addRecipient(to);
  writeFileSync(path, await enc.encrypt(Buffer.concat(z)));
}

const GOOD: PayloadSpec[] = [
  { relativePath: 'sessions/--home-u-src-api--/2026_s1.jsonl', body: Buffer.from('{"type":"session","id":"s1"}\n{"type":"message"}\n') },
  { relativePath: 'sessions/--home-u-src-api--/2026_s2.jsonl', body: randomBytes(100_000) },
];

describe('bad input: rejected with a clear reason, nothing written to the destination', () => {
  let dest: string;
  let staging: string;
  let archive: string;
  beforeEach(() => {
    dest = t.env.PI_CODING_AGENT_DIR!;
    // An agent home that already has data of its own.
    writeFile(join(dest, 'sessions/--home-u-src-old--/keep.jsonl'), '{"type":"session"}\n');
    writeFile(join(dest, 'settings.json'), '{}');
    staging = join(t.root, 'staging');
    archive = join(t.root, 'bad.cxb');
  });

  const restore = (over: { identity?: string; agent?: 'pi' | 'claude' } = {}) =>
    restoreArchive({
      archivePath: archive,
      identity: over.identity ?? identity,
      agent: over.agent ?? 'pi',
      roots: { pi_home: dest },
      uid: process.getuid!(),
      stagingParent: staging,
    });

  /** readArchive and restoreArchive both refuse with `reason`; the destination is byte-identical and staging is empty. */
  async function expectRejected(reason: RegExp, over: { identity?: string; agent?: 'pi' | 'claude' } = {}): Promise<void> {
    const before = hashTree(t.root, [staging]);
    const written: string[] = [];
    await expect(
      readArchive(archive, over.identity ?? identity, { payload: async (e, s) => void (written.push(e.relativePath), await s.toArray()) }, over.agent ?? 'pi'),
    ).rejects.toThrow(reason);
    await expect(restore(over)).rejects.toThrow(reason);
    expect(treeDiff(before, hashTree(t.root, [staging]))).toEqual([]);
    expect(readdirSync(staging)).toEqual([]);
  }

  it('control: the crafted good archive restores (so each refusal below is about its defect)', async () => {
    await craft(archive, [manifestEntry(manifestFor(GOOD)), ...GOOD.map(payloadEntry)]);
    const r = await restore();
    expect(r.restored).toHaveLength(2);
    for (const p of GOOD) expect(readFileSync(join(dest, p.relativePath)).equals(p.body)).toBe(true);
  });

  it('bit-flipped ciphertext (payload chunk)', async () => {
    await craft(archive, [manifestEntry(manifestFor(GOOD)), ...GOOD.map(payloadEntry)]);
    const b = readFileSync(archive);
    b[b.length - 5000]! ^= 0x01;
    writeFileSync(archive, b);
    await expectRejected(/The archive is damaged: .*/);
  });

  it('bit-flipped ciphertext (header MAC)', async () => {
    await craft(archive, [manifestEntry(manifestFor(GOOD)), ...GOOD.map(payloadEntry)]);
    const b = readFileSync(archive);
    const macAt = b.indexOf('\n---') + 6;
    b[macAt] = b[macAt] === 0x41 ? 0x42 : 0x41;
    writeFileSync(archive, b);
    await expectRejected(/cannot be decrypted with this key/);
  });

  it('truncated archive (mid-chunk and on a 64 KiB chunk boundary)', async () => {
    await craft(archive, [manifestEntry(manifestFor(GOOD)), ...GOOD.map(payloadEntry)]);
    const full = statSync(archive).size;
    truncateSync(archive, Math.floor(full / 2));
    await expectRejected(/The archive is damaged/);
    await craft(archive, [manifestEntry(manifestFor(GOOD)), ...GOOD.map(payloadEntry)]);
    const header = readFileSync(archive).indexOf('\n---') + 1;
    const headerEnd = readFileSync(archive).indexOf('\n', header) + 1 + 16; // + nonce
    truncateSync(archive, headerEnd + (64 * 1024 + 16)); // exactly one full, non-final chunk
    await expectRejected(/The archive is damaged/);
  });

  it('wrong identity (another key)', async () => {
    await craft(archive, [manifestEntry(manifestFor(GOOD)), ...GOOD.map(payloadEntry)]);
    await expectRejected(/cannot be decrypted with this key/, { identity: await generateX25519Identity() });
  });

  it('wrong passphrase: the key never unlocks, so nothing is decrypted', async () => {
    await createIdentity(dataDir, 'correct horse battery');
    await expect(unlockIdentity(dataDir, 'incorrect horse battery')).rejects.toThrow(/Wrong passphrase/);
  });

  it('wrong agent (manifest says claude, the catalog/target says pi)', async () => {
    await craft(archive, [manifestEntry(manifestFor(GOOD, { agent: 'claude' })), ...GOOD.map(payloadEntry)]);
    await expectRejected(/The archive belongs to claude, not pi\./);
  });

  it('a root label the target agent does not have', async () => {
    const odd = [{ ...GOOD[0]!, root: 'claude_home' }];
    await craft(archive, [manifestEntry(manifestFor(odd)), ...odd.map(payloadEntry)]);
    await expect(restore()).rejects.toThrow(/"claude_home", which is not a root of pi/);
    expect(readdirSync(staging)).toEqual([]);
  });

  it('duplicate entry in the manifest', async () => {
    const m = manifestFor(GOOD);
    m.entries.push({ ...m.entries[0]! });
    await craft(archive, [manifestEntry(m), ...GOOD.map(payloadEntry), payloadEntry(GOOD[0]!)]);
    await expectRejected(/The manifest names pi_home\/sessions\/--home-u-src-api--\/2026_s1\.jsonl twice/);
  });

  it('a format-2 manifest with a bad time or directory (not a number, out of range, unsafe dir path, a dir twice) is refused', async () => {
    const bad: ((m: Manifest) => void)[] = [
      (m) => {
        m.entries[0]!.mtimeNs = '1.5e9';
      },
      (m) => {
        m.entries[0]!.mtimeNs = '99999999999999999999';
      },
      (m) => {
        (m.entries[0] as unknown as { mtimeNs: number }).mtimeNs = 1;
      },
      (m) => {
        m.dirs = [{ root: 'pi_home', relativePath: 'sessions/../..', mode: 0o755, mtimeNs: '0' }];
      },
      (m) => {
        m.dirs = [{ root: 'pi_home', relativePath: 'sessions', mode: 0o1777, mtimeNs: '0' }];
      },
      (m) => {
        m.dirs = [{ root: 'pi_home', relativePath: 'sessions', mode: 0o755, mtimeNs: 'now' }];
      },
      (m) => {
        m.dirs = [
          { root: 'pi_home', relativePath: 'sessions', mode: 0o755, mtimeNs: '0' },
          { root: 'pi_home', relativePath: 'sessions', mode: 0o700, mtimeNs: '0' },
        ];
      },
    ];
    for (const spoil of bad) {
      const m = { ...manifestFor(GOOD), formatVersion: 2 as const };
      spoil(m);
      await craft(archive, [manifestEntry(m), ...GOOD.map(payloadEntry)]);
      await expectRejected(/The manifest (has an invalid modification time|names an invalid or unsafe directory|names the directory pi_home\/sessions twice)/);
    }
  });

  it('a manifest of an unknown format (3) is refused', async () => {
    await craft(archive, [manifestEntry({ ...manifestFor(GOOD), formatVersion: 3 } as unknown as Manifest), ...GOOD.map(payloadEntry)]);
    await expectRejected(/no valid cleanerx manifest/);
  });

  it('duplicate payload entry in the tar', async () => {
    await craft(archive, [manifestEntry(manifestFor(GOOD)), ...GOOD.map(payloadEntry), payloadEntry(GOOD[0]!)]);
    await expectRejected(/The archive holds payload\/pi_home\/sessions\/--home-u-src-api--\/2026_s1\.jsonl twice/);
  });

  it('path traversal in the manifest relativePath (../, absolute, ., empty segment)', async () => {
    for (const bad of ['../../escaped.jsonl', 'sessions/../../../escaped.jsonl', '/etc/escaped', 'sessions/./x.jsonl', 'sessions//x.jsonl', '..']) {
      const p = [{ relativePath: bad, body: Buffer.from('evil') }];
      await craft(archive, [manifestEntry(manifestFor(p)), ...p.map(payloadEntry)]);
      await expectRejected(/The manifest names an unsafe path/);
    }
    expect(existsSync(join(t.root, 'escaped.jsonl'))).toBe(false);
  });

  it('path traversal in the tar name', async () => {
    for (const name of ['payload/pi_home/../../escaped.jsonl', '../escaped.jsonl', '/tmp/escaped.jsonl']) {
      await craft(archive, [manifestEntry(manifestFor(GOOD)), ...GOOD.map(payloadEntry), { name, body: Buffer.from('evil') }]);
      await expectRejected(/holds an entry the manifest does not name/);
    }
  });

  it('a symlink tar entry (and a hard link, and a directory)', async () => {
    await craft(archive, [
      manifestEntry(manifestFor(GOOD)),
      payloadEntry(GOOD[0]!),
      { name: `payload/pi_home/${GOOD[1]!.relativePath}`, type: 'symlink', linkname: '/etc/passwd' },
    ]);
    await expectRejected(/non-file entry \(symlink: payload\/pi_home\/sessions/);
    await craft(archive, [
      manifestEntry(manifestFor(GOOD)),
      payloadEntry(GOOD[0]!),
      { name: `payload/pi_home/${GOOD[1]!.relativePath}`, type: 'link', linkname: `payload/pi_home/${GOOD[0]!.relativePath}` },
    ]);
    await expectRejected(/non-file entry \(link: /);
    await craft(archive, [manifestEntry(manifestFor(GOOD)), { name: 'payload/pi_home/sessions/', type: 'directory' }, ...GOOD.map(payloadEntry)]);
    await expectRejected(/non-file entry \(directory: /);
  });

  it('an extra payload the manifest does not name', async () => {
    await craft(archive, [
      manifestEntry(manifestFor(GOOD)),
      ...GOOD.map(payloadEntry),
      payloadEntry({ relativePath: 'sessions/--home-u-src-api--/stowaway.jsonl', body: Buffer.from('x') }),
    ]);
    await expectRejected(/holds an entry the manifest does not name: payload\/pi_home\/sessions\/--home-u-src-api--\/stowaway\.jsonl/);
  });

  it('a missing payload', async () => {
    await craft(archive, [manifestEntry(manifestFor(GOOD)), payloadEntry(GOOD[0]!)]);
    await expectRejected(/missing 1 payload\(s\), e\.g\. payload\/pi_home\/sessions\/--home-u-src-api--\/2026_s2\.jsonl/);
  });

  it('the manifest is not the first entry (or absent, or not a manifest)', async () => {
    await craft(archive, [payloadEntry(GOOD[0]!), manifestEntry(manifestFor(GOOD)), payloadEntry(GOOD[1]!)]);
    await expectRejected(/does not start with its manifest/);
    await craft(archive, []);
    await expectRejected(/The archive is empty/);
    await craft(archive, [{ name: MANIFEST_NAME, body: Buffer.from('{"formatVersion":2,"entries":[]}') }]);
    await expectRejected(/no valid cleanerx manifest/);
  });

  it('a payload whose size or SHA-256 differs from its manifest entry', async () => {
    const m = manifestFor(GOOD);
    m.entries[1]!.sizeBytes += 1;
    await craft(archive, [manifestEntry(m), ...GOOD.map(payloadEntry)]);
    await expectRejected(/2026_s2\.jsonl does not match its manifest entry \(size or SHA-256\)/);
    const h = manifestFor(GOOD);
    h.entries[0]!.sha256 = sha('something else');
    await craft(archive, [manifestEntry(h), ...GOOD.map(payloadEntry)]);
    await expectRejected(/2026_s1\.jsonl does not match its manifest entry \(size or SHA-256\)/);
  });

  it('a zstd bomb: a 32 KB frame of RLE blocks is refused before it is inflated to 1 GB', async () => {
    // Frame header without a content size (as the writer's), window 128 KiB, then 8,000 RLE blocks of 128 KiB.
    const parts = [Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38])];
    for (let i = 0; i < 8000; i++) {
      const h = (i === 7999 ? 1 : 0) | (1 << 1) | ((128 * 1024) << 3);
      parts.push(Buffer.from([h & 255, (h >> 8) & 255, (h >> 16) & 255, 0x41]));
    }
    const enc = new Encrypter();
    enc.addRecipient(recipient);
    writeFileSync(archive, await enc.encrypt(Buffer.concat(parts)));
    const rss = process.memoryUsage().rss;
    await expectRejected(/zstd frame that could expand beyond 67108864 bytes/);
    expect(process.memoryUsage().rss - rss).toBeLessThan(256 * 1024 * 1024);
  });

  it('not age at all / not zstd inside', async () => {
    writeFileSync(archive, 'just some text\n');
    await expectRejected(/cannot be decrypted with this key/);
    const enc = new Encrypter();
    enc.addRecipient(recipient);
    writeFileSync(archive, await enc.encrypt('plain tar? no, plain text'));
    await expectRejected(/The archive is damaged: The archive is not zstd data/);
  });
});

// ---- through the engine: catalog agent = manifest agent = target --------------------

describe('engine: the catalog entry, the manifest and the target agent must agree', () => {
  it('refuses an archive whose manifest names another agent than its catalog entry, and a wrong passphrase', async () => {
    const pass = 'correct horse battery';
    const { recipient: rcpt } = await createIdentity(dataDir, pass);
    const piHome = t.env.PI_CODING_AGENT_DIR!;
    writeFile(join(piHome, 'sessions/--home-u-src-old--/keep.jsonl'), '{"type":"session"}\n');
    const id = randomUUID();
    const m = manifestFor(GOOD, { id, agent: 'claude' });
    mkdirSync(backupsDir(dataDir), { recursive: true, mode: 0o700 });
    await craft(archivePathFor(dataDir, id), [manifestEntry(m), ...GOOD.map(payloadEntry)], rcpt);
    await addRecord(dataDir, {
      id,
      createdAt: m.createdAt,
      expiresAt: m.expiresAt,
      archivePath: archivePathFor(dataDir, id),
      archiveBytes: 1,
      originalBytes: m.originalBytes,
      itemCount: 2,
      operationId: m.operationId,
      agent: 'pi',
      verifiedAt: m.createdAt,
    });
    const engine = new Engine(ADAPTERS, t.ctx, undefined, backupService(t.ctx.env));
    const before = hashTree(t.env.HOME!, [dataDir]);
    await expect(engine.backupVerify(id, pass)).rejects.toThrow(/The archive belongs to claude, not pi\./);
    await expect(engine.backupRestore(id, pass, true)).rejects.toThrow(/The archive belongs to claude, not pi\./);
    await expect(engine.backupRestore(id, pass)).rejects.toThrow(/The archive belongs to claude, not pi\./);
    await expect(engine.backupRestore(id, 'not the passphrase')).rejects.toThrow(/Wrong passphrase/);
    expect(treeDiff(before, hashTree(t.env.HOME!, [dataDir]))).toEqual([]);
    // Control: the same payloads under a pi manifest restore through the engine.
    const ok = manifestFor(GOOD, { id, agent: 'pi' });
    await craft(archivePathFor(dataDir, id), [manifestEntry(ok), ...GOOD.map(payloadEntry)], rcpt);
    await addRecord(dataDir, {
      id,
      createdAt: ok.createdAt,
      expiresAt: ok.expiresAt,
      archivePath: archivePathFor(dataDir, id),
      archiveBytes: 1,
      originalBytes: ok.originalBytes,
      itemCount: 2,
      operationId: ok.operationId,
      agent: 'pi',
      verifiedAt: ok.createdAt,
    });
    // The busy state's progress (#27.2): the unlock first, then entries and bytes as they are checked, then (a restore) its steps.
    const verified: BackupProgress[] = [];
    expect(await engine.backupVerify(id, pass, (p) => verified.push({ ...p }))).toEqual({ entries: 2, bytes: ok.originalBytes });
    expect(verified[0]!.step).toBe('unlocking');
    expect(verified.at(-1)).toEqual({ step: 'reading', done: 2, total: 2, bytesDone: ok.originalBytes, bytesTotal: ok.originalBytes });
    const restoring: BackupProgress[] = [];
    expect((await engine.backupRestore(id, pass, false, (p) => restoring.push({ ...p }))).restored).toBe(2);
    expect([...new Set(restoring.map((p) => p.step))]).toEqual(['unlocking', 'reading', 'checking', 'writing']);
    for (const p of GOOD) expect(readFileSync(join(piHome, p.relativePath)).equals(p.body)).toBe(true);
    // A wrong passphrase is its own kind of error: the app's prompt asks again on it.
    const wrong = await engine.backupVerify(id, 'not the passphrase').catch((e: unknown) => e);
    expect(isWrongPassphrase(wrong)).toBe(true);
    expect(isWrongPassphrase(await engine.backupVerify('no-such-id', pass).catch((e: unknown) => e))).toBe(false);
    await engine.close();
  });
});

// ---- restore preflight -------------------------------------------------------------

describe('restore preflight: refusals leave everything as it was', () => {
  let dest: string;
  let staging: string;
  let archive: string;
  beforeEach(async () => {
    dest = t.env.PI_CODING_AGENT_DIR!;
    writeFile(join(dest, 'settings.json'), '{}');
    staging = join(t.root, 'staging');
    archive = join(t.root, 'pre.cxb');
    await craft(archive, [manifestEntry(manifestFor(GOOD)), ...GOOD.map(payloadEntry)]);
  });
  const restore = (root = dest) =>
    restoreArchive({ archivePath: archive, identity, agent: 'pi', roots: { pi_home: root }, uid: process.getuid!(), stagingParent: staging });

  it('a destination that already exists (a file, or a dangling link) is never overwritten', async () => {
    writeFile(join(dest, GOOD[1]!.relativePath), 'newer data of the user');
    let before = hashTree(t.root, [staging]);
    await expect(restore()).rejects.toThrow(/2026_s2\.jsonl already exists; a restore never overwrites anything/);
    expect(treeDiff(before, hashTree(t.root, [staging]))).toEqual([]);
    expect(existsSync(join(dest, GOOD[0]!.relativePath))).toBe(false);

    t.cleanup();
    t = makeTempEnv('cleanerx-backup-');
    dest = t.env.PI_CODING_AGENT_DIR!;
    staging = join(t.root, 'staging');
    archive = join(t.root, 'pre.cxb');
    await craft(archive, [manifestEntry(manifestFor(GOOD)), ...GOOD.map(payloadEntry)]);
    mkdirSync(dirname(join(dest, GOOD[0]!.relativePath)), { recursive: true });
    symlinkSync(join(t.root, 'nowhere'), join(dest, GOOD[0]!.relativePath));
    before = hashTree(t.root, [staging]);
    await expect(restore()).rejects.toThrow(/2026_s1\.jsonl already exists/);
    expect(treeDiff(before, hashTree(t.root, [staging]))).toEqual([]);
    expect(existsSync(join(t.root, 'nowhere'))).toBe(false);
    expect(readdirSync(staging)).toEqual([]);
  });

  it('an ancestor that is a symbolic link (the link target stays untouched)', async () => {
    const outside = join(t.root, 'outside');
    mkdirSync(outside);
    mkdirSync(join(dest, 'sessions'), { recursive: true });
    symlinkSync(outside, join(dest, 'sessions', '--home-u-src-api--'));
    const before = hashTree(t.root, [staging]);
    await expect(restore()).rejects.toThrow(/--home-u-src-api-- is not a plain directory; nothing was restored/);
    expect(treeDiff(before, hashTree(t.root, [staging]))).toEqual([]);
    expect(readdirSync(outside)).toEqual([]);
    expect(readdirSync(staging)).toEqual([]);
  });

  it('an ancestor that is a regular file', async () => {
    writeFile(join(dest, 'sessions'), 'not a dir');
    const before = hashTree(t.root, [staging]);
    await expect(restore()).rejects.toThrow(/sessions is not a plain directory/);
    expect(treeDiff(before, hashTree(t.root, [staging]))).toEqual([]);
  });

  it('a root that is a symbolic link, or missing', async () => {
    const real = join(t.root, 'real-agent');
    mkdirSync(real);
    const link = join(t.root, 'link-agent');
    symlinkSync(real, link);
    const before = hashTree(t.root, [staging]);
    await expect(restore(link)).rejects.toThrow(/restore root .*link-agent is missing or not a plain directory/);
    await expect(restore(join(t.root, 'absent'))).rejects.toThrow(/absent is missing or not a plain directory/);
    expect(treeDiff(before, hashTree(t.root, [staging]))).toEqual([]);
    expect(readdirSync(real)).toEqual([]);
    expect(readdirSync(staging)).toEqual([]);
  });

  it('a dry run only reports what would be restored', async () => {
    const before = hashTree(t.root, [staging]);
    const r = await restoreArchive({
      archivePath: archive,
      identity,
      agent: 'pi',
      roots: { pi_home: dest },
      uid: process.getuid!(),
      stagingParent: staging,
      dryRun: true,
    });
    expect(r.restored).toEqual(GOOD.map((p) => join(dest, p.relativePath)));
    expect(treeDiff(before, hashTree(t.root, [staging]))).toEqual([]);
    expect(readdirSync(staging)).toEqual([]);
  });
});

// ---- fault injection on both sides of every commit ------------------------------------

describe('restore commit: fault injection on both sides of every file', () => {
  // Three files: into an existing bucket, into a new bucket, and into a new nested dir.
  const THREE: PayloadSpec[] = [
    { relativePath: 'sessions/--home-u-src-api--/s1.jsonl', body: Buffer.from('{"a":1}\n') },
    { relativePath: 'sessions/--home-u-src-new--/s2.jsonl', body: randomBytes(50_000) },
    { relativePath: 'sessions/--home-u-src-new--/deeper/still/s3.jsonl', body: Buffer.alloc(0) },
  ];
  const points = THREE.flatMap((_, i) => [`restore:${i}:before`, `restore:${i}:after`]);

  let dest: string;
  let staging: string;
  let archive: string;
  beforeEach(async () => {
    dest = t.env.PI_CODING_AGENT_DIR!;
    writeFile(join(dest, 'sessions/--home-u-src-api--/existing.jsonl'), '{"keep":true}\n');
    staging = join(t.root, 'staging');
    archive = join(t.root, 'three.cxb');
    await craft(archive, [manifestEntry(manifestFor(THREE)), ...THREE.map(payloadEntry)]);
  });
  const restore = () =>
    restoreArchive({ archivePath: archive, identity, agent: 'pi', roots: { pi_home: dest }, uid: process.getuid!(), stagingParent: staging });

  it.each(points)('%s: the restore throws and the destination is byte-identical', async (point) => {
    const before = hashTree(t.root, [staging]);
    process.env.CLEANERX_FAIL_AT = point;
    try {
      await expect(restore()).rejects.toThrow(`injected failure at ${point}`);
    } finally {
      delete process.env.CLEANERX_FAIL_AT;
    }
    // No stray .partial, no created dir, no restored file: exactly as before.
    expect(treeDiff(before, hashTree(t.root, [staging]))).toEqual([]);
    expect(readdirSync(staging)).toEqual([]);
    // And the same archive then restores completely.
    const r = await restore();
    expect(r.restored).toHaveLength(3);
    for (const p of THREE) expect(readFileSync(join(dest, p.relativePath)).equals(p.body)).toBe(true);
  });

  it('passes every point in order when nothing fails', async () => {
    process.env.CLEANERX_FAIL_AT = 'restore:3:before'; // a point this archive never reaches
    try {
      await restore();
    } finally {
      delete process.env.CLEANERX_FAIL_AT;
    }
    const after = hashTree(dest);
    expect([...after.keys()].filter((k) => k.includes('.partial'))).toEqual([]);
    for (const p of THREE) expect(after.get(p.relativePath)).toBe(`file:${sha(p.body)}:384`);
    expect(readdirSync(staging)).toEqual([]);
  });
});

// ---- catalog delete ---------------------------------------------------------------

describe('catalog delete', () => {
  function record(id: string): BackupRecord {
    return {
      id,
      createdAt: new Date().toISOString(),
      expiresAt: new Date().toISOString(),
      archivePath: archivePathFor(dataDir, id),
      archiveBytes: 3,
      originalBytes: 3,
      itemCount: 1,
      operationId: 'op',
      agent: 'pi',
      verifiedAt: new Date().toISOString(),
    };
  }
  async function seed(n: number): Promise<string[]> {
    const ids = Array.from({ length: n }, () => randomUUID());
    mkdirSync(backupsDir(dataDir), { recursive: true, mode: 0o700 });
    for (const id of ids) {
      writeFileSync(archivePathFor(dataDir, id), 'cxb');
      await addRecord(dataDir, record(id));
    }
    return ids;
  }

  it('removes the archive, then the entry; other backups stay', async () => {
    const [a, b] = await seed(2);
    await deleteBackup(dataDir, a!);
    expect(existsSync(archivePathFor(dataDir, a!))).toBe(false);
    expect((await loadCatalog(dataDir)).map((r) => r.id)).toEqual([b]);
    expect(existsSync(archivePathFor(dataDir, b!))).toBe(true);
  });

  it('the archive goes before the entry: an interrupted delete leaves a stale entry a retry drops, and only while it is there', async () => {
    const [a, b] = await seed(2);
    process.env.CLEANERX_FAULT = 'catalog:ENOSPC';
    try {
      await expect(deleteBackup(dataDir, a!)).rejects.toThrow(/ENOSPC/);
    } finally {
      delete process.env.CLEANERX_FAULT;
    }
    // Interrupted between the two steps: the archive is gone, the entry is still there.
    expect(existsSync(archivePathFor(dataDir, a!))).toBe(false);
    expect((await loadCatalog(dataDir)).map((r) => r.id)).toEqual([a, b]);
    expect(readdirSync(backupsDir(dataDir)).filter((n) => n.endsWith('.partial'))).toEqual([]);
    // The retry finds the archive missing and drops only the stale entry.
    await deleteBackup(dataDir, a!);
    expect((await loadCatalog(dataDir)).map((r) => r.id)).toEqual([b]);
    // Once the entry is gone too, the id is not a catalog id any more.
    const before = hashTree(t.root);
    await expect(deleteBackup(dataDir, a!)).rejects.toThrow(/No backup .* in the catalog/);
    expect(treeDiff(before, hashTree(t.root))).toEqual([]);
  });

  it('refuses a symlink at <id>.cxb and leaves it, its target and the entry untouched', async () => {
    const [a] = await seed(1);
    const victim = join(t.root, 'victim.txt');
    writeFileSync(victim, 'precious');
    const path = archivePathFor(dataDir, a!);
    await import('node:fs/promises').then((f) => f.unlink(path));
    symlinkSync(victim, path);
    const before = hashTree(t.root);
    await expect(deleteBackup(dataDir, a!)).rejects.toThrow(/is not a regular file; nothing was deleted/);
    expect(treeDiff(before, hashTree(t.root))).toEqual([]);
    expect(lstatSync(path).isSymbolicLink()).toBe(true);
    expect(readFileSync(victim, 'utf8')).toBe('precious');
    expect((await loadCatalog(dataDir)).map((r) => r.id)).toEqual([a]);
  });

  it('refuses an id that is not in the catalog, and never derives a path from a non-id', async () => {
    await seed(1);
    const stranger = randomUUID();
    writeFileSync(archivePathFor(dataDir, stranger), 'not catalogued');
    // A catalog edited by hand to name a path: the entry is not even loaded.
    const raw = JSON.parse(readFileSync(join(backupsDir(dataDir), 'catalog.json'), 'utf8')) as { records: unknown[] };
    raw.records.push({ ...record(randomUUID()), id: '../../victim' });
    writeFileSync(join(backupsDir(dataDir), 'catalog.json'), JSON.stringify(raw));
    writeFileSync(join(dataDir, 'victim.cxb'), 'precious');
    const before = hashTree(t.root);
    await expect(deleteBackup(dataDir, stranger)).rejects.toThrow(/No backup .* in the catalog/);
    await expect(deleteBackup(dataDir, '../../victim')).rejects.toThrow(/No backup .* in the catalog/);
    await expect(deleteBackup(dataDir, 'not-an-id')).rejects.toThrow(/No backup .* in the catalog/);
    expect(() => archivePathFor(dataDir, '../../victim')).toThrow(/is not a backup id/);
    expect(treeDiff(before, hashTree(t.root))).toEqual([]);
  });
});

afterAll(() => {
  delete process.env.CLEANERX_TEST_MODE;
  delete process.env.CLEANERX_SCRYPT_LOG_N;
});
