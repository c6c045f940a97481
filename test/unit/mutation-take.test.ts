// The backup phase's record of itself (#26 item 5: mutants of
// backup/take.ts): each journal transition in order with its state, the
// journal's end state, the catalog entry (what the review showed: recoverable
// items only, their bytes), and the progress lines. A real key, archive and
// catalog in a temp home; the plan names one recoverable pi session and one
// item that is not.

import { generateX25519Identity, identityToRecipient } from 'age-encryption';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { backupsDir, loadCatalog } from '../../src/backup/catalog.js';
import { takeBackup } from '../../src/backup/take.js';
import { JournalStore } from '../../src/engine/cleanup/journal.js';
import type { CleanupPlan } from '../../src/engine/core/model.js';
import { atCrashPoints } from '../../src/engine/core/faults.js';
import { ownDirs } from '../../src/engine/host/own-dirs.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { backupJournal } from '../helpers/pi-backup.js';

let t: TempEnv | undefined;
afterEach(() => {
  atCrashPoints(null);
  t?.cleanup();
});

it('journals every step in order, ends committed, and catalogs the recoverable items with their bytes', async () => {
  t = makeTempEnv('cleanerx-take-');
  const root = t.env.PI_CODING_AGENT_DIR!;
  const session = join(root, 'sessions', 'a');
  mkdirSync(session, { recursive: true });
  writeFileSync(join(session, 's.jsonl'), 'x'.repeat(100));
  writeFileSync(join(root, 'other.jsonl'), 'y');
  const identity = await generateX25519Identity();
  const now = new Date().toISOString();
  const items = [
    { id: 'session:a', label: 'a', category: 'sessions', bytes: 5, paths: [session], recoverable: true, depth: 0 },
    { id: 'cache:b', label: 'b', category: 'caches', bytes: 7, paths: [join(root, 'other.jsonl')], recoverable: false, depth: 0 },
  ];
  const plan = { id: 'p', snapshotId: 's', agent: 'pi', createdAt: now, items, operations: [], blockers: [] } as unknown as CleanupPlan;
  const journal = backupJournal(plan, 's', now);
  const store = new JournalStore(ownDirs(t.env).state);
  await store.create(journal);
  const steps: string[] = [];
  atCrashPoints((p) => {
    if (p.startsWith('backup:')) steps.push(`${p} ${journal.backupStatus}`);
  });
  const progress: string[] = [];
  const dataDir = ownDirs(t.env).data;
  const taken = await takeBackup({
    plan,
    journal,
    store,
    dataDir,
    key: { identity, recipient: await identityToRecipient(identity) },
    roots: [{ label: 'pi_home', dir: root }],
    retentionDays: 1,
    progress: (p) => progress.push(`${p.phase} ${p.current}${p.bytesTotal === undefined ? '' : ' bytes'}`),
  });
  expect(steps).toEqual([
    'backup:writing writing',
    'backup:archiveCommitted archiveCommitted',
    'backup:verifying verifying',
    'backup:verified verified',
    'backup:catalogWriting catalogWriting',
    'backup:committed committed',
  ]);
  expect([journal.status, journal.backupId, journal.backupCandidateId]).toEqual(['backupWritten', taken.id, taken.id]);
  const [record, ...more] = await loadCatalog(dataDir);
  expect(more).toEqual([]);
  expect(record).toMatchObject({
    id: taken.id,
    archivePath: join(backupsDir(dataDir), `${taken.id}.cxb`),
    itemCount: 1,
    onDiskBytes: 5,
    operationId: journal.operationId,
    agent: 'pi',
  });
  expect(progress).toContain('backup 1 files');
  expect(progress).toContain('backup writing the encrypted archive bytes');
  expect(progress).toContain('backup reopening and verifying the archive');
  expect(taken.warnings).toEqual([]);
});
