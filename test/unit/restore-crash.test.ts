// A restore is a journaled operation (issue #13 items 3 and 5): a real
// restore process is SIGKILLed at every named point — before the first
// byte, after staging, before and after every committed file, after the
// last — and the next cleanerx settles it (finishes it, or rolls it back),
// after which the same backup restores everything byte for byte, with no
// stray partial, staging or journal left. Also: a file an interrupted run
// already put back counts as restored, the missing paths of a partial item
// can be restored alone, and a restored sparse file keeps its holes.

import { generateX25519Identity, identityToRecipient } from 'age-encryption';
import { spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  existsSync,
  ftruncateSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectFiles, writeArchive } from '../../src/backup/archive.js';
import { restoreArchive, settlePendingRestores, type RestoreOptions } from '../../src/backup/restore.js';
import { addRecord, archivePathFor, backupsDir } from '../../src/backup/catalog.js';
import { createIdentity } from '../../src/backup/keystore.js';
import { ADAPTERS } from '../../src/adapters/registry.js';
import { Engine } from '../../src/engine/api/engine.js';
import { backupService } from '../../src/backup/service.js';
import { restoreCrashPointsFor } from '../../src/engine/core/faults.js';
import { ownDirs } from '../../src/engine/host/own-dirs.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { hashTree, treeDiff, treeNames } from '../helpers/tree-hash.js';
import { otherFilesystem } from '../helpers/scratch.js';

// Only in test mode does the key store accept a cheaper scrypt.
process.env.CLEANERX_TEST_MODE = '1';
process.env.CLEANERX_SCRYPT_LOG_N = '12';
const envs: TempEnv[] = [];

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CHILD = join(REPO, 'test/helpers/restore-child.mjs');

// Six files: into an existing bucket, a new bucket, a new nested dir; text, binary, empty, 0644, sparse.
const SPARSE_BYTES = 16 * 1024 * 1024;
const FILES: { rel: string; body: Buffer | 'sparse'; mode: number }[] = [
  { rel: 'sessions/--home-u-src-api--/s1.jsonl', body: Buffer.from('{"type":"session"}\n'.repeat(200)), mode: 0o600 },
  { rel: 'sessions/--home-u-src-api--/s2.bin', body: randomBytes(70_000), mode: 0o644 },
  { rel: 'sessions/--home-u-src-new--/s3.jsonl', body: Buffer.alloc(0), mode: 0o600 },
  { rel: 'sessions/--home-u-src-new--/deeper/still/s4.jsonl', body: Buffer.from('héllo\0world'), mode: 0o600 },
  { rel: 'sessions/--home-u-src-new--/deeper/sparse.jsonl', body: 'sparse', mode: 0o600 },
  { rel: 'sessions/--home-u-src-web--/s6.jsonl', body: randomBytes(3000), mode: 0o600 },
];

/** A file of SPARSE_BYTES with data only in its first and a middle 4 KiB block: the rest are holes. */
function writeSparse(path: string): void {
  const fd = openSync(path, 'w', 0o600);
  writeSync(fd, Buffer.alloc(4096, 7), 0, 4096, 0);
  writeSync(fd, Buffer.alloc(4096, 9), 0, 4096, 8 * 1024 * 1024);
  ftruncateSync(fd, SPARSE_BYTES); // the tail is a hole too
  closeSync(fd);
}

/** The agent dir as a cleanup left it: other data stays, the planned files are gone. */
function writeBase(agentDir: string): void {
  mkdirSync(join(agentDir, 'sessions/--home-u-src-api--'), { recursive: true });
  writeFileSync(join(agentDir, 'settings.json'), '{"theme":"dark"}\n', { mode: 0o600 });
  writeFileSync(join(agentDir, 'sessions/--home-u-src-api--/kept.jsonl'), '{"keep":true}\n', { mode: 0o600 });
  mkdirSync(join(agentDir, 'sessions/--home-u-src-web--'), { recursive: true });
}

function writePlanned(agentDir: string): void {
  for (const f of FILES) {
    const p = join(agentDir, f.rel);
    mkdirSync(dirname(p), { recursive: true, mode: 0o700 });
    if (f.body === 'sparse') writeSparse(p);
    else writeFileSync(p, f.body);
    chmodSync(p, f.mode);
  }
}

/** Each planned file's mtime to the µs (what Node can set): a restore gives back the source's. */
const mtimesUs = (agentDir: string): string[] =>
  FILES.map((f) => {
    const ns = statSync(join(agentDir, f.rel), { bigint: true }).mtimeNs;
    return `${f.rel} ${ns - (ns % 1000n)}`;
  });

/** The names in a dir; a dir that is gone (removed once empty) lists nothing. */
const listed = (dir: string): string[] => (existsSync(dir) ? readdirSync(dir) : []);

let work: string;
let archivePath: string;
let identity: string;
/** The agent dir with the planned files (what a full restore must give back). */
let full: Map<string, string>;
/** The agent dir after the cleanup (what a rollback must give back). */
let base: Map<string, string>;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'cleanerx-restore-crash-'));
  identity = await generateX25519Identity();
  const src = join(work, 'source-agent');
  writeBase(src);
  base = hashTree(src);
  writePlanned(src);
  full = hashTree(src);
  const files = await collectFiles(
    FILES.map((f) => join(src, f.rel)),
    [{ label: 'pi_home', dir: src }],
  );
  archivePath = join(work, 'backup.cxb');
  await writeArchive({
    archivePath,
    recipient: await identityToRecipient(identity),
    agent: 'pi',
    operationId: 'op-1',
    id: randomUUID(),
    itemCount: FILES.length,
    retentionDays: 30,
    files,
  });
});
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
  for (const t of envs.splice(0)) t.cleanup();
});

interface Home {
  dir: string;
  agentDir: string;
  opts: RestoreOptions;
}

function home(name: string): Home {
  const dir = join(work, name);
  const agentDir = join(dir, 'agent');
  writeBase(agentDir);
  const opts: RestoreOptions = {
    archivePath,
    identity,
    agent: 'pi',
    roots: { pi_home: agentDir },
    uid: process.getuid!(),
    stagingParent: join(dir, 'data/restore-staging'),
    journalDir: join(dir, 'state/restores'),
  };
  return { dir, agentDir, opts };
}

function killedAt(h: Home, point: string, extra: Record<string, string> = {}): void {
  const r = spawnSync(process.execPath, [CHILD, JSON.stringify(h.opts)], {
    cwd: REPO,
    env: { PATH: process.env.PATH, HOME: h.dir, CLEANERX_CRASH_AT: point, ...extra },
    encoding: 'utf8',
    timeout: 120_000,
  });
  expect(r.signal, `${point}: ${r.stderr}`).toBe('SIGKILL');
}

const settle = (h: Home, mode: 'resume' | 'rollback' = 'resume') =>
  settlePendingRestores({ journalDir: h.opts.journalDir!, stagingParent: h.opts.stagingParent, mode, rootsFor: async () => h.opts.roots });

/** Every path below `dir` whose name says partial or staging, anywhere in this home. */
// Names only: hashing here read the 16 MiB sparse file again at every check.
function strays(dir: string): string[] {
  return treeNames(dir).filter((k) => /\.partial$|cleanerx-restore|restore-[0-9a-f-]{36}/.test(k));
}

/** The restore's own dirs hold nothing once it is settled. */
function expectNoLeftovers(h: Home): void {
  expect(strays(h.dir)).toEqual([]);
  expect(listed(h.opts.stagingParent)).toEqual([]);
  expect(listed(h.opts.journalDir!)).toEqual([]);
}

/**
 * The backup is still usable: restored again, it puts everything back; when
 * everything is back already it says so and writes nothing.
 */
async function expectRestoresAgain(h: Home, allBack: boolean): Promise<void> {
  if (allBack)
    await expect(restoreArchive(h.opts)).rejects.toThrow(
      /Every destination already exists; a restore never overwrites anything \(all 6 files are byte-identical/,
    );
  else expect((await restoreArchive(h.opts)).restored).toHaveLength(FILES.length);
  expect(treeDiff(full, hashTree(h.agentDir))).toEqual([]);
  expectNoLeftovers(h);
}

const POINTS = restoreCrashPointsFor(FILES.length);

describe('a restore killed at every point', () => {
  it('passes every point when it is not killed (so the kills below are real)', async () => {
    // A child that is never killed restores everything: its points exist in this order.
    const h = home('control');
    const r = spawnSync(process.execPath, [CHILD, JSON.stringify(h.opts)], {
      cwd: REPO,
      env: { PATH: process.env.PATH, HOME: h.dir, CLEANERX_CRASH_AT: 'restore:never' },
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ restored: FILES.length, alreadyPresent: 0 });
    expect(treeDiff(full, hashTree(h.agentDir))).toEqual([]);
    expectNoLeftovers(h);
  });

  it.each(POINTS)('%s: the next start finishes it; the backup restores byte for byte', async (point) => {
    const h = home(`resume-${point.replace(/:/g, '_')}`);
    killedAt(h, point);
    const outcomes = await settle(h);
    expect(outcomes).toHaveLength(1);
    expect(['completed', 'discarded']).toContain(outcomes[0]!.outcome);
    expectNoLeftovers(h);
    if (outcomes[0]!.outcome === 'discarded') expect(treeDiff(base, hashTree(h.agentDir))).toEqual([]);
    else expect(treeDiff(full, hashTree(h.agentDir))).toEqual([]);
    await expectRestoresAgain(h, outcomes[0]!.outcome === 'completed');
  });

  it.each(POINTS)('%s: rolled back instead, the agent dir is exactly as the cleanup left it; then it restores', async (point) => {
    const h = home(`rollback-${point.replace(/:/g, '_')}`);
    killedAt(h, point);
    const outcomes = await settle(h, 'rollback');
    expect(outcomes).toHaveLength(1);
    // Before the commit phase nothing was written (discarded); past the last commit there is nothing to undo (completed).
    const done = point === 'restore:committed' || point === 'restore:unstaged';
    const expected = point === 'restore:journal' || point === 'restore:staged' ? 'discarded' : done ? 'completed' : 'rolledBack';
    expect(outcomes[0]!.outcome).toBe(expected);
    expect(treeDiff(done ? full : base, hashTree(h.agentDir))).toEqual([]);
    expectNoLeftovers(h);
    await expectRestoresAgain(h, done);
  });
});

describe('a restore killed while it undoes a failure', () => {
  it('is rolled back by the next start, never resumed', async () => {
    const h = home('undoing');
    killedAt(h, 'restore:rollingBack', { CLEANERX_FAIL_AT: 'restore:3:after' });
    expect((await settle(h)).map((x) => x.outcome)).toEqual(['rolledBack']);
    expect(treeDiff(base, hashTree(h.agentDir))).toEqual([]);
    expectNoLeftovers(h);
    await expectRestoresAgain(h, false);
  });
});

describe('restore of what is missing', () => {
  it('files an interrupted run put back count as restored, even with its journal lost', async () => {
    const h = home('journal-lost');
    killedAt(h, 'restore:2:after');
    rmSync(h.opts.journalDir!, { recursive: true });
    rmSync(h.opts.stagingParent, { recursive: true });
    const r = await restoreArchive(h.opts);
    expect(r.restored).toHaveLength(FILES.length);
    expect(r.alreadyPresent.sort()).toEqual(
      FILES.slice(0, 3)
        .map((f) => join(h.agentDir, f.rel))
        .sort(),
    );
    expect(treeDiff(full, hashTree(h.agentDir))).toEqual([]);
    expectNoLeftovers(h);
  });

  it('decrypted staging no journal names (left by a restore killed before restores were journaled) is removed at the next settle', async () => {
    const h = home('orphan');
    const orphan = join(h.opts.stagingParent, `restore-${randomUUID()}`);
    mkdirSync(orphan, { recursive: true });
    writeFileSync(join(orphan, '0'), 'decrypted session text');
    writeFileSync(join(h.opts.stagingParent, 'not-ours'), 'left alone');
    expect(await settle(h)).toEqual([]);
    expect(listed(h.opts.stagingParent)).toEqual(['not-ours']);
  });

  it('a destination holding other data is still never overwritten', async () => {
    const h = home('conflict');
    writeFileSync(join(h.agentDir, FILES[0]!.rel), 'the user wrote this since');
    const before = hashTree(h.agentDir);
    await expect(restoreArchive(h.opts)).rejects.toThrow(/s1\.jsonl already exists; a restore never overwrites anything/);
    expect(treeDiff(before, hashTree(h.agentDir))).toEqual([]);
    expectNoLeftovers(h);
  });

  it('onlyPaths restores the missing paths of a partially applied item and nothing else', async () => {
    const h = home('only');
    const missing = [join(h.agentDir, 'sessions/--home-u-src-new--/deeper'), join(h.agentDir, FILES[0]!.rel)];
    const r = await restoreArchive({ ...h.opts, onlyPaths: missing });
    expect(r.restored.sort()).toEqual([FILES[0]!, FILES[3]!, FILES[4]!].map((f) => join(h.agentDir, f.rel)).sort());
    const now = hashTree(h.agentDir);
    expect(now.has(FILES[1]!.rel)).toBe(false);
    expect(now.has(FILES[2]!.rel)).toBe(false);
    expect(now.get(FILES[4]!.rel)).toBe(full.get(FILES[4]!.rel));
    expectNoLeftovers(h);
  });
});

describe('sparse restore', () => {
  it('a restored sparse file keeps its holes (and its bytes)', async () => {
    const h = home('sparse');
    await restoreArchive(h.opts);
    const p = join(h.agentDir, FILES[4]!.rel);
    const st = statSync(p);
    expect(st.size).toBe(SPARSE_BYTES);
    // Two 4 KiB data blocks; fully allocated it would be 16 MiB.
    expect(st.blocks * 512).toBeLessThanOrEqual(256 * 1024);
    expect(hashTree(h.agentDir).get(FILES[4]!.rel)).toBe(full.get(FILES[4]!.rel));
  });
});

describe('through the engine (`cleanerx backups restore`, the next start)', () => {
  const pass = 'correct horse battery';
  async function catalogHome(name: string): Promise<{ t: TempEnv; id: string; engine: Engine }> {
    const t = makeTempEnv(`cleanerx-restore-engine-${name}-`);
    envs.push(t);
    const data = ownDirs(t.env).data;
    const { recipient } = await createIdentity(data, pass);
    const agentDir = t.env.PI_CODING_AGENT_DIR!;
    writeBase(agentDir);
    const src = join(t.root, 'source');
    writeBase(src);
    writePlanned(src);
    const id = randomUUID();
    mkdirSync(backupsDir(data), { recursive: true, mode: 0o700 });
    const files = await collectFiles(
      FILES.map((f) => join(src, f.rel)),
      [{ label: 'pi_home', dir: src }],
    );
    const { manifest, archiveBytes } = await writeArchive({
      archivePath: archivePathFor(data, id),
      recipient,
      agent: 'pi',
      operationId: 'op-e',
      id,
      itemCount: FILES.length,
      retentionDays: 30,
      files,
    });
    await addRecord(data, {
      id,
      createdAt: manifest.createdAt,
      expiresAt: manifest.expiresAt,
      archivePath: archivePathFor(data, id),
      archiveBytes,
      originalBytes: manifest.originalBytes,
      itemCount: FILES.length,
      operationId: 'op-e',
      agent: 'pi',
      verifiedAt: manifest.createdAt,
    });
    return { t, id, engine: new Engine(ADAPTERS, t.ctx, undefined, backupService(t.ctx.env)) };
  }
  const killEngineRestore = (t: TempEnv, id: string, point: string): void => {
    const r = spawnSync(process.execPath, [CHILD, JSON.stringify({ engine: { id, passphrase: pass } })], {
      cwd: REPO,
      env: { ...t.env, CLEANERX_CRASH_AT: point },
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(r.signal, r.stderr).toBe('SIGKILL');
  };
  const leftovers = (t: TempEnv): string[] => treeNames(t.root).filter((k) => /\.partial$|cleanerx-restore-|restore-[0-9a-f-]{36}/.test(k));

  it('killed after its third file, the next start (recovery list) finishes it; restoring again writes nothing', async () => {
    const { t, id, engine } = await catalogHome('start');
    killEngineRestore(t, id, 'restore:2:after');
    expect(existsSync(join(t.env.PI_CODING_AGENT_DIR!, FILES[3]!.rel))).toBe(false);
    await engine.recoveryList();
    expect(treeDiff(full, hashTree(t.env.PI_CODING_AGENT_DIR!))).toEqual([]);
    expect(leftovers(t)).toEqual([]);
    await expect(engine.backupRestore(id, pass)).rejects.toThrow(/Every destination already exists/);
    await engine.close();
  });

  it('killed before its fifth file, `backups restore` again finishes it and reports every file', async () => {
    const { t, id, engine } = await catalogHome('again');
    killEngineRestore(t, id, 'restore:4:before');
    expect((await engine.backupRestore(id, pass)).restored).toBe(FILES.length);
    expect(treeDiff(full, hashTree(t.env.PI_CODING_AGENT_DIR!))).toEqual([]);
    expect(leftovers(t)).toEqual([]);
    await engine.close();
  });
});

describe('staging on another filesystem (/dev/shm, or the disk when the temp homes are on it): a sparse copy under the partial name the journal announces', () => {
  const shm: string[] = [];
  afterAll(() => shm.forEach((d) => rmSync(d, { recursive: true, force: true })));
  function crossHome(name: string): Home {
    const h = home(name);
    const d = mkdtempSync(join(otherFilesystem(work), 'cleanerx-restore-'));
    shm.push(d);
    h.opts.stagingParent = join(d, 'restore-staging');
    return h;
  }

  it('the control: staging and home really are on different filesystems', () => {
    expect(statSync(otherFilesystem(work)).dev).not.toBe(statSync(work).dev);
  });

  it('restores byte for byte, holes kept, no partial left', async () => {
    const h = crossHome('cross');
    await restoreArchive(h.opts);
    expect(treeDiff(full, hashTree(h.agentDir))).toEqual([]);
    // The copy (not a link of the staged inode) is dated too.
    expect(mtimesUs(h.agentDir)).toEqual(mtimesUs(join(work, 'source-agent')));
    expect(statSync(join(h.agentDir, FILES[4]!.rel)).blocks * 512).toBeLessThanOrEqual(256 * 1024);
    expectNoLeftovers(h);
  });

  it('killed with a copied partial beside its destination: the next start removes it and finishes', async () => {
    const h = crossHome('cross-copied');
    killedAt(h, 'restore:1:copied');
    expect(strays(h.agentDir)).toHaveLength(1); // the one announced partial, beside s2.bin
    expect((await settle(h)).map((x) => x.outcome)).toEqual(['completed']);
    expect(treeDiff(full, hashTree(h.agentDir))).toEqual([]);
    expect(mtimesUs(h.agentDir)).toEqual(mtimesUs(join(work, 'source-agent')));
    expectNoLeftovers(h);
  });

  it('killed after its third file and rolled back: the copies go (their content is the manifest’s), the rest stays', async () => {
    const h = crossHome('cross-rollback');
    killedAt(h, 'restore:2:after');
    expect((await settle(h, 'rollback')).map((x) => x.outcome)).toEqual(['rolledBack']);
    expect(treeDiff(base, hashTree(h.agentDir))).toEqual([]);
    expectNoLeftovers(h);
  });
});
