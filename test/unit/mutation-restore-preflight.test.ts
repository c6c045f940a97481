// Written against the surviving mutants of backup/restore.ts (the preflight
// and the commit): which dirs a restore plans and gives their modes and
// times back, which it leaves as they are, what it refuses before anything
// is written (nested roots restoring twice to one path, a root the agent
// does not have), and what a swap or a failure mid-commit leaves.

import { generateX25519Identity, identityToRecipient } from 'age-encryption';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import '../../src/adapters/registry.js';
import { restoreArchive, type RestoreOptions } from '../../src/backup/restore.js';
import { atCrashPoints } from '../../src/engine/core/faults.js';
import { archiveOfRoots, type RootTree, writeTree } from '../helpers/restore-archive.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';

const ID = 'a1a1a1a1-0000-4000-8000-00000000cafe';

let t: TempEnv;
let identity: string;
let recipient: string;
let home: string;
let n = 0;
beforeAll(async () => {
  identity = await generateX25519Identity();
  recipient = await identityToRecipient(identity);
});
beforeEach(() => {
  t = makeTempEnv('cleanerx-mres-pre-');
  home = join(t.root, 'dest');
  mkdirSync(home);
});
afterEach(() => {
  atCrashPoints(null);
  delete process.env.CLEANERX_FAIL_AT;
  t.cleanup();
});

const archiveOf = (...trees: RootTree[]): Promise<string> => archiveOfRoots(t.root, `a${++n}`, recipient, trees, { id: ID });
const opts = (archivePath: string, extra: Partial<RestoreOptions> = {}): RestoreOptions => ({
  archivePath,
  identity,
  agent: 'pi',
  roots: { pi_home: home },
  uid: process.getuid!(),
  stagingParent: join(t.root, 'staging'),
  journalDir: join(t.root, 'journals'),
  ...extra,
});
const h = (rel: string): string => join(home, rel);
const listed = (d: string): string[] => (existsSync(d) ? readdirSync(d).sort() : []);
const mode = (p: string): number => lstatSync(p).mode & 0o777;

/** The journal's planned dirs as the commit begins. */
function plannedDirs(): { value?: unknown } {
  const out: { value?: unknown } = {};
  atCrashPoints((p) => {
    if (p !== 'restore:committing') return;
    const dir = join(t.root, 'journals');
    const name = readdirSync(dir).find((f) => f.endsWith('.json'))!;
    out.value = (JSON.parse(readFileSync(join(dir, name), 'utf8')) as { dirs: unknown }).dirs;
  });
  return out;
}

const T1 = new Date('2025-03-04T05:06:07Z');
const T2 = new Date('2024-01-02T03:04:05Z');

describe('preflight: the dirs a restore plans', () => {
  const shaped: RootTree = {
    label: 'pi_home',
    files: { 's/a/b/1.jsonl': 'one', 's/a/b/2.jsonl': 'two', 's/a/3.jsonl': 'three' },
    emptyDirs: ['s/a/e'],
    shape: (dir) => {
      chmodSync(join(dir, 's/a/e'), 0o750);
      chmodSync(join(dir, 's/a/b'), 0o751);
      chmodSync(join(dir, 's/a'), 0o755);
      chmodSync(join(dir, 's'), 0o711);
      utimesSync(join(dir, 's/a/b'), T1, T1);
      utimesSync(join(dir, 's/a/e'), T2, T2);
    },
  };

  it('every absent dir once, outermost first, with the mode and time the backup recorded; an empty dir marked', async () => {
    const a = await archiveOf(shaped);
    const seen = plannedDirs();
    const r = await restoreArchive(opts(a));
    const dirs = seen.value as { root: string; path: string; mode?: number; mtimeNs?: string; empty?: true }[];
    expect(dirs.map((d) => [d.path, d.mode, d.empty ?? false])).toEqual([
      ['s', 0o711, false],
      ['s/a', 0o755, false],
      ['s/a/b', 0o751, false],
      ['s/a/e', 0o750, true],
    ]);
    expect(dirs.every((d) => d.root === 'pi_home' && typeof d.mtimeNs === 'string')).toBe(true);
    expect(r.emptyDirs).toEqual([h('s/a/e')]);
    expect([mode(h('s')), mode(h('s/a')), mode(h('s/a/b')), mode(h('s/a/e'))]).toEqual([0o711, 0o755, 0o751, 0o750]);
    expect(statSync(h('s/a/b')).mtime.getTime()).toBe(T1.getTime());
    expect(statSync(h('s/a/e')).mtime.getTime()).toBe(T2.getTime());
    expect(readFileSync(h('s/a/b/2.jsonl'), 'utf8')).toBe('two');
  });

  it('a dir that is there already is neither planned nor touched: its mode and time stay', async () => {
    const a = await archiveOf(shaped);
    mkdirSync(h('s/a'), { recursive: true, mode: 0o700 });
    chmodSync(h('s/a'), 0o700);
    chmodSync(h('s'), 0o700);
    const seen = plannedDirs();
    await restoreArchive(opts(a));
    expect((seen.value as { path: string }[]).map((d) => d.path)).toEqual(['s/a/b', 's/a/e']);
    expect([mode(h('s')), mode(h('s/a')), mode(h('s/a/b'))]).toEqual([0o700, 0o700, 0o751]);
  });

  it('an empty dir that is there already is not reported, nor given the backup’s mode', async () => {
    const a = await archiveOf(shaped);
    mkdirSync(h('s/a/e'), { recursive: true });
    chmodSync(h('s/a/e'), 0o700);
    const r = await restoreArchive(opts(a));
    expect(r.emptyDirs).toEqual([]);
    expect(mode(h('s/a/e'))).toBe(0o700);
  });

  it('a dry run plans the same and makes none of them', async () => {
    const a = await archiveOf(shaped);
    const r = await restoreArchive(opts(a, { dryRun: true }));
    expect(r.restored).toEqual([h('s/a/3.jsonl'), h('s/a/b/1.jsonl'), h('s/a/b/2.jsonl')]);
    expect(r.emptyDirs).toEqual([h('s/a/e')]);
    expect(listed(home)).toEqual([]);
  });

  it('a file whose dir is missing is never taken for a same-named file further up', async () => {
    const a = await archiveOf({ label: 'pi_home', files: { 's/x/a.jsonl': 'backed up' } });
    writeTree(home, { 's/a.jsonl': 'mine', 'a.jsonl': 'mine too' });
    const r = await restoreArchive(opts(a));
    expect(r.alreadyPresent).toEqual([]);
    expect(readFileSync(h('s/x/a.jsonl'), 'utf8')).toBe('backed up');
    expect(readFileSync(h('s/a.jsonl'), 'utf8')).toBe('mine');
  });

  it('a file at the top of its root needs no dir', async () => {
    const a = await archiveOf({ label: 'pi_home', files: { 'top.json': '{}' }, top: 'top.json' });
    const seen = plannedDirs();
    const r = await restoreArchive(opts(a));
    expect(seen.value).toEqual([]);
    expect(r.restored).toEqual([h('top.json')]);
    expect(readFileSync(h('top.json'), 'utf8')).toBe('{}');
  });

  it('a file at the top of its root holding other data is refused by the preflight, nothing written', async () => {
    const a = await archiveOf({ label: 'pi_home', files: { 'top.json': '{}' }, top: 'top.json' });
    writeTree(home, { 'top.json': 'mine' });
    await expect(restoreArchive(opts(a))).rejects.toThrow(`${h('top.json')} already exists; a restore never overwrites anything.`);
    expect(listed(home)).toEqual(['top.json']);
  });

  it('the dirs above an empty dir that the backup did not plan are made as plain dirs, not reported as empty', async () => {
    const a = await archiveOf({ label: 'pi_home', emptyDirs: ['s/x/e'], top: 's/x', shape: (dir) => chmodSync(join(dir, 's/x/e'), 0o750) });
    const r = await restoreArchive(opts(a));
    expect(r.emptyDirs).toEqual([h('s/x'), h('s/x/e')]);
    expect(mode(h('s/x/e'))).toBe(0o750);
  });

  it('an ancestor that is a file is refused by name before anything is written', async () => {
    const a = await archiveOf(shaped);
    writeFileSync(h('s'), 'a file');
    await expect(restoreArchive(opts(a))).rejects.toThrow(`${h('s')} is not a plain directory; nothing was restored.`);
    expect(listed(home)).toEqual(['s']);
  });
});

describe('preflight: refusals', () => {
  // A root is an existing dir; here one inside the other.
  beforeEach(() => mkdirSync(h('s')));

  it('two roots that nest, restoring two entries to one path: refused, nothing written', async () => {
    const a = await archiveOf({ label: 'pi_home', files: { 's/x/f.jsonl': 'one' } }, { label: 'pi_root1', files: { 'x/f.jsonl': 'two' }, top: 'x' });
    await expect(restoreArchive(opts(a, { roots: { pi_home: home, pi_root1: h('s') } }))).rejects.toThrow(`Two entries restore to ${h('s/x/f.jsonl')}.`);
    expect(listed(h('s'))).toEqual([]);
  });

  it('the same, the root that holds the other listed second', async () => {
    const a = await archiveOf({ label: 'pi_home', files: { 'x/f.jsonl': 'one' }, top: 'x' }, { label: 'pi_root1', files: { 's/x/f.jsonl': 'two' } });
    await expect(restoreArchive(opts(a, { roots: { pi_home: h('s'), pi_root1: home } }))).rejects.toThrow(`Two entries restore to ${h('s/x/f.jsonl')}.`);
  });

  it('an empty dir and a file of two nesting roots at one path: refused', async () => {
    const a = await archiveOf(
      { label: 'pi_home', files: { 's/x/f.jsonl': 'one' } },
      { label: 'pi_root1', files: { 'x/g.jsonl': 'g' }, emptyDirs: ['x/f.jsonl'], top: 'x' },
    );
    await expect(restoreArchive(opts(a, { roots: { pi_home: home, pi_root1: h('s') } }))).rejects.toThrow(`Two entries restore to ${h('s/x/f.jsonl')}.`);
    expect(listed(h('s'))).toEqual([]);
  });

  it('three roots, two of which nest: the two entries to one path are still refused', async () => {
    mkdirSync(join(t.root, 'third'));
    const a = await archiveOf(
      { label: 'pi_home', files: { 's/x/f.jsonl': 'one' } },
      { label: 'pi_root1', files: { 'x/f.jsonl': 'two' }, top: 'x' },
      { label: 'pi_root2', files: { 'z/g.jsonl': 'three' }, top: 'z' },
    );
    await expect(restoreArchive(opts(a, { roots: { pi_home: home, pi_root1: h('s'), pi_root2: join(t.root, 'third') } }))).rejects.toThrow(
      `Two entries restore to ${h('s/x/f.jsonl')}.`,
    );
  });

  it('two roots that nest, with no path in common: restored', async () => {
    const a = await archiveOf({ label: 'pi_home', files: { 's/x/f.jsonl': 'one' } }, { label: 'pi_root1', files: { 'y/g.jsonl': 'two' }, top: 'y' });
    const r = await restoreArchive(opts(a, { roots: { pi_home: home, pi_root1: h('s') } }));
    expect(r.restored).toEqual([h('s/x/f.jsonl'), h('s/y/g.jsonl')]);
    expect(readFileSync(h('s/y/g.jsonl'), 'utf8')).toBe('two');
  });

  it('files under a root the agent does not have, beside one it has: refused by name', async () => {
    const a = await archiveOf({ label: 'pi_home', files: { 's/f.jsonl': 'one' } }, { label: 'pi_root1', files: { 'y/g.jsonl': 'two' }, top: 'y' });
    await expect(restoreArchive(opts(a))).rejects.toThrow('The archive restores into "pi_root1", which is not a root of pi.');
    expect(listed(h('s'))).toEqual([]);
  });

  it('an empty dir under a root the agent does not have: refused by name', async () => {
    const a = await archiveOf({ label: 'pi_home', files: { 's/f.jsonl': 'one' } }, { label: 'pi_root1', emptyDirs: ['y/e'], top: 'y' });
    await expect(restoreArchive(opts(a))).rejects.toThrow('The archive restores into "pi_root1", which is not a root of pi.');
    expect(listed(h('s'))).toEqual([]);
  });
});

describe('commit: a swap or a failure mid-way', () => {
  it('a parent dir swapped after its files were linked: noticed, and what was linked is removed again', async () => {
    const a = await archiveOf({ label: 'pi_home', files: { 's/n/a.jsonl': 'a', 's/n/b.jsonl': 'b' } });
    const away = join(t.root, 'away');
    atCrashPoints((p) => {
      if (p !== 'restore:1:after') return;
      renameSync(h('s/n'), away);
      mkdirSync(h('s/n'));
    });
    await expect(restoreArchive(opts(a))).rejects.toThrow(
      `${h('s/n')} was replaced while the restore was running; the restore stopped and undid what it had put back.`,
    );
    expect(listed(away)).toEqual([]);
    expect(listed(h('s/n'))).toEqual([]);
  });

  it('a failure after the empty dirs got their modes: a locked dir someone filled is opened up and kept, the rest undone', async () => {
    const a = await archiveOf({
      label: 'pi_home',
      files: { 's/f.jsonl': 'f' },
      emptyDirs: ['s/e/inner'],
      shape: (dir) => chmodSync(join(dir, 's/e'), 0o555),
    });
    process.env.CLEANERX_FAIL_AT = 'restore:emptyDirs';
    atCrashPoints((p) => {
      if (p === 'restore:emptyDirs') writeFileSync(h('s/e/theirs'), 'x');
    });
    await expect(restoreArchive(opts(a))).rejects.toThrow('injected failure at restore:emptyDirs');
    expect(listed(h('s'))).toEqual(['e']);
    expect(listed(h('s/e'))).toEqual(['theirs']);
    expect(mode(h('s/e'))).toBe(0o700);
  });

  it('a failure with a dir that locks nobody out leaves that dir’s mode as given', async () => {
    const a = await archiveOf({
      label: 'pi_home',
      files: { 's/f.jsonl': 'f' },
      emptyDirs: ['s/e/inner'],
      shape: (dir) => chmodSync(join(dir, 's/e'), 0o751),
    });
    process.env.CLEANERX_FAIL_AT = 'restore:emptyDirs';
    atCrashPoints((p) => {
      if (p === 'restore:emptyDirs') writeFileSync(h('s/e/theirs'), 'x');
    });
    await expect(restoreArchive(opts(a))).rejects.toThrow('injected failure at restore:emptyDirs');
    expect(mode(h('s/e'))).toBe(0o751);
  });

  it('a staged copy gone before its commit: that error, not "appeared", and what was put back is removed', async () => {
    const a = await archiveOf({ label: 'pi_home', files: { 's/a.jsonl': 'a', 's/b.jsonl': 'b' } });
    atCrashPoints((p) => {
      if (p === 'restore:1:before') {
        const dir = join(t.root, 'staging', readdirSync(join(t.root, 'staging'))[0]!);
        rmSync(join(dir, '1'));
      }
    });
    const err = await restoreArchive(opts(a)).then(
      () => null,
      (e: Error) => e.message,
    );
    expect(err).not.toBeNull();
    expect(err).not.toMatch(/appeared during the restore/);
    expect(listed(h('s'))).toEqual([]);
  });

  it('a failure before the last file: the home is exactly as it was, and the backup then restores', async () => {
    const a = await archiveOf({ label: 'pi_home', files: { 's/n/a.jsonl': 'a', 's/m/b.jsonl': 'b', 's/c.jsonl': 'c' } });
    writeTree(home, { 'other.txt': 'mine' });
    const before = hashTree(home);
    process.env.CLEANERX_FAIL_AT = 'restore:2:before';
    await expect(restoreArchive(opts(a))).rejects.toThrow('injected failure at restore:2:before');
    expect(treeDiff(before, hashTree(home))).toEqual([]);
    delete process.env.CLEANERX_FAIL_AT;
    expect((await restoreArchive(opts(a))).restored).toHaveLength(3);
  });
});
