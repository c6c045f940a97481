// The executor's entry (#26 item 5: the mutants of engine/cleanup/executor.ts):
// what blocks a run before its journal (an unknown journal, an unfinished
// one of this agent, told apart from a cleanup that is running now), a plan
// of an older scan, the backup's warnings on the result, back up only ending
// after the backup, and the run's lock and parent handles released.

import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
// The agents' names come from the registry (the mutation run's vitest config has no setup file that loads it).
import '../../src/adapters/registry.js';
import { AgentLockError, lockPath } from '../../src/engine/cleanup/agent-lock.js';
import { assertNoPendingJournal, executePlan } from '../../src/engine/cleanup/executor.js';
import { newJournal, type BackupRequest } from '../../src/engine/cleanup/executor-run.js';
import { JournalStore, journalDir, journalPath } from '../../src/engine/cleanup/journal.js';
import { buildPlan } from '../../src/engine/cleanup/planner.js';
import type { CleanupPlan } from '../../src/engine/core/model.js';
import { RequestError } from '../../src/engine/core/validate.js';
import { executorDeps, executorHome, sessionRecord, snapshotOf } from '../helpers/executor-harness.js';
import type { TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
let home: string;
let state: string;
let a: string;
beforeEach(() => {
  ({ t, home, state, a } = executorHome('cleanerx-mut-executor-'));
});
afterEach(() => t.cleanup());

function setup() {
  const snap = snapshotOf(home, [sessionRecord('a', [a])]);
  const deps = executorDeps(t, { home, stateDir: state, snap });
  const plan = buildPlan(snap, ['session:a'], { readOnly: false, routeAvailable: true });
  return { snap, deps, plan };
}

/** An unfinished journal of `plan`'s run, for `agent`. */
async function unfinished(plan: CleanupPlan, agent = plan.agent, status: 'deleting' | 'complete' = 'deleting'): Promise<string> {
  const j = { ...newJournal(plan, false), agent, status };
  await new JournalStore(state).create(j);
  return j.operationId;
}

/** The agent's lock file as a process `pid` left it. */
function lockOf(pid: number): void {
  const p = lockPath(state, 'opencode');
  mkdirSync(join(state, 'locks'), { recursive: true });
  writeFileSync(p, JSON.stringify({ pid, procStart: null, startedAt: 'then', command: 'cleanerx clean' }));
}

const caught = async (p: Promise<unknown>): Promise<Error> =>
  p.then(
    () => new Error('resolved'),
    (e: Error) => e,
  );
const openFds = (): number => readdirSync('/proc/self/fd').length;

describe('assertNoPendingJournal', () => {
  it('no journal, a finished one, or another agent’s unfinished one: nothing blocks', async () => {
    const { plan } = setup();
    await expect(assertNoPendingJournal(state, 'opencode')).resolves.toBeUndefined();
    await unfinished(plan, 'opencode', 'complete');
    await unfinished(plan, 'claude');
    await expect(assertNoPendingJournal(state, 'opencode')).resolves.toBeUndefined();
  });

  it('an unknown journal blocks all cleanup, naming the file and why', async () => {
    mkdirSync(journalDir(state), { recursive: true });
    const bad = journalPath(state, 'bad');
    writeFileSync(bad, '{not json');
    const e = await caught(assertNoPendingJournal(state, 'claude'));
    expect(e).toBeInstanceOf(RequestError);
    expect(e.message).toBe(`An unrecognized cleanup journal blocks all cleanup: ${bad} (The journal cannot be read as JSON.)`);
  });

  it('this agent’s unfinished journal needs recovery first, also while our own process holds the lock', async () => {
    const { plan } = setup();
    const id = await unfinished(plan);
    const want = `An unfinished OpenCode cleanup needs recovery first (operation ${id}).`;
    let e = await caught(assertNoPendingJournal(state, 'opencode'));
    expect([e instanceof AgentLockError, e instanceof RequestError, e.message]).toEqual([false, true, want]);
    lockOf(process.pid);
    e = await caught(assertNoPendingJournal(state, 'opencode'));
    expect([e instanceof AgentLockError, e.message]).toEqual([false, want]);
  });

  it('…but while another live process holds the lock, that cleanup is running: says who', async () => {
    const { plan } = setup();
    await unfinished(plan);
    lockOf(process.ppid);
    const e = await caught(assertNoPendingJournal(state, 'opencode'));
    expect(e).toBeInstanceOf(AgentLockError);
    expect(e.message).toBe(
      `Another OpenCode cleanup is running (pid ${process.ppid}, started then, command: cleanerx clean); wait for it to finish and try again.`,
    );
    expect((e as AgentLockError).holder?.pid).toBe(process.ppid);
  });
});

describe('executePlan', () => {
  it('a plan of an older scan is refused before any journal', async () => {
    const { deps, plan } = setup();
    const e = await caught(executePlan(plan, { ...deps, latestSnapshotId: () => 'newer' }, () => undefined));
    expect([e instanceof RequestError, e.message]).toEqual([true, 'This plan belongs to an older scan; review it again.']);
    expect(existsSync(journalDir(state))).toBe(false);
    expect(existsSync(a)).toBe(true);
  });

  it('a clean run has no warnings; the lock and the parent handles are released', async () => {
    const { deps, plan } = setup();
    const before = openFds();
    const r = await executePlan(plan, deps, () => undefined);
    expect(r.status, r.message).toBe('complete');
    expect(r.warnings).toBeUndefined();
    expect(existsSync(lockPath(state, 'opencode'))).toBe(false);
    expect(openFds()).toBe(before);
  });

  it('the backup’s warnings are on the result', async () => {
    const { deps, plan } = setup();
    const backup: BackupRequest = {
      take: async () => ({ id: 'bk-1', warnings: ['a FIFO was left out'] }),
      dataDir: join(t.root, 'data'),
      key: { identity: 'i', recipient: 'r' },
      roots: [{ label: 'home', dir: home }],
      retentionDays: 7,
    };
    const r = await executePlan(plan, deps, () => undefined, backup);
    expect(r.status, r.message).toBe('complete');
    expect(r.warnings).toEqual(['a FIFO was left out']);
    expect(r.backupId).toBe('bk-1');
  });

  it('back up only ends after the backup: complete, nothing removed', async () => {
    const { deps, plan } = setup();
    const backup: BackupRequest = {
      take: async () => ({ id: 'bk-2', warnings: [] }),
      dataDir: join(t.root, 'data'),
      key: { identity: 'i', recipient: 'r' },
      roots: [{ label: 'home', dir: home }],
      retentionDays: 7,
    };
    const r = await executePlan({ ...plan, action: 'backupOnly' }, deps, () => undefined, backup);
    expect(r).toMatchObject({ status: 'complete', removedItems: 0, backupId: 'bk-2' });
    expect(existsSync(a)).toBe(true);
  });
});
