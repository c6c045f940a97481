// Written against the surviving mutants of backup/restore-staging.ts: what a
// staged file ends up as (bytes, mode, mtime, atime), the bound on files
// finishing in the background, the first failure kept and thrown, the fsync
// of every staged name once and of the dir, and an unlink that fails while
// the staging dir goes.

import type { FileHandle } from 'node:fs/promises';
import { existsSync, mkdirSync, promises as fsp, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { removeStaging, StagingWriter } from '../../src/backup/restore-staging.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
let dir: string;
beforeEach(() => {
  t = makeTempEnv('cleanerx-mrs-');
  dir = join(t.root, 'restore-x');
  mkdirSync(dir, { mode: 0o700 });
});
afterEach(() => {
  vi.restoreAllMocks();
  t.cleanup();
});

async function* chunks(...parts: string[]): AsyncGenerator<Buffer> {
  for (const p of parts) yield Buffer.from(p);
}

async function* failing(): AsyncGenerator<Buffer> {
  yield Buffer.from('half');
  throw new Error('archive cut short');
}

/** Lets pending I/O callbacks and their promise chains run. */
async function drain(n = 20): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
}

/** Holds every close of a handle fsp.open gives until `release()` (or the n-th opened's until `releaseOne(n)`); counts opens. */
function holdCloses(): { opened: string[]; release: () => void; releaseOne: (n: number) => void } {
  const open = fsp.open.bind(fsp) as (p: string, f: number, m?: number) => Promise<FileHandle>;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const opened: string[] = [];
  const own: (() => void)[] = [];
  vi.spyOn(fsp, 'open').mockImplementation((async (p: string, f: number, m?: number) => {
    const fh = await open(p, f, m);
    opened.push(p);
    const mine = new Promise<void>((r) => own.push(r));
    const close = fh.close.bind(fh);
    fh.close = async () => {
      await Promise.race([gate, mine]);
      return close();
    };
    return fh;
  }) as never);
  return { opened, release, releaseOne: (n) => own[n]!() };
}

describe('StagingWriter.stage', () => {
  it('writes the bytes, the mode bits only, the backed-up mtime and an atime of now', async () => {
    const w = new StagingWriter(dir);
    const before = Date.now();
    await w.stage('0', chunks('hello ', 'world'), 0o100640, '1700000000123456789');
    await w.stage('1', chunks('x'), 0o4755, undefined);
    await w.done();
    const after = Date.now();
    expect(readFileSync(join(dir, '0'), 'utf8')).toBe('hello world');
    const s0 = statSync(join(dir, '0'), { bigint: true });
    expect(Number(s0.mode & 0o7777n)).toBe(0o640);
    expect(s0.mtimeNs / 1000n).toBe(1700000000123456n);
    expect(Number(s0.atimeMs)).toBeGreaterThanOrEqual(before - 1000);
    expect(Number(s0.atimeMs)).toBeLessThanOrEqual(after + 1000);
    const s1 = statSync(join(dir, '1'));
    expect(s1.mode & 0o7777).toBe(0o755);
    // No mtime given: the file keeps the time it was written.
    expect(s1.mtimeMs).toBeGreaterThanOrEqual(before - 1000);
    expect(s1.mtimeMs).toBeLessThanOrEqual(after + 1000);
  });

  it('never writes over a name already there', async () => {
    writeFileSync(join(dir, '0'), 'mine');
    const w = new StagingWriter(dir);
    await expect(w.stage('0', chunks('theirs'), 0o600, undefined)).rejects.toMatchObject({ code: 'EEXIST' });
    expect(readFileSync(join(dir, '0'), 'utf8')).toBe('mine');
  });

  it('a stream that fails is thrown from stage, and the writer goes on', async () => {
    const w = new StagingWriter(dir);
    await expect(w.stage('0', failing(), 0o600, undefined)).rejects.toMatchObject({ message: expect.stringMatching(/archive cut short/) });
    await w.stage('1', chunks('ok'), 0o600, undefined);
    await w.done();
    expect(readFileSync(join(dir, '1'), 'utf8')).toBe('ok');
  });

  it('a file that fails to finish fails done(), then every later stage, with the first failure', async () => {
    const w = new StagingWriter(dir);
    await w.stage('0', chunks('a'), 0o600, 'not-a-time');
    await w.stage('1', chunks('b'), 0o600, 'also-bad');
    await expect(w.done()).rejects.toMatchObject({ message: expect.stringMatching(/not-a-time/) });
    await expect(w.stage('2', chunks('c'), 0o600, undefined)).rejects.toMatchObject({ message: expect.stringMatching(/not-a-time/) });
    expect(existsSync(join(dir, '2'))).toBe(false);
    await expect(w.settle()).resolves.toBeUndefined();
  });

  it('at most 8 files finish in the background: the 9th waits for one', async () => {
    const { opened, release } = holdCloses();
    const w = new StagingWriter(dir);
    for (let i = 0; i < 8; i++) await w.stage(String(i), chunks(`f${i}`), 0o600, undefined);
    const ninth = w.stage('8', chunks('f8'), 0o600, undefined);
    await drain();
    expect(opened).toHaveLength(8);
    release();
    await ninth;
    await w.done();
    expect(opened).toHaveLength(9);
    expect(readFileSync(join(dir, '8'), 'utf8')).toBe('f8');
  });

  it('a failure while the 9th waits stops it before it opens its file', async () => {
    const { opened, release, releaseOne } = holdCloses();
    const w = new StagingWriter(dir);
    await w.stage('0', chunks('a'), 0o600, 'bad-time');
    for (let i = 1; i < 8; i++) await w.stage(String(i), chunks('x'), 0o600, undefined);
    const ninth = w.stage('8', chunks('y'), 0o600, undefined);
    // Only the failed file's close goes through: the other seven finish after the 9th has been stopped (released
    // together, their closes would race the failed one's in the thread pool).
    releaseOne(0);
    await expect(ninth).rejects.toMatchObject({ message: expect.stringMatching(/bad-time/) });
    release();
    expect(opened).toHaveLength(8);
    expect(existsSync(join(dir, '8'))).toBe(false);
    await w.settle();
  });

  it('done() waits for every file still finishing', async () => {
    const { release } = holdCloses();
    const w = new StagingWriter(dir);
    await w.stage('0', chunks('a'), 0o640, undefined);
    let finished = false;
    const d = w.done().then(() => (finished = true));
    await drain();
    expect(finished).toBe(false);
    release();
    await d;
    expect(statSync(join(dir, '0')).mode & 0o777).toBe(0o640);
  });

  it('settle() waits too, and does not throw the failure', async () => {
    const { release } = holdCloses();
    const w = new StagingWriter(dir);
    await w.stage('0', chunks('a'), 0o600, 'bad');
    let settled = false;
    const s = w.settle().then(() => (settled = true));
    await drain();
    expect(settled).toBe(false);
    release();
    await s;
    expect(settled).toBe(true);
  });
});

describe('StagingWriter.sync', () => {
  it('opens every staged name once, at most 8 at a time, then the dir', async () => {
    const w = new StagingWriter(dir);
    const names = Array.from({ length: 20 }, (_, i) => String(i));
    for (const n of names) writeFileSync(join(dir, n), n);
    const open = fsp.open.bind(fsp) as (p: string, f: number) => Promise<FileHandle>;
    const order: string[] = [];
    let now = 0;
    let most = 0;
    const synced: string[] = [];
    vi.spyOn(fsp, 'open').mockImplementation((async (p: string, f: number) => {
      most = Math.max(most, ++now);
      const fh = await open(p, f);
      order.push(p);
      const sync = fh.sync.bind(fh);
      const close = fh.close.bind(fh);
      fh.sync = async () => {
        synced.push(p);
        return sync();
      };
      fh.close = async () => {
        now--;
        return close();
      };
      return fh;
    }) as never);
    await w.sync([...names, '3', '3']);
    expect(order).toHaveLength(21);
    expect(new Set(order.slice(0, 20))).toEqual(new Set(names.map((n) => join(dir, n))));
    expect(order[20]).toBe(dir);
    expect(synced.sort()).toEqual(order.slice().sort());
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(8);
    // Every handle, the dir's too, closed again.
    expect(now).toBe(0);
  });

  it('no names: only the dir', async () => {
    const w = new StagingWriter(dir);
    const spy = vi.spyOn(fsp, 'open');
    await w.sync([]);
    expect(spy.mock.calls.map((c) => c[0])).toEqual([dir]);
  });

  it('a staged name that is gone fails the sync', async () => {
    const w = new StagingWriter(dir);
    writeFileSync(join(dir, '0'), 'a');
    await expect(w.sync(['0', '1'])).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('removeStaging', () => {
  it('an unlink that fails does not stop it: the dir still goes', async () => {
    for (let i = 0; i < 5; i++) writeFileSync(join(dir, String(i)), 'x');
    const unlink = fsp.unlink.bind(fsp);
    vi.spyOn(fsp, 'unlink').mockImplementation(async (p) => {
      if (String(p).endsWith('/2')) throw Object.assign(new Error('EIO: injected'), { code: 'EIO' });
      return unlink(p);
    });
    await expect(removeStaging(dir)).resolves.toBeUndefined();
    expect(existsSync(dir)).toBe(false);
  });

  it('a regular file in its place is removed', async () => {
    const f = join(t.root, 'restore-f');
    writeFileSync(f, 'x');
    await removeStaging(f);
    expect(existsSync(f)).toBe(false);
  });

  it('an empty dir goes by rmdir, with no recursive rm', async () => {
    const rm = vi.spyOn(fsp, 'rm');
    writeFileSync(join(dir, '0'), 'x');
    await removeStaging(dir);
    expect(existsSync(dir)).toBe(false);
    expect(rm).not.toHaveBeenCalled();
  });
});

it('removeStaging unlinks only files: a subdir is left to the recursive rm', async () => {
  mkdirSync(join(dir, 'sub'));
  writeFileSync(join(dir, '0'), 'x');
  const unlink = vi.spyOn(fsp, 'unlink');
  const rm = vi.spyOn(fsp, 'rm');
  await removeStaging(dir);
  expect(unlink.mock.calls.map((c) => c[0])).toEqual([join(dir, '0')]);
  expect(rm.mock.calls.map((c) => c[0])).toEqual([dir]);
  expect(existsSync(dir)).toBe(false);
});

it('removeStaging removes the dir only once every unlink is done', async () => {
  for (let i = 0; i < 5; i++) writeFileSync(join(dir, String(i)), 'x');
  const unlink = fsp.unlink.bind(fsp);
  let pending = 0;
  vi.spyOn(fsp, 'unlink').mockImplementation(async (p) => {
    pending++;
    try {
      await drain(5);
      return await unlink(p);
    } finally {
      pending--;
    }
  });
  const rmdir = fsp.rmdir.bind(fsp);
  const seen: number[] = [];
  vi.spyOn(fsp, 'rmdir').mockImplementation(async (p) => {
    seen.push(pending);
    return rmdir(p);
  });
  const rm = vi.spyOn(fsp, 'rm');
  await removeStaging(dir);
  expect(seen).toEqual([0]);
  expect(rm).not.toHaveBeenCalled();
  expect(existsSync(dir)).toBe(false);
});
