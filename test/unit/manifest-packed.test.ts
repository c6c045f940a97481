// Issue #26 item 4: verify and restore read the manifest packed (a
// ManifestTable walked out of its buffer entry by entry), never as one
// object per file. Held here: an archive written before that change still
// verifies and restores exactly (test/fixtures/backup-v2); the walk gives
// what JSON.parse gave for any JSON layout of a manifest and refuses what it
// refused, plus duplicated fields; the table finds every entry by name.

import { lstatSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Manifest, readArchive, readArchiveTable } from '../../src/backup/archive.js';
import { parseManifest, unpackManifest } from '../../src/backup/manifest-read.js';
import { ManifestTable } from '../../src/backup/manifest-table.js';
import { restoreArchive } from '../../src/backup/restore.js';
import { JsonTooDeepError } from '../../src/engine/core/bounded-json.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

const FIXTURE = join(resolve(dirname(fileURLToPath(import.meta.url)), '../..'), 'test/fixtures/backup-v2');
const SHA = (c: string): string => c.repeat(64);

let t: TempEnv;
beforeEach(() => {
  t = makeTempEnv('cleanerx-packed-');
});
afterEach(() => t.cleanup());

function manifestOf(entries: object[], extra: object = {}): Manifest {
  return {
    formatVersion: 2,
    id: 'a1a1a1a1-0000-4000-8000-000000000000',
    agent: 'pi',
    createdAt: '2026-01-01T00:00:00.000Z',
    expiresAt: '2026-02-01T00:00:00.000Z',
    operationId: 'op',
    itemCount: 1,
    originalBytes: 3,
    archiveBytes: 0,
    entries: entries as Manifest['entries'],
    dirs: [{ root: 'pi_home', relativePath: 'sessions', mode: 0o700, mtimeNs: '5' }],
    ...extra,
  };
}

const ENTRIES = [
  { root: 'pi_home', relativePath: 'sessions/a.jsonl', sha256: SHA('a'), sizeBytes: 1, mode: 0o640, mtimeNs: '1767225600123456789' },
  { root: 'pi_home', relativePath: 'sessions/b "q" \\ ü\u2028.jsonl', sha256: SHA('b'), sizeBytes: 2, mode: 0o600, mtimeNs: '-5', sparse: true },
  // Format 1: no mode, no time.
  { root: 'pi_root1', relativePath: 'sessions/a.jsonl', sha256: SHA('c'), sizeBytes: 0 },
];

const parsed = (text: string): Manifest => unpackManifest(parseManifest(Buffer.from(text)));

describe('an archive written before the packed reader', () => {
  it('verifies to the very manifest its writer returned, and restores every file, mode, time and empty dir', async () => {
    const identity = readFileSync(join(FIXTURE, 'v2.key.txt'), 'utf8').trim();
    const expected = JSON.parse(readFileSync(join(FIXTURE, 'v2.manifest.json'), 'utf8')) as Manifest;
    expect(await readArchive(join(FIXTURE, 'v2.cxb'), identity, {}, 'pi')).toEqual(expected);
    const packed = await readArchiveTable(join(FIXTURE, 'v2.cxb'), identity, {}, 'pi');
    expect(packed.entries.length).toBe(4);
    const root = join(t.root, 'pi');
    mkdirSync(root);
    const r = await restoreArchive({
      archivePath: join(FIXTURE, 'v2.cxb'),
      identity,
      agent: 'pi',
      roots: { pi_home: root },
      uid: process.getuid!(),
      stagingParent: join(t.root, 'staging'),
      journalDir: join(t.root, 'journals'),
    });
    expect(r.restored).toEqual(expected.entries.map((e) => join(root, e.relativePath)));
    expect(r.emptyDirs).toEqual([join(root, 'sessions/--home-u-v2--/empty')]);
    const s = join(root, 'sessions', '--home-u-v2--');
    expect(readFileSync(join(s, 'a.jsonl'), 'utf8')).toBe('{"type":"session","id":"a"}\n');
    expect(readFileSync(join(s, 'b "q" ü.jsonl'), 'utf8')).toBe('{"type":"message"}\n'.repeat(50));
    expect(readFileSync(join(s, `${'x'.repeat(120)}.jsonl`), 'utf8')).toBe('long name\n');
    expect(readFileSync(join(s, 'sparse.jsonl')).equals(Buffer.alloc(1 << 20))).toBe(true);
    for (const e of expected.entries) {
      const st = lstatSync(join(root, e.relativePath), { bigint: true });
      expect(Number(st.mode) & 0o777, e.relativePath).toBe(e.mode);
      expect(st.mtimeNs, e.relativePath).toBe(1767225600123456000n);
    }
    expect(lstatSync(join(s, 'empty')).mode & 0o777).toBe(0o750);
    expect(lstatSync(join(s, 'empty'), { bigint: true }).mtimeNs).toBe(1767225500000000000n);
    expect(lstatSync(s, { bigint: true }).mtimeNs).toBe(1767225400000000000n);
  });
});

describe('the manifest walk', () => {
  it('gives what JSON.parse gives, compact or pretty, in any field order', () => {
    const m = manifestOf(ENTRIES, { emptyDirs: [{ root: 'pi_home', relativePath: 'sessions/e', mode: 0o750 }], skipped: [] });
    const { entries, ...head } = m;
    for (const text of [
      JSON.stringify(m),
      JSON.stringify(m, null, 2),
      JSON.stringify({ entries, ...head }, null, '\t'),
      ` \r\n${JSON.stringify({ ...head, entries: [], extra: { deep: [[1], { a: '"]}' }] } })}\n `,
    ])
      expect(parsed(text)).toEqual(JSON.parse(text));
  });

  it('refuses what the whole-text parse refused, and a field given twice', () => {
    const good = JSON.stringify(manifestOf(ENTRIES));
    const twice = manifestOf([ENTRIES[0]!, { ...ENTRIES[0]!, sha256: SHA('d') }]);
    expect(() => parsed(JSON.stringify(twice))).toThrow('The manifest names pi_home/sessions/a.jsonl twice.');
    // The same path under another root is another entry.
    expect(parsed(JSON.stringify(manifestOf([ENTRIES[0]!, { ...ENTRIES[0]!, root: 'pi_root1' }]))).entries).toHaveLength(2);
    expect(() => parsed(good.replace('"entries":[', '"entries":[],"entries":['))).toThrow(/no valid cleanerx manifest/);
    expect(() => parsed(good.replace('"agent":"pi",', '"agent":"pi","agent":"pi",'))).toThrow(/no valid cleanerx manifest/);
    expect(() => parsed(good.slice(0, -1))).toThrow(SyntaxError);
    expect(() => parsed(good.slice(0, good.length / 2))).toThrow(SyntaxError);
    expect(() => parsed(`${good}x`)).toThrow(SyntaxError);
    expect(() => parsed(good.replace('"sizeBytes":1,', '"sizeBytes":1,,'))).toThrow(SyntaxError);
    expect(() => parsed(good.replace('"sizeBytes":1', '"sizeBytes":01'))).toThrow(SyntaxError);
    expect(() => parsed('[]')).toThrow(/no valid cleanerx manifest/);
    expect(() => parsed('{"formatVersion":2,"entries":[]}')).toThrow(/no valid cleanerx manifest/);
    expect(() => parsed(good.replace('"entries":[', '"entries":{"x":[').replace('],"dirs"', ']},"dirs"'))).toThrow(/no valid cleanerx manifest/);
    expect(() => parsed(JSON.stringify(manifestOf([{ ...ENTRIES[0]!, mtimeNs: '1e9' }])))).toThrow(/invalid modification time/);
    expect(() => parsed(JSON.stringify(manifestOf([{ ...ENTRIES[0]!, relativePath: 'sessions/../x' }])))).toThrow(/unsafe path/);
    expect(() =>
      parsed(JSON.stringify(manifestOf(ENTRIES, { dirs: [{ root: 'pi_home', relativePath: 'sessions/a.jsonl', mode: 0o700, mtimeNs: '1' }] }))),
    ).toThrow(/as a file and a directory/);
    expect(() => unpackManifest(parseManifest(Buffer.from(good), 'claude'))).toThrow('The archive belongs to pi, not claude.');
  });

  it('refuses deep nesting at its first byte past the bound, inside an entry or elsewhere', () => {
    const deep = '['.repeat(100_000);
    const good = JSON.stringify(manifestOf(ENTRIES));
    expect(() => parsed(good.replace('"mode":416', `"mode":${deep}`))).toThrow(JsonTooDeepError);
    expect(() => parsed(good.replace('"itemCount":1', `"itemCount":${deep}`))).toThrow(JsonTooDeepError);
  });
});

describe('the packed table', () => {
  it('keeps every field of every entry and finds each by root and path, past its first growth', () => {
    const t = new ManifestTable();
    const all = Array.from({ length: 5000 }, (_, i) => ({
      root: i % 3 ? 'pi_home' : 'pi_root2',
      relativePath: `sessions/--p-${i % 17}--/s${i}${i % 7 ? '' : '-ü'}.jsonl`,
      sha256: (i.toString(16).padStart(8, '0') + 'f'.repeat(56)).slice(0, 64),
      sizeBytes: i * 1_000_003,
      ...(i % 4 ? { mode: i % 0o777 } : {}),
      ...(i % 5 ? { mtimeNs: String(BigInt(i) * 1_000_000_007n - 99n) } : {}),
      ...(i % 6 ? {} : { sparse: true as const }),
    }));
    for (const e of all) expect(t.add(e)).toBe(true);
    expect(t.length).toBe(all.length);
    for (let i = 0; i < all.length; i++) {
      expect(t.entry(i)).toEqual(all[i]);
      expect(t.indexOf(all[i]!.root, all[i]!.relativePath)).toBe(i);
    }
    expect(t.add({ ...all[1234]!, sha256: SHA('0') })).toBe(false);
    expect(t.length).toBe(all.length);
    expect(t.indexOf('pi_home', 'sessions/nowhere')).toBe(-1);
    expect(t.indexOf('claude_home', all[1]!.relativePath)).toBe(-1);
    expect([...t.rootLabels()].sort()).toEqual(['pi_home', 'pi_root2']);
  });
});
