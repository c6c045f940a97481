// Written against the surviving mutants of backup/restore-commit.ts, the
// write side of a restore: the anchored tree of destination dirs (what it
// refuses, what it creates, the handles it keeps, closes and fsyncs), the
// no-replace commit of a staged file (a link, or a sparse copy across
// filesystems), and its undo. Real files in a temp dir; fsync is watched
// (a spy that still syncs) since durability is all it changes.

import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  closeSync,
  existsSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ArchiveError } from '../../src/backup/archive-error.js';
import {
  AnchoredTree,
  commitFile,
  futimesSeconds,
  hashFd,
  holdsContent,
  openStaging,
  removeCreatedDir,
  setMtime,
  SparseWriter,
  uncommit,
} from '../../src/backup/restore-commit.js';
import { partialName } from '../../src/backup/restore-journal.js';
import { atCrashPoints } from '../../src/engine/core/faults.js';
import { type DirHandle, openRootDir } from '../../src/engine/host/anchored-fs.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { otherFilesystem } from '../helpers/scratch.js';

vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  return { ...real, fsyncSync: vi.fn(real.fsyncSync) };
});

const mkfifo = (p: string): void => void execFileSync('mkfifo', [p]);
/** Runs between an anchored step and the next: what another process could do in that instant. */
const hook = vi.hoisted(() => ({
  afterLink: null as ((toName: string) => void) | null,
  onLinkError: null as (() => void) | null,
  beforeOpenChild: null as ((name: string) => void) | null,
}));
vi.mock('../../src/engine/host/anchored-fs.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/engine/host/anchored-fs.js')>();
  return {
    ...real,
    linkAt: (a: DirHandle, b: string, c: DirHandle, d: string) => {
      try {
        real.linkAt(a, b, c, d);
      } catch (e) {
        hook.onLinkError?.();
        throw e;
      }
      hook.afterLink?.(d);
    },
    openChildDir: (p: DirHandle, name: string) => {
      hook.beforeOpenChild?.(name);
      return real.openChildDir(p, name);
    },
  };
});

const asRoot = process.geteuid?.() === 0;
const NOBODY = 65534;

let t: TempEnv;
let home: string;
const open: DirHandle[] = [];
/** Closes `h` after the test. */
const keep = (h: DirHandle): DirHandle => {
  open.push(h);
  return h;
};
beforeEach(() => {
  t = makeTempEnv('cleanerx-mrc-');
  home = join(t.root, 'dest');
  mkdirSync(home);
});
afterEach(() => {
  atCrashPoints(null);
  hook.afterLink = hook.onLinkError = hook.beforeOpenChild = null;
  for (const h of open.splice(0)) h.close();
  vi.mocked(fsyncSync).mockClear();
  t.cleanup();
});

const openFds = (): number => readdirSync('/proc/self/fd').length;
/** Whether the tree closed `h` (its own record: a closed fd's number may already be reused). */
const isClosed = (h: DirHandle): boolean => {
  try {
    h.at('x');
    return false;
  } catch {
    return true;
  }
};
const syncedFds = (): number[] => vi.mocked(fsyncSync).mock.calls.map((c) => c[0] as number);
/** The ArchiveError `fn` throws (failing the test on anything else or nothing). */
function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ArchiveError);
    return (e as Error).message;
  }
  throw new Error('expected a refusal, got none');
}
const tree = (uid = process.getuid!()): AnchoredTree => new AnchoredTree({ home }, uid);
const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');

describe('AnchoredTree: its roots', () => {
  it('names a path below its root with one slash, the root alone by itself, an unknown root by its label', () => {
    const tr = tree();
    expect([tr.display('home', 'a/b'), tr.display('home', ''), tr.display('other', 'x')]).toEqual([`${home}/a/b`, home, 'other/x']);
  });

  it('refuses a root the agent does not have, and a root that is missing or a link', () => {
    const tr = tree();
    expect(refusal(() => tr.dir('nope', ''))).toBe('The archive restores into "nope", which is not a root of this agent.');
    const link = join(t.root, 'link');
    symlinkSync(home, link);
    for (const root of [link, join(t.root, 'absent')]) {
      const e = refusal(() => new AnchoredTree({ home: root }, 0).dir('home', 'a'));
      expect(e).toMatch(new RegExp(`^The restore root ${root} is missing or not a plain directory \\(.+\\)$`));
    }
  });

  it('opens each root once', () => {
    const tr = tree();
    const r = tr.dir('home', '')!;
    expect(tr.dir('home', '')).toBe(r);
    expect(tr.pinnedDir('home', '')).toBe(r);
    expect(tr.pinnedDir('other', '')).toBeUndefined();
    tr.close(false);
  });
});

describe('AnchoredTree.dir: the walk', () => {
  it('gives the same handle for a dir asked again, and reaches a deeper one through it', () => {
    mkdirSync(join(home, 'a', 'b'), { recursive: true });
    const tr = tree();
    const a = tr.dir('home', 'a')!;
    expect(tr.dir('home', 'a')).toBe(a);
    const b = tr.dir('home', 'a/b')!;
    expect(b.display).toBe(`${home}/a/b`);
    expect(b.stat().ino).toBe(lstatSync(join(home, 'a', 'b')).ino);
    tr.close(false);
  });

  it('a missing dir is null unless it may be created; created ones are 0700, reported one by one, and their parents fsynced on close', () => {
    const tr = tree();
    expect(tr.dir('home', 'a/b')).toBeNull();
    expect(tr.dir('home', 'a/b', () => false)).toBeNull();
    expect(existsSync(join(home, 'a'))).toBe(false);
    const created: string[] = [];
    const asked: string[] = [];
    const b = tr.dir(
      'home',
      'a/b',
      (rel) => {
        asked.push(rel);
        return true;
      },
      (rel) => created.push(rel),
    )!;
    expect([asked, created]).toEqual([
      ['a', 'a/b'],
      ['a', 'a/b'],
    ]);
    expect(lstatSync(join(home, 'a', 'b')).mode & 0o777).toBe(0o700);
    expect(b.stat().ino).toBe(lstatSync(join(home, 'a', 'b')).ino);
    const root = tr.dir('home', '')!;
    const a = tr.dir('home', 'a')!;
    const fds = [root.fd, a.fd];
    tr.close(true);
    // The two dirs that gained an entry, and no other.
    expect(syncedFds().sort()).toEqual(fds.sort());
  });

  it('a dir gone right after it was created stops the restore', () => {
    const tr = tree();
    const e = refusal(() =>
      tr.dir(
        'home',
        'a',
        () => true,
        () => rmdirSync(join(home, 'a')),
      ),
    );
    expect(e).toBe(`${home}/a vanished right after it was created; the restore stopped.`);
    tr.close(false);
  });

  it('refuses a link, a file or a FIFO where a dir should be, and a link put in place of a dir it just made', () => {
    mkdirSync(join(home, 'real'));
    symlinkSync(join(home, 'real'), join(home, 'link'));
    writeFileSync(join(home, 'file'), 'x');
    mkfifo(join(home, 'fifo'));
    const tr = tree();
    for (const name of ['link', 'file', 'fifo']) {
      expect(refusal(() => tr.dir('home', `${name}/x`, () => true))).toBe(`${home}/${name} is not a plain directory; nothing was restored.`);
    }
    const e = refusal(() =>
      tr.dir(
        'home',
        'made',
        () => true,
        () => {
          rmdirSync(join(home, 'made'));
          symlinkSync(join(home, 'real'), join(home, 'made'));
        },
      ),
    );
    expect(e).toBe(`${home}/made is not a plain directory; nothing was restored.`);
    tr.close(false);
  });

  it.runIf(asRoot)("refuses another user's dir, unless the tree checks no owner (uid -1)", () => {
    mkdirSync(join(home, 'theirs'));
    chownSync(join(home, 'theirs'), NOBODY, NOBODY);
    const tr = tree(0);
    expect(refusal(() => tr.dir('home', 'theirs'))).toBe(`${home}/theirs belongs to another user; nothing was restored.`);
    tr.close(false);
    const any = tree(-1);
    expect(any.dir('home', 'theirs')!.stat().uid).toBe(NOBODY);
    any.close(false);
  });

  it.runIf(asRoot)('refuses a dir on another filesystem', () => {
    const m = join(home, 'mnt');
    mkdirSync(m);
    expect(spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', m]).status).toBe(0);
    try {
      const tr = tree();
      expect(refusal(() => tr.dir('home', 'mnt/x', () => true))).toBe(`${m} is on another filesystem; nothing was restored.`);
      tr.close(false);
    } finally {
      spawnSync('umount', [m]);
    }
  });

  it.runIf(asRoot)('a dir it sees but cannot open is reported as replaced, with the reason', () => {
    chmodSync(t.root, 0o755);
    chownSync(home, NOBODY, NOBODY);
    mkdirSync(join(home, 'shut'));
    chownSync(join(home, 'shut'), NOBODY, NOBODY);
    chmodSync(join(home, 'shut'), 0o000);
    process.seteuid!(NOBODY);
    let e: string;
    try {
      const tr = tree(NOBODY);
      e = refusal(() => tr.dir('home', 'shut'));
      tr.close(false);
    } finally {
      process.seteuid!(0);
    }
    expect(e).toBe(
      `${home}/shut was replaced while the restore was running (${home}/shut is not accessible.); the restore stopped and undid what it had put back.`,
    );
  });

  it('a dir exchanged for another since it was first seen is refused, leaving no handle open', () => {
    mkdirSync(join(home, 'a'));
    const tr = tree();
    tr.dir('home', 'a');
    tr.forget();
    renameSync(join(home, 'a'), join(home, 'a.old'));
    mkdirSync(join(home, 'a'));
    const before = openFds();
    expect(refusal(() => tr.dir('home', 'a'))).toBe(
      `${home}/a was replaced while the restore was running; the restore stopped and undid what it had put back.`,
    );
    expect(openFds()).toBe(before);
    tr.close(false);
  });
});

describe('AnchoredTree: a dir exchanged between its lstat and its open', () => {
  const exchange = (rel: string): void => {
    renameSync(join(home, rel), join(home, `${rel}.old`));
    mkdirSync(join(home, rel));
  };
  it('is refused by the walk', () => {
    mkdirSync(join(home, 'a'));
    const tr = tree();
    hook.beforeOpenChild = (name) => {
      hook.beforeOpenChild = null;
      exchange(name);
    };
    expect(refusal(() => tr.dir('home', 'a'))).toBe(
      `${home}/a was replaced while the restore was running; the restore stopped and undid what it had put back.`,
    );
    tr.close(false);
  });

  it('is refused by verify', () => {
    mkdirSync(join(home, 'a'));
    const tr = tree();
    const a = tr.dir('home', 'a')!;
    // The new dir takes the place, then the one seen comes back between the lstat and the open: lstat and handle differ.
    renameSync(join(home, 'a'), join(home, 'a.seen'));
    mkdirSync(join(home, 'a'));
    hook.beforeOpenChild = () => {
      hook.beforeOpenChild = null;
      renameSync(join(home, 'a'), join(home, 'a.new'));
      renameSync(join(home, 'a.seen'), join(home, 'a'));
    };
    expect(a.stat().ino).toBe(lstatSync(join(home, 'a.seen')).ino);
    expect(refusal(() => tr.verify('home', 'a'))).toBe(
      `${home}/a was replaced while the restore was running; the restore stopped and undid what it had put back.`,
    );
    tr.close(false);
  });
});

describe('AnchoredTree: the handles it keeps', () => {
  const dirs = (n: number): string[] => {
    const out: string[] = [];
    for (let i = 0; i < n; i++) {
      mkdirSync(join(home, `d${i}`));
      out.push(`d${i}`);
    }
    return out;
  };

  it('keeps 64 dirs open; the 65th closes the oldest (fsynced if it gained an entry), but never a pinned one', () => {
    const names = dirs(66);
    const tr = tree();
    const first = tr.dir('home', names[0]!)!;
    const second = tr.dir('home', names[1]!)!;
    const third = tr.dir('home', names[2]!)!;
    tr.dir('home', `${names[0]}/new`, () => true);
    tr.pin('home', names[1]!, second);
    // 4 cached (d0/new too); 60 more fill the 64.
    for (const n of names.slice(3, 63)) tr.dir('home', n);
    expect([isClosed(first), isClosed(second), isClosed(third)]).toEqual([false, false, false]);
    expect(syncedFds()).toEqual([]);
    const fd = first.fd;
    tr.dir('home', names[63]!);
    expect(isClosed(first)).toBe(true);
    expect(syncedFds()).toEqual([fd]);
    tr.dir('home', names[64]!);
    // The pinned one left the cache but stays open, for a rollback.
    expect([isClosed(second), isClosed(third)]).toEqual([false, false]);
    expect(tr.pinnedDir('home', names[1]!)).toBe(second);
    tr.dir('home', names[65]!);
    expect(isClosed(third)).toBe(true);
    expect(syncedFds()).toEqual([fd]);
    tr.close(false);
  });

  it('a dir asked again with the cache full is the same handle, and closes nothing', () => {
    const names = dirs(64);
    const tr = tree();
    const first = tr.dir('home', names[0]!)!;
    for (const n of names.slice(1)) tr.dir('home', n);
    expect(tr.dir('home', names[0]!)).toBe(first);
    expect(isClosed(first)).toBe(false);
    tr.close(false);
  });

  it('pins up to 512 dirs, never the root; pinning marks the dir for an fsync on close', () => {
    mkdirSync(join(home, 'a'));
    const tr = tree();
    const a = tr.dir('home', 'a')!;
    for (let i = 0; i < 512; i++) tr.pin('home', `p${i}`, a);
    tr.pin('home', 'p512', a);
    expect([tr.pinnedDir('home', 'p511'), tr.pinnedDir('home', 'p512'), tr.pinnedDir('home', 'p0')]).toEqual([a, undefined, a]);
    const root = tr.dir('home', '')!;
    tr.pin('home', '', root);
    expect(tr.pinnedDir('home', '')).toBe(root);
    tr.close(true);
    expect(syncedFds().sort()).toEqual([a.fd, root.fd].sort());
    expect([isClosed(a), isClosed(root)]).toEqual([true, true]);
  });

  it('close(false) closes every handle without an fsync; the tree opens afresh after', () => {
    mkdirSync(join(home, 'a'));
    const tr = tree();
    const a = tr.dir('home', 'a', () => true)!;
    tr.dir('home', 'a/b', () => true);
    tr.pin('home', 'a', a);
    const root = tr.dir('home', '')!;
    tr.close(false);
    expect(syncedFds()).toEqual([]);
    expect([isClosed(a), isClosed(root)]).toEqual([true, true]);
    expect(tr.pinnedDir('home', 'a')).toBeUndefined();
    const again = tr.dir('home', 'a')!;
    expect(again).not.toBe(a);
    expect(again.stat().ino).toBe(lstatSync(join(home, 'a')).ino);
    tr.close(false);
  });

  it('an fsync that fails on close is no error: every handle is still closed', () => {
    const tr = tree();
    const a = tr.dir('home', 'a', () => true)!;
    tr.pin('home', 'a', a);
    vi.mocked(fsyncSync).mockImplementationOnce(() => {
      throw Object.assign(new Error('EIO'), { code: 'EIO' });
    });
    const root = tr.dir('home', '')!;
    expect(() => tr.close(true)).not.toThrow();
    expect([isClosed(a), isClosed(root)]).toEqual([true, true]);
  });

  it('forget() closes the cached dirs (fsynced when they gained an entry) but keeps the pinned ones', () => {
    mkdirSync(join(home, 'a'));
    mkdirSync(join(home, 'b'));
    const tr = tree();
    const a = tr.dir('home', 'a')!;
    const b = tr.dir('home', 'b')!;
    tr.dir('home', 'b/new', () => true);
    const bNew = tr.dir('home', 'b/new')!;
    tr.pin('home', 'a', a);
    tr.forget();
    expect([isClosed(a), isClosed(b), isClosed(bNew)]).toEqual([false, true, true]);
    expect(syncedFds()).toEqual([b.fd]);
    // Walked afresh: a new handle on b.
    expect(tr.dir('home', 'b')).not.toBe(b);
    expect(tr.dir('home', 'a')).toBe(a);
    tr.close(false);
  });
});

describe('AnchoredTree.verify', () => {
  it('passes for the dirs it walked, closing every handle it opened', () => {
    mkdirSync(join(home, 'a', 'b'), { recursive: true });
    const tr = tree();
    tr.dir('home', 'a/b');
    const before = openFds();
    tr.verify('home', 'a/b');
    tr.verify('home', '');
    expect(openFds()).toBe(before);
    tr.close(false);
  });

  it('refuses a dir it never saw, one gone, one exchanged for a link, a file or another dir, closing what it opened', () => {
    mkdirSync(join(home, 'a', 'b'), { recursive: true });
    mkdirSync(join(home, 'other'));
    const tr = tree();
    tr.dir('home', 'a/b');
    const swapped = (rel: string): string => `${home}/${rel} was replaced while the restore was running; the restore stopped and undid what it had put back.`;
    const before = openFds();
    mkdirSync(join(home, 'a', 'unseen'));
    expect(refusal(() => tr.verify('home', 'a/unseen'))).toBe(swapped('a/unseen'));
    renameSync(join(home, 'a', 'b'), join(home, 'b.old'));
    expect(refusal(() => tr.verify('home', 'a/b'))).toBe(swapped('a/b'));
    symlinkSync(join(home, 'b.old'), join(home, 'a', 'b'));
    expect(refusal(() => tr.verify('home', 'a/b'))).toBe(swapped('a/b'));
    rmSync(join(home, 'a', 'b'));
    writeFileSync(join(home, 'a', 'b'), 'x');
    expect(refusal(() => tr.verify('home', 'a/b'))).toBe(swapped('a/b'));
    rmSync(join(home, 'a', 'b'));
    mkdirSync(join(home, 'a', 'b'));
    expect(refusal(() => tr.verify('home', 'a/b'))).toBe(swapped('a/b'));
    renameSync(join(home, 'a'), join(home, 'a.old'));
    renameSync(join(home, 'other'), join(home, 'a'));
    expect(refusal(() => tr.verify('home', 'a/b'))).toBe(swapped('a'));
    expect(openFds()).toBe(before);
    tr.close(false);
  });

  it.runIf(asRoot)('a dir it cannot open is refused with the reason', () => {
    chmodSync(t.root, 0o755);
    chownSync(home, NOBODY, NOBODY);
    mkdirSync(join(home, 'a'));
    chownSync(join(home, 'a'), NOBODY, NOBODY);
    process.seteuid!(NOBODY);
    let e: string;
    try {
      const tr = tree(NOBODY);
      tr.dir('home', 'a');
      chmodSync(join(home, 'a'), 0o000);
      e = refusal(() => tr.verify('home', 'a'));
      tr.close(false);
    } finally {
      process.seteuid!(0);
    }
    expect(e).toBe(`${home}/a was replaced while the restore was running (${home}/a is not accessible.); the restore stopped and undid what it had put back.`);
  });
});

describe('openStaging', () => {
  it('opens the staging dir itself, never a link to it nor a file', () => {
    const s = join(t.root, 'stage');
    mkdirSync(s);
    const h = keep(openStaging(s));
    expect([h.display, h.stat().ino]).toEqual([s, lstatSync(s).ino]);
    symlinkSync(s, join(t.root, 'link'));
    writeFileSync(join(t.root, 'file'), 'x');
    expect(() => openStaging(join(t.root, 'link'))).toThrow(/ELOOP|ENOTDIR/);
    expect(() => openStaging(join(t.root, 'file'))).toThrow(/ENOTDIR/);
  });
});

describe('SparseWriter', () => {
  const target = (): { path: string; fd: number } => {
    const path = join(t.root, `out-${Math.random().toString(36).slice(2)}`);
    return { path, fd: openSync(path, 'wx+') };
  };

  it('skips every all-zero 4 KiB block aligned to the file, across writes, and sets the size last', async () => {
    const { path, fd } = target();
    const w = new SparseWriter(fd);
    // 1000 data bytes, then zeros up to 3 blocks past, then data at 12 KiB + 100: only blocks 0 and 3 hold data.
    const a = Buffer.alloc(1000, 7);
    const zeros = Buffer.alloc(12 * 1024 + 100 - 1000);
    const b = Buffer.alloc(50, 9);
    const tail = Buffer.alloc(64 * 1024);
    for (const c of [a, zeros, b, tail]) await w.write(c);
    expect(await w.finish()).toBe(1000 + zeros.length + 50 + tail.length);
    closeSync(fd);
    const want = Buffer.concat([a, zeros, b, tail]);
    expect(readFileSync(path).equals(want)).toBe(true);
    expect(lstatSync(path).blocks * 512).toBe(8 * 1024);
  });

  it('writes a run of data blocks and a partial last block whole, through a FileHandle too', async () => {
    const { open: fopen } = await import('node:fs/promises');
    const path = join(t.root, 'fh');
    const fh = await fopen(path, 'wx+');
    const w = new SparseWriter(fh);
    const c = Buffer.alloc(3 * 4096 + 10, 1);
    c.fill(0, 4096, 8192);
    await w.write(c);
    await w.write(Buffer.alloc(4086));
    expect(await w.finish()).toBe(4 * 4096);
    await fh.close();
    expect(readFileSync(path).equals(Buffer.concat([c, Buffer.alloc(4086)]))).toBe(true);
    expect(lstatSync(path).blocks * 512).toBe(3 * 4096);
  });

  it('with inFlight 3, at most 3 writes run at once and write() returns with at most 2 still under way', async () => {
    let running = 0;
    let most = 0;
    let outliving = 0;
    const gates: (() => void)[] = [];
    const fh = {
      write: async (_b: Buffer, _o: number, len: number) => {
        running++;
        most = Math.max(most, running);
        await new Promise<void>((r) => gates.push(r));
        running--;
        return { bytesWritten: len };
      },
      truncate: async () => {},
    };
    const w = new SparseWriter(fh as never, 3);
    // Each write is one data block; zero blocks between keep the ranges apart.
    const piece = Buffer.concat([Buffer.alloc(4096, 1), Buffer.alloc(4096)]);
    const pump = setInterval(() => gates.shift()?.(), 1);
    try {
      for (let i = 0; i < 8; i++) {
        await w.write(piece);
        outliving = Math.max(outliving, running);
      }
      expect(await w.finish()).toBe(8 * piece.length);
    } finally {
      clearInterval(pump);
    }
    expect([most, outliving, running]).toEqual([3, 2, 0]);
  });

  it('with inFlight 2, one write() of three data runs has at most 2 under way; a failure while it waits stops the third', async () => {
    const gates: { ok: () => void; fail: (e: Error) => void }[] = [];
    let most = 0;
    let running = 0;
    const fh = {
      write: (_b: Buffer, _o: number, len: number) => {
        running++;
        most = Math.max(most, running);
        return new Promise((ok, fail) =>
          gates.push({
            ok: () => {
              running--;
              ok({ bytesWritten: len });
            },
            fail: (e) => {
              running--;
              fail(e);
            },
          }),
        );
      },
      truncate: async () => {},
    };
    const block = Buffer.concat([Buffer.alloc(4096, 1), Buffer.alloc(4096)]);
    const three = Buffer.concat([block, block, block]);
    let w = new SparseWriter(fh as never, 2);
    let p = w.write(three);
    await new Promise((r) => setImmediate(r));
    expect(gates).toHaveLength(2);
    gates.shift()!.ok();
    await new Promise((r) => setImmediate(r));
    expect(gates).toHaveLength(2);
    for (const g of gates.splice(0)) g.ok();
    await p;
    expect(await w.finish()).toBe(three.length);
    expect(most).toBe(2);

    w = new SparseWriter(fh as never, 2);
    p = w.write(three);
    await new Promise((r) => setImmediate(r));
    expect(gates).toHaveLength(2);
    gates.shift()!.fail(new Error('disk full'));
    await expect(p).rejects.toThrow('disk full');
    for (const g of gates.splice(0)) g.ok();
    await w.settle();
    // The third run was never written.
    expect(gates).toHaveLength(0);
  });

  it('settle() resolves only once every write under way has ended', async () => {
    const gates: (() => void)[] = [];
    let ended = 0;
    const fh = {
      write: (_b: Buffer, _o: number, len: number) =>
        new Promise((ok) =>
          gates.push(() => {
            ended++;
            ok({ bytesWritten: len });
          }),
        ),
      truncate: async () => {},
    };
    const w = new SparseWriter(fh as never, 3);
    const block = Buffer.concat([Buffer.alloc(4096, 1), Buffer.alloc(4096)]);
    await w.write(block);
    await w.write(block);
    setImmediate(() => {
      for (const g of gates) g();
    });
    await w.settle();
    expect(ended).toBe(2);
  });

  it('the first write that fails is thrown, by write() or finish(); settle() waits and does not throw', async () => {
    const piece = Buffer.concat([Buffer.alloc(4096, 1), Buffer.alloc(4096)]);
    const failing = { write: async () => Promise.reject(new Error('disk full')), truncate: async () => {} };
    await expect(new SparseWriter(failing as never).write(piece)).rejects.toThrow('disk full');

    const gates: { ok: () => void; fail: (e: Error) => void }[] = [];
    const fh = {
      write: (_b: Buffer, _o: number, len: number) => new Promise((ok, fail) => gates.push({ ok: () => ok({ bytesWritten: len }), fail })),
      truncate: async () => {},
    };
    const w = new SparseWriter(fh as never, 4);
    for (let i = 0; i < 3; i++) await w.write(piece);
    expect(gates).toHaveLength(3);
    gates[0]!.ok();
    gates[1]!.fail(new Error('first failure'));
    await new Promise((r) => setImmediate(r));
    gates[2]!.fail(new Error('second failure'));
    await w.settle();
    await expect(w.write(piece)).rejects.toThrow('first failure');
    await expect(w.finish()).rejects.toThrow('first failure');
    expect(gates).toHaveLength(3);
  });

  it('a short write is continued where it stopped', async () => {
    const { path, fd } = target();
    const fh = {
      write: async (b: Buffer, o: number, len: number, pos: number) => {
        const { writeSync } = await import('node:fs');
        return { bytesWritten: writeSync(fd, b, o, Math.min(len, 1000), pos) };
      },
      truncate: async (len: number) => (await import('node:fs')).ftruncateSync(fd, len),
    };
    const w = new SparseWriter(fh as never);
    const c = Buffer.alloc(5000, 3);
    await w.write(Buffer.alloc(100, 2));
    await w.write(c);
    expect(await w.finish()).toBe(5100);
    closeSync(fd);
    expect(readFileSync(path).equals(Buffer.concat([Buffer.alloc(100, 2), c]))).toBe(true);
  });
});

describe('times', () => {
  it('futimesSeconds aims half a microsecond past the recorded time, before 1970 too', () => {
    expect(futimesSeconds('1500000000123456789')).toBe(1500000000 + 0.1234565);
    expect(futimesSeconds('0')).toBe(0.0000005);
    expect(futimesSeconds('-1')).toBe(-1 + 0.9999995);
    expect(futimesSeconds('-1000000000')).toBe(-1 + 0.0000005);
  });

  it('setMtime gives a file its recorded mtime, to the microsecond, and an atime of now', () => {
    const p = join(t.root, 'f');
    writeFileSync(p, 'x');
    const fd = openSync(p, 'r+');
    const before = Date.now();
    setMtime(fd, '1500000000123456789');
    closeSync(fd);
    const st = lstatSync(p, { bigint: true });
    expect(st.mtimeNs).toBe(1500000000123456000n);
    expect(Number(st.atimeMs)).toBeGreaterThanOrEqual(before - 1000);
    expect(Number(st.atimeMs)).toBeLessThanOrEqual(Date.now() + 1000);
  });
});

describe('hashFd and holdsContent', () => {
  it('hashes a file larger than one read, and an empty one', async () => {
    const big = Buffer.alloc(2.5 * 1024 * 1024);
    for (let i = 0; i < big.length; i++) big[i] = i % 251;
    writeFileSync(join(t.root, 'big'), big);
    writeFileSync(join(t.root, 'empty'), '');
    for (const [name, b] of [
      ['big', big],
      ['empty', Buffer.alloc(0)],
    ] as const) {
      const fd = openSync(join(t.root, name), 'r');
      expect(await hashFd(fd)).toEqual({ sha256: sha(b), size: b.length });
      closeSync(fd);
    }
  });

  it('is true only for a regular file of this user with exactly this content', async () => {
    writeFileSync(join(home, 'f'), 'content');
    writeFileSync(join(home, 'same-size'), 'CONTENT');
    symlinkSync(join(home, 'f'), join(home, 'link'));
    mkfifo(join(home, 'fifo'));
    mkdirSync(join(home, 'dir'));
    const d = keep(openRootDir(home));
    const want = { sha256: sha('content'), sizeBytes: 7 };
    const uid = process.getuid!();
    const before = openFds();
    expect(await holdsContent(d, 'f', uid, want)).toBe(true);
    expect(await holdsContent(d, 'f', uid, { ...want, sizeBytes: 8 })).toBe(false);
    for (const name of ['same-size', 'link', 'fifo', 'dir', 'missing']) expect(await holdsContent(d, name, uid, want), name).toBe(false);
    expect(openFds()).toBe(before);
    if (asRoot) {
      chownSync(join(home, 'f'), NOBODY, NOBODY);
      expect(await holdsContent(d, 'f', 0, want)).toBe(false);
      expect(await holdsContent(d, 'f', -1, want)).toBe(true);
      expect(openFds()).toBe(before);
    }
  });
});

describe('commitFile', () => {
  const ID = '0123abcd-0000-4000-8000-00000000beef';

  it('links the staged copy into place (one inode), never over a name already there', async () => {
    const s = join(t.root, 'stage');
    mkdirSync(s);
    writeFileSync(join(s, '0'), 'restored');
    writeFileSync(join(home, 'there'), 'mine');
    const stage = keep(openStaging(s));
    const parent = keep(openRootDir(home));
    const id = await commitFile(stage, '0', parent, 'f', ID, 0, 0o640);
    expect([id.ino, id.dev]).toEqual([lstatSync(join(s, '0')).ino, lstatSync(join(s, '0')).dev]);
    expect(lstatSync(join(home, 'f')).ino).toBe(id.ino);
    await expect(commitFile(stage, '0', parent, 'there', ID, 1, 0o640)).rejects.toThrow(/there already exists/);
    expect(readFileSync(join(home, 'there'), 'utf8')).toBe('mine');
  });

  it('across filesystems: a sparse copy under the partial name, with its mode and mtime, then linked; the partial goes', async () => {
    const s = join(otherFilesystem(home), `cleanerx-mrc-${process.pid}`);
    mkdirSync(s);
    try {
      const content = Buffer.concat([Buffer.alloc(4096, 5), Buffer.alloc(64 * 1024), Buffer.alloc(1024 * 1024 + 7, 6)]);
      writeFileSync(join(s, '3'), content);
      const stage = keep(openStaging(s));
      const parent = keep(openRootDir(home));
      const points: string[] = [];
      atCrashPoints((p) => {
        points.push(p, existsSync(join(home, partialName(ID, 3))) ? 'partial' : 'no partial', existsSync(join(home, 'f')) ? 'f' : 'no f');
        // The copy is durable before it is linked in.
        points.push(`${syncedFds().length} fsync`);
      });
      const fds = openFds();
      const id = await commitFile(stage, '3', parent, 'f', ID, 3, 0o640, '1500000000123456789');
      expect(openFds()).toBe(fds);
      expect(points).toEqual(['restore:3:copied', 'partial', 'no f', '1 fsync']);
      const st = lstatSync(join(home, 'f'), { bigint: true });
      expect([Number(st.ino), st.mode & 0o777n, st.mtimeNs, st.nlink]).toEqual([id.ino, 0o640n, 1500000000123456000n, 1n]);
      expect(readFileSync(join(home, 'f')).equals(content)).toBe(true);
      // The zero run stays a hole: less than the size is allocated.
      expect(Number(st.blocks) * 512).toBeLessThan(content.length - 32 * 1024);
      expect(readdirSync(home)).toEqual(['f']);
      // No mtime recorded: the copy keeps the time it was written.
      const before = Date.now();
      await commitFile(stage, '3', parent, 'g', ID, 4, 0o600);
      expect(lstatSync(join(home, 'g')).mtimeMs).toBeGreaterThanOrEqual(before - 1000);
    } finally {
      rmSync(s, { recursive: true, force: true });
    }
  });

  it('across filesystems, a staged copy that is gone stops the restore', async () => {
    const s = join(otherFilesystem(home), `cleanerx-mrc-${process.pid}`);
    mkdirSync(s);
    try {
      const stage = keep(openStaging(s));
      const parent = keep(openRootDir(home));
      // The link fails first (nothing to link): a missing staged name is an error of its own.
      await expect(commitFile(stage, '9', parent, 'f', ID, 9, 0o600)).rejects.toThrow(/does not exist/);
      expect(readdirSync(home)).toEqual([]);
    } finally {
      rmSync(s, { recursive: true, force: true });
    }
  });
});

describe('commitFile: what is at the name right after the link', () => {
  const swapFile = (n: string): void => {
    rmSync(join(home, n));
    writeFileSync(join(home, n), 'other');
  };
  const ID = '0123abcd-0000-4000-8000-00000000beef';
  const notOurs = (name: string): string => `${home}/${name} is not the file the restore just put there; the restore stopped.`;

  it('another file, no file, or no staged copy any more: the restore stops', async () => {
    const s = join(t.root, 'stage');
    mkdirSync(s);
    const stage = keep(openStaging(s));
    const parent = keep(openRootDir(home));
    const cases: [string, (name: string) => void][] = [
      ['swapped', swapFile],
      ['removed', (n) => rmSync(join(home, n))],
      ['unstaged', () => rmSync(join(s, 'unstaged'))],
    ];
    for (const [name, meddle] of cases) {
      writeFileSync(join(s, name), 'restored');
      hook.afterLink = (n) => {
        hook.afterLink = null;
        meddle(n);
      };
      await expect(commitFile(stage, name, parent, name, ID, 0, 0o600)).rejects.toThrow(notOurs(name));
    }
  });

  const acrossFs = async (f: (s: string, stage: DirHandle, parent: DirHandle) => Promise<void>): Promise<void> => {
    const s = join(otherFilesystem(home), `cleanerx-mrc-${process.pid}`);
    mkdirSync(s);
    try {
      await f(s, keep(openStaging(s)), keep(openRootDir(home)));
    } finally {
      rmSync(s, { recursive: true, force: true });
    }
  };

  it('across filesystems: another file, or no file, at the name after the copy is linked: the restore stops', async () => {
    await acrossFs(async (s, stage, parent) => {
      const cases: [string, (name: string) => void][] = [
        ['swapped', swapFile],
        ['removed', (n) => rmSync(join(home, n))],
        ['unpartial', () => rmSync(join(home, partialName(ID, 5)))],
      ];
      for (const [name, meddle] of cases) {
        writeFileSync(join(s, name), 'restored');
        hook.afterLink = (n) => {
          hook.afterLink = null;
          meddle(n);
        };
        await expect(commitFile(stage, name, parent, name, ID, 5, 0o600)).rejects.toThrow(notOurs(name));
        rmSync(join(home, partialName(ID, 5)), { force: true });
      }
    });
  });

  it('across filesystems: the staged copy gone before it is opened stops the restore', async () => {
    await acrossFs(async (s, stage, parent) => {
      writeFileSync(join(s, '7'), 'restored');
      hook.onLinkError = () => rmSync(join(s, '7'));
      await expect(commitFile(stage, '7', parent, 'f', ID, 7, 0o600)).rejects.toThrow(`The staged copy of ${home}/f is gone; the restore stopped.`);
      expect(readdirSync(home)).toEqual([]);
    });
  });
});

describe('uncommit and removeCreatedDir', () => {
  it('uncommit removes the name only while it is the committed inode', () => {
    writeFileSync(join(home, 'f'), 'x');
    const d = keep(openRootDir(home));
    const st = lstatSync(join(home, 'f'));
    expect(uncommit(d, 'f', { dev: st.dev, ino: st.ino + 1 })).toBe(false);
    expect(uncommit(d, 'f', { dev: st.dev + 1, ino: st.ino })).toBe(false);
    expect(existsSync(join(home, 'f'))).toBe(true);
    expect(uncommit(d, 'f', { dev: st.dev, ino: st.ino })).toBe(true);
    expect(existsSync(join(home, 'f'))).toBe(false);
    expect(uncommit(d, 'f', { dev: st.dev, ino: st.ino })).toBe(false);
  });

  it('removeCreatedDir removes an empty dir, and leaves one filled meanwhile or gone without an error', () => {
    mkdirSync(join(home, 'empty'));
    mkdirSync(join(home, 'filled'));
    writeFileSync(join(home, 'filled', 'x'), 'x');
    const d = keep(openRootDir(home));
    removeCreatedDir(d, 'empty');
    removeCreatedDir(d, 'filled');
    removeCreatedDir(d, 'gone');
    expect(readdirSync(home)).toEqual(['filled']);
  });
});
