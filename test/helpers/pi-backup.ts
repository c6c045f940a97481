// One pi session backed up the way the executor's backup step does it (a
// planned journal, takeBackup with its reopen-and-verify, the catalog), for
// tests of what a restore gives back.

import { randomUUID } from 'node:crypto';
import { archivePathFor } from '../../src/backup/catalog.js';
import { takeBackup } from '../../src/backup/take.js';
import { type Journal, JournalStore } from '../../src/engine/cleanup/journal.js';
import type { CleanupPlan } from '../../src/engine/core/model.js';
import { ownDirs } from '../../src/engine/host/own-dirs.js';

export interface PiBackup {
  /** The session folder or file the plan names. */
  path: string;
  /** The pi home, backed up as the root `pi_home`. */
  root: string;
  env: NodeJS.ProcessEnv;
  key: { identity: string; recipient: string };
}

/** A pi journal that asks for a backup of `plan`, in the state takeBackup expects first. */
export function backupJournal(plan: CleanupPlan, snapshotId: string, now: string): Journal {
  return {
    formatVersion: 2,
    operationId: randomUUID(),
    agent: 'pi',
    snapshotId,
    createdAt: now,
    updatedAt: now,
    createBackup: true,
    plan,
    itemCategories: {},
    status: 'planned',
    backupStatus: 'none',
    mutations: [],
  } as unknown as Journal;
}

export async function backUpPiSession(o: PiBackup): Promise<{ taken: Awaited<ReturnType<typeof takeBackup>>; archive: string }> {
  const dataDir = ownDirs(o.env).data;
  const store = new JournalStore(ownDirs(o.env).state);
  const now = new Date().toISOString();
  const plan = {
    id: 'plan-1',
    snapshotId: 'snap',
    agent: 'pi',
    createdAt: now,
    selectedItemIds: ['session:a'],
    expandedSessionIds: [],
    items: [{ id: 'session:a', label: 'a', category: 'sessions', bytes: 1, paths: [o.path], recoverable: true, depth: 0 }],
    operations: [],
    estimatedBytes: 1,
    estimatedBackupBytes: 1,
    backupEligible: true,
    irreversible: false,
    routeNotes: [],
    blockers: [],
  } as unknown as CleanupPlan;
  const journal = backupJournal(plan, 'snap', now);
  await store.create(journal);
  const taken = await takeBackup({
    plan,
    journal,
    store,
    dataDir,
    key: o.key,
    roots: [{ label: 'pi_home', dir: o.root }],
    retentionDays: 1,
    progress: () => undefined,
  });
  return { taken, archive: archivePathFor(dataDir, taken.id) };
}
