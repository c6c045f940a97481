// A minimal pi journal of `mutations` pending removals and an empty plan: what
// the journal store's tests write, mark and read back.

import type { Journal } from '../../src/engine/cleanup/journal.js';
import type { CleanupPlan } from '../../src/engine/core/model.js';

export const JOURNAL_ID = '6f1f3a52-0c1e-4b7a-9a53-1d1c2a0b9e11';

export function minimalJournal(o: { id?: string; mutations?: number; at?: string } = {}): Journal {
  const at = o.at ?? new Date().toISOString();
  const plan = {
    id: 'p',
    snapshotId: 's',
    agent: 'pi',
    createdAt: at,
    selectedItemIds: [],
    expandedSessionIds: [],
    items: [],
    operations: [],
    estimatedBytes: 0,
    estimatedBackupBytes: 0,
    backupEligible: false,
    irreversible: true,
    routeNotes: [],
    blockers: [],
  } as CleanupPlan;
  return {
    formatVersion: 2,
    operationId: o.id ?? JOURNAL_ID,
    agent: 'pi',
    snapshotId: 's',
    createdAt: at,
    updatedAt: at,
    createBackup: false,
    plan,
    itemCategories: {},
    status: 'planned',
    backupStatus: 'notRequested',
    mutations: Array.from({ length: o.mutations ?? 3 }, (_, index) => ({ index, kind: 'remove', itemIds: [], sessionIds: [], status: 'pending' as const })),
  };
}
