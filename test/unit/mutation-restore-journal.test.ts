// Written against the surviving mutants of backup/restore-journal.ts: a
// resume writes only what a well-formed journal names, so every check of
// checkJournal is held by a journal that fails that check alone (and passes
// every other), read back through listRestoreJournals as a real file.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, promises as fsp, readFileSync, statSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import '../../src/adapters/registry.js';
import { ManifestTable } from '../../src/backup/manifest-table.js';
import {
  listRestoreJournals,
  partialName,
  PlannedEntries,
  removeRestoreJournal,
  restoreJournalPath,
  safeRelative,
  saveRestoreJournal,
  stagingDirName,
} from '../../src/backup/restore-journal.js';
import { atCrashPoints } from '../../src/engine/core/faults.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

const fakeBytes = vi.hoisted(() => ({ n: null as number | null }));
vi.mock('../../src/backup/json-pieces.js', async (orig) => {
  const real = await orig<typeof import('../../src/backup/json-pieces.js')>();
  return { ...real, jsonBytes: (r: object) => fakeBytes.n ?? real.jsonBytes(r) };
});

const ID = '0123abcd-0000-4000-8000-00000000beef';
const ID2 = '0123abcd-0000-4000-8000-00000000aaaa';
const SHA = 'ab'.repeat(32);

let t: TempEnv;
let dir: string;
beforeEach(() => {
  t = makeTempEnv('cleanerx-mrj-');
  dir = join(t.root, 'journals');
  mkdirSync(dir);
});
afterEach(() => {
  vi.restoreAllMocks();
  atCrashPoints(null);
  fakeBytes.n = null;
  t.cleanup();
});

type Json = Record<string, unknown>;
function good(id = ID): Json {
  return {
    formatVersion: 2,
    kind: 'cleanerx-restore',
    restoreId: id,
    agent: 'pi',
    backupId: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    status: 'staging',
    staging: `/tmp/x/${stagingDirName(id)}`,
    uid: 0,
    roots: { home: '/home/u' },
    entries: [{ root: 'home', path: 'a/b.jsonl', sha256: SHA, sizeBytes: 3, mode: 0o600, mtimeNs: '123', staged: '0', present: false }],
    dirs: [{ root: 'home', path: 'a', mode: 0o755, mtimeNs: '-5' }],
  };
}

async function readOne(j: unknown, id = ID): Promise<{ reason?: string; journal?: Json }> {
  writeFileSync(restoreJournalPath(dir, id), typeof j === 'string' ? j : JSON.stringify(j));
  const all = await listRestoreJournals(dir);
  expect(all).toHaveLength(1);
  const f = all[0]!;
  expect(f.path).toBe(restoreJournalPath(dir, id));
  if (f.kind === 'journal') return { journal: f.journal as unknown as Json };
  expect(f.kind).toBe('unknown');
  return { reason: f.reason };
}

const withEntry = (e: Json): Json => ({ ...good(), entries: [{ ...(good().entries as Json[])[0], ...e }] });
const withDir = (d: Json): Json => ({ ...good(), dirs: [{ ...(good().dirs as Json[])[0], ...d }] });

describe('checkJournal', () => {
  it('accepts a well-formed journal as it is', async () => {
    const { journal } = await readOne(good());
    expect(journal).toEqual(good());
  });

  it.each(['staging', 'committing', 'committed', 'rollingBack'])('accepts status %s', async (status) => {
    expect((await readOne({ ...good(), status })).journal?.status).toBe(status);
  });

  it('accepts format 1', async () => {
    expect((await readOne({ ...good(), formatVersion: 1 })).journal?.formatVersion).toBe(1);
  });

  const format = 'Unrecognized restore journal format.';
  it.each<[string, unknown]>([
    ['null', null],
    ['a number', 5],
    ['a text', '"x"'],
    ['true', 'true'],
    ['format 3', { ...good(), formatVersion: 3 }],
    ['format "2"', { ...good(), formatVersion: '2' }],
    ['another kind', { ...good(), kind: 'cleanerx-journal' }],
  ])('refuses %s as an unknown format', async (_, j) => {
    expect((await readOne(j === null || typeof j === 'number' ? JSON.stringify(j) : j)).reason).toBe(format);
  });

  it.each<[string, Json, string]>([
    ['another id', { restoreId: ID2 }, 'The restore journal names another restore than its file name.'],
    ['an unknown agent', { agent: 'nobody-knows' }, 'The restore journal names no known agent.'],
    ['an unknown status', { status: 'done' }, 'The restore journal has an unknown status.'],
    ['a staging dir that is no text', { staging: 5 }, 'The restore journal names an unexpected staging dir.'],
    ['another staging dir', { staging: `/tmp/x/${stagingDirName(ID2)}` }, 'The restore journal names an unexpected staging dir.'],
    ['a staging dir name without its slash', { staging: `/tmp/x${stagingDirName(ID)}` }, 'The restore journal names an unexpected staging dir.'],
    ['no uid', { uid: '0' }, 'The restore journal has no roots.'],
    ['no roots', { roots: null }, 'The restore journal has no roots.'],
    ['roots as text', { roots: 'home' }, 'The restore journal has no roots.'],
    ['a root that is no text', { roots: { home: 5 } }, 'The restore journal has a root that is not absolute.'],
    ['a relative root', { roots: { home: 'home/u' } }, 'The restore journal has a root that is not absolute.'],
    ['entries not a list', { entries: {} }, 'The restore journal has no entry list.'],
    ['dirs not a list', { dirs: {} }, 'The restore journal has no entry list.'],
    ['a null entry', { entries: [null] }, 'The restore journal holds a malformed entry.'],
    ['a number as entry', { entries: [5] }, 'The restore journal holds a malformed entry.'],
    ['a text as entry', { entries: ['home'] }, 'The restore journal holds a malformed entry.'],
    ['true as entry, with a root named undefined', { roots: { undefined: '/u' }, entries: [true] }, 'The restore journal holds a malformed entry.'],
    ['a null dir', { dirs: [null] }, 'The restore journal holds a malformed dir.'],
  ])('refuses %s', async (_, patch, reason) => {
    expect((await readOne({ ...good(), ...patch })).reason).toBe(reason);
  });

  it('a second root only needs to be absolute too', async () => {
    expect((await readOne({ ...good(), roots: { home: '/home/u', other: 'x' } })).reason).toBe('The restore journal has a root that is not absolute.');
  });

  const badEntry = 'The restore journal holds a malformed entry.';
  it.each<[string, Json]>([
    ['an unknown root', { root: 'elsewhere' }],
    ['an unsafe path', { path: 'a/../b' }],
    ['a short hash', { sha256: SHA.slice(1) }],
    ['an upper-case hash', { sha256: SHA.toUpperCase() }],
    ['a hash with a prefix', { sha256: `x${SHA}` }],
    ['a hash with a suffix', { sha256: `${SHA}x` }],
    ['a size as text', { sizeBytes: '3' }],
    ['a mode as text', { mode: '384' }],
    ['present as text', { present: 'false' }],
    ['a staged name with a letter after', { staged: '1a' }],
    ['a staged name with a letter before', { staged: 'a1' }],
    ['a staged name of ten digits', { staged: '1234567890' }],
    ['an empty staged name', { staged: '' }],
    ['an mtime as a fraction', { mtimeNs: '1.5' }],
    ['an mtime of 20 digits', { mtimeNs: '1'.repeat(20) }],
    ['an mtime with a suffix', { mtimeNs: '12x' }],
    ['an mtime with a prefix', { mtimeNs: 'x12' }],
  ])('refuses an entry with %s', async (_, patch) => {
    expect((await readOne(withEntry(patch))).reason).toBe(badEntry);
  });

  it.each<[string, Json]>([
    ['a staged name of nine digits', { staged: '123456789' }],
    ['a staged number', { staged: 7 }],
    ['a negative mtime of 19 digits', { mtimeNs: `-${'9'.repeat(19)}` }],
    ['no mtime', { mtimeNs: undefined }],
    ['present', { present: true }],
  ])('accepts an entry with %s', async (_, patch) => {
    expect((await readOne(withEntry(patch))).journal).toBeDefined();
  });

  const badDir = 'The restore journal holds a malformed dir.';
  it.each<[string, Json]>([
    ['an unknown root', { root: 'elsewhere' }],
    ['an unsafe path', { path: './a' }],
    ['a fractional mode', { mode: 1.5 }],
    ['a negative mode', { mode: -1 }],
    ['a mode above 0777', { mode: 0o1000 }],
    ['empty false', { empty: false }],
    ['a bad mtime', { mtimeNs: '1e5' }],
  ])('refuses a dir with %s', async (_, patch) => {
    expect((await readOne(withDir(patch))).reason).toBe(badDir);
  });

  it.each<[string, Json]>([
    ['mode 0', { mode: 0 }],
    ['mode 0777', { mode: 0o777 }],
    ['empty true', { empty: true }],
    ['no mode and no mtime', { mode: undefined, mtimeNs: undefined }],
  ])('accepts a dir with %s', async (_, patch) => {
    expect((await readOne(withDir(patch))).journal).toBeDefined();
  });

  it('format 1 marks a dir with a mode empty, and no other; format 2 marks none', async () => {
    const dirs = [
      { root: 'home', path: 'a', mode: 0o700 },
      { root: 'home', path: 'b' },
    ];
    const one = (await readOne({ ...good(), formatVersion: 1, dirs })).journal!;
    expect(one.dirs).toEqual([
      { root: 'home', path: 'a', mode: 0o700, empty: true },
      { root: 'home', path: 'b' },
    ]);
    const two = (await readOne({ ...good(), dirs })).journal!;
    expect(two.dirs).toEqual(dirs);
  });
});

describe('safeRelative', () => {
  it('takes a /-separated path of real components, up to 4096 units', () => {
    expect(safeRelative('a/b.jsonl')).toBe(true);
    expect(safeRelative('a'.repeat(4096))).toBe(true);
    expect(safeRelative('...')).toBe(true);
  });
  it.each<[string, unknown]>([
    ['no text', 5],
    ['empty', ''],
    ['4097 units', 'a'.repeat(4097)],
    ['a NUL', 'a\0b'],
    ['an empty component', 'a//b'],
    ['a leading slash', '/a'],
    ['a trailing slash', 'a/'],
    ['a . component', 'a/./b'],
    ['a .. component', '../a'],
  ])('refuses %s', (_, p) => {
    expect(safeRelative(p)).toBe(false);
  });
});

describe('listRestoreJournals', () => {
  it('no dir: no journals', async () => {
    expect(await listRestoreJournals(join(t.root, 'missing'))).toEqual([]);
  });

  it('reads only restore-<uuid>.json names, sorted', async () => {
    writeFileSync(restoreJournalPath(dir, ID), JSON.stringify(good(ID)));
    writeFileSync(restoreJournalPath(dir, ID2), JSON.stringify(good(ID2)));
    for (const n of [`restore-${ID}.json.tmp`, `restore-${ID.toUpperCase()}.json`, `xrestore-${ID}.json`, `restore-${ID}`, 'restore-1.json'])
      writeFileSync(join(dir, n), '{}');
    const readdir = fsp.readdir.bind(fsp) as (p: string) => Promise<string[]>;
    // Handed over backwards, so only the sort can put them in order.
    vi.spyOn(fsp, 'readdir').mockImplementation((async (p: string) => (await readdir(p)).sort().reverse()) as never);
    const all = await listRestoreJournals(dir);
    expect(all.map((f) => f.path)).toEqual([restoreJournalPath(dir, ID2), restoreJournalPath(dir, ID)]);
    expect(all.map((f) => f.kind)).toEqual(['journal', 'journal']);
  });

  it('a link, a dir, a FIFO, a huge file and bad JSON in a journal name are reported, never followed', async () => {
    const target = join(t.root, 'target.json');
    writeFileSync(target, JSON.stringify(good()));
    symlinkSync(target, restoreJournalPath(dir, ID));
    const [link] = await listRestoreJournals(dir);
    expect(link).toMatchObject({ kind: 'unknown', reason: expect.stringMatching(/^The restore journal cannot be read \(ELOOP/) });
    await fsp.unlink(restoreJournalPath(dir, ID));

    mkdirSync(restoreJournalPath(dir, ID));
    expect(await listRestoreJournals(dir)).toEqual([
      { kind: 'unknown', path: restoreJournalPath(dir, ID), reason: 'The restore journal cannot be read (not a regular file).' },
    ]);
    await fsp.rmdir(restoreJournalPath(dir, ID));

    // Opened without blocking (no writer), then refused for what it is.
    execFileSync('mkfifo', [restoreJournalPath(dir, ID)]);
    expect((await listRestoreJournals(dir))[0]).toMatchObject({ reason: 'The restore journal cannot be read (not a regular file).' });
    await fsp.unlink(restoreJournalPath(dir, ID));

    writeFileSync(restoreJournalPath(dir, ID), '');
    truncateSync(restoreJournalPath(dir, ID), 256 * 1024 * 1024 + 1);
    expect((await listRestoreJournals(dir))[0]).toMatchObject({ reason: 'The restore journal cannot be read (larger than 256 MiB).' });
    truncateSync(restoreJournalPath(dir, ID), 0);

    writeFileSync(restoreJournalPath(dir, ID), '{"formatVersion":');
    expect((await listRestoreJournals(dir))[0]).toMatchObject({
      kind: 'unknown',
      reason: expect.stringMatching(/^The restore journal cannot be read \(.+\)\.$/),
    });
  });

  it('a file of exactly 256 MiB is read (and refused for its content)', async () => {
    writeFileSync(restoreJournalPath(dir, ID), '');
    truncateSync(restoreJournalPath(dir, ID), 256 * 1024 * 1024);
    const [f] = await listRestoreJournals(dir);
    expect(f).toMatchObject({ kind: 'unknown' });
    expect((f as { reason: string }).reason).not.toMatch(/larger than/);
  });
});

// Stand-ins for the parts of a ManifestTable that PlannedEntries reads.
function table(): ManifestTable {
  const m = new ManifestTable();
  m.add({ root: 'home', relativePath: 'a/one', sha256: SHA, sizeBytes: 1, mode: 0o640, mtimeNs: '99' });
  m.add({ root: 'home', relativePath: 'a/two', sha256: 'cd'.repeat(32), sizeBytes: 2 });
  return m;
}

describe('PlannedEntries', () => {
  it('makes each planned entry from its manifest entry, staged name and present flag', () => {
    const p = new PlannedEntries(table(), Uint32Array.from([1, 0]), Int32Array.from([7, 8]));
    expect(p.length).toBe(2);
    p.present[1] = 1;
    expect(p.at(0)).toEqual({ root: 'home', path: 'a/two', sha256: 'cd'.repeat(32), sizeBytes: 2, mode: 0o600, staged: '8', present: false });
    expect('mtimeNs' in p.at(0)!).toBe(false);
    expect(p.at(1)).toEqual({ root: 'home', path: 'a/one', sha256: SHA, sizeBytes: 1, mode: 0o640, mtimeNs: '99', staged: '7', present: true });
  });

  it('has nothing outside 0..length-1', () => {
    const p = new PlannedEntries(table(), Uint32Array.from([0]), Int32Array.from([3, 4]));
    expect(p.at(-1)).toBeUndefined();
    expect(p.at(1)).toBeUndefined();
    expect(p.at(0)?.staged).toBe('3');
  });
});

describe('saveRestoreJournal and removeRestoreJournal', () => {
  it('writes the journal (0600, updatedAt now, one line) and passes its crash point after', async () => {
    const j = good() as never as Parameters<typeof saveRestoreJournal>[1];
    const seen: Array<[string, boolean]> = [];
    atCrashPoints((name) => seen.push([name, existsSync(restoreJournalPath(dir, ID))]));
    const before = Date.now();
    await saveRestoreJournal(dir, j, 'restore-test-point');
    expect(seen).toEqual([['restore-test-point', true]]);
    const text = readFileSync(restoreJournalPath(dir, ID), 'utf8');
    expect(text.endsWith('}\n')).toBe(true);
    const back = JSON.parse(text) as Json;
    expect(Date.parse(back.updatedAt as string)).toBeGreaterThanOrEqual(before - 1);
    expect(back).toEqual({ ...good(), updatedAt: back.updatedAt });
    expect(back.updatedAt).not.toBe(good().updatedAt);
    expect(statSync(restoreJournalPath(dir, ID)).mode & 0o777).toBe(0o600);
    expect((await listRestoreJournals(dir))[0]?.kind).toBe('journal');
  });

  it('refuses a journal whose text and newline would pass 256 MiB, writing nothing', async () => {
    const j = good() as never as Parameters<typeof saveRestoreJournal>[1];
    fakeBytes.n = 256 * 1024 * 1024;
    await expect(saveRestoreJournal(dir, j, 'p')).rejects.toThrow(/would exceed 256 MiB/);
    expect(existsSync(restoreJournalPath(dir, ID))).toBe(false);
    fakeBytes.n = 256 * 1024 * 1024 - 1;
    await saveRestoreJournal(dir, j, 'p');
    expect(existsSync(restoreJournalPath(dir, ID))).toBe(true);
  });

  it('removes the journal; a missing one or a missing dir is no error, any other error is', async () => {
    writeFileSync(restoreJournalPath(dir, ID), '{}');
    await removeRestoreJournal(dir, ID);
    expect(existsSync(restoreJournalPath(dir, ID))).toBe(false);
    await expect(removeRestoreJournal(dir, ID)).resolves.toBeUndefined();
    await expect(removeRestoreJournal(join(t.root, 'missing'), ID)).resolves.toBeUndefined();
    mkdirSync(restoreJournalPath(dir, ID));
    await expect(removeRestoreJournal(dir, ID)).rejects.toMatchObject({ code: expect.stringMatching(/^(EISDIR|EPERM)$/) });
  });

  it('syncs the dir after the unlink', async () => {
    writeFileSync(restoreJournalPath(dir, ID), '{}');
    const open = fsp.open.bind(fsp);
    const synced: string[] = [];
    vi.spyOn(fsp, 'open').mockImplementation((async (p: string, f: string) => {
      const fh = await open(p, f);
      const sync = fh.sync.bind(fh);
      fh.sync = async () => {
        synced.push(`${p}:${existsSync(restoreJournalPath(dir, ID))}`);
        return sync();
      };
      return fh;
    }) as never);
    await removeRestoreJournal(dir, ID);
    expect(synced).toEqual([`${dir}:false`]);
  });
});

it('names: the journal, its staging dir and the partial of a cross-filesystem commit', () => {
  expect(restoreJournalPath('/j', ID)).toBe(`/j/restore-${ID}.json`);
  expect(stagingDirName(ID)).toBe(`restore-${ID}`);
  expect(partialName(ID, 3)).toBe(`.cleanerx-restore-${ID}-3.partial`);
});

it('a full disk while the journal is written fails the save (the write is tagged restore-journal)', async () => {
  vi.stubEnv('CLEANERX_FAULT', 'restore-journal:ENOSPC');
  try {
    await expect(saveRestoreJournal(dir, good() as never, 'p')).rejects.toMatchObject({ code: 'ENOSPC' });
  } finally {
    vi.unstubAllEnvs();
  }
  expect(existsSync(restoreJournalPath(dir, ID))).toBe(false);
});

it('every handle opened to read journals or sync their dir is closed', async () => {
  const open = fsp.open.bind(fsp) as (p: string, f: string | number) => Promise<import('node:fs/promises').FileHandle>;
  const live = new Set<string>();
  vi.spyOn(fsp, 'open').mockImplementation((async (p: string, f: string | number) => {
    const fh = await open(p, f);
    live.add(`${p}#${fh.fd}`);
    const close = fh.close.bind(fh);
    const key = `${p}#${fh.fd}`;
    fh.close = async () => {
      live.delete(key);
      return close();
    };
    return fh;
  }) as never);
  writeFileSync(restoreJournalPath(dir, ID), JSON.stringify(good()));
  mkdirSync(restoreJournalPath(dir, ID2));
  const all = await listRestoreJournals(dir);
  expect(all.map((f) => f.kind)).toEqual(['unknown', 'journal']);
  expect([...live]).toEqual([]);
  await removeRestoreJournal(dir, ID);
  expect([...live]).toEqual([]);
});
