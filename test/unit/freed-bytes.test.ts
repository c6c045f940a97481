// The freed-bytes measurement (engine/cleanup/freed-bytes.ts) on a quiet
// filesystem of its own: a tmpfs mounted for the test when the test runs as
// root (nothing else writes there, so statfs must agree with what was
// removed within 5%), else a temp dir on the shared disk, where any
// difference over 5% must come with an explanation. Each explanation is
// produced by the situation it names: hard links, sparse files, a
// database whose rows were deleted without compaction, another writer.

import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { linkSync, mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FREED_TOLERANCE, measureAfter, measureBefore } from '../../src/engine/cleanup/freed-bytes.js';
import { done, item, plan } from '../helpers/freed-plan.js';
import { freedLines } from '../../src/modals/progress.js';
import { diskTmp } from '../helpers/scratch.js';

let base: string;
let mounted = false;

beforeAll(() => {
  base = mkdtempSync(join(diskTmp(), 'cleanerx-freed-'));
  if (process.getuid?.() === 0) mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=256m', 'tmpfs', base]).status === 0;
});
afterAll(() => {
  if (mounted) spawnSync('umount', [base]);
  rmSync(base, { recursive: true, force: true });
});

let n = 0;
const dir = (): string => {
  const d = join(base, `case-${++n}`);
  mkdirSync(d, { recursive: true });
  return d;
};

const MiB = 1024 * 1024;
const within = (a: number, b: number): boolean => Math.abs(a - b) <= FREED_TOLERANCE * Math.max(a, b);

describe('freed bytes, measured', () => {
  it('files and a tree removed: freed, allocated and promised agree within 5% (or the difference is explained)', async () => {
    const d = dir();
    const tree = join(d, 'tree');
    mkdirSync(join(tree, 'sub'), { recursive: true });
    for (let i = 0; i < 8; i++) writeFileSync(join(tree, 'sub', `f${i}`), Buffer.alloc(MiB, i + 1));
    writeFileSync(join(d, 'one.bin'), Buffer.alloc(4 * MiB, 7));
    const keep = join(d, 'keep.bin');
    writeFileSync(keep, Buffer.alloc(MiB, 9));
    const p = plan([item('tree', [tree], 8 * MiB), item('one', [join(d, 'one.bin')], 4 * MiB)]);
    const b = await measureBefore(p);
    rmSync(tree, { recursive: true });
    rmSync(join(d, 'one.bin'));
    const f = await measureAfter(b, done);
    expect(f.promisedBytes).toBe(12 * MiB);
    expect(f.filesystems).toHaveLength(1);
    expect(within(f.allocatedBytes, 12 * MiB)).toBe(true);
    if (mounted) {
      expect(within(f.freedBytes, f.allocatedBytes), JSON.stringify(f)).toBe(true);
      expect(f.explanations).toEqual([]);
    } else if (!within(f.freedBytes, f.promisedBytes)) expect(f.explanations.length).toBeGreaterThan(0);
    expect(freedLines(f).join('\n')).toMatch(/Promised 12(\.0)? MB|Promised 12\.\d MiB|Promised 1[23](\.\d)? M/);
  });

  it('a hard-linked file frees nothing: "hard links keep the data"', async () => {
    const d = dir();
    writeFileSync(join(d, 'a'), Buffer.alloc(8 * MiB, 1));
    linkSync(join(d, 'a'), join(d, 'b'));
    const p = plan([item('a', [join(d, 'a')], 8 * MiB)]);
    const b = await measureBefore(p);
    rmSync(join(d, 'a'));
    const f = await measureAfter(b, done);
    expect(f.allocatedBytes).toBeLessThan(MiB);
    expect(f.explanations).toContain('hardLinks');
    expect(freedLines(f).join('\n')).toContain('Hard links keep the data');
  });

  it('a sparse file promised by its size: "files were sparse"', async () => {
    const d = dir();
    const sparse = join(d, 'sparse');
    writeFileSync(sparse, Buffer.alloc(64 * 1024, 1));
    truncateSync(sparse, 64 * MiB);
    const p = plan([item('s', [sparse], 64 * MiB)]);
    const b = await measureBefore(p);
    rmSync(sparse);
    const f = await measureAfter(b, done);
    expect(f.allocatedBytes).toBeLessThan(MiB);
    expect(f.explanations).toContain('sparse');
  });

  it('rows deleted from a database that is not compacted: "the database keeps its pages until compacted"', async () => {
    const d = dir();
    const path = join(d, 'logs_2.sqlite');
    const db = new Database(path);
    db.exec('CREATE TABLE logs (id INTEGER PRIMARY KEY, body TEXT)');
    const ins = db.prepare('INSERT INTO logs (body) VALUES (?)');
    db.transaction(() => {
      for (let i = 0; i < 4000; i++) ins.run('x'.repeat(1000));
    })();
    const p = plan([{ ...item('logs:database', [], 3 * MiB), category: 'log' }]);
    const b = await measureBefore(p, new Map([['logs:database', { path, kind: 'database' as const }]]));
    db.exec('DELETE FROM logs WHERE id % 2 = 0');
    db.close();
    const f = await measureAfter(b, done);
    expect(f.allocatedBytes).toBe(0);
    expect(f.explanations).toContain('databasePages');
    expect(freedLines(f).join('\n')).toContain('The database keeps its pages until compacted.');
  });

  it('a tree rewritten in place (a git gc) is measured as a tree: what it gave back is ours, never "another process freed space" (#25)', async () => {
    const d = dir();
    const repo = join(d, 'repo');
    mkdirSync(join(repo, 'objects', 'pack'), { recursive: true });
    for (let i = 0; i < 16; i++) writeFileSync(join(repo, 'objects', `loose${i}`), Buffer.alloc(MiB, i + 1));
    // The promise: what gc frees (16 MiB of loose objects become a 2 MiB pack).
    const p = plan([{ ...item('snapshot-gc:x', [], 14 * MiB), category: 'cache' }]);
    const b = await measureBefore(p, new Map([['snapshot-gc:x', { path: repo, kind: 'tree' as const }]]));
    for (let i = 0; i < 16; i++) rmSync(join(repo, 'objects', `loose${i}`));
    writeFileSync(join(repo, 'objects', 'pack', 'pack-1.pack'), Buffer.alloc(2 * MiB, 9));
    const f = await measureAfter(b, done);
    expect(f.allocatedBytes).toBeGreaterThan(13 * MiB);
    expect(f.allocatedBytes).toBeLessThan(15 * MiB);
    expect(f.explanations).not.toContain('otherFrees');
    expect(f.explanations).not.toContain('otherWrites');
  });

  it('another process writing to the filesystem meanwhile is named', async () => {
    const d = dir();
    writeFileSync(join(d, 'gone'), Buffer.alloc(4 * MiB, 1));
    const p = plan([item('g', [join(d, 'gone')], 4 * MiB)]);
    const b = await measureBefore(p);
    rmSync(join(d, 'gone'));
    writeFileSync(join(d, 'other-writer'), Buffer.alloc(8 * MiB, 2));
    const f = await measureAfter(b, done);
    expect(within(f.allocatedBytes, 4 * MiB)).toBe(true);
    // On the shared disk other sessions write too; either way this writer is named.
    expect(f.explanations).toContain('otherWrites');
  });

  it('a failed run is "not everything was removed"', async () => {
    const d = dir();
    writeFileSync(join(d, 'kept'), Buffer.alloc(2 * MiB, 1));
    const p = plan([item('k', [join(d, 'kept')], 2 * MiB)]);
    const b = await measureBefore(p);
    const f = await measureAfter(b, { ...done, status: 'failed' });
    expect(f.explanations).toContain('incomplete');
  });
});
