// Who holds a database open (#26 item 5: the mutants of
// engine/cleanup/compact-holders.ts), on a fake /proc whose fd entries are
// symlinks to real files: a holder is matched by device and inode, once per
// process, named by comm, else argv[0], else its pid; only numeric entries
// are processes; an unreadable fd dir, a dangling fd, a directory or a
// missing path are passed over; the process and fd counts are bounded.

import { promises as fsp, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fileHolders } from '../../src/engine/cleanup/compact-holders.js';
import { fakeProcess, makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
let db: string;
let other: string;
beforeEach(() => {
  t = makeTempEnv('cleanerx-holders-');
  db = join(t.root, 'store.db');
  other = join(t.root, 'other.db');
  writeFileSync(db, 'db');
  writeFileSync(other, 'other');
});
afterEach(() => {
  vi.restoreAllMocks();
  t.cleanup();
});

/** /proc/<name>/fd/<n> → each target, with comm and cmdline when given. */
function proc(name: string, targets: string[], o: { comm?: string; cmdline?: string } = {}): void {
  const dir = join(t.procRoot, name);
  mkdirSync(join(dir, 'fd'), { recursive: true });
  targets.forEach((p, i) => symlinkSync(p, join(dir, 'fd', String(i + 3))));
  if (o.comm !== undefined) writeFileSync(join(dir, 'comm'), o.comm);
  if (o.cmdline !== undefined) writeFileSync(join(dir, 'cmdline'), o.cmdline);
}

const byPid = <T extends { pid: number }>(hs: T[]): T[] => [...hs].sort((x, y) => x.pid - y.pid);

describe('fileHolders', () => {
  it('a process holding the file is named by comm, once, with the path asked for; one holding another file is not', async () => {
    proc('4242', [other, db, db], { comm: 'opencode\n', cmdline: 'node\0serve\0' });
    proc('4243', [other], { comm: 'vim\n' });
    expect(await fileHolders([db], t.procRoot)).toEqual([{ pid: 4242, name: 'opencode', path: db }]);
    // Two planned files held by one process: still one holder, the first fd's file.
    proc('4244', [db, other], { comm: 'both\n' });
    expect(byPid(await fileHolders([db, other], t.procRoot)).map((h) => [h.pid, h.path])).toEqual([
      [4242, other],
      [4243, other],
      [4244, db],
    ]);
  });

  it('matched by inode: a link under another name is the same file', async () => {
    const alias = join(t.root, 'alias.db');
    symlinkSync(db, alias);
    proc('77', [alias], { comm: 'x\n' });
    expect(await fileHolders([db], t.procRoot)).toEqual([{ pid: 77, name: 'x', path: db }]);
  });

  it('without comm, named by the basename of argv[0] (empty arguments skipped); without either, by its pid', async () => {
    proc('10', [db], { cmdline: '/usr/bin/node\0/x/cli.js\0' });
    proc('11', [db], { cmdline: '\0/opt/bin/codex\0' });
    proc('12', [db]);
    expect(byPid(await fileHolders([db], t.procRoot))).toEqual([
      { pid: 10, name: 'node', path: db },
      { pid: 11, name: 'codex', path: db },
      { pid: 12, name: '12', path: db },
    ]);
  });

  it('only numeric /proc entries are processes', async () => {
    for (const name of ['self', '12a', 'a12', 'x']) proc(name, [db], { comm: name });
    proc('345', [db], { comm: 'real' });
    proc('6', [db], { comm: 'one digit' });
    expect(byPid(await fileHolders([db], t.procRoot)).map((h) => h.name)).toEqual(['one digit', 'real']);
  });

  it('passes over a process without a readable fd dir, and a dangling fd, and keeps looking', async () => {
    fakeProcess(t.procRoot, 20, 'nofd', ['nofd']);
    proc('21', [join(t.root, 'gone'), db], { comm: 'late' });
    expect(await fileHolders([db], t.procRoot)).toEqual([{ pid: 21, name: 'late', path: db }]);
  });

  it('a missing path or a directory is no target; with no target nothing is read', async () => {
    const dir = join(t.root, 'dir');
    mkdirSync(dir);
    proc('30', [dir, db], { comm: 'holder' });
    expect(await fileHolders([join(t.root, 'missing.db'), dir], t.procRoot)).toEqual([]);
    expect(await fileHolders([join(t.root, 'missing.db'), dir, db], t.procRoot)).toEqual([{ pid: 30, name: 'holder', path: db }]);
  });

  it('an unreadable /proc holds nothing', async () => {
    expect(await fileHolders([db], join(t.root, 'no-proc'))).toEqual([]);
  });

  it('the real /proc by default: this process holding the file is found', async () => {
    const fh = await fsp.open(db, 'r');
    try {
      const hs = await fileHolders([db]);
      expect(hs).toContainEqual(expect.objectContaining({ pid: process.pid, path: db }));
    } finally {
      await fh.close();
    }
  });

  it('reads at most 4096 processes and 65536 descriptors of each', async () => {
    const readdir = fsp.readdir.bind(fsp) as (p: string) => Promise<string[]>;
    proc('5000', [db], { comm: 'last' });
    proc('5001', [other, db], { comm: 'deep' });
    vi.spyOn(fsp, 'readdir').mockImplementation((async (p: string) => {
      // The real entries come after 4096 (missing) processes, and 65536 (missing) descriptors before 5001's hit.
      if (p === t.procRoot) return [...Array.from({ length: 4096 }, (_, i) => String(i + 1)), '5000'];
      if (p !== join(t.procRoot, '5000', 'fd')) throw new Error('ENOENT');
      return readdir(p);
    }) as never);
    expect(await fileHolders([db], t.procRoot)).toEqual([]);
    vi.restoreAllMocks();
    vi.spyOn(fsp, 'readdir').mockImplementation((async (p: string) => {
      if (p === t.procRoot) return ['5001'];
      if (p === join(t.procRoot, '5001', 'fd')) return [...Array.from({ length: 65535 }, (_, i) => String(i + 100)), '3', '4'];
      return readdir(p);
    }) as never);
    const stat = fsp.stat.bind(fsp) as (p: string) => Promise<unknown>;
    const fdDir = join(t.procRoot, '5001', 'fd');
    // The missing descriptors fail at once instead of 65535 real ENOENTs.
    vi.spyOn(fsp, 'stat').mockImplementation((async (p: string) =>
      p.startsWith(fdDir) && Number(p.slice(fdDir.length + 1)) >= 100 ? Promise.reject(new Error('ENOENT')) : stat(p)) as never);
    // 65535 missing fds, then fd 3 (the other file): fd 4 (the database) is the 65537th and never looked at.
    expect(await fileHolders([db], t.procRoot)).toEqual([]);
    expect(await fileHolders([other], t.procRoot)).toEqual([{ pid: 5001, name: 'deep', path: other }]);
  });
});
