// Back up only as a plan (#26 item 5: the mutants of
// engine/cleanup/backup-only.ts): the delete plan turned into a backup, with
// nothing irreversible and nothing left uncovered; a plan no backup can take
// is blocked with the planner's reason, and an item cleanerx cannot restore
// is blocked by name. The blockers the plan already had stay first.

import { describe, expect, it } from 'vitest';
// The agents' names come from the registry (the mutation run's vitest config has no setup file that loads it).
import '../../src/adapters/registry.js';
import { asBackupOnly } from '../../src/engine/cleanup/backup-only.js';
import type { CleanupPlan, PlanItem } from '../../src/engine/core/model.js';

function planItem(id: string, bytes: number, recoverable: boolean): PlanItem {
  return { id, label: `label ${id}`, category: 'session', bytes, paths: [`/w/${id}`], recoverable, depth: 0 };
}

function deletePlan(o: Partial<CleanupPlan> = {}): CleanupPlan {
  return {
    id: 'plan-1',
    snapshotId: 'snap-1',
    agent: 'claude',
    createdAt: '2026-12-06T00:00:00.000Z',
    selectedItemIds: ['session:a', 'session:b'],
    expandedSessionIds: ['a', 'b'],
    items: [planItem('session:a', 100, true), planItem('session:b', 23, true)],
    operations: [],
    estimatedBytes: 123,
    estimatedBackupBytes: 7,
    backupEligible: true,
    backupNotCovered: 'the caches',
    backupUncoveredIds: ['item:c'],
    irreversible: true,
    routeNotes: ['a delete note'],
    blockers: ['an earlier blocker'],
    action: 'delete',
    ...o,
  };
}

describe('asBackupOnly', () => {
  it('the plan backs up every item, is reversible, covers everything and says so in its note', () => {
    const before = deletePlan();
    const p = asBackupOnly(before);
    expect(p).toEqual({
      ...before,
      action: 'backupOnly',
      irreversible: false,
      estimatedBackupBytes: 123,
      backupNotCovered: undefined,
      backupUncoveredIds: undefined,
      routeNotes: ['Back up only: the marked Claude Code items are written to a verified encrypted backup; nothing is removed.'],
      blockers: ['an earlier blocker'],
    });
    // The delete plan's own blockers list is not changed in place.
    expect(before.blockers).toEqual(['an earlier blocker']);
  });

  it('an item cleanerx cannot restore blocks the plan by name; a restorable one does not', () => {
    const p = asBackupOnly(deletePlan({ items: [planItem('session:a', 1, true), planItem('session:x', 2, false)], blockers: [] }));
    expect(p.blockers).toEqual([
      'label session:x cannot be restored by cleanerx (Claude Code has no import route for it), so it cannot be backed up only; unmark it.',
    ]);
  });

  it('a plan no backup can take is blocked with the reason, once, and its items are not listed one by one', () => {
    const items = [planItem('session:x', 2, false)];
    expect(asBackupOnly(deletePlan({ items, backupEligible: false, backupWhyNot: 'no key ring', blockers: [] })).blockers).toEqual([
      'Back up only is not offered for this plan: no key ring',
    ]);
    expect(asBackupOnly(deletePlan({ items, backupEligible: false, backupWhyNot: undefined, blockers: [] })).blockers).toEqual([
      'Back up only is not offered for this plan: ',
    ]);
  });

  it('in Chinese when asked', () => {
    const p = asBackupOnly(deletePlan({ items: [planItem('session:x', 2, false)], blockers: [] }), 'zh');
    expect(p.routeNotes).toEqual(['仅备份：标记的 Claude Code 条目写入经验证的加密备份；不删除任何内容。']);
    expect(p.blockers).toEqual(['cleanerx 无法恢复 label session:x（Claude Code 没有它的导入途径），因此不能仅备份；请取消标记。']);
  });
});
