// The executor's backup step (executor-backup.ts), with the take injected:
// no backup asked → nothing called; the take gets the run's plan, journal
// and store, and official exports only for official-delete roots; a take
// that fails ends the run with nothing removed and the journal terminated;
// its warnings stay with the run; back up only completes the journal with
// nothing removed, and refuses without a backup. Point by point (#26 item 5:
// the mutants of executor-backup.ts): only official deletes' roots are
// exported (an op of another kind adds none, even one that names roots), no
// export is offered when there are no roots, and back up only passes
// through `verified` on disk before `complete`, saying what it backed up.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { backupStep, exportRoots, finishBackupOnly } from '../../src/engine/cleanup/executor-backup.js';
import { isFailed, type BackupRequest } from '../../src/engine/cleanup/executor-run.js';
import type { TakeBackupOptions } from '../../src/engine/cleanup/backup-step.js';
import { journalPath } from '../../src/engine/cleanup/journal.js';
import { buildPlan } from '../../src/engine/cleanup/planner.js';
import { atCrashPoints } from '../../src/engine/core/faults.js';
import type { CleanupPlan } from '../../src/engine/core/model.js';
import { executorHome, executorDeps, openStepRun, sessionRecord, snapshotOf } from '../helpers/executor-harness.js';
import type { TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
let home: string;
let state: string;
let a: string;
beforeEach(() => {
  ({ t, home, state, a } = executorHome('cleanerx-exec-backup-'));
});
afterEach(() => {
  atCrashPoints(null);
  t.cleanup();
});

async function opened(mapPlan: (p: CleanupPlan) => CleanupPlan = (p) => p, ids = ['session:a']) {
  const snap = snapshotOf(home, [sessionRecord('a', [a]), sessionRecord('b', [])]);
  const deps = executorDeps(t, { home, stateDir: state, snap });
  const plan = mapPlan(buildPlan(snap, ids, { readOnly: false, routeAvailable: true }));
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
/** Sessions a and b planned (b has no path). */
const openedBoth = (mapPlan?: (p: CleanupPlan) => CleanupPlan) => opened(mapPlan, ['session:a', 'session:b']);
const journalOf = (id: string) => JSON.parse(readFileSync(journalPath(state, id), 'utf8'));

describe('backupStep', () => {
  it('no backup asked: nothing is taken and the step hands on nothing', async () => {
    const { run } = await opened();
    expect(await backupStep(run, undefined)).toEqual({});
  });

  it('the take gets the run’s plan, journal and store; its id, revision and warnings come back', async () => {
    const { run } = await opened();
    let seen: TakeBackupOptions | undefined;
    const r = await backupStep(
      run,
      request(async (o) => {
        seen = o;
        return { id: 'bk-1', revisionAfterExport: 'rev-2', warnings: ['a FIFO was left out'] };
      }),
    );
    expect(r).toEqual({ backupId: 'bk-1', revisionAfterExport: 'rev-2' });
    expect(seen?.plan).toBe(run.plan);
    expect(seen?.journal).toBe(run.j);
    expect(seen?.store).toBe(run.store);
    expect(seen?.progress).toBe(run.progress);
    // Only an official delete's roots are exported: this plan removes paths.
    expect(seen?.exportSessions).toBeUndefined();
    expect(run.warnings).toEqual(['a FIFO was left out']);
  });

  it('official-delete roots are exported through the request, in plan order', async () => {
    const { run } = await opened((p) => ({
      ...p,
      operations: [
        { ...p.operations[0]!, kind: 'officialDelete', rootSessionIds: ['a'] },
        { ...p.operations[0]!, index: 1, kind: 'officialDelete', rootSessionIds: ['b'] },
      ],
    }));
    expect(exportRoots(run)).toEqual(['a', 'b']);
    const asked: string[][] = [];
    await backupStep(
      run,
      request(
        async (o) => {
          await o.exportSessions?.(join(t.root, 'stage'));
          return { id: 'bk', warnings: [] };
        },
        async (roots) => {
          asked.push([...roots]);
          return { exports: [], revision: 'r' };
        },
      ),
    );
    expect(asked).toEqual([['a', 'b']]);
  });

  it('a failed take ends the run: "Nothing was removed.", journal terminated, the file kept', async () => {
    const { run } = await opened();
    const r = await backupStep(
      run,
      request(async () => {
        throw new Error('The archive did not verify.');
      }),
    );
    expect(isFailed(r) && r.failed.message).toBe('The archive did not verify. Nothing was removed.');
    expect(journalOf(run.j.operationId).status).toBe('terminated');
    expect(existsSync(a)).toBe(true);
  });
});

describe('finishBackupOnly', () => {
  it('with the backup: the journal complete, nothing removed', async () => {
    const { run, events } = await opened();
    const r = await finishBackupOnly(run, 'bk-9');
    expect(r).toMatchObject({ status: 'complete', removedItems: 0, removedBytes: 0, backupId: 'bk-9' });
    expect(journalOf(run.j.operationId).status).toBe('complete');
    expect(events.at(-1)).toMatchObject({ phase: 'done', done: 1 });
    expect(existsSync(a)).toBe(true);
  });

  it('without a backup it refuses, journal terminated', async () => {
    const { run } = await opened();
    const r = await finishBackupOnly(run, undefined);
    expect(r).toMatchObject({ status: 'failed', message: 'Back up only needs the backup step; nothing was removed.' });
    expect(journalOf(run.j.operationId).status).toBe('terminated');
  });
});

describe('exportRoots', () => {
  it('only official deletes’ roots: a path removal naming roots adds none, an official delete without roots adds none', async () => {
    const { run } = await openedBoth((p) => ({
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

describe('backupStep, point by point', () => {
  it('no official-delete roots: the take is offered no export even when the request has one', async () => {
    const { run } = await openedBoth();
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

describe('finishBackupOnly, point by point', () => {
  it('the journal is on disk as verified at its crash point, then complete; the message counts the items and names the backup', async () => {
    const { run } = await openedBoth();
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
