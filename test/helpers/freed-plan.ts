// A cleanup plan of whole items and a completed result, for the measured-freed-bytes tests.
import type { CleanupPlan, ExecuteResult, PlanItem } from '../../src/engine/core/model.js';

export const item = (id: string, paths: string[], bytes: number): PlanItem => ({
  id,
  label: id,
  category: 'cache',
  bytes,
  paths,
  recoverable: false,
  depth: 0,
});
export const plan = (items: PlanItem[]): CleanupPlan => ({
  id: 'p',
  snapshotId: 's',
  agent: 'pi',
  createdAt: '',
  selectedItemIds: items.map((i) => i.id),
  expandedSessionIds: [],
  items,
  operations: [],
  estimatedBytes: items.reduce((s, i) => s + i.bytes, 0),
  estimatedBackupBytes: 0,
  backupEligible: false,
  irreversible: true,
  routeNotes: [],
  blockers: [],
});
export const done: ExecuteResult = { operationId: 'o', status: 'complete', message: '', removedItems: 1, removedBytes: 0 };
