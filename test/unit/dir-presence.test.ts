// DirPresence (engine/host/fsx.ts): whether paths exist, from one listing per
// parent folder (the residue proof asks about thousands of removed files).
// Its answers must equal lstat's for every kind of path, with one readdir
// per folder and no lstat, and a folder that cannot be listed must be asked
// by lstat, never read as empty.

import fs, { mkdirSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DirPresence, lstatSyncOrNull } from '../../src/engine/host/fsx.js';
import { lstatsDuring } from '../helpers/lstat-spy.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
afterEach(() => {
  vi.restoreAllMocks();
  syncBuiltinESMExports();
  t?.cleanup();
});

function store(): { dir: string; paths: string[] } {
  t = makeTempEnv('cleanerx-dir-presence-');
  const dir = join(t.root, 'sessions');
  mkdirSync(join(dir, 'a'), { recursive: true });
  mkdirSync(join(dir, 'b'));
  for (let i = 0; i < 50; i++) writeFileSync(join(dir, 'a', `${i}.jsonl`), 'x');
  writeFileSync(join(dir, 'file'), 'x');
  const paths = [
    ...Array.from({ length: 100 }, (_, i) => join(dir, 'a', `${i}.jsonl`)), // half there, half gone
    join(dir, 'b', 'gone.jsonl'),
    join(dir, 'missing-folder', 'x.jsonl'),
    join(dir, 'file', 'below-a-file'),
    join(dir, 'a'),
    '/',
  ];
  return { dir, paths };
}

describe('DirPresence', () => {
  it('answers as lstat does for present, removed, below a missing folder, below a file, a folder itself and the root', async () => {
    const { paths } = store();
    const present = new DirPresence();
    const { value, paths: lstats } = await lstatsDuring(async () => paths.map((p) => present.has(p)));
    expect(value).toEqual(paths.map((p) => lstatSyncOrNull(p) !== null));
    expect(value.filter(Boolean).length).toBe(52);
    // Only the path at the root is lstat'd; the rest come from listings.
    expect(lstats).toEqual(['/']);
  });

  it('lists each folder once, however many names are asked in it', () => {
    const { dir, paths } = store();
    const listed: string[] = [];
    const readdir = fs.readdirSync;
    vi.spyOn(fs, 'readdirSync').mockImplementation(((p: fs.PathLike, ...rest: unknown[]) => {
      listed.push(String(p));
      return (readdir as (...a: unknown[]) => unknown)(p, ...rest);
    }) as typeof fs.readdirSync);
    syncBuiltinESMExports();
    const present = new DirPresence();
    for (const p of [...paths, ...paths]) present.has(p);
    expect(listed.sort()).toEqual([dir, join(dir, 'a'), join(dir, 'b'), join(dir, 'file'), join(dir, 'missing-folder')].sort());
  });

  it('a folder that cannot be listed (EACCES) is asked by lstat, never read as empty', async () => {
    const { dir } = store();
    const readdir = fs.readdirSync;
    vi.spyOn(fs, 'readdirSync').mockImplementation(((p: fs.PathLike, ...rest: unknown[]) => {
      if (String(p) === join(dir, 'a')) throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
      return (readdir as (...a: unknown[]) => unknown)(p, ...rest);
    }) as typeof fs.readdirSync);
    syncBuiltinESMExports();
    const present = new DirPresence();
    const { value, paths: lstats } = await lstatsDuring(async () => [present.has(join(dir, 'a', '1.jsonl')), present.has(join(dir, 'a', '99.jsonl'))]);
    expect(value).toEqual([true, false]);
    expect(lstats).toEqual([join(dir, 'a', '1.jsonl'), join(dir, 'a', '99.jsonl')]);
  });
});
