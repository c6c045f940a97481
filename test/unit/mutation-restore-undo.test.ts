// Written against the surviving mutants of backup/restore.ts left by
// mutation-restore and mutation-restore-preflight: the crash points a restore
// passes (the ones restore-crash kills at), its private staging dir, what a
// dry run or onlyPaths stages and recreates, descriptors closed, and a
// rollback that cannot remove what it put back (uncommit made to fail, as an
// EPERM would): journal and staging stay, and the next settle finishes it.

import { generateX25519Identity, identityToRecipient } from 'age-encryption';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import '../../src/adapters/registry.js';
import { restoreArchive, settlePendingRestores, type RestoreOptions } from '../../src/backup/restore.js';
import { atCrashPoints, restoreCrashPointsFor } from '../../src/engine/core/faults.js';
import { archiveOfRoots, type RootTree } from '../helpers/restore-archive.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

const fail = vi.hoisted(() => ({ uncommit: false }));
vi.mock('../../src/backup/restore-commit.js', async (orig) => {
  const real = await orig<typeof import('../../src/backup/restore-commit.js')>();
  return {
    ...real,
    uncommit: (...a: Parameters<typeof real.uncommit>) => {
      if (fail.uncommit) throw Object.assign(new Error('EPERM: operation not permitted, unlink'), { code: 'EPERM' });
      return real.uncommit(...a);
    },
  };
});

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
  t = makeTempEnv('cleanerx-mres-undo-');
  home = join(t.root, 'dest');
  mkdirSync(home);
});
afterEach(() => {
  atCrashPoints(null);
  fail.uncommit = false;
  delete process.env.CLEANERX_FAIL_AT;
  t.cleanup();
});

const archiveOf = (...trees: RootTree[]): Promise<string> => archiveOfRoots(t.root, `a${++n}`, recipient, trees, { id: ID });
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
const FILES = { 's/n/a.jsonl': 'a', 's/n/b.jsonl': 'b', 's/c.jsonl': 'c' };

describe('restoreArchive: its crash points and its own dirs', () => {
  it('passes exactly the crash points the kill tests use, in order', async () => {
    const a = await archiveOf({ label: 'pi_home', files: FILES });
    const seen: string[] = [];
    atCrashPoints((p) => seen.push(p));
    await restoreArchive(opts(a));
    expect(seen.filter((p) => p.startsWith('restore:'))).toEqual(restoreCrashPointsFor(3).toSpliced(-2, 0, 'restore:emptyDirs'));
  });

  it('stages into a dir only its owner can enter', async () => {
    const a = await archiveOf({ label: 'pi_home', files: FILES });
    let m = -1;
    atCrashPoints((p) => {
      if (p === 'restore:staged') m = lstatSync(join(staging(), readdirSync(staging())[0]!)).mode & 0o777;
    });
    await restoreArchive(opts(a));
    expect(m).toBe(0o700);
  });

  it('a dry run of an archive of files stages nothing even when an import route is given', async () => {
    const a = await archiveOf({ label: 'pi_home', files: FILES });
    let staged: string[] | undefined;
    atCrashPoints((p) => {
      if (p === 'restore:staged') staged = readdirSync(join(staging(), readdirSync(staging())[0]!));
    });
    const r = await restoreArchive(opts(a, { dryRun: true, sessionImport: { root: 'pi_session_export', run: async () => ['never'] } }));
    expect(staged).toEqual([]);
    expect(r.restored).toHaveLength(3);
  });

  it('onlyPaths recreates only the empty dirs under the paths asked for', async () => {
    const a = await archiveOf({ label: 'pi_home', files: FILES, emptyDirs: ['s/n/e', 's/o/e'] });
    const r = await restoreArchive(opts(a, { onlyPaths: [h('s/n')] }));
    expect(r.emptyDirs).toEqual([h('s/n/e')]);
    expect(listed(h('s'))).toEqual(['n']);
    expect(listed(h('s/n'))).toEqual(['a.jsonl', 'b.jsonl', 'e']);
  });

  it('onlyPaths naming the root itself takes everything', async () => {
    const a = await archiveOf({ label: 'pi_home', files: FILES });
    const r = await restoreArchive(opts(a, { onlyPaths: [home] }));
    expect(r.restored).toEqual([h('s/c.jsonl'), h('s/n/a.jsonl'), h('s/n/b.jsonl')]);
  });

  it('leaves no descriptor open, restored or refused', async () => {
    const a = await archiveOf({ label: 'pi_home', files: FILES });
    const fds = (): number => readdirSync('/proc/self/fd').length;
    const before = fds();
    await restoreArchive(opts(a));
    await expect(restoreArchive(opts(a))).rejects.toThrow(/Every destination already exists/);
    expect(fds()).toBe(before);
  });
});

describe('restoreArchive: a rollback that cannot remove what it put back', () => {
  it('says how many are left and where; keeps journal and staging; the next settle finishes the clean-up', async () => {
    const a = await archiveOf({ label: 'pi_home', files: FILES });
    process.env.CLEANERX_FAIL_AT = 'restore:1:after';
    fail.uncommit = true;
    await expect(restoreArchive(opts(a))).rejects.toThrow(
      `injected failure at restore:1:after 2 restored item(s) could not be removed again (first: ${h('s/n/a.jsonl')}); the next cleanerx start or \`cleanerx backups restore\` finishes the clean-up.`,
    );
    fail.uncommit = false;
    delete process.env.CLEANERX_FAIL_AT;
    const names = listed(journals());
    expect(names).toHaveLength(1);
    const j = JSON.parse(readFileSync(join(journals(), names[0]!), 'utf8')) as { status: string; message: string; staging: string };
    expect(j.status).toBe('rollingBack');
    expect(j.message).toBe('injected failure at restore:1:after');
    expect(listed(j.staging)).toEqual(['0', '1', '2']);
    expect(listed(h('s'))).toEqual(['c.jsonl', 'n']);
    const out = await settlePendingRestores({ journalDir: journals(), stagingParent: staging(), rootsFor: async () => ({ pi_home: home }) });
    expect(out.map((o) => [o.outcome, o.message.includes('(injected failure at restore:1:after)')])).toEqual([['rolledBack', true]]);
    expect(listed(home)).toEqual([]);
    expect(listed(staging())).toEqual([]);
  });

  it('names a file at the top of its root by its own path', async () => {
    const a = await archiveOf({ label: 'pi_home', files: { 'top.json': '{}' }, top: 'top.json' });
    process.env.CLEANERX_FAIL_AT = 'restore:0:after';
    fail.uncommit = true;
    await expect(restoreArchive(opts(a))).rejects.toThrow(`1 restored item(s) could not be removed again (first: ${h('top.json')});`);
  });
});
