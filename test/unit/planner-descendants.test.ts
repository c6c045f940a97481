// A root's plan carries its descendants' refusals (#26): the agent's own
// delete of a root also removes every descendant, so a descendant that is
// blocked (pinned, open elsewhere, not this user's) blocks the root's plan,
// and a descendant that may only go while the agent is stopped (busy) makes
// the root's operation wait for the agent to exit. Both are checked on the
// plan and through the executor, on real files: nothing is removed.

import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { executePlan, type ExecutorDeps } from '../../src/engine/cleanup/executor.js';
import { buildPlan, planBlockers } from '../../src/engine/cleanup/planner.js';
import type { SessionRecord, Writer } from '../../src/engine/core/model.js';
import type { Snapshot } from '../../src/engine/inventory/snapshot.js';
import { executorDeps, sessionRecord, snapshotOf } from '../helpers/executor-harness.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
let home: string;
let state: string;
beforeEach(() => {
  t = makeTempEnv('cleanerx-descendants-');
  home = join(t.root, 'agent');
  state = join(t.root, 'state');
  mkdirSync(join(home, 'sessions'), { recursive: true });
  mkdirSync(state, { recursive: true });
});
afterEach(() => t.cleanup());

function session(id: string, parentId: string | null, descendants: string[], o: Partial<SessionRecord> = {}): SessionRecord {
  const file = join(home, 'sessions', `${id}.jsonl`);
  writeFileSync(file, `{"id":"${id}"}\n`);
  return sessionRecord(id, [file], { parentId, deletionDescendantIds: descendants, ...o });
}

/** r → k → g (the route removes k and g with r), and a sibling root s with nothing below it. */
function tree(k: Partial<SessionRecord>, g: Partial<SessionRecord> = {}): Snapshot {
  return snapshotOf(home, [session('r', null, ['k', 'g']), session('k', 'r', ['g'], k), session('g', 'k', [], g), session('s', null, [])]);
}

const OPTS = { readOnly: false, routeAvailable: true };
const deps = (snap: Snapshot, writers: Writer[] = []): ExecutorDeps => executorDeps(t, { home, stateDir: state, snap, writers });

const BLOCKED = { selectable: false, blockedReason: 'Open in another OpenCode window.' };
const BUSY = { metadata: { requiresAgentExit: true } };
const RUNNING: Writer[] = [{ pid: 4242, name: 'opencode', command: 'opencode', evidence: 'holds opencode.db open' }];

describe('a blocked descendant blocks its root', () => {
  for (const [where, snap] of [
    ['the child', () => tree(BLOCKED)],
    ['the grandchild', () => tree({}, BLOCKED)],
  ] as const) {
    it(`${where} blocked: the root's plan names it, the executor refuses, nothing is removed`, async () => {
      const s = snap();
      for (const official of [false, true]) {
        const plan = buildPlan(s, ['session:r'], { ...OPTS, officialSessions: official });
        expect(plan.items.map((i) => i.id).sort()).toEqual(['session:g', 'session:k', 'session:r']);
        const blockers = planBlockers(plan);
        expect(blockers, `official ${official}`).toHaveLength(1);
        expect(blockers[0]).toMatch(/Open in another OpenCode window\./);
        expect(blockers[0]).toContain(where === 'the child' ? 'Title k' : 'Title g');
      }
      const before = hashTree(home);
      const plan = buildPlan(s, ['session:r'], OPTS);
      await expect(executePlan(plan, deps(s), () => undefined)).rejects.toThrow(/The plan has blockers: .*Open in another OpenCode window\./);
      expect(treeDiff(before, hashTree(home))).toEqual([]);
    });
  }

  it('marking the blocked descendant too changes nothing: still blocked', () => {
    const plan = buildPlan(tree(BLOCKED), ['session:k', 'session:r'], OPTS);
    expect(planBlockers(plan)).toHaveLength(1);
  });

  it('a sibling root with no blocked descendant is not blocked (the blocker belongs to its own root)', async () => {
    const s = tree(BLOCKED);
    const plan = buildPlan(s, ['session:s'], OPTS);
    expect(planBlockers(plan)).toEqual([]);
    const r = await executePlan(plan, deps(s), () => undefined);
    expect(r.status, r.message).toBe('complete');
    expect(existsSync(join(home, 'sessions', 's.jsonl'))).toBe(false);
    expect(existsSync(join(home, 'sessions', 'r.jsonl'))).toBe(true);
  });
});

describe('a busy descendant holds its root until the agent exits', () => {
  for (const [where, snap] of [
    ['the child', () => tree(BUSY)],
    ['the grandchild', () => tree({}, BUSY)],
  ] as const) {
    it(`${where} needs the agent stopped: the root's operation does too; with the agent running nothing is removed`, async () => {
      const s = snap();
      for (const official of [false, true]) {
        const plan = buildPlan(s, ['session:r'], { ...OPTS, officialSessions: official });
        expect(
          plan.operations.map((o) => o.requiresAgentExit),
          `official ${official}`,
        ).toEqual([true]);
      }
      const before = hashTree(home);
      const plan = buildPlan(s, ['session:r'], OPTS);
      const r = await executePlan(plan, deps(s, RUNNING), () => undefined);
      expect(r.status).toBe('failed');
      expect(r.message).toMatch(/^Quit OpenCode and retry this cleanup plan \(running: .*4242/);
      expect(treeDiff(before, hashTree(home))).toEqual([]);
    });
  }

  it('with the agent stopped the same plan runs and removes the root with its descendants', async () => {
    const s = tree(BUSY);
    const plan = buildPlan(s, ['session:r'], OPTS);
    const r = await executePlan(plan, deps(s), () => undefined);
    expect(r.status, r.message).toBe('complete');
    for (const id of ['r', 'k', 'g']) expect(existsSync(join(home, 'sessions', `${id}.jsonl`)), id).toBe(false);
    expect(existsSync(join(home, 'sessions', 's.jsonl'))).toBe(true);
  });

  it('a root whose descendants need nothing does not wait for the agent', () => {
    const plan = buildPlan(tree({}), ['session:r'], OPTS);
    expect(plan.operations.map((o) => o.requiresAgentExit)).toEqual([false]);
  });
});
