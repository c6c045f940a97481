// What writeArchive records (#26 item 5: mutants of backup/archive.ts's
// writer): a sparse file marked sparse and a dense or empty one not, the
// expiry the retention names, no directories when none are given, a file
// across several zstd frames read back whole with its byte progress rising
// to the total, and the refusals (a path that is no longer a regular file,
// a recipient that is no key). A temp dir and a fresh X25519 key only.

import { generateX25519Identity, identityToRecipient } from 'age-encryption';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import {
  closeSync,
  ftruncateSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-stream';
import { afterEach, expect, it } from 'vitest';
import { newBackupId, readArchive, type SourceFile, writeArchive } from '../../src/backup/archive.js';
import { AgePayloadReader, openAgeFile } from '../../src/backup/age-stream.js';
import { FRAME_BYTES, ZstdFrameReader } from '../../src/backup/zstd-frames.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

async function setUp(): Promise<{ root: string; out: string; key: { identity: string; recipient: string } }> {
  dir = mkdtempSync(join(tmpdir(), 'cleanerx-write-'));
  const root = join(dir, 'home');
  mkdirSync(root);
  const identity = await generateX25519Identity();
  return { root, out: join(dir, 'a.cxb'), key: { identity, recipient: await identityToRecipient(identity) } };
}

const source = (root: string, name: string): SourceFile => ({ root: 'pi_home', rootDir: root, path: join(root, name) });
const base = (out: string, recipient: string, files: SourceFile[]) => ({
  archivePath: out,
  recipient,
  agent: 'pi' as const,
  operationId: randomUUID(),
  id: newBackupId(),
  itemCount: 1,
  retentionDays: 3,
  files,
});

it('marks a file with holes sparse, a dense or empty one not; expires after the retention; lists no dirs when given none', async () => {
  const { root, out, key } = await setUp();
  const fd = openSync(join(root, 'holes'), 'w');
  ftruncateSync(fd, 1024 * 1024);
  closeSync(fd);
  // One whole 4 KiB block: as many bytes allocated as the size.
  writeFileSync(join(root, 'dense'), randomBytes(4096));
  writeFileSync(join(root, 'empty'), '');
  const w = await writeArchive(
    base(
      out,
      key.recipient,
      ['holes', 'dense', 'empty'].map((n) => source(root, n)),
    ),
  );
  const m = await readArchive(out, key.identity, {}, 'pi');
  expect(m.entries.map((e) => [e.relativePath, e.sizeBytes, e.sparse ?? false])).toEqual([
    ['holes', 1024 * 1024, true],
    ['dense', 4096, false],
    ['empty', 0, false],
  ]);
  expect(Date.parse(m.expiresAt) - Date.parse(m.createdAt)).toBe(3 * 86_400_000);
  expect(m.dirs).toEqual([]);
  expect(w.manifest.originalBytes).toBe(1024 * 1024 + 4096);
});

it('reads a file across several frames whole, its byte progress rising to the total', async () => {
  const { root, out, key } = await setUp();
  const body = randomBytes(2 * FRAME_BYTES + 12345);
  writeFileSync(join(root, 'big'), body);
  writeFileSync(join(root, 'small'), 'abc');
  const seen: [number, number][] = [];
  await writeArchive({ ...base(out, key.recipient, [source(root, 'big'), source(root, 'small')]), onBytes: (done, total) => seen.push([done, total]) });
  const total = body.length + 3;
  expect(seen).toEqual([
    [body.length, total],
    [total, total],
  ]);
  const sums = new Map<string, string>();
  await readArchive(
    out,
    key.identity,
    {
      payload: async (e, s) =>
        void sums.set(
          e.relativePath,
          createHash('sha256')
            .update(Buffer.concat(await s.toArray()))
            .digest('hex'),
        ),
    },
    'pi',
  );
  expect(sums.get('big')).toBe(createHash('sha256').update(body).digest('hex'));
});

it('refuses a path that is no longer a regular file, and a recipient that is no key', async () => {
  const { root, out, key } = await setUp();
  mkdirSync(join(root, 'now-a-dir'));
  await expect(writeArchive(base(out, key.recipient, [source(root, 'now-a-dir')]))).rejects.toThrow(`${join(root, 'now-a-dir')} is no longer a regular file.`);
  writeFileSync(join(root, 'f'), 'x');
  await expect(writeArchive(base(out, 'age1notakey', [source(root, 'f')]))).rejects.toThrow(/^The backup key's recipient cannot be used \(.+\)\.$/);
});

it('writes the empty dirs and the skipped entries into the manifest with only the fields a restore reads', async () => {
  const { root, out, key } = await setUp();
  writeFileSync(join(root, 'f'), 'x');
  // As collectEntries gives them: the path is for the warning only, the archive never names where it was.
  const skipped = [{ root: 'pi_home', relativePath: 's', kind: 'fifo' as const, path: join(root, 's') }];
  await writeArchive({ ...base(out, key.recipient, [source(root, 'f')]), emptyDirs: [{ root: 'pi_home', relativePath: 'e', mode: 0o750 }], skipped });
  const m = await readArchive(out, key.identity, {}, 'pi');
  expect([m.emptyDirs, m.skipped]).toEqual([[{ root: 'pi_home', relativePath: 'e', mode: 0o750 }], [{ root: 'pi_home', relativePath: 's', kind: 'fifo' }]]);
});

it('removes its partial archive when a file cannot be read mid-way', async () => {
  const { root, out, key } = await setUp();
  writeFileSync(join(root, 'a'), 'first');
  writeFileSync(join(root, 'b'), 'second');
  // After the first file is in, the second goes away before it is opened.
  const onBytes = (): void => rmSync(join(root, 'b'), { force: true });
  await expect(writeArchive({ ...base(out, key.recipient, [source(root, 'a'), source(root, 'b')]), onBytes })).rejects.toMatchObject({ code: 'ENOENT' });
  expect(readdirSync(dir!).sort()).toEqual(['home']);
});

/** Descriptors this process holds open on files under the test's temp dir. */
function openUnderDir(): string[] {
  const out: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(dir!)) out.push(target);
    } catch {
      // closed between the listing and the readlink (the listing's own descriptor)
    }
  }
  return out;
}

const refusal = (p: Promise<unknown>): Promise<string> =>
  p.then(
    () => 'written without a refusal',
    (e: Error) => e.message,
  );

it('refuses a listed path that is a link by the time of its lstat, with the sentence, not the open error', async () => {
  const { root, out, key } = await setUp();
  writeFileSync(join(root, 'target'), 'x');
  symlinkSync(join(root, 'target'), join(root, 'link'));
  expect(await refusal(writeArchive(base(out, key.recipient, [source(root, 'link')])))).toBe(`${join(root, 'link')} is no longer a regular file.`);
  expect(readdirSync(dir!).sort()).toEqual(['home']);
});

it('refuses a file swapped for a directory or shrunk after the sizes were taken, leaving no partial and no descriptor open', async () => {
  const { root, out, key } = await setUp();
  writeFileSync(join(root, 'a'), 'first');
  const swaps: [string, () => void, string][] = [
    [
      'a directory',
      () => {
        rmSync(join(root, 'b'));
        mkdirSync(join(root, 'b'));
      },
      `${join(root, 'b')} is no longer a regular file.`,
    ],
    ['shrunk', () => truncateSync(join(root, 'b'), 5000), `${join(root, 'b')} shrank while it was being backed up.`],
  ];
  for (const [what, swap, message] of swaps) {
    rmSync(join(root, 'b'), { recursive: true, force: true });
    writeFileSync(join(root, 'b'), randomBytes(10_000));
    // Called once the first file is in: after every lstat, before the second file is opened.
    const onBytes = (done: number): void => void (done === 5 && swap());
    expect(await refusal(writeArchive({ ...base(out, key.recipient, [source(root, 'a'), source(root, 'b')]), onBytes })), what).toBe(message);
    expect(readdirSync(dir!).sort(), what).toEqual(['home']);
    expect(openUnderDir(), what).toEqual([]);
  }
  await writeArchive(base(out, key.recipient, [source(root, 'a')]));
  expect(openUnderDir()).toEqual([]);
});

it('writes a tar mtime past what 11 octal digits hold as the largest they hold; the manifest keeps the exact time', async () => {
  const { root, out, key } = await setUp();
  writeFileSync(join(root, 'future'), 'x');
  const seconds = 8 ** 11 + 100;
  utimesSync(join(root, 'future'), seconds, seconds);
  const { manifest } = await writeArchive(base(out, key.recipient, [source(root, 'future')]));
  expect(manifest.entries[0]!.mtimeNs).toBe(`${seconds}000000000`);
  const fh = await open(out, 'r');
  const mtimes = new Map<string, number>();
  try {
    const { payloadKey, payloadOffset } = await openAgeFile(fh, key.identity);
    const extract = tar.extract();
    const listed = (async () => {
      for await (const entry of extract) {
        mtimes.set(entry.header.name, entry.header.mtime!.getTime() / 1000);
        entry.resume();
      }
    })();
    await Promise.all([pipeline(new AgePayloadReader(fh, payloadKey, payloadOffset), new ZstdFrameReader(), extract), listed]);
  } finally {
    await fh.close();
  }
  expect(mtimes.get('payload/pi_home/future')).toBe(8 ** 11 - 1);
});
