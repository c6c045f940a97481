// Recovery's verdicts, reasons and actions, case by case (#26 item 5: the
// mutants of engine/cleanup/recovery.ts). An interrupted cleanup is made
// by hand: sessions with files, a journal recording its mutations, some
// paths then removed, a rescan that lists what the case says. Each verdict
// comes with its own sentence; restore, accept and close refuse what they
// must and write the journal's end state with its message.

import { randomUUID } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireAgentLock } from '../../src/engine/cleanup/agent-lock.js';
import { buildPlan } from '../../src/engine/cleanup/planner.js';
import { journalDir, JournalStore, type Journal, type MutationStatus } from '../../src/engine/cleanup/journal.js';
import { listRecovery, recoveryAction, type RecoveryDeps } from '../../src/engine/cleanup/recovery.js';
import type { Inventory, Item, SessionRecord } from '../../src/engine/core/model.js';
import { Snapshot } from '../../src/engine/inventory/snapshot.js';
import { sessionRecord } from '../helpers/executor-harness.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
let home: string;
let state: string;
beforeEach(() => {
  t = makeTempEnv('cleanerx-recovery-cases-');
  home = join(t.root, 'agent');
  state = join(t.root, 'state');
  mkdirSync(join(home, 'sessions'), { recursive: true });
  mkdirSync(state, { recursive: true });
});
afterEach(() => t.cleanup());

function snap(sessions: SessionRecord[], items: Item[]): Snapshot {
  const inv: Inventory = { sessions, items, projects: [], warnings: [], writers: [] };
  const inst = {
    agent: 'opencode',
    displayName: 'OpenCode',
    memoryNotice: '',
    state: 'installed',
    home,
    homeSource: 'env',
    executable: null,
    version: '1',
    warnings: [],
  };
  return new Snapshot('opencode', inst as never, inv, Date.now(), 1);
}

interface Case {
  mutation?: MutationStatus;
  /** Paths (relative to the home) removed after the journal was written. */
  remove?: string[];
  /** Item ids the rescan lists (default: those with a path left, and the steps unless `stepsDone`). */
  listed?: string[];
  steps?: number;
  stepsDone?: boolean;
  backup?: string | null;
  createBackup?: boolean;
  backupCandidateId?: string;
  message?: string;
  rescanFails?: boolean;
  /** What the fake restore brings back (relative paths); default everything. */
  restores?: string[];
  noFiles?: boolean;
}

interface Made {
  deps: RecoveryDeps;
  j: Journal;
  restored: { id: string; pass: string; scope: { path: string; state: string }[] }[];
  discarded: string[];
  journal(): Journal;
}

/** Session a (a.jsonl), session b (b.jsonl and the folder b/), and `steps` items without paths (a compaction, a reset). */
async function interrupted(c: Case = {}): Promise<Made> {
  const file = (rel: string, body = 'x'): void => {
    mkdirSync(join(home, rel, '..'), { recursive: true });
    writeFileSync(join(home, rel), body);
  };
  const all = ['sessions/a.jsonl', 'sessions/b.jsonl', 'sessions/b/part.json'];
  if (!c.noFiles) for (const f of all) file(f);
  const records = c.noFiles
    ? []
    : [sessionRecord('a', [join(home, 'sessions/a.jsonl')]), sessionRecord('b', [join(home, 'sessions/b.jsonl'), join(home, 'sessions/b')])];
  const steps: Item[] = Array.from({ length: c.steps ?? 0 }, (_, i) => ({
    id: `item:step${i}`,
    category: 'log',
    label: `Step ${i}`,
    paths: [],
    bytes: 0,
    risk: 'safe',
    recoverable: false,
    selectable: true,
    metadata: {},
  }));
  const first = snap(records, steps);
  const plan = buildPlan(first, [...records.map((r) => r.itemId), ...steps.map((s) => s.id)], { readOnly: false, routeAvailable: true });
  const now = new Date().toISOString();
  const j: Journal = {
    formatVersion: 2,
    operationId: randomUUID(),
    agent: 'opencode',
    snapshotId: first.id,
    createdAt: now,
    updatedAt: now,
    createBackup: c.createBackup ?? c.backup !== undefined,
    plan,
    itemCategories: Object.fromEntries(plan.items.map((i) => [i.id, i.category])),
    status: 'deleting',
    backupStatus: 'notRequested',
    ...(c.backupCandidateId ? { backupCandidateId: c.backupCandidateId } : {}),
    ...(c.message ? { message: c.message } : {}),
    mutations: plan.operations.map((o) => ({ index: o.index, kind: o.kind, itemIds: o.itemIds, sessionIds: o.sessionIds, status: c.mutation ?? 'running' })),
  };
  await new JournalStore(state).create(j);
  for (const rel of c.remove ?? []) rmSync(join(home, rel), { recursive: true });
  const snaps = new Map<string, Snapshot>();
  const restored: Made['restored'] = [];
  const discarded: string[] = [];
  const deps: RecoveryDeps = {
    stateDir: state,
    rescan: async () => {
      if (c.rescanFails) throw new Error('the store is gone');
      const present = (r: SessionRecord): boolean => r.paths.some((p) => lstatSync(p, { throwIfNoEntry: false }));
      const listed = c.listed ?? [...records.filter(present).map((r) => r.itemId), ...(c.stepsDone ? [] : steps.map((s) => s.id))];
      const s = snap(
        records.filter((r) => listed.includes(r.itemId)),
        steps.filter((x) => listed.includes(x.id)),
      );
      snaps.set(s.id, s);
      return s.summary();
    },
    snapshot: (id) => snaps.get(id)!,
    boundBackup: async (op, agent) => {
      expect([op, agent]).toEqual([j.operationId, 'opencode']);
      return c.backup ?? null;
    },
    restore: async (id, pass, scope) => {
      restored.push({ id, pass, scope: scope.paths.map((p) => ({ path: p.path.slice(home.length + 1), state: p.state })) });
      for (const rel of c.restores ?? c.remove ?? []) if (!rel.endsWith('/')) file(rel);
    },
    discardCandidate: async (id) => {
      discarded.push(id);
    },
  };
  const journal = (): Journal => {
    const dir = journalDir(state);
    const all = readdirSync(dir)
      .filter((n) => n.endsWith('.json'))
      .map((n) => JSON.parse(readFileSync(join(dir, n), 'utf8')) as Journal);
    return all.find((x) => x.operationId === j.operationId)!;
  };
  return { deps, j, restored, discarded, journal };
}

const only = async (deps: RecoveryDeps) => {
  const ops = await listRecovery(deps);
  expect(ops).toHaveLength(1);
  return ops[0]!;
};

describe('the verdicts and their sentences', () => {
  it('partly applied: counts, the first partial item path by path, and what restore would do', async () => {
    const m = await interrupted({ remove: ['sessions/a.jsonl', 'sessions/b.jsonl'], backup: 'bk-1', message: 'killed' });
    const op = await only(m.deps);
    expect(op.observed).toBe('Partially applied');
    expect(op.reason).toBe('1 planned item gone, 0 present, 1 partly removed of 2. Title b: 1 of 2 paths gone or changed.');
    expect(op.recorded).toBe('0 of 1 mutations recorded as applied · killed');
    expect([op.canAccept, op.canClose, op.canRestore, op.unknown, op.status, op.agent]).toEqual([false, true, true, false, 'deleting', 'opencode']);
    expect(op.restoreWhyNot).toBe('Restore what is missing from the verified backup; what is still there is kept.');
    expect(op.operationId).toBe(m.j.operationId);
    expect(op.items.map((i) => [i.itemId, i.label, i.state, i.listed])).toEqual([
      ['session:a', 'Title a', 'gone', false],
      ['session:b', 'Title b', 'partial', true],
    ]);
  });

  it('two items partial: the plural, and the first one named', async () => {
    const m = await interrupted({ remove: ['sessions/b.jsonl'], listed: ['session:b'] });
    const op = await only(m.deps);
    expect(op.reason).toBe('0 planned items gone, 0 present, 2 partly removed of 2. Title a: 0 of 1 path gone or changed.');
  });

  it('all applied, with a backup: restore offered whole; accept completes the journal', async () => {
    const m = await interrupted({ remove: ['sessions/a.jsonl', 'sessions/b.jsonl', 'sessions/b'], backup: 'bk-1', mutation: 'applied' });
    const op = await only(m.deps);
    expect([op.observed, op.reason, op.canAccept, op.canRestore]).toEqual([
      'All applied',
      'No planned item is present any more: every path is gone.',
      true,
      true,
    ]);
    expect(op.restoreWhyNot).toBe('Restore the verified backup.');
    expect(op.recorded).toBe('1 of 1 mutations recorded as applied');
    await recoveryAction(m.deps, m.j.operationId, 'accept');
    expect(m.journal().status).toBe('complete');
    expect(m.journal().message).toBe('Accepted after recovery: the rescan shows every planned item gone.');
    expect(await listRecovery(m.deps)).toEqual([]);
    // A settled operation is left alone.
    await recoveryAction(m.deps, m.j.operationId, 'close');
    expect(m.journal().status).toBe('complete');
  });

  it('steps without files: said as completed, one, many, or beside removed paths', async () => {
    const one = await interrupted({ noFiles: true, steps: 1, stepsDone: true });
    expect((await only(one.deps)).reason).toBe('Step 0 completed: the rescan no longer lists it.');
    t.cleanup();
    t = makeTempEnv('cleanerx-recovery-cases-');
    home = join(t.root, 'agent');
    state = join(t.root, 'state');
    mkdirSync(state, { recursive: true });
    const two = await interrupted({ noFiles: true, steps: 2, stepsDone: true });
    expect((await only(two.deps)).reason).toBe('All 2 planned steps completed: the rescan lists none of them any more.');
  });

  it('a step beside removed paths', async () => {
    const m = await interrupted({ remove: ['sessions/a.jsonl', 'sessions/b.jsonl', 'sessions/b'], steps: 1, stepsDone: true });
    expect((await only(m.deps)).reason).toBe('No planned item is present any more: every path is gone, and the step without files completed.');
  });

  it('not applied: everything present and nothing recorded applied; restore has nothing to do', async () => {
    const m = await interrupted({ mutation: 'running', backup: 'bk-1' });
    const op = await only(m.deps);
    expect([op.observed, op.reason, op.canRestore, op.canClose]).toEqual([
      'Not applied',
      'Every planned item is still present, every path intact.',
      false,
      true,
    ]);
    expect(op.restoreWhyNot).toBe('Nothing planned is missing: there is nothing to restore.');
    await expect(recoveryAction(m.deps, m.j.operationId, 'restore', 'pw')).rejects.toThrow(
      'Cannot restore: Every planned item is still present, every path intact. Data that is still there is never overwritten.',
    );
    expect(m.restored).toEqual([]);
  });

  it('applied in the journal yet all present: not provable, with the count', async () => {
    const m = await interrupted({ mutation: 'applied' });
    const op = await only(m.deps);
    expect([op.observed, op.reason, op.canClose]).toEqual([
      'Not provable',
      'The journal records 1 mutation as applied, yet every planned item is still present.',
      true,
    ]);
  });

  it('changed though nothing started: not provable, counted', async () => {
    const m = await interrupted({ mutation: 'pending', remove: ['sessions/a.jsonl'] });
    const op = await only(m.deps);
    expect([op.observed, op.reason, op.canAccept]).toEqual([
      'Not provable',
      '1 planned item changed, yet the journal records no removal started; something else changed this data.',
      false,
    ]);
  });

  it('a failed rescan: not provable, nothing to close; close refuses saying why', async () => {
    const m = await interrupted({ rescanFails: true, backupCandidateId: 'cand-1' });
    const op = await only(m.deps);
    expect([op.observed, op.reason, op.canClose, op.canAccept, op.items]).toEqual(['Not provable', 'The rescan failed: the store is gone', false, false, []]);
    await expect(recoveryAction(m.deps, m.j.operationId, 'close')).rejects.toThrow('Cannot close safely: The rescan failed: the store is gone');
    expect(m.discarded).toEqual([]);
    expect(m.journal().status).toBe('deleting');
  });

  it('a path replaced by another entry: named, more counted, never restored over', async () => {
    const m = await interrupted({ remove: ['sessions/a.jsonl'], backup: 'bk-1' });
    // Identities as the executor captured them; then both of b's paths are swapped for other entries.
    const j = m.journal();
    const pre = (rel: string) => {
      const st = lstatSync(join(home, rel));
      return { path: join(home, rel), dev: st.dev, ino: st.ino, size: st.size, revision: 'r' };
    };
    j.mutations[0]!.pre = [pre('sessions/b.jsonl'), pre('sessions/b')];
    await new JournalStore(state).transition(j, () => undefined, 'test:pre');
    // Moved aside, not removed: the new entries cannot reuse the old inodes.
    renameSync(join(home, 'sessions/b'), join(home, 'sessions/b.old'));
    renameSync(join(home, 'sessions/b.jsonl'), join(home, 'sessions/b.jsonl.old'));
    symlinkSync('/etc', join(home, 'sessions/b'));
    writeFileSync(join(home, 'sessions/b.jsonl'), 'other');
    const op = await only(m.deps);
    expect(op.observed).toBe('Partially applied');
    expect(op.reason).toBe(
      `1 planned item gone, 0 present, 1 partly removed of 2. ${join(home, 'sessions/b.jsonl')} is no longer the entry the cleanup saw (replaced, or a link on the way to it), and 1 more: inspect it; it is never restored over.`,
    );
    expect(op.canRestore).toBe(false);
    expect(op.restoreWhyNot).toBe(
      'Conflicting data is never overwritten: restore needs each planned path either gone, intact, or partly removed by this cleanup.',
    );
    await expect(recoveryAction(m.deps, m.j.operationId, 'restore', 'pw')).rejects.toThrow(/^Cannot restore: 1 planned item gone/);
    rmSync(join(home, 'sessions/b'));
    symlinkSync(join(home, 'nowhere'), join(home, 'sessions/b'));
    const one = await only(m.deps);
    expect(one.reason).toContain(`${join(home, 'sessions/b.jsonl')} is no longer the entry the cleanup saw (replaced, or a link on the way to it), and 1 more`);
  });

  it('no backup bound, or none asked for: restore is not offered', async () => {
    const none = await interrupted({ remove: ['sessions/a.jsonl'], backup: null, createBackup: true });
    const op = await only(none.deps);
    expect([op.canRestore, op.restoreWhyNot]).toEqual([false, 'No verified backup is bound to this operation.']);
    await expect(recoveryAction(none.deps, none.j.operationId, 'restore', 'pw')).rejects.toThrow('No verified backup is bound to this operation.');
  });

  it('a journal whose cleanup holds the lock right now is running: not provable, not closable', async () => {
    const m = await interrupted({ remove: ['sessions/a.jsonl'] });
    const lock = acquireAgentLock(state, 'opencode');
    try {
      const op = await only(m.deps);
      expect(op.observed).toBe('Not provable');
      expect(op.reason).toMatch(
        new RegExp(`^A OpenCode cleanup is running now \\(pid ${process.pid}, started \\d{4}-.+\\); look again when it has finished\\.$`),
      );
      expect([op.canClose, op.items]).toEqual([false, []]);
    } finally {
      lock.release();
    }
  });

  it('an unreadable journal is listed as unknown and blocks; an unknown id is refused', async () => {
    mkdirSync(journalDir(state), { recursive: true });
    writeFileSync(join(journalDir(state), 'op-broken.json'), '{not json');
    const m = await interrupted({ mutation: 'pending' });
    const ops = await listRecovery(m.deps);
    expect(ops).toHaveLength(2);
    const bad = ops.find((o) => o.unknown)!;
    expect(bad).toMatchObject({
      operationId: 'op-broken',
      agent: null,
      status: 'unknown',
      recorded: '—',
      observed: 'Not provable',
      canAccept: false,
      canRestore: false,
      canClose: false,
      restoreWhyNot: 'No verified backup is bound to this journal.',
      items: [],
    });
    expect(bad.path).toBe(join(journalDir(state), 'op-broken.json'));
    expect(bad.reason).toMatch(
      new RegExp(`cleanerx cannot prove what it did, so all cleanup stays blocked; inspect the file and move it out of ${journalDir(state)} to unblock\\.$`),
    );
    await expect(recoveryAction(m.deps, 'no-such-op', 'close')).rejects.toThrow('No recoverable operation no-such-op.');
  });
});

describe('the actions', () => {
  it('restore: the backup, the passphrase and what each path is now; afterwards everything back and the journal recovered', async () => {
    const m = await interrupted({ remove: ['sessions/a.jsonl', 'sessions/b.jsonl'], backup: 'bk-7' });
    await recoveryAction(m.deps, m.j.operationId, 'restore', 'secret words');
    expect(m.restored).toEqual([
      {
        id: 'bk-7',
        pass: 'secret words',
        scope: [
          { path: 'sessions/a.jsonl', state: 'missing' },
          { path: 'sessions/b.jsonl', state: 'missing' },
          { path: 'sessions/b', state: 'intact' },
        ],
      },
    ]);
    expect(m.journal().status).toBe('recovered');
    expect(m.journal().message).toBe('Recovered from backup bk-7: every planned item is back.');
  });

  it('restore that leaves an item missing is reported, naming it, and the journal stays open', async () => {
    const m = await interrupted({ remove: ['sessions/a.jsonl', 'sessions/b.jsonl'], backup: 'bk-7', restores: ['sessions/a.jsonl'] });
    await expect(recoveryAction(m.deps, m.j.operationId, 'restore', 'pw')).rejects.toThrow(
      'The restore finished but Title b is not entirely back (1 of 2 paths missing, or not listed by the rescan).',
    );
    expect(m.journal().status).toBe('deleting');
  });

  it('restore refuses a journal that asked for no backup, whatever the catalog says', async () => {
    const m = await interrupted({ remove: ['sessions/a.jsonl'], backup: 'bk-7', createBackup: false });
    const op = await only(m.deps);
    expect(op.canRestore).toBe(false);
    await expect(recoveryAction(m.deps, m.j.operationId, 'restore', 'pw')).rejects.toThrow('No verified backup is bound to this operation.');
  });

  it('accept refuses anything but All applied, with the reason', async () => {
    const m = await interrupted({ remove: ['sessions/a.jsonl'] });
    await expect(recoveryAction(m.deps, m.j.operationId, 'accept')).rejects.toThrow('Cannot accept: 1 planned item gone, 1 present, 0 partly removed of 2.');
  });

  it('close: discards an unbound backup candidate, keeps a bound one, and says what was observed', async () => {
    const m = await interrupted({ remove: ['sessions/a.jsonl'], backupCandidateId: 'cand-1', createBackup: true, backup: null });
    await recoveryAction(m.deps, m.j.operationId, 'close');
    expect(m.discarded).toEqual(['cand-1']);
    expect(m.journal().status).toBe('terminated');
    expect(m.journal().message).toBe('Safely closed after recovery (partially applied); agent data changes that already happened were not undone.');
    const kept = await interrupted({ backupCandidateId: 'cand-2', createBackup: true, backup: 'cand-2' });
    await recoveryAction(kept.deps, kept.j.operationId, 'close');
    expect(kept.discarded).toEqual([]);
    const noCandidate = await interrupted({ createBackup: true, backup: null });
    await recoveryAction(noCandidate.deps, noCandidate.j.operationId, 'close');
    expect(noCandidate.discarded).toEqual([]);
  });
});
