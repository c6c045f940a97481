// Issue #26 (hole 5): a backup of 200,000 small files peaked at 546–722 MB.
// The biggest cause was the manifest built whole — JSON.stringify of every
// entry into one string, copied into a Buffer, concatenated with its tar
// header, copied again into raw zstd frames, all of it sealed into one list —
// twice (once to measure, once to write), and read back the same way. These
// are structural checks, no timing and no RSS: while an archive of 15,000
// files is written and read, no JSON text, Buffer.from or Buffer.concat may
// grow near the manifest's size; the pieces the writer streams are the bytes
// the old one-shot code produced; and the reader keeps no map of payload
// names for an archive in manifest order.

import { generateX25519Identity, identityToRecipient } from 'age-encryption';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { collectFiles, type Manifest, readArchiveTable, writeArchive } from '../../src/backup/archive.js';
import { ManifestTable } from '../../src/backup/manifest-table.js';
import { jsonPieces } from '../../src/backup/json-pieces.js';
import { manifestRegion } from '../../src/backup/manifest-region.js';
import { pad512, tarHeader } from '../../src/backup/tar-header.js';
import { rawFrames, rawFramesOf } from '../../src/backup/zstd-frames.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

const FILES = 15_000;
/** Far below the 15,000-entry manifest (~3 MB), far above any one entry or piece. */
const BOUND = 512 * 1024;

let t: TempEnv;
beforeEach(() => {
  t = makeTempEnv('cleanerx-bounded-manifest-');
});
// Removing 15,000 files takes a while on a loaded machine.
afterEach(() => {
  vi.restoreAllMocks();
  t.cleanup();
}, 180_000);

let identity: string;
let recipient: string;
beforeAll(async () => {
  identity = await generateX25519Identity();
  recipient = await identityToRecipient(identity);
});

function manifestOf(n: number): Manifest {
  return {
    formatVersion: 2,
    id: 'b0b0b0b0-0000-4000-8000-000000000000',
    agent: 'pi',
    createdAt: '2026-01-01T00:00:00.000Z',
    expiresAt: '2026-02-01T00:00:00.000Z',
    operationId: 'op',
    itemCount: 1,
    originalBytes: n,
    archiveBytes: 0,
    entries: Array.from({ length: n }, (_, i) => ({
      root: 'pi_home',
      relativePath: `sessions/--p-${i % 7}--/s${i}-ü.jsonl`,
      sha256: 'a'.repeat(64),
      sizeBytes: i,
      mode: 0o600,
      mtimeNs: String(1_700_000_000_000_000_000n + BigInt(i)),
      ...(i % 5 === 0 ? { sparse: true as const } : {}),
    })),
    emptyDirs: [{ root: 'pi_home', relativePath: 'sessions/empty', mode: 0o700 }],
    dirs: [{ root: 'pi_home', relativePath: 'sessions', mode: 0o700, mtimeNs: '1' }],
  };
}

/** Records the largest JSON.stringify result, JSON.parse text, Buffer.from string and Buffer.concat result while `f` runs. */
async function largestWhile<T>(f: () => Promise<T>): Promise<{ value: T; json: number; parsed: number; from: number; concat: number }> {
  const most = { json: 0, parsed: 0, from: 0, concat: 0 };
  const stringify = JSON.stringify;
  vi.spyOn(JSON, 'stringify').mockImplementation(((...a: Parameters<typeof JSON.stringify>) => {
    const s = stringify(...a);
    if (typeof s === 'string') most.json = Math.max(most.json, s.length);
    return s;
  }) as typeof JSON.stringify);
  const parse = JSON.parse;
  vi.spyOn(JSON, 'parse').mockImplementation(((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
    most.parsed = Math.max(most.parsed, text.length);
    return parse(text, reviver);
  }) as typeof JSON.parse);
  const from = Buffer.from.bind(Buffer) as (...a: unknown[]) => Buffer;
  vi.spyOn(Buffer, 'from').mockImplementation(((...a: unknown[]) => {
    const b = from(...a);
    if (typeof a[0] === 'string') most.from = Math.max(most.from, b.length);
    return b;
  }) as typeof Buffer.from);
  const concat = Buffer.concat.bind(Buffer);
  vi.spyOn(Buffer, 'concat').mockImplementation((list, len) => {
    const b = concat(list, len);
    most.concat = Math.max(most.concat, b.length);
    return b;
  });
  const value = await f();
  vi.restoreAllMocks();
  return { value, ...most };
}

describe('the manifest is streamed, never held whole', () => {
  it('streams raw zstd frames byte-identical to the one-shot encoder at every frame and block edge', () => {
    for (const n of [0, 1, 511, 128 * 1024, 128 * 1024 + 1, 8 * 1024 * 1024 - 1, 8 * 1024 * 1024, 8 * 1024 * 1024 + 3, 17 * 1024 * 1024]) {
      const data = Buffer.alloc(n);
      for (let i = 0; i < n; i += 997) data[i] = i & 255;
      // Uneven pieces, so piece edges fall everywhere but on block edges.
      const pieces: Buffer[] = [];
      for (let off = 0, step = 1; off < n; off += step, step = (step * 7 + 3) % 300_000 || 1) pieces.push(data.subarray(off, Math.min(n, off + step)));
      expect(Buffer.concat([...rawFramesOf(n, pieces)]).equals(rawFrames(data)), `${n} bytes`).toBe(true);
    }
    expect(() => [...rawFramesOf(2, [Buffer.alloc(3)])]).toThrow(/length mismatch/);
    expect(() => [...rawFramesOf(4, [Buffer.alloc(3)])]).toThrow(/length mismatch/);
  });

  it('produces exactly JSON.stringify(manifest), in pieces each far smaller than the whole', () => {
    const m = manifestOf(FILES);
    const pieces = [...jsonPieces(m)];
    const whole = JSON.stringify(m);
    expect(pieces.join('')).toBe(whole);
    expect(whole.length).toBeGreaterThan(4 * BOUND);
    expect(Math.max(...pieces.map((p) => p.length))).toBeLessThan(BOUND / 2);
    const mtime = 1_700_000_000;
    const json = Buffer.from(whole);
    const oneShot = rawFrames(Buffer.concat([tarHeader('manifest.json', json.length, mtime), json, Buffer.alloc(pad512(json.length))]));
    const region = manifestRegion(m, mtime);
    expect(region.length).toBe(oneShot.length);
    expect(Buffer.concat([...region.pieces()]).equals(oneShot)).toBe(true);
  });

  it(`writes and reads back ${FILES.toLocaleString('en')} files without one buffer or string near the manifest's size`, { timeout: 240_000 }, async () => {
    const agentDir = t.env.PI_CODING_AGENT_DIR!;
    const sessions = join(agentDir, 'sessions');
    for (let d = 0; d < 20; d++) {
      const dir = join(sessions, `--home-u-p${d}--`);
      mkdirSync(dir, { recursive: true });
      for (let f = 0; f < FILES / 20; f++) writeFileSync(join(dir, `2026-01-01T00-00-00-000Z_${f}.jsonl`), `{"n":${f}}\n`, { mode: 0o600 });
    }
    const files = await collectFiles([sessions], [{ label: 'pi_home', dir: agentDir }]);
    expect(files).toHaveLength(FILES);
    const archivePath = join(t.root, 'b.cxb');
    const written = await largestWhile(() =>
      writeArchive({
        archivePath,
        recipient,
        agent: 'pi',
        operationId: 'op',
        id: 'c0c0c0c0-0000-4000-8000-000000000000',
        itemCount: 1,
        retentionDays: 1,
        files,
      }),
    );
    const manifestBytes = Buffer.byteLength(JSON.stringify(written.value.manifest));
    expect(manifestBytes).toBeGreaterThan(4 * BOUND);
    expect(written.json, 'largest JSON text while writing').toBeLessThan(BOUND);
    expect(written.from, 'largest Buffer.from(string) while writing').toBeLessThan(BOUND);
    expect(written.concat, 'largest Buffer.concat while writing').toBeLessThan(BOUND);

    // The stock tools read it (the manifest as compact JSON, each entry's hash filled in).
    const keyTxt = join(t.root, 'key.txt');
    writeFileSync(keyTxt, `${identity}\n`, { mode: 0o600 });
    const text = execFileSync('/bin/sh', ['-c', `age -d -i '${keyTxt}' '${archivePath}' | zstd -d -q -c | tar -xOf - manifest.json`], {
      maxBuffer: 64 * 1024 * 1024,
    }).toString('utf8');
    const onDisk = JSON.parse(text) as Manifest;
    expect(onDisk.entries).toHaveLength(FILES);
    expect(onDisk.entries[FILES - 1]!.sha256).toBe(written.value.manifest.entries[FILES - 1]!.sha256);
    expect(onDisk.entries[0]!.sha256).not.toBe('0'.repeat(64));
    expect(readFileSync(join(sessions, '--home-u-p0--', '2026-01-01T00-00-00-000Z_0.jsonl'), 'utf8')).toBe('{"n":0}\n');

    // Reading: the manifest is walked in one buffer (no JSON.parse of it whole, no object per entry), and no per-path map of payload names is built.
    let payloadKeys = 0;
    const set = Map.prototype.set;
    vi.spyOn(Map.prototype, 'set').mockImplementation(function (this: Map<unknown, unknown>, k: unknown, v: unknown) {
      if (typeof k === 'string' && k.startsWith('payload/')) payloadKeys++;
      return set.call(this, k, v);
    });
    const read = await largestWhile(() => readArchiveTable(archivePath, identity, {}, 'pi'));
    expect(read.value.entries).toBeInstanceOf(ManifestTable);
    expect(read.value.entries).toHaveLength(FILES);
    expect(read.value.entries.sha256(FILES - 1)).toBe(written.value.manifest.entries[FILES - 1]!.sha256);
    expect(read.parsed, 'largest JSON.parse text while reading').toBeLessThan(BOUND);
    expect(read.concat, 'largest Buffer.concat while reading').toBeLessThan(BOUND);
    expect(payloadKeys, 'payload names kept in a map while reading').toBe(0);
  });
});
