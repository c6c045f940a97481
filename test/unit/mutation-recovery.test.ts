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
import { acquireAgentLock, liveLockHolder, lockPath } from '../../src/engine/cleanup/agent-lock.js';
import { agentKinds } from '../../src/engine/core/agents.js';
import { atCrashPoints } from '../../src/engine/core/faults.js';
import { buildPlan } from '../../src/engine/cleanup/planner.js';
import { journalDir, JournalStore, type Journal, type MutationStatus } from '../../src/engine/cleanup/journal.js';
import { listRecovery, recoveryAction, type RecoveryDeps } from '../../src/engine/cleanup/recovery.js';
import type { Inventory, Item, SessionRecord } from '../../src/engine/core/model.js';
import { Snapshot } from '../../src/engine/inventory/snapshot.js';
import { executorHome, sessionRecord } from '../helpers/executor-harness.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
let home: string;
let state: string;
beforeEach(() => {
  ({ t, home, state } = executorHome('cleanerx-recovery-cases-', false));
});
afterEach(() => {
  atCrashPoints(null);
  t.cleanup();
});

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
    writeFileSync(join(journalDir(state), 'op.jsonl-broken.json'), '{not json');
    const m = await interrupted({ mutation: 'pending' });
    const ops = await listRecovery(m.deps);
    expect(ops).toHaveLength(3);
    expect(ops.filter((o) => o.unknown).map((o) => o.operationId)).toEqual(['op-broken', 'op.jsonl-broken']);
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

/** Changes the journal as it is on disk (what recovery reads), e.g. to record identities or a second mutation. */
function rewrite(m: Made, change: (j: Journal) => void): void {
  const path = join(journalDir(state), `${m.j.operationId}.json`);
  const j = JSON.parse(readFileSync(path, 'utf8')) as Journal;
  change(j);
  writeFileSync(path, JSON.stringify(j));
}
const preOf = (rel: string) => {
  const st = lstatSync(join(home, rel));
  // No revision: the entry's identity is what these cases are about.
  return { path: join(home, rel), dev: st.dev, ino: st.ino, size: st.size } as { path: string; dev: number; ino: number; size: number; revision: string };
};

describe('the verdicts, edge by edge', () => {
  it('a planned path that cannot be looked at: not provable, not closable, saying why', async () => {
    const m = await interrupted({ mutation: 'applied' });
    const long = join(home, 'n'.repeat(300), 'a.jsonl');
    rewrite(m, (j) => {
      (j.plan.items[0]!.paths as string[])[0] = long;
    });
    const op = await only(m.deps);
    expect([op.observed, op.canClose, op.canAccept, op.items]).toEqual(['Not provable', false, false, []]);
    expect(op.reason).toMatch(/^A planned path cannot be looked at: .*ENAMETOOLONG/);
  });

  it('one journal rescans its agent once, however many journals it has', async () => {
    const a = await interrupted({ remove: ['sessions/a.jsonl'] });
    const b = await interrupted({ remove: ['sessions/a.jsonl'] });
    let scans = 0;
    const rescan = a.deps.rescan;
    const deps: RecoveryDeps = {
      ...a.deps,
      rescan: (agent) => {
        scans++;
        return rescan(agent);
      },
      boundBackup: async () => null,
    };
    expect((await listRecovery(deps)).map((o) => o.operationId).sort()).toEqual([a.j.operationId, b.j.operationId].sort());
    expect(scans).toBe(1);
  });

  it('a removal started by one mutation of two is started: all gone is All applied', async () => {
    const m = await interrupted({ remove: ['sessions/a.jsonl', 'sessions/b.jsonl', 'sessions/b'] });
    rewrite(m, (j) => {
      j.mutations = [
        { ...j.mutations[0]!, status: 'applied' },
        { ...j.mutations[0]!, index: 1, status: 'pending' },
      ];
    });
    const op = await only(m.deps);
    expect([op.observed, op.recorded]).toEqual(['All applied', '1 of 2 mutations recorded as applied']);
  });

  it('one path replaced: named without "and more"; an item with one path replaced and one not is never restored over', async () => {
    const m = await interrupted({ remove: ['sessions/a.jsonl'], backup: 'bk-1' });
    rewrite(m, (j) => {
      j.mutations[0]!.pre = [preOf('sessions/b.jsonl'), preOf('sessions/b')];
    });
    renameSync(join(home, 'sessions/b.jsonl'), join(home, 'sessions/b.jsonl.old'));
    writeFileSync(join(home, 'sessions/b.jsonl'), 'other');
    const op = await only(m.deps);
    expect(op.reason).toBe(
      `1 planned item gone, 0 present, 1 partly removed of 2. ${join(home, 'sessions/b.jsonl')} is no longer the entry the cleanup saw (replaced, or a link on the way to it): inspect it; it is never restored over.`,
    );
    expect(op.items[1]!.paths.map((p) => p.state)).toEqual(['replaced', 'intact']);
    expect(op.canRestore).toBe(false);
  });

  it('some items gone and the others present, none partly: the counts and nothing more', async () => {
    const m = await interrupted({ remove: ['sessions/a.jsonl'] });
    expect((await only(m.deps)).reason).toBe('1 planned item gone, 1 present, 0 partly removed of 2.');
  });
});

describe('the actions, edge by edge', () => {
  it('restore: what comes back is checked by presence, not by the identities captured before the run', async () => {
    const m = await interrupted({ backup: 'bk-7', restores: ['sessions/a.jsonl', 'sessions/b.jsonl'] });
    rewrite(m, (j) => {
      j.mutations[0]!.pre = [preOf('sessions/a.jsonl'), preOf('sessions/b.jsonl'), preOf('sessions/b')];
    });
    // Moved aside, not removed: what the restore writes cannot reuse the old inodes.
    renameSync(join(home, 'sessions/a.jsonl'), join(t.root, 'a.aside'));
    renameSync(join(home, 'sessions/b.jsonl'), join(t.root, 'b.aside'));
    const points: string[] = [];
    atCrashPoints((p) => points.push(p));
    await recoveryAction(m.deps, m.j.operationId, 'restore');
    expect(m.restored[0]!.pass).toBe('');
    expect(m.journal().status).toBe('recovered');
    expect(points).toContain('journal:recovered');
  });

  it('restore that brings back none of an item: every one of its paths counted missing', async () => {
    const m = await interrupted({ remove: ['sessions/b.jsonl', 'sessions/b'], backup: 'bk-7', restores: [] });
    await expect(recoveryAction(m.deps, m.j.operationId, 'restore', 'pw')).rejects.toThrow(
      'The restore finished but Title b is not entirely back (2 of 2 paths missing, or not listed by the rescan).',
    );
  });

  it('accept and close pass their own crash points', async () => {
    const points: string[] = [];
    atCrashPoints((p) => points.push(p));
    const a = await interrupted({ remove: ['sessions/a.jsonl', 'sessions/b.jsonl', 'sessions/b'], mutation: 'applied' });
    await recoveryAction(a.deps, a.j.operationId, 'accept');
    expect(points.slice(-1)).toEqual(['journal:accepted']);
    const c = await interrupted({ remove: ['sessions/a.jsonl'] });
    await recoveryAction(c.deps, c.j.operationId, 'close');
    expect(points.slice(-1)).toEqual(['journal:closed']);
  });
});

describe('interrupted compactions', () => {
  const compactions = (): string => {
    const dir = join(state, 'compactions');
    mkdirSync(dir, { recursive: true });
    return dir;
  };
  const entry = (id: string, step: string, db: string) =>
    JSON.stringify({ formatVersion: 1, kind: 'compact', operationId: id, dbPath: db, siblingPath: `${db}.sibling`, createdAt: 'x', updatedAt: 'x', step });
  const blocked = (path: string, reason: string) => ({
    operationId: path
      .split('/')
      .pop()!
      .replace(/\.json$/, ''),
    agent: null,
    path,
    status: 'compaction',
    recorded: 'A database compaction was interrupted.',
    observed: 'Not provable',
    reason,
    canAccept: false,
    canRestore: false,
    restoreWhyNot: 'A compaction keeps no backup: the original database or its verified copy is the only complete one.',
    canClose: false,
    unknown: false,
    items: [],
  });
  const depsFor = async (): Promise<RecoveryDeps> => (await interrupted({ noFiles: true, steps: 1 })).deps;
  const allLocksFree = (): void => {
    for (const a of agentKinds()) acquireAgentLock(state, a).release();
  };

  it('settled under every agent lock: an unreadable journal and a lost database stay listed; one rolled back and one finished are not', async () => {
    const dir = compactions();
    writeFileSync(join(dir, 'cmp.jsonish.json'), '{not json');
    writeFileSync(join(dir, 'lost.json'), entry('lost', 'copying', join(t.root, 'no-such.db')));
    const db = join(t.root, 'kept.db');
    writeFileSync(db, 'db');
    writeFileSync(join(dir, 'back.json'), entry('back', 'copying', db));
    writeFileSync(join(dir, 'done.json'), entry('done', 'complete', join(t.root, 'gone.db')));
    const deps = await depsFor();
    rmSync(journalDir(state), { recursive: true });
    const heldAtSettle: boolean[] = [];
    atCrashPoints((p) => {
      if (p.startsWith('compact:recovered:')) heldAtSettle.push(agentKinds().every((a) => liveLockHolder(state, a)?.pid === process.pid));
    });
    expect(await listRecovery(deps)).toEqual([
      blocked(join(dir, 'cmp.jsonish.json'), 'The compaction journal cannot be read as JSON.'),
      blocked(join(dir, 'lost.json'), `${join(t.root, 'no-such.db')} and its compacted copy are both missing: something else removed them.`),
    ]);
    expect(heldAtSettle).toEqual([true]);
    expect(JSON.parse(readFileSync(join(dir, 'back.json'), 'utf8')).step).toBe('rolledBack');
    allLocksFree();
  });

  it('only settled compactions: nothing listed, nothing locked', async () => {
    const dir = compactions();
    writeFileSync(join(dir, 'done.json'), entry('done', 'complete', join(t.root, 'gone.db')));
    const deps = await depsFor();
    rmSync(journalDir(state), { recursive: true });
    const lock = acquireAgentLock(state, 'opencode');
    try {
      expect(await listRecovery(deps)).toEqual([]);
    } finally {
      lock.release();
    }
  });

  it('while a cleanup holds its lock, every pending compaction waits, saying why; the other locks are given back', async () => {
    const dir = compactions();
    writeFileSync(join(dir, 'a.json'), entry('a', 'copying', join(t.root, 'a.db')));
    writeFileSync(join(dir, 'b.json'), '{');
    writeFileSync(join(dir, 'done.json'), entry('done', 'complete', join(t.root, 'gone.db')));
    const deps = await depsFor();
    rmSync(journalDir(state), { recursive: true });
    const lock = acquireAgentLock(state, 'opencode');
    let ops: Awaited<ReturnType<typeof listRecovery>>;
    try {
      ops = await listRecovery(deps);
    } finally {
      lock.release();
    }
    const why = new RegExp(
      `^A OpenCode cleanup is running now \\(pid ${process.pid}, started \\d{4}-.+\\); this compaction is looked at when it has finished\\.$`,
    );
    expect(ops.map((o) => o.path)).toEqual([join(dir, 'a.json'), join(dir, 'b.json')]);
    for (const o of ops) expect(o.reason).toMatch(why);
    expect(ops[0]).toEqual(blocked(join(dir, 'a.json'), ops[0]!.reason));
    allLocksFree();
  });

  it('a lock that cannot be taken: every pending compaction listed with the reason, the locks taken given back', async () => {
    const dir = compactions();
    writeFileSync(join(dir, 'a.json'), entry('a', 'copying', join(t.root, 'a.db')));
    const deps = await depsFor();
    rmSync(journalDir(state), { recursive: true });
    const last = agentKinds().at(-1)!;
    mkdirSync(lockPath(state, last), { recursive: true });
    const ops = await listRecovery(deps);
    expect(ops).toHaveLength(1);
    expect(ops[0]!.reason).toBe(
      `The compaction could not be recovered: The cleanup lock ${lockPath(state, last)} is not a regular file; remove it and try again.`,
    );
    rmSync(lockPath(state, last), { recursive: true });
    allLocksFree();
  });
});
