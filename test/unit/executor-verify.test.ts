// The executor's verify step (executor-verify.ts): the rescan is the only
// proof. An item it still lists fails the run in one sentence, the journal
// failed, with the count that did go; an archive plan needs each session in
// the wanted state; all gone → verified, then complete, with the residue.

import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { remainingItems, remainingMessage, verifyStep } from '../../src/engine/cleanup/executor-verify.js';
import { journalPath } from '../../src/engine/cleanup/journal.js';
import { buildPlan } from '../../src/engine/cleanup/planner.js';
import { executorDeps, openStepRun, sessionRecord, snapshotOf } from '../helpers/executor-harness.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
let home: string;
let state: string;
let files: string[];
beforeEach(() => {
  t = makeTempEnv('cleanerx-exec-verify-');
  home = join(t.root, 'agent');
  state = join(t.root, 'state');
  mkdirSync(join(home, 'sessions'), { recursive: true });
  mkdirSync(state, { recursive: true });
  files = ['a', 'b', 'c'].map((n) => {
    const p = join(home, 'sessions', `${n}.jsonl`);
    writeFileSync(p, n);
    return p;
  });
});
afterEach(() => t.cleanup());

function setup() {
  const snap = snapshotOf(
    home,
    ['a', 'b', 'c'].map((n, i) => sessionRecord(n, [files[i]!])),
  );
  const deps = executorDeps(t, { home, stateDir: state, snap });
  const plan = buildPlan(snap, ['session:a', 'session:b', 'session:c'], { readOnly: false, routeAvailable: true });
  return { snap, deps, plan };
}
const journalOf = (id: string) => JSON.parse(readFileSync(journalPath(state, id), 'utf8'));

describe('what the rescan still shows', () => {
  it('remainingItems: deletes by presence, archives by state', () => {
    const { snap, plan } = setup();
    expect(remainingItems(plan, snap, null).map((i) => i.id)).toEqual(['session:a', 'session:b', 'session:c']);
    const none = snapshotOf(home, []);
    expect(remainingItems(plan, none, null)).toEqual([]);
    // Archiving: a session not listed, or listed as current, is not archived.
    const archived = snapshotOf(home, [sessionRecord('a', [files[0]!], { state: 'archived' }), sessionRecord('b', [files[1]!])]);
    expect(remainingItems(plan, archived, 'archived').map((i) => i.id)).toEqual(['session:b', 'session:c']);
  });

  it('remainingMessage: the first label and how many more', () => {
    const { plan } = setup();
    expect(remainingMessage(plan, plan.items.slice(0, 1), null)).toBe('OpenCode still lists Title a; no private database repair was attempted.');
    expect(remainingMessage(plan, plan.items, null)).toBe('OpenCode still lists Title a and 2 more; no private database repair was attempted.');
    expect(remainingMessage({ ...plan, action: 'archive' }, plan.items.slice(1), 'archived')).toBe(
      'OpenCode does not list Title b and 1 more as archived after the archive.',
    );
  });
});

describe('verifyStep', () => {
  it('an item still listed: failed in one sentence, the journal failed, the count that went', async () => {
    const { deps, plan } = setup();
    const { run, parents } = await openStepRun(deps, plan);
    parents.close();
    rmSync(files[0]!);
    rmSync(files[1]!);
    const r = await verifyStep(run, 3, 30, undefined);
    expect(r).toMatchObject({
      status: 'failed',
      message: 'OpenCode still lists Title c; no private database repair was attempted.',
      removedItems: 2,
      removedBytes: 30,
    });
    expect(journalOf(run.j.operationId)).toMatchObject({ status: 'failed', message: r.message });
  });

  it('all gone: verified then complete, the residue of each item, progress done', async () => {
    const { deps, plan } = setup();
    const { run, parents, events } = await openStepRun(deps, plan);
    parents.close();
    for (const f of files) rmSync(f);
    const r = await verifyStep(run, 3, 30, 'bk-1');
    expect(r).toMatchObject({ status: 'complete', removedItems: 3, removedBytes: 30, backupId: 'bk-1' });
    expect(r.residue?.map((x) => x.id)).toEqual(['session:a', 'session:b', 'session:c']);
    expect(journalOf(run.j.operationId).status).toBe('complete');
    expect(events.map((e) => e.phase)).toEqual(['verifying', 'done']);
  });
});
