// Written against the surviving mutants of engine/cleanup/freed-bytes.ts.
// The allocations are real (files on the disk, or on a tmpfs mounted for the
// test); statfs is the one thing faked, per device, so the free-space figure
// is exact on a shared disk where other sessions write: each explanation is
// then decided by the situation it names, at its exact bounds.

import { spawnSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { FREED_TOLERANCE, type InPlaceTarget, measureAfter, measureBefore } from '../../src/engine/cleanup/freed-bytes.js';
import { done, item, plan } from '../helpers/freed-plan.js';
import { diskTmp, otherFilesystem } from '../helpers/scratch.js';

/** What statfs reports as free, per device (bytes); a device not here reports its real figure. */
const fake = vi.hoisted(() => ({ free: new Map<number, number>(), failing: new Set<string>(), allFail: false }));
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  const statfsSync = ((p: string, o?: object) => {
    if (fake.allFail || fake.failing.has(String(p))) throw Object.assign(new Error(`EIO: statfs ${p}`), { code: 'EIO' });
    const s = real.statfsSync(p, o as never);
    const f = fake.free.get(real.statSync(p).dev);
    return f === undefined ? s : { ...s, bsize: 1, bavail: f };
  }) as typeof real.statfsSync;
  return { ...real, statfsSync };
});

const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;

let base: string;
let mount: string;
let mounted = false;
let n = 0;

beforeAll(() => {
  // How a disk frees blocks (its directories take some): on the disk's temp dir, wherever TMPDIR points.
  base = mkdtempSync(join(diskTmp(), 'cleanerx-mfreed-'));
  mount = join(base, 'tmpfs');
  mkdirSync(mount);
  if (process.getuid?.() === 0) mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64m', 'tmpfs', mount]).status === 0;
});
afterAll(() => {
  if (mounted) spawnSync('umount', [mount]);
  rmSync(base, { recursive: true, force: true });
});
afterEach(() => {
  fake.free.clear();
  fake.failing.clear();
  fake.allFail = false;
});

/** A fresh dir on the disk (or under the tmpfs), its device's free space set to 10 GiB. */
function dir(on = base): string {
  const d = join(on, `case-${++n}`);
  mkdirSync(d);
  fake.free.set(statSync(d).dev, 10 * GiB);
  return d;
}
const devOf = (p: string): number => statSync(p).dev;
/** As statfs would see `bytes` given back on the device of `p`. */
const gaveBack = (p: string, bytes: number): void => void fake.free.set(devOf(p), fake.free.get(devOf(p))! + bytes);
const alloc = (p: string): number => lstatSync(p).blocks * 512;
/** st_blocks × 512 of a whole tree, every entry counted once. */
function allocTree(p: string): number {
  const st = lstatSync(p);
  let sum = st.blocks * 512;
  if (st.isDirectory()) for (const c of readdirSync(p)) sum += allocTree(join(p, c));
  return sum;
}
/** A file of `size` bytes of data (no zero block, so all of it is allocated). */
const data = (p: string, size: number): string => {
  writeFileSync(p, Buffer.alloc(size, 0x5a));
  return p;
};

const inPlace = (id: string, path: string, kind: InPlaceTarget['kind'] = 'database') => new Map([[id, { path, kind }]]);

/** One item of `bytes` for `path`, measured, the path removed, statfs giving back `freed` (default: what it took). */
async function removeOne(path: string, bytes: number, freed?: number, opts: Parameters<typeof measureAfter>[2] = {}) {
  const b = await measureBefore(plan([item('x', [path], bytes)]));
  const took = allocTree(path);
  rmSync(path, { recursive: true });
  gaveBack(join(path, '..'), freed ?? took);
  return { f: await measureAfter(b, done, opts), took };
}

describe('what a tree took', () => {
  it("counts its directories' blocks as well as its files', each once", async () => {
    const d = dir();
    const t = join(d, 't');
    mkdirSync(join(t, 'a', 'b', 'c'), { recursive: true });
    data(join(t, 'a', 'f'), 8 * KiB);
    const dirsOnly = alloc(t) + alloc(join(t, 'a')) + alloc(join(t, 'a', 'b')) + alloc(join(t, 'a', 'b', 'c'));
    expect(dirsOnly, 'this filesystem gives a directory blocks').toBeGreaterThan(0);
    const all = allocTree(t);
    const { f } = await removeOne(t, all);
    expect(f).toEqual({
      promisedBytes: all,
      allocatedBytes: all,
      freedBytes: all,
      filesystems: [{ path: d, device: devOf(d), promisedBytes: all, allocatedBytes: all, freedBytes: all }],
      explanations: [],
    });
  });

  it.runIf(process.getuid?.() === 0)('stops at another filesystem mounted inside it: what went there is not ours', async () => {
    const d = dir();
    const t = join(d, 't');
    const m = join(t, 'm');
    mkdirSync(m, { recursive: true });
    const own = data(join(t, 'own'), 64 * KiB);
    expect(spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', m]).status).toBe(0);
    try {
      data(join(m, 'theirs'), 2 * MiB);
      const took = alloc(own);
      const b = await measureBefore(plan([item('t', [t], took)]));
      rmSync(own);
      rmSync(join(m, 'theirs'));
      gaveBack(d, took);
      const f = await measureAfter(b, done);
      expect([f.allocatedBytes, f.explanations]).toEqual([took, []]);
    } finally {
      spawnSync('umount', [m]);
    }
  });

  it.runIf(process.getuid?.() === 0)('a dir it may not list, or whose entries it may not look at, counts by itself; the rest is measured', async () => {
    const d = dir();
    chmodSync(base, 0o755);
    chmodSync(d, 0o755);
    const t = join(d, 't');
    mkdirSync(join(t, 'shut'), { recursive: true });
    mkdirSync(join(t, 'blind'));
    data(join(t, 'shut', 'in'), 64 * KiB);
    data(join(t, 'blind', 'in'), 64 * KiB);
    const own = data(join(t, 'own'), 64 * KiB);
    // As nobody (root's files): "shut" cannot be listed, "blind" lists its names but they cannot be looked at.
    chmodSync(join(t, 'shut'), 0o711);
    chmodSync(join(t, 'blind'), 0o744);
    const visible = alloc(t) + alloc(join(t, 'shut')) + alloc(join(t, 'blind')) + alloc(own);
    process.seteuid!(65534);
    let b: Awaited<ReturnType<typeof measureBefore>>;
    try {
      b = await measureBefore(plan([item('t', [t], visible)]));
    } finally {
      process.seteuid!(0);
      chmodSync(base, 0o700);
    }
    rmSync(t, { recursive: true });
    gaveBack(d, visible);
    const f = await measureAfter(b, done);
    expect([f.allocatedBytes, f.explanations]).toEqual([visible, []]);
  });
});

describe('where each path is measured', () => {
  it('a path whose parent is missing, or a file, is measured on the nearest existing directory', async () => {
    const d = dir();
    data(join(d, 'file'), 4 * KiB);
    for (const p of [join(d, 'gone1', 'gone2', 'x'), join(d, 'file', 'x')]) {
      const b = await measureBefore(plan([item('x', [p], 4 * KiB)]));
      const f = await measureAfter(b, done);
      expect(f.filesystems.map((s) => s.path)).toEqual([d]);
    }
  });

  it('a path named by two items is measured once; every promise counts, on the first directory the plan names', async () => {
    const d = dir();
    mkdirSync(join(d, 'sub'));
    const x = data(join(d, 'x'), 64 * KiB);
    const y = data(join(d, 'sub', 'y'), 32 * KiB);
    const z = data(join(d, 'sub', 'z'), 16 * KiB);
    const took = alloc(x) + alloc(y) + alloc(z);
    const p = plan([item('a', [x], 1000), item('b', [x], 500), item('c', [], 300), item('d', [y, z], 2000)]);
    const b = await measureBefore(p);
    for (const q of [x, y, z]) rmSync(q);
    gaveBack(d, took);
    const f = await measureAfter(b, done);
    expect(f.filesystems).toEqual([{ path: d, device: devOf(d), promisedBytes: 3800, allocatedBytes: took, freedBytes: took }]);
  });

  it.runIf(process.getuid?.() === 0)(
    'its directory gone with the cleanup: the free space is read on the nearest parent left, on the same filesystem',
    async () => {
      expect(mounted).toBe(true);
      const d = dir(mount);
      mkdirSync(join(d, 'a', 'b'), { recursive: true });
      const p = data(join(d, 'a', 'b', 'file'), MiB);
      const took = alloc(p);
      const b = await measureBefore(plan([item('x', [p], took)]));
      rmSync(join(d, 'a'), { recursive: true });
      gaveBack(d, took);
      const f = await measureAfter(b, done);
      expect(f.filesystems).toEqual([{ path: join(d, 'a', 'b'), device: devOf(d), promisedBytes: took, allocatedBytes: took, freedBytes: took }]);
      expect(f.explanations).toEqual([]);
    },
  );

  it('statfs failing before, or failing everywhere after, gives 0 freed rather than a made-up figure', async () => {
    let d = dir();
    let p = data(join(d, 'x'), 64 * KiB);
    fake.failing.add(d);
    const b = await measureBefore(plan([item('x', [p], alloc(p))]));
    fake.failing.clear();
    rmSync(p);
    expect((await measureAfter(b, done)).freedBytes).toBe(0);

    d = dir();
    p = data(join(d, 'x'), 64 * KiB);
    const b2 = await measureBefore(plan([item('x', [p], alloc(p))]));
    rmSync(p);
    fake.allFail = true;
    expect((await measureAfter(b2, done)).freedBytes).toBe(0);
  });
});

describe('the 5% tolerance', () => {
  it('freed short of the promise by exactly 5% needs no explanation; one byte more does', async () => {
    const d = dir();
    const x = data(join(d, 'x'), 400 * KiB);
    const took = alloc(x);
    expect(took).toBe(409_600);
    const b = await measureBefore(plan([item('x', [x], took)]));
    rmSync(x);
    gaveBack(d, 389_120);
    let f = await measureAfter(b, done);
    expect([f.freedBytes, f.explanations]).toEqual([389_120, []]);
    gaveBack(d, -1);
    f = await measureAfter(b, done);
    expect(f.explanations).toEqual(['otherWrites']);
  });
});

describe('each explanation, by the situation it names', () => {
  it('more freed than the removal took: "another process freed space"', async () => {
    const d = dir();
    const { f, took } = await removeOne(data(join(d, 'x'), 64 * KiB), 64 * KiB, 64 * KiB + MiB);
    expect([f.allocatedBytes, f.explanations]).toEqual([took, ['otherFrees']]);
  });

  it('freed as the removal took, but not as promised: only "the estimate was off"', async () => {
    const d = dir();
    const { f } = await removeOne(data(join(d, 'x'), 256 * KiB), MiB);
    expect(f.explanations).toEqual(['estimate']);
  });

  it('allocation within 5% of the promise explains nothing, even with holes', async () => {
    const d = dir();
    const s = join(d, 'sparse');
    data(s, 64 * KiB);
    truncateSync(s, MiB);
    // Promised 2% above what it took; nothing freed (another writer took it all).
    const { f } = await removeOne(s, Math.round(alloc(s) * 1.02), 0);
    expect(f.explanations).toEqual(['otherWrites']);
  });

  it('holes explain a shortfall only past 5% of the promise', async () => {
    const d = dir();
    const holes = MiB - 64 * KiB;
    expect(FREED_TOLERANCE * holes * 20).toBe(holes);
    const sparse = (name: string): string => {
      const s = data(join(d, name), 64 * KiB);
      truncateSync(s, MiB);
      expect(alloc(s)).toBe(64 * KiB);
      return s;
    };
    // Holes of exactly 5% of the promise, then just past it.
    expect((await removeOne(sparse('at'), holes * 20)).f.explanations).toEqual(['estimate']);
    expect((await removeOne(sparse('past'), holes * 20 - 40)).f.explanations).toEqual(['sparse']);
  });

  it("small files' rounding does not cancel a sparse file's holes", async () => {
    const d = dir();
    const t = join(d, 't');
    mkdirSync(t);
    truncateSync(data(join(t, 'sparse'), 0), MiB);
    for (let i = 0; i < 200; i++) data(join(t, `tiny${i}`), 1);
    expect(alloc(join(t, 'tiny0'))).toBe(4096);
    const { f } = await removeOne(t, 10 * MiB);
    expect(f.explanations).toEqual(['sparse']);
  });

  it('a sparse file promised below what it took: its holes explain nothing', async () => {
    const d = dir();
    const t = join(d, 't');
    mkdirSync(t);
    truncateSync(data(join(t, 'sparse'), 0), 10 * MiB);
    for (let i = 0; i < 100; i++) data(join(t, `tiny${i}`), 1);
    const { f } = await removeOne(t, 100 * KiB);
    expect(f.explanations).toEqual(['estimate']);
  });

  it('many small files promised by their size: "block rounding"', async () => {
    const d = dir();
    const t = join(d, 't');
    mkdirSync(t);
    for (let i = 0; i < 100; i++) data(join(t, `tiny${i}`), 1);
    const { f } = await removeOne(t, 100);
    expect(f.explanations).toEqual(['blockRounding']);
  });

  it('the same small files promised above what they took: only "the estimate was off"', async () => {
    const d = dir();
    const t = join(d, 't');
    mkdirSync(t);
    for (let i = 0; i < 100; i++) data(join(t, `tiny${i}`), 1);
    const { f } = await removeOne(t, MiB);
    expect(f.explanations).toEqual(['estimate']);
  });

  it('a whole file promised at half its size took no more than its size: no "block rounding"', async () => {
    const d = dir();
    const x = data(join(d, 'x'), MiB);
    expect(alloc(x)).toBe(MiB);
    const { f } = await removeOne(x, MiB / 2);
    expect(f.explanations).toEqual(['estimate']);
  });

  it('a planned file left by a failed run is "not everything was removed", and nothing else', async () => {
    const d = dir();
    const x = data(join(d, 'x'), 256 * KiB);
    const b = await measureBefore(plan([item('x', [x], alloc(x))]));
    const f = await measureAfter(b, { ...done, status: 'failed' });
    expect(f.explanations).toEqual(['incomplete']);
  });
});

describe('"the database keeps its pages"', () => {
  it('a planned .sqlite file left as it was', async () => {
    const d = dir();
    const x = data(join(d, 'history.sqlite'), 256 * KiB);
    const b = await measureBefore(plan([item('x', [x], alloc(x))]));
    expect((await measureAfter(b, done)).explanations).toEqual(['databasePages']);
  });

  it('a database changed in place, whatever its name, left as large as it was', async () => {
    const d = dir();
    const db = data(join(d, 'state'), 256 * KiB);
    const b = await measureBefore(plan([item('db', [], MiB)]), inPlace('db', db));
    expect((await measureAfter(b, done)).explanations).toEqual(['databasePages']);
  });

  it('not for a database that went, nor one that shrank', async () => {
    const d = dir();
    const db = data(join(d, 'state'), 256 * KiB);
    let b = await measureBefore(plan([item('db', [], MiB)]), inPlace('db', db));
    rmSync(db);
    gaveBack(d, 256 * KiB);
    expect((await measureAfter(b, done)).explanations).toEqual(['estimate']);

    const db2 = data(join(d, 'state2'), 256 * KiB);
    b = await measureBefore(plan([item('db', [], MiB)]), inPlace('db', db2));
    truncateSync(db2, 64 * KiB);
    gaveBack(d, 192 * KiB);
    expect((await measureAfter(b, done)).explanations).toEqual(['estimate']);
  });

  it('not for a database the plan promised nothing from', async () => {
    const d = dir();
    const db = data(join(d, 'zero.sqlite'), 256 * KiB);
    const y = data(join(d, 'y'), 64 * KiB);
    const p = plan([item('db', [], 0), item('y', [y], MiB)]);
    const b = await measureBefore(p, inPlace('db', db));
    rmSync(y);
    gaveBack(d, 64 * KiB);
    expect((await measureAfter(b, done)).explanations).toEqual(['estimate']);
  });
});

describe('a backup written during the run', () => {
  it('on the same filesystem: its bytes are expected to be missing from the freed space, and named', async () => {
    const d = dir();
    const x = data(join(d, 'x'), MiB);
    const bak = data(join(d, 'backup.age'), 256 * KiB);
    const { f, took } = await removeOne(x, MiB, MiB - 256 * KiB, { backup: { path: bak, bytes: 256 * KiB } });
    expect([took, f.allocatedBytes, f.freedBytes, f.explanations]).toEqual([MiB, MiB, MiB - 256 * KiB, ['backup']]);
  });

  it('on another filesystem: it changes nothing here', async () => {
    const d = dir();
    const bak = join(otherFilesystem(d), `cleanerx-mfreed-${process.pid}.age`);
    data(bak, 256 * KiB);
    try {
      expect(devOf(bak)).not.toBe(devOf(d));
      const { f } = await removeOne(data(join(d, 'x'), MiB), 2 * MiB, undefined, { backup: { path: bak, bytes: 256 * KiB } });
      expect(f.explanations).toEqual(['estimate']);
    } finally {
      rmSync(bak, { force: true });
    }
  });

  it('that is not there (any more): measured as if there were none', async () => {
    const d = dir();
    const { f } = await removeOne(data(join(d, 'x'), MiB), MiB, undefined, { backup: { path: join(d, 'nope.age'), bytes: 256 * KiB } });
    expect([f.freedBytes, f.explanations]).toEqual([MiB, []]);
  });
});
