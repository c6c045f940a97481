// The backup's reopen-and-verify gates every removal (#26): the archive is
// damaged on disk after it was written and before it is read back — a byte
// flipped, the file cut short, or another archive of the same key put in its
// place — and the cleanup must stop there: the damaged archive removed, no
// catalog entry, the journal closed, and every byte of the agent's home as it
// was. The damage is done by the journal store the executor hands the backup
// step, at its `backup:verifying` transition (the moment between the two).

import { copyFileSync, openSync, readdirSync, readSync, statSync, truncateSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS } from '../../src/adapters/registry.js';
import { backupService } from '../../src/backup/service.js';
import { archivePathFor, backupsDir } from '../../src/backup/catalog.js';
import type { TakeBackupOptions } from '../../src/engine/cleanup/backup-step.js';
import type { BackupService } from '../../src/engine/cleanup/backup-service.js';
import { listJournals } from '../../src/engine/cleanup/journal.js';
import { Engine } from '../../src/engine/api/engine.js';
import { buildPiFixture } from '../../src/adapters/pi/fixture.js';
import { ownDirs } from '../../src/engine/host/own-dirs.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

const PASS = 'correct horse battery';
beforeAll(() => {
  // The key store's cheaper scrypt is honoured only in test mode.
  process.env.CLEANERX_TEST_MODE = '1';
  process.env.CLEANERX_SCRYPT_LOG_N = '12';
});

const envs: TempEnv[] = [];
afterEach(() => {
  for (const t of envs.splice(0)) t.cleanup();
});

type Damage = (archive: string) => void;

/** A pi home with two root sessions nobody forked from; an engine whose backup step hands on a store that runs `damage` at `backup:verifying`. */
async function setUp(damage: Damage | null): Promise<{ t: TempEnv; engine: Engine; ids: string[]; planId: string; paths: string[] }> {
  const t = makeTempEnv('cleanerx-verify-gate-');
  envs.push(t);
  const m = buildPiFixture({
    agentDir: t.env.PI_CODING_AGENT_DIR!,
    projects: 2,
    sessionsPerProject: 2,
    forkRate: 0,
    config: true,
    bodyBytes: 4000,
    cwdRoot: join(t.env.HOME!, 'src'),
  });
  const roots = m.sessions.filter((s) => s.kind === 'root' && !m.sessions.some((x) => x.parentId === s.id));
  const ids = roots.slice(0, 2).map((s) => `session:${s.id}`);
  const real = backupService(t.ctx.env);
  const dataDir = ownDirs(t.env).data;
  const service: BackupService = {
    ...real,
    take: (o: TakeBackupOptions) => {
      const store = Object.create(o.store) as typeof o.store;
      store.transition = async (j, change, point) => {
        await o.store.transition(j, change, point);
        if (point === 'backup:verifying' && damage) damage(archivePathFor(dataDir, j.backupCandidateId!));
      };
      return real.take({ ...o, store });
    },
  };
  const engine = new Engine(ADAPTERS, t.ctx, undefined, service);
  const summary = await engine.scan('pi');
  const plan = await engine.plan(summary.snapshotId, ids);
  return { t, engine, ids, planId: plan.id, paths: plan.items.flatMap((i) => i.paths) };
}

const archives = (t: TempEnv): string[] => readdirSync(backupsDir(ownDirs(t.env).data)).filter((n) => n.endsWith('.cxb') || n.endsWith('.partial'));

function flipByte(at: (size: number) => number): Damage {
  return (p) => {
    const off = at(statSync(p).size);
    const fd = openSync(p, 'r+');
    try {
      const b = Buffer.alloc(1);
      readSync(fd, b, 0, 1, off);
      b[0] = b[0]! ^ 0x20;
      writeSync(fd, b, 0, 1, off);
    } finally {
      closeSync(fd);
    }
  };
}

async function runAndExpectRefused(damage: Damage, why: RegExp): Promise<void> {
  const { t, engine, planId, paths } = await setUp(damage);
  const agentDir = t.env.PI_CODING_AGENT_DIR!;
  const before = hashTree(agentDir);
  const r = await engine.execute(planId, { backup: true, passphrase: PASS });
  expect(r.status, r.message).toBe('failed');
  expect(r.message).toMatch(/The backup failed its verification and was removed/);
  expect(r.message).toMatch(why);
  expect(r.message).toMatch(/Nothing was removed\.$/);
  expect(r.removedItems).toBe(0);
  // Not one byte of the home changed; every planned path is still there.
  expect(paths.length).toBeGreaterThan(0);
  expect(treeDiff(before, hashTree(agentDir))).toEqual([]);
  // The damaged archive is gone and the catalog never heard of it.
  expect(archives(t)).toEqual([]);
  expect(await engine.backupsList()).toEqual([]);
  // The operation ended there: nothing for recovery to look at.
  const journals = await listJournals(t.env.CLEANERX_STATE_DIR!);
  expect(journals.map((e) => (e.kind === 'journal' ? [e.journal.status, e.journal.backupStatus] : e.kind))).toEqual([['terminated', 'verifying']]);
  expect(await engine.recoveryList()).toEqual([]);
}

describe('a backup damaged between its write and its verification', () => {
  it('undamaged, the same run backs up and removes the planned sessions (the harness itself lets a cleanup through)', async () => {
    const { t, engine, planId, paths } = await setUp(null);
    const r = await engine.execute(planId, { backup: true, passphrase: PASS });
    expect(r.status, r.message).toBe('complete');
    expect(r.backupId).toBeTruthy();
    expect(archives(t)).toEqual([`${r.backupId}.cxb`]);
    for (const p of paths) expect(() => statSync(p), p).toThrow(/ENOENT/);
  }, 60_000);

  it('a flipped byte in the encrypted payload: refused, the archive removed, nothing removed', async () => {
    await runAndExpectRefused(
      flipByte((size) => Math.floor(size / 2)),
      /damaged|cannot be decrypted|authenticat|does not match/i,
    );
  }, 60_000);

  it('a flipped byte in the last chunk: refused the same way', async () => {
    await runAndExpectRefused(
      flipByte((size) => size - 5),
      /damaged|cannot be decrypted|authenticat|does not match/i,
    );
  }, 60_000);

  it('the archive cut short: refused the same way', async () => {
    await runAndExpectRefused((p) => truncateSync(p, Math.floor(statSync(p).size * 0.6)), /damaged|truncated|ends|short|does not match/i);
  }, 60_000);

  it('another archive of the same key in its place (a whole, valid one): refused, as it is not the one written', async () => {
    // A first, undamaged cleanup leaves a verified archive of the same key; the second one's archive is replaced by it right before it is read back.
    let source: string | null = null;
    const { t, engine, ids } = await setUp((p) => source && copyFileSync(source, p));
    const s0 = await engine.scan('pi');
    const first = await engine.execute((await engine.plan(s0.snapshotId, [ids[0]!])).id, { backup: true, passphrase: PASS });
    expect(first.status, first.message).toBe('complete');
    source = archivePathFor(ownDirs(t.env).data, first.backupId!);
    const agentDir = t.env.PI_CODING_AGENT_DIR!;
    const before = hashTree(agentDir);
    const s1 = await engine.scan('pi');
    const r = await engine.execute((await engine.plan(s1.snapshotId, [ids[1]!])).id, { backup: true, passphrase: PASS });
    expect(r.status, r.message).toBe('failed');
    expect(r.message).toMatch(/The backup failed its verification and was removed: the archive does not match what was written.*Nothing was removed\.$/);
    expect(treeDiff(before, hashTree(agentDir))).toEqual([]);
    expect((await engine.backupsList()).map((b) => b.id)).toEqual([first.backupId]);
    expect(archives(t)).toEqual([`${first.backupId}.cxb`]);
  }, 90_000);
});
