// Written against the surviving mutants of backup/restore.ts (restoreArchive):
// real archives (writeArchive over a temp tree) restored into a temp home,
// in-process, so every refusal, every byte left alone and every sentence of a
// result is the restore's own. The journal and staging are read at the
// restore's crash points (atCrashPoints), where a kill would find them.

import { generateX25519Identity, identityToRecipient } from 'age-encryption';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import '../../src/adapters/registry.js';
import type { ManifestSkipped } from '../../src/backup/manifest.js';
import { restoreArchive, type RestoreOptions } from '../../src/backup/restore.js';
import { atCrashPoints } from '../../src/engine/core/faults.js';
import type { BackupProgress } from '../../src/engine/core/model.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';
import { archiveOfRoots, type Files, type RootTree, writeTree } from '../helpers/restore-archive.js';

const ID = 'a1a1a1a1-0000-4000-8000-00000000cafe';
const EXPORT = 'pi_session_export';

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
  t = makeTempEnv('cleanerx-mres-');
  home = join(t.root, 'dest');
  mkdirSync(home);
});
afterEach(() => {
  atCrashPoints(null);
  delete process.env.CLEANERX_FAIL_AT;
  t.cleanup();
});

/** An archive of `files` (paths under `s/`) as a backup writes it; `exported` go under the session-export root (`x/`). */
function archiveOf(
  files: Files,
  o: { emptyDirs?: string[]; skipped?: ManifestSkipped[]; exported?: Files; id?: string; label?: string } = {},
): Promise<string> {
  const trees: RootTree[] = [{ label: o.label ?? 'pi_home', files, emptyDirs: o.emptyDirs }];
  if (o.exported) trees.push({ label: EXPORT, files: o.exported, top: 'x' });
  return archiveOfRoots(t.root, `a${++n}`, recipient, trees, { id: o.id ?? ID, skipped: o.skipped });
}

const staging = (): string => join(t.root, 'staging');
const journals = (): string => join(t.root, 'journals');
const opts = (archivePath: string, extra: Partial<RestoreOptions> = {}): RestoreOptions => ({
  archivePath,
  identity,
  agent: 'pi',
  roots: { pi_home: home },
  uid: process.getuid!(),
  stagingParent: staging(),
  journalDir: journals(),
  ...extra,
});
const h = (rel: string): string => join(home, rel);
const listed = (d: string): string[] => (existsSync(d) ? readdirSync(d).sort() : []);

/** The one journal in `dir`, parsed. */
function journalIn(dir: string): Record<string, unknown> {
  const names = readdirSync(dir).filter((f) => f.endsWith('.json'));
  expect(names).toHaveLength(1);
  return JSON.parse(readFileSync(join(dir, names[0]!), 'utf8')) as Record<string, unknown>;
}

/** Runs `f` at the crash point `point` (once); returns what it returned. */
function at<T>(point: string, f: () => T): { value?: T } {
  const out: { value?: T } = {};
  atCrashPoints((p) => {
    if (p === point && !('value' in out)) out.value = f();
  });
  return out;
}

/** The files in the one staging dir under the staging parent. */
function stagedFiles(): string[] {
  const dirs = readdirSync(staging());
  expect(dirs).toHaveLength(1);
  return readdirSync(join(staging(), dirs[0]!)).sort();
}

/** Nothing of the restore's own is left: staging parent empty, no journal (its dir gone when the restore made it). */
function expectTidy(): void {
  expect(listed(staging())).toEqual([]);
  expect(existsSync(journals())).toBe(false);
}

describe('restoreArchive: what it puts back and reports', () => {
  it('restores every file byte for byte, in manifest order, and leaves nothing of its own', async () => {
    const a = await archiveOf({ 's/a/1.jsonl': 'one', 's/b/2.jsonl': 'two' });
    const r = await restoreArchive(opts(a));
    expect(r.restored).toEqual([h('s/a/1.jsonl'), h('s/b/2.jsonl')]);
    expect(r.alreadyPresent).toEqual([]);
    expect(r.emptyDirs).toEqual([]);
    expect(r.notInBackup).toEqual([]);
    expect(r.manifest.id).toBe(ID);
    expect(readFileSync(h('s/a/1.jsonl'), 'utf8')).toBe('one');
    expect(readFileSync(h('s/b/2.jsonl'), 'utf8')).toBe('two');
    expectTidy();
  });

  it('names each FIFO, socket and device by kind; one under a root the agent does not have is not named', async () => {
    const a = await archiveOf(
      { 's/a.jsonl': 'x' },
      {
        skipped: [
          { root: 'pi_home', relativePath: 's/p', kind: 'fifo' },
          { root: 'pi_home', relativePath: 's/q', kind: 'socket' },
          { root: 'pi_home', relativePath: 's/r', kind: 'device' },
          { root: 'pi_root1', relativePath: 's/z', kind: 'fifo' },
        ],
      },
    );
    const r = await restoreArchive(opts(a));
    const say = (p: string, what: string): string => `Not in the backup: ${h(p)} was ${what}, which holds no data; the restore did not recreate it.`;
    expect(r.notInBackup).toEqual([say('s/p', 'a FIFO (named pipe)'), say('s/q', 'a socket'), say('s/r', 'a device file')]);
  });

  it('a dry run names them too, and with onlyPaths only those under the paths asked for', async () => {
    const a = await archiveOf(
      { 's/a/1.jsonl': 'x', 's/b/2.jsonl': 'y' },
      {
        skipped: [
          { root: 'pi_home', relativePath: 's/a/p', kind: 'fifo' },
          { root: 'pi_home', relativePath: 's/b/p', kind: 'fifo' },
        ],
      },
    );
    const r = await restoreArchive(opts(a, { dryRun: true, onlyPaths: [h('s/b')] }));
    expect(r.restored).toEqual([h('s/b/2.jsonl')]);
    expect(r.notInBackup).toEqual([`Not in the backup: ${h('s/b/p')} was a FIFO (named pipe), which holds no data; the restore did not recreate it.`]);
    expect(listed(home)).toEqual([]);
  });
});

describe('restoreArchive: onlyPaths', () => {
  const FILES = { 's/a/1.jsonl': '1', 's/a/2.jsonl': '2', 's/ab/3.jsonl': '3', 's/b/4.jsonl': '4' };

  it('a dir (trailing slash too) takes what lies beneath it, never a sibling that merely starts with its name', async () => {
    const a = await archiveOf(FILES);
    const r = await restoreArchive(opts(a, { onlyPaths: [`${h('s/a')}//`] }));
    expect(r.restored).toEqual([h('s/a/1.jsonl'), h('s/a/2.jsonl')]);
    expect(hashTree(home).has('s/ab/3.jsonl')).toBe(false);
    expect(listed(h('s'))).toEqual(['a']);
  });

  it('a file takes exactly that file; the others are read (hash-checked) but never staged', async () => {
    const a = await archiveOf(FILES);
    const seen = at('restore:staged', stagedFiles);
    const r = await restoreArchive(opts(a, { onlyPaths: [h('s/b/4.jsonl')] }));
    expect(r.restored).toEqual([h('s/b/4.jsonl')]);
    expect(seen.value).toEqual(['0']);
    expect(readFileSync(h('s/b/4.jsonl'), 'utf8')).toBe('4');
    expect(listed(h('s'))).toEqual(['b']);
  });

  it('several paths take each; a path nothing lies under takes nothing', async () => {
    const a = await archiveOf(FILES);
    const r = await restoreArchive(opts(a, { onlyPaths: [h('s/ab/3.jsonl'), h('s/a/2.jsonl'), h('nowhere')] }));
    expect(r.restored).toEqual([h('s/a/2.jsonl'), h('s/ab/3.jsonl')]);
  });

  it('an entry under a root the agent does not have is still refused by name, not skipped silently', async () => {
    const a = await archiveOf({ 's/a.jsonl': 'x' }, { label: 'pi_root1' });
    await expect(restoreArchive(opts(a, { onlyPaths: [h('s')] }))).rejects.toThrow('The archive restores into "pi_root1", which is not a root of pi.');
    expect(listed(home)).toEqual([]);
    expectTidy();
  });
});

describe('restoreArchive: its journal', () => {
  it('is written first (status staging, the catalog id, the roots, the uid), says committing then committed', async () => {
    const a = await archiveOf({ 's/a.jsonl': 'x', 's/b.jsonl': 'yy' });
    const seen: Record<string, Record<string, unknown>> = {};
    atCrashPoints((p) => {
      if (p === 'restore:journal' || p === 'restore:committing' || p === 'restore:committed') seen[p] = journalIn(journals());
    });
    await restoreArchive(opts(a, { expectId: ID }));
    const first = seen['restore:journal']!;
    expect(first).toMatchObject({
      formatVersion: 2,
      kind: 'cleanerx-restore',
      agent: 'pi',
      backupId: ID,
      status: 'staging',
      uid: process.getuid!(),
      roots: { pi_home: home },
      entries: [],
      dirs: [],
    });
    // Stamped when the journal is made and again as it is saved, a moment later (the same millisecond only on an idle machine).
    const lag = Date.parse(first.updatedAt as string) - Date.parse(first.createdAt as string);
    expect(lag).toBeGreaterThanOrEqual(0);
    expect(lag).toBeLessThan(5_000);
    expect(Date.parse(first.createdAt as string)).toBeGreaterThan(Date.now() - 60_000);
    expect(first.staging).toBe(join(staging(), `restore-${first.restoreId}`));
    expect(seen['restore:committing']!.status).toBe('committing');
    expect(seen['restore:committing']!.entries).toEqual([
      expect.objectContaining({ root: 'pi_home', path: 's/a.jsonl', staged: '0', present: false, sizeBytes: 1 }),
      expect.objectContaining({ root: 'pi_home', path: 's/b.jsonl', staged: '1', present: false, sizeBytes: 2 }),
    ]);
    expect(seen['restore:committed']!.status).toBe('committed');
    expectTidy();
  });

  it('names no catalog id when none was asked for', async () => {
    const a = await archiveOf({ 's/a.jsonl': 'x' });
    const seen = at('restore:journal', () => journalIn(journals()));
    await restoreArchive(opts(a));
    expect(seen.value!.backupId).toBeNull();
  });

  it('lives in the staging parent when no journal dir is given, and goes with the restore', async () => {
    const a = await archiveOf({ 's/a.jsonl': 'x' });
    const seen = at('restore:journal', () => readdirSync(staging()).filter((f) => f.endsWith('.json')).length);
    await restoreArchive(opts(a, { journalDir: undefined }));
    expect(seen.value).toBe(1);
    expect(listed(staging())).toEqual([]);
  });

  it('a journal dir the restore made is removed up to the first dir it made; dirs that were there stay', async () => {
    const a = await archiveOf({ 's/a.jsonl': 'x' });
    mkdirSync(join(t.root, 'state'));
    await restoreArchive(opts(a, { journalDir: join(t.root, 'state/cx/restores') }));
    expect(listed(join(t.root, 'state'))).toEqual([]);
    expect(existsSync(join(t.root, 'state'))).toBe(true);
  });

  it('a journal dir made by the restore that someone filled meanwhile stays, with what is in it', async () => {
    const a = await archiveOf({ 's/a.jsonl': 'x' });
    const dir = join(t.root, 'state/cx/restores');
    at('restore:staged', () => writeFileSync(join(t.root, 'state/cx/other'), 'theirs'));
    await restoreArchive(opts(a, { journalDir: dir }));
    expect(listed(join(t.root, 'state/cx'))).toEqual(['other']);
  });

  it('a journal dir that was there already stays, even empty', async () => {
    const a = await archiveOf({ 's/a.jsonl': 'x' });
    mkdirSync(journals());
    await restoreArchive(opts(a));
    expect(listed(journals())).toEqual([]);
  });
});

describe('restoreArchive: refusals leave the home as it was', () => {
  it('an archive of another catalog entry', async () => {
    const a = await archiveOf({ 's/a.jsonl': 'x' });
    await expect(restoreArchive(opts(a, { expectId: 'b2b2b2b2-0000-4000-8000-00000000cafe' }))).rejects.toThrow(
      'The archive does not belong to this catalog entry.',
    );
    expect(listed(home)).toEqual([]);
    expectTidy();
  });

  it('every destination already byte-identical: refused, with the count, nothing written', async () => {
    const a = await archiveOf({ 's/a.jsonl': 'x', 's/b.jsonl': 'y' });
    writeTree(home, { 's/a.jsonl': 'x', 's/b.jsonl': 'y' });
    const before = hashTree(home);
    await expect(restoreArchive(opts(a))).rejects.toThrow(
      'Every destination already exists; a restore never overwrites anything (all 2 files are byte-identical to the backup, so nothing was written).',
    );
    expect(treeDiff(before, hashTree(home))).toEqual([]);
    expectTidy();
  });

  it('every file present but an empty dir missing: the dir is made, the files count as restored and present', async () => {
    const a = await archiveOf({ 's/a.jsonl': 'x' }, { emptyDirs: ['s/e'] });
    writeTree(home, { 's/a.jsonl': 'x' });
    const r = await restoreArchive(opts(a));
    expect(r.restored).toEqual([h('s/a.jsonl')]);
    expect(r.alreadyPresent).toEqual([h('s/a.jsonl')]);
    expect(r.emptyDirs).toEqual([h('s/e')]);
    expect(statSync(h('s/e')).isDirectory()).toBe(true);
  });

  it('some present: only the others are written, the present ones are reported', async () => {
    const a = await archiveOf({ 's/a.jsonl': 'x', 's/b.jsonl': 'y', 's/c.jsonl': 'z' });
    writeTree(home, { 's/b.jsonl': 'y' });
    const r = await restoreArchive(opts(a));
    expect(r.restored).toEqual([h('s/a.jsonl'), h('s/b.jsonl'), h('s/c.jsonl')]);
    expect(r.alreadyPresent).toEqual([h('s/b.jsonl')]);
    expect(readFileSync(h('s/c.jsonl'), 'utf8')).toBe('z');
  });

  it('a destination holding other data is never overwritten', async () => {
    const a = await archiveOf({ 's/a.jsonl': 'x', 's/b.jsonl': 'y' });
    writeTree(home, { 's/b.jsonl': 'mine' });
    await expect(restoreArchive(opts(a))).rejects.toThrow(`${h('s/b.jsonl')} already exists; a restore never overwrites anything.`);
    expect(readFileSync(h('s/b.jsonl'), 'utf8')).toBe('mine');
    expect(existsSync(h('s/a.jsonl'))).toBe(false);
    expectTidy();
  });

  it('a failure after a commit removes what was put back and the dirs it made', async () => {
    const a = await archiveOf({ 's/n/a.jsonl': 'x', 's/n/m/b.jsonl': 'y' });
    process.env.CLEANERX_FAIL_AT = 'restore:1:after';
    await expect(restoreArchive(opts(a))).rejects.toThrow('injected failure at restore:1:after');
    expect(listed(home)).toEqual([]);
    expectTidy();
  });

  it('a file that appears at its destination during the restore: refused, everything put back removed, theirs kept', async () => {
    const a = await archiveOf({ 's/a.jsonl': 'x', 's/b.jsonl': 'y' });
    at('restore:1:before', () => writeFileSync(h('s/b.jsonl'), 'theirs'));
    await expect(restoreArchive(opts(a))).rejects.toThrow(`${h('s/b.jsonl')} appeared during the restore; everything restored so far was removed again.`);
    expect(listed(h('s'))).toEqual(['b.jsonl']);
    expect(readFileSync(h('s/b.jsonl'), 'utf8')).toBe('theirs');
    expectTidy();
  });
});

describe('restoreArchive: dry run, progress and the plan', () => {
  it('a dry run stages nothing, writes nothing, never calls onPlanned, and reports reading then checking', async () => {
    const a = await archiveOf({ 's/a.jsonl': 'x', 's/d/b.jsonl': 'yy' }, { emptyDirs: ['s/e'] });
    const steps: BackupProgress[] = [];
    let planned = 0;
    const seen = at('restore:staged', stagedFiles);
    const r = await restoreArchive(opts(a, { dryRun: true, onProgress: (p) => steps.push(p), onPlanned: () => void planned++ }));
    expect(seen.value).toEqual([]);
    expect(planned).toBe(0);
    expect(r.restored).toEqual([h('s/a.jsonl'), h('s/d/b.jsonl')]);
    expect(r.emptyDirs).toEqual([h('s/e')]);
    expect(listed(home)).toEqual([]);
    expect(steps.at(-1)).toEqual({ step: 'checking', done: 2, total: 2, bytesDone: 3, bytesTotal: 3 });
    expect(steps.some((s) => s.step === 'reading')).toBe(true);
    expect(steps.some((s) => s.step === 'writing')).toBe(false);
    expectTidy();
  });

  it('a real restore hands onPlanned the plan before any destination changes, then reports writing', async () => {
    const a = await archiveOf({ 's/a.jsonl': 'x', 's/d/b.jsonl': 'yy' });
    const steps: string[] = [];
    let plan: { restored: string[]; home: string[] } | undefined;
    await restoreArchive(
      opts(a, {
        onProgress: (p) => {
          if (steps.at(-1) !== p.step) steps.push(p.step);
        },
        onPlanned: async (p) => {
          plan = { restored: p.restored, home: listed(home) };
        },
      }),
    );
    expect(plan).toEqual({ restored: [h('s/a.jsonl'), h('s/d/b.jsonl')], home: [] });
    expect(steps).toEqual(['reading', 'checking', 'writing']);
  });

  it('a real restore stages every wanted file before the journal says committing', async () => {
    const a = await archiveOf({ 's/a.jsonl': 'x', 's/b.jsonl': 'y' });
    const seen = at('restore:staged', () => stagedFiles().map((f) => readFileSync(join(staging(), readdirSync(staging())[0]!, f), 'utf8')));
    await restoreArchive(opts(a));
    expect(seen.value).toEqual(['x', 'y']);
  });
});

describe('restoreArchive: session exports', () => {
  const exported = { 'x/s1.json': '{"id":1}', 'x/s2.json': '{"id":2}' };
  type Call = { dry: boolean; files: Record<string, string> };
  const importer = (calls: Call[]) => ({
    root: EXPORT,
    run: async (staged: Map<string, string>, dry: boolean): Promise<string[]> => {
      calls.push({ dry, files: Object.fromEntries([...staged].map(([rel, p]) => [rel, readFileSync(p, 'utf8')])) });
      return [...staged.keys()].map((k) => `session ${k}`);
    },
  });

  it('are handed, decrypted, to the import route (a dry run too); nothing is copied into the home', async () => {
    const a = await archiveOf({}, { exported });
    const calls: Call[] = [];
    const steps: string[] = [];
    const r = await restoreArchive(opts(a, { dryRun: true, sessionImport: importer(calls), onProgress: (p) => steps.push(p.step) }));
    expect(calls).toEqual([{ dry: true, files: exported }]);
    expect(r).toMatchObject({ restored: ['session x/s1.json', 'session x/s2.json'], alreadyPresent: [], emptyDirs: [], notInBackup: [] });
    expect(steps.at(-1)).toBe('checking');
    expect(listed(home)).toEqual([]);
    expectTidy();
  });

  it('a real import asks the route for its plan first (onPlanned), then imports', async () => {
    const a = await archiveOf({}, { exported });
    const calls: Call[] = [];
    const steps: string[] = [];
    let plan: string[] | undefined;
    const r = await restoreArchive(
      opts(a, {
        sessionImport: importer(calls),
        onProgress: (p) => steps.push(p.step),
        onPlanned: (p) => {
          plan = p.restored;
        },
      }),
    );
    expect(calls.map((c) => c.dry)).toEqual([true, false]);
    expect(calls[1]!.files).toEqual(exported);
    expect(plan).toEqual(['session x/s1.json', 'session x/s2.json']);
    expect(r.restored).toEqual(plan);
    expect(steps.at(-1)).toBe('writing');
    expectTidy();
  });

  it('a real import without onPlanned asks the route once', async () => {
    const a = await archiveOf({}, { exported });
    const calls: Call[] = [];
    await restoreArchive(opts(a, { sessionImport: importer(calls) }));
    expect(calls.map((c) => c.dry)).toEqual([false]);
  });

  it('an archive that mixes exports with files is refused before anything is imported or written', async () => {
    const a = await archiveOf({ 's/a.jsonl': 'x' }, { exported });
    const calls: Call[] = [];
    await expect(restoreArchive(opts(a, { sessionImport: importer(calls) }))).rejects.toThrow(
      'The archive mixes session exports with files; cleanerx never writes such an archive.',
    );
    expect(calls).toEqual([]);
    expect(listed(home)).toEqual([]);
    expectTidy();
  });

  it('an archive of files only is restored as files even when an import route is given', async () => {
    const a = await archiveOf({ 's/a.jsonl': 'x' });
    const calls: Call[] = [];
    const r = await restoreArchive(opts(a, { sessionImport: importer(calls) }));
    expect(calls).toEqual([]);
    expect(r.restored).toEqual([h('s/a.jsonl')]);
  });
});
