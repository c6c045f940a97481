// The executor's backup step, point by point (#26 item 5: the mutants of
// engine/cleanup/executor-backup.ts): only official deletes' roots are
// exported (an op of another kind adds none, even one that names roots), no
// export is offered when there are no roots, and back up only passes
// through `verified` on disk before `complete`, saying what it backed up.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { backupStep, exportRoots, finishBackupOnly } from '../../src/engine/cleanup/executor-backup.js';
import type { BackupRequest } from '../../src/engine/cleanup/executor-run.js';
import type { TakeBackupOptions } from '../../src/engine/cleanup/backup-step.js';
import { journalPath } from '../../src/engine/cleanup/journal.js';
import { buildPlan } from '../../src/engine/cleanup/planner.js';
import { atCrashPoints } from '../../src/engine/core/faults.js';
import type { CleanupPlan } from '../../src/engine/core/model.js';
import { executorDeps, executorHome, openStepRun, sessionRecord, snapshotOf } from '../helpers/executor-harness.js';
import type { TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
let home: string;
let state: string;
let a: string;
beforeEach(() => {
  ({ t, home, state, a } = executorHome('cleanerx-mut-exec-backup-'));
});
afterEach(() => {
  atCrashPoints(null);
  t.cleanup();
});

async function opened(mapPlan: (p: CleanupPlan) => CleanupPlan = (p) => p) {
  const snap = snapshotOf(home, [sessionRecord('a', [a]), sessionRecord('b', [])]);
  const deps = executorDeps(t, { home, stateDir: state, snap });
  const plan = mapPlan(buildPlan(snap, ['session:a', 'session:b'], { readOnly: false, routeAvailable: true }));
  const o = await openStepRun(deps, plan, { createBackup: true });
  o.parents.close();
  return o;
}

function request(take: BackupRequest['take'], exportSessions?: BackupRequest['exportSessions']): BackupRequest {
  return {
    take,
    dataDir: join(t.root, 'data'),
    key: { identity: 'id', recipient: 'r' },
    roots: [{ label: 'home', dir: home }],
    retentionDays: 7,
    exportSessions,
  };
}
const journalOf = (id: string) => JSON.parse(readFileSync(journalPath(state, id), 'utf8'));

describe('exportRoots', () => {
  it('only official deletes’ roots: a path removal naming roots adds none, an official delete without roots adds none', async () => {
    const { run } = await opened((p) => ({
      ...p,
      operations: [
        { ...p.operations[0]!, kind: 'removePaths', rootSessionIds: ['x'] },
        { ...p.operations[0]!, index: 1, kind: 'officialDelete', rootSessionIds: undefined },
        { ...p.operations[0]!, index: 2, kind: 'officialDelete', rootSessionIds: ['b'] },
      ],
    }));
    expect(exportRoots(run)).toEqual(['b']);
  });
});

describe('backupStep', () => {
  it('no official-delete roots: the take is offered no export even when the request has one', async () => {
    const { run } = await opened();
    let seen: TakeBackupOptions | undefined;
    let exported = 0;
    await backupStep(
      run,
      request(
        async (o) => {
          seen = o;
          return { id: 'bk', warnings: [] };
        },
        async () => {
          exported++;
          return { exports: [], revision: 'r' };
        },
      ),
    );
    expect(seen).toBeDefined();
    expect(seen?.exportSessions).toBeUndefined();
    expect(exported).toBe(0);
  });
});

describe('finishBackupOnly', () => {
  it('the journal is on disk as verified at its crash point, then complete; the message counts the items and names the backup', async () => {
    const { run } = await opened();
    const seen: [string, string][] = [];
    atCrashPoints((p) => seen.push([p, journalOf(run.j.operationId).status]));
    const r = await finishBackupOnly(run, 'bk-9');
    expect(seen).toEqual([
      ['journal:verified', 'verified'],
      ['journal:complete', 'complete'],
    ]);
    expect(r.message).toBe('Backed up 2 items to bk-9; nothing was removed.');
  });
});
