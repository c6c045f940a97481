// Retention rules (engine/retention/rules.ts) on hand-made snapshots, where
// every rule's edge is exact, and on the project's fixture stores (pi,
// Claude Code, Codex) through the real adapters and Engine.retentionPlan.

import { appendFileSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildClaudeFixture } from '../../src/adapters/claude/fixture.js';
import { buildPiFixture } from '../../src/adapters/pi/fixture.js';
import { ADAPTERS } from '../../src/adapters/registry.js';
import { Engine } from '../../src/engine/api/engine.js';
import type { Installation, Inventory, SessionRecord } from '../../src/engine/core/model.js';
import { assertPlanUnchanged, planFileFrom, PlanRefusedError, selectedIds, validatePlanFile } from '../../src/engine/inventory/retention/plan-file.js';
import { buildPlan } from '../../src/engine/cleanup/planner.js';
import { evaluateRules, parseDuration, parseSize, validateRules, type RetentionRules } from '../../src/engine/inventory/retention/rules.js';
import { Snapshot } from '../../src/engine/inventory/snapshot.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 29, 12, 0, 0);

function rec(id: string, o: Partial<SessionRecord> & { ageDays?: number } = {}): SessionRecord {
  const { ageDays, ...rest } = o;
  return {
    id,
    itemId: `session:${id}`,
    title: `title ${id}`,
    named: false,
    cwd: '/w/a',
    projectId: 'pa',
    parentId: null,
    deletionDescendantIds: [],
    state: 'current',
    source: 'cli',
    createdAt: null,
    updatedAt: ageDays === undefined ? NOW - DAY : NOW - ageDays * DAY,
    bytes: 100,
    paths: [`/w/store/${id}.jsonl`],
    recoverable: true,
    selectable: true,
    metadata: {},
    ...rest,
  };
}

function snapshot(sessions: SessionRecord[], agent: Installation['agent'] = 'codex'): Snapshot {
  const inst: Installation = {
    agent,
    displayName: agent,
    memoryNotice: '',
    // The agent's own labels, as detection hands them on (Claude's says why --orphans matches nothing).
    labels: ADAPTERS.find((a) => a.kind === agent)?.labels,
    state: 'dataOnly',
    home: '/w/store',
    homeSource: 'env',
    executable: null,
    version: null,
    warnings: [],
  };
  const inv: Inventory = {
    sessions,
    items: [],
    projects: [
      { id: 'pa', label: 'a', roots: ['/w/a'] },
      { id: 'pb', label: 'b', roots: ['/w/b'] },
    ],
    warnings: [],
    writers: [],
  };
  return new Snapshot(agent, inst, inv, NOW, 1);
}

const ids = (s: Snapshot, r: RetentionRules): string[] =>
  evaluateRules(s, r)
    .matched.map((m) => m.id.slice(8))
    .sort();

describe('--older-than measures the whole tree', () => {
  it('a root (and any node) counts as old only when it and every descendant are', () => {
    // a(old) → b(new), a → c(old) → d(old); e(old) alone; f(old) → g(old, other project: a cross-project fork)
    const s = snapshot([
      rec('a', { ageDays: 90 }),
      rec('b', { ageDays: 2, parentId: 'a' }),
      rec('c', { ageDays: 80, parentId: 'a' }),
      rec('d', { ageDays: 70, parentId: 'c' }),
      rec('e', { ageDays: 40 }),
      rec('f', { ageDays: 60 }),
      rec('g', { ageDays: 10, parentId: 'f', projectId: 'pb', cwd: '/w/b' }),
    ]);
    expect(ids(s, { olderThanDays: 30 })).toEqual(['c', 'd', 'e']);
    expect(ids(s, { olderThanDays: 5 })).toEqual(['c', 'd', 'e', 'f', 'g']);
    const m = evaluateRules(s, { olderThanDays: 30 });
    expect(m.matched.find((x) => x.id === 'session:c')!.reason).toBe('tree last used 70 d ago');
  });

  it('a route descendant that is newer keeps its root, and a session without a time never matches', () => {
    const s = snapshot([rec('r', { ageDays: 100, deletionDescendantIds: ['k'] }), rec('k', { ageDays: 1, projectId: 'pb' }), rec('n', { updatedAt: null })]);
    expect(ids(s, { olderThanDays: 30 })).toEqual([]);
  });

  it('counts the boundary as not older', () => {
    const s = snapshot([rec('x', { ageDays: 30 }), rec('y', { updatedAt: NOW - 30 * DAY - 1 })]);
    expect(ids(s, { olderThanDays: 30 })).toEqual(['y']);
  });
});

describe('--larger-than, --keep-latest, --state, --source, --project', () => {
  it('--larger-than counts what the removal frees (the route descendants too)', () => {
    const s = snapshot([
      rec('a', { bytes: 600, deletionDescendantIds: ['b'] }),
      rec('b', { bytes: 500, parentId: 'a' }),
      rec('c', { bytes: 1000 }),
      rec('d', { bytes: 1001 }),
    ]);
    expect(ids(s, { largerThanBytes: 1000 })).toEqual(['a', 'd']);
  });

  it('--keep-latest N keeps each project\u2019s N most recently used trees whole', () => {
    const s = snapshot([
      rec('a1', { ageDays: 50 }),
      rec('a1c', { ageDays: 1, parentId: 'a1' }),
      rec('a2', { ageDays: 10 }),
      rec('a3', { ageDays: 20 }),
      rec('b1', { ageDays: 5, projectId: 'pb' }),
      rec('b2', { ageDays: 6, projectId: 'pb' }),
      rec('b3', { ageDays: 7, projectId: 'pb' }),
    ]);
    // Project a: a1's tree was used 1 d ago (its child), so a1 and a1c are the latest; then a2.
    expect(ids(s, { keepLatest: 1 })).toEqual(['a2', 'a3', 'b2', 'b3']);
    expect(ids(s, { keepLatest: 2 })).toEqual(['a3', 'b3']);
    expect(ids(s, { keepLatest: 0 })).toHaveLength(7);
    expect(ids(s, { keepLatest: 5 })).toEqual([]);
  });

  it('--state, --source and --project (by id or root path) narrow the match', () => {
    const s = snapshot([rec('a', { state: 'archived' }), rec('b', { source: 'vscode' }), rec('c', { projectId: 'pb' }), rec('d')]);
    expect(ids(s, { state: 'archived' })).toEqual(['a']);
    expect(ids(s, { state: 'current' })).toEqual(['b', 'c', 'd']);
    expect(ids(s, { source: 'vscode' })).toEqual(['b']);
    expect(ids(s, { project: 'pb' })).toEqual(['c']);
    expect(ids(s, { project: '/w/b/' })).toEqual(['c']);
    expect(() => evaluateRules(s, { project: '/nowhere' })).toThrow(/No project "\/nowhere"/);
  });
});

describe('--empty and --orphans', () => {
  it('--empty matches what the record says has no user message; an agent that cannot tell matches nothing and says so', () => {
    const s = snapshot([rec('a', { metadata: { hasUserMessage: false } }), rec('b', { metadata: { hasUserMessage: true } }), rec('c')]);
    expect(ids(s, { empty: true })).toEqual(['a']);
    const unknown = evaluateRules(snapshot([rec('x'), rec('y')], 'pi'), { empty: true });
    expect(unknown.matched).toEqual([]);
    expect(unknown.notes.join(' ')).toMatch(/pi's records .* do not tell whether a session has a user message/);
  });

  it('--orphans: children whose recorded parent is gone (missingParentId, or a parent id not in the scan)', () => {
    const s = snapshot([rec('a'), rec('b', { parentId: 'a' }), rec('c', { metadata: { missingParentId: 'gone-1' } }), rec('d', { parentId: 'gone-2' })]);
    const m = evaluateRules(s, { orphans: true });
    expect(m.matched.map((x) => x.id).sort()).toEqual(['session:c', 'session:d']);
    expect(m.matched.find((x) => x.id === 'session:c')!.reason).toBe('parent gone-1 is gone');
    expect(m.notes).toEqual([]);
    expect(evaluateRules(snapshot([rec('x')], 'claude'), { orphans: true }).notes.join(' ')).toMatch(
      /Claude Code keeps a session's subagents inside that session's own folder, so no session outlives its parent and --orphans matches nothing/,
    );
  });
});

describe('combinations and what never matches', () => {
  it('rules combine with AND', () => {
    const s = snapshot([
      rec('a', { ageDays: 90, bytes: 5000 }),
      rec('b', { ageDays: 90, bytes: 10 }),
      rec('c', { ageDays: 5, bytes: 5000 }),
      rec('d', { ageDays: 95, bytes: 5000, state: 'archived' }),
      rec('e', { ageDays: 1, bytes: 1 }),
    ]);
    expect(ids(s, { olderThanDays: 30, largerThanBytes: 1000 })).toEqual(['a', 'd']);
    expect(ids(s, { olderThanDays: 30, largerThanBytes: 1000, state: 'current' })).toEqual(['a']);
    // keep-latest 1 keeps e (the newest); then older-than and size still apply.
    expect(ids(s, { keepLatest: 1, largerThanBytes: 1000 })).toEqual(['a', 'c', 'd']);
    expect(evaluateRules(s, { olderThanDays: 30, largerThanBytes: 1000, state: 'current' }).matched[0]!.reason).toBe(
      'tree last used 90 d ago; 5.0 KB > 1.0 KB',
    );
  });

  it('blocked sessions never match: they are skipped with why, as is a root whose route would remove a blocked one', () => {
    const s = snapshot([
      rec('a', { ageDays: 90, selectable: false, blockedReason: 'Pinned in Codex.' }),
      rec('r', { ageDays: 90, deletionDescendantIds: ['k'] }),
      rec('k', { ageDays: 90, parentId: 'r', selectable: false, blockedReason: 'Open in another window.' }),
      rec('ok', { ageDays: 90 }),
    ]);
    const m = evaluateRules(s, { olderThanDays: 30 });
    expect(m.matched.map((x) => x.id)).toEqual(['session:ok']);
    expect(m.bytes).toBe(100);
    const why = Object.fromEntries(m.skipped.map((x) => [x.id, x.reason]));
    expect(why['session:a']).toBe('Pinned in Codex.');
    expect(why['session:k']).toBe('Open in another window.');
    expect(why['session:r']).toMatch(/Codex would also remove title k, which cannot be cleaned: Open in another window\./);
  });

  it('validates rules and parses durations and sizes', () => {
    expect(() => validateRules({ olderThan: 3 })).toThrow(/unknown rule "olderThan"/);
    expect(() => validateRules({ olderThanDays: -1 })).toThrow(/olderThanDays/);
    expect(() => validateRules({ state: 'gone' })).toThrow(/state/);
    expect(() => validateRules({ empty: 'yes' })).toThrow(/empty/);
    expect(parseDuration('30d')).toBe(30);
    expect(parseDuration('2w')).toBe(14);
    expect(parseDuration('36h')).toBe(2);
    expect(parseDuration('45')).toBe(45);
    expect(parseDuration('30x')).toBeNull();
    expect(parseDuration('-3d')).toBeNull();
    expect(parseSize('500M')).toBe(500e6);
    expect(parseSize('1.5GB')).toBe(1.5e9);
    expect(parseSize('10KiB')).toBe(10240);
    expect(parseSize('2048')).toBe(2048);
    expect(parseSize('big')).toBeNull();
  });
});

// ---- on the fixture stores, through the adapters --------------------------------

let t: TempEnv;
beforeEach(() => {
  t = makeTempEnv();
  t.ctx.now = () => NOW;
});
afterEach(() => t.cleanup());

describe('on the fixture stores', () => {
  it('pi: older-than 30 d plans exactly the sessions whose whole fork tree is older, each with its revision', async () => {
    const m = buildPiFixture({
      agentDir: t.env.PI_CODING_AGENT_DIR!,
      projects: 3,
      sessionsPerProject: 8,
      forkRate: 0.6,
      now: NOW,
      cwdRoot: join(t.env.HOME!, 'src'),
    });
    // One old root's fork was used yesterday: that root's tree is not old.
    const fork = m.sessions.find((s) => s.kind === 'fork' && s.mtime < NOW - 60 * DAY)!;
    const recent = NOW - DAY;
    appendFileSync(
      fork.file,
      `${JSON.stringify({ type: 'message', id: 'ffff0001', parentId: null, timestamp: new Date(recent).toISOString(), message: { role: 'user', content: 'again', timestamp: recent } })}\n`,
    );
    utimesSync(fork.file, new Date(recent), new Date(recent));
    const engine = new Engine(ADAPTERS, t.ctx);
    const sum = await engine.scan('pi');
    const snap = engine.snapshot(sum.snapshotId);
    const { file, plan } = await engine.retentionPlan(sum.snapshotId, { olderThanDays: 30 });
    // Expected from the fixture's own manifest: a session's tree is it and its forks, transitively.
    const byParent = new Map<string, string[]>();
    for (const s of m.sessions) if (s.parentId) byParent.set(s.parentId, [...(byParent.get(s.parentId) ?? []), s.id]);
    const updated = new Map(snap.forest.nodes.map((n) => [n.s.id, n.s.updatedAt!]));
    const treeLast = (id: string): number => Math.max(updated.get(id)!, ...(byParent.get(id) ?? []).map(treeLast));
    const expected = m.sessions
      .filter((s) => treeLast(s.id) < NOW - 30 * DAY)
      .map((s) => `session:${s.id}`)
      .sort();
    expect(expected.length).toBeGreaterThan(3);
    expect(expected.length).toBeLessThan(m.sessions.length);
    // Some old root is kept by a newer fork: the rule is not "own age".
    expect(m.sessions.some((s) => updated.get(s.id)! < NOW - 30 * DAY && !expected.includes(`session:${s.id}`))).toBe(true);
    expect(file.items.map((i) => i.id).sort()).toEqual(expected);
    expect(plan!.items.map((i) => i.id).sort()).toEqual(expected);
    expect(file.totals).toEqual({ items: expected.length, bytes: file.items.reduce((a, i) => a + i.bytes, 0), skipped: 0 });
    for (const i of file.items) expect(i.revision).toMatch(/^[0-9a-f]{32}$/);
    expect(file.version).toBe(1);
    expect(validatePlanFile(JSON.parse(JSON.stringify(file)))).toBeTruthy();
    // Strict: every level refuses what it does not know, and wrong types.
    const doc = JSON.parse(JSON.stringify(file));
    expect(() => validatePlanFile({ ...doc, extra: 1 })).toThrow(/the plan has an unknown field "extra"/);
    expect(() => validatePlanFile({ ...doc, version: 2 })).toThrow(/version 2 is not 1/);
    expect(() => validatePlanFile({ ...doc, agent: 'cursor' })).toThrow(/agent is unknown/);
    expect(() => validatePlanFile({ ...doc, snapshot: { ...doc.snapshot, home: 7 } })).toThrow(/snapshot has an invalid field/);
    expect(() => validatePlanFile({ ...doc, rules: { olderThanDays: '30' } })).toThrow(/olderThanDays must be a whole number/);
    expect(() => validatePlanFile({ ...doc, items: [] })).toThrow(/lists no items/);
    expect(() => validatePlanFile({ ...doc, items: [doc.items[0], doc.items[0]] })).toThrow(/item 2 repeats an id/);
    expect(() => validatePlanFile({ ...doc, items: [{ ...doc.items[0], removedWith: 'session:nobody' }] })).toThrow(
      /removed with an item listed nowhere before it/,
    );
    expect(() => validatePlanFile({ ...doc, items: [{ ...doc.items[0], bytes: -1 }] })).toThrow(/invalid size/);
    expect(() => validatePlanFile({ ...doc, skipped: [{ id: 1 }] })).toThrow(/skipped entry 1/);
    expect(() => validatePlanFile({ ...doc, totals: { ...doc.totals, items: 1 } })).toThrow(/totals.items does not count the items/);
  });

  it('pi: keep-latest 2 per project on the fixture keeps each project\u2019s two newest trees', async () => {
    buildPiFixture({ agentDir: t.env.PI_CODING_AGENT_DIR!, projects: 3, sessionsPerProject: 5, forkRate: 0, now: NOW, cwdRoot: join(t.env.HOME!, 'src') });
    const engine = new Engine(ADAPTERS, t.ctx);
    const sum = await engine.scan('pi');
    const snap = engine.snapshot(sum.snapshotId);
    const { ids: got } = await engine.matchRules(sum.snapshotId, { keepLatest: 2 });
    const expected: string[] = [];
    for (const p of snap.forest.projects) {
      const sorted = [...p.top].sort((a, b) => b.s.updatedAt! - a.s.updatedAt!);
      expected.push(...sorted.slice(2).map((n) => n.s.itemId));
    }
    expect(got.sort()).toEqual(expected.sort());
    expect(got.length).toBe(
      snap.forest.nodes.length -
        2 * snap.forest.projects.filter((p) => p.top.length >= 2).length -
        snap.forest.projects.filter((p) => p.top.length === 1).length,
    );
  });

  it('Claude Code: larger-than and project on the fixture; an active session is skipped with why', async () => {
    const m = buildClaudeFixture({ configDir: t.env.CLAUDE_CONFIG_DIR!, projects: 2, sessionsPerProject: 6, now: NOW, cwdRoot: join(t.env.HOME!, 'src') });
    const engine = new Engine(ADAPTERS, t.ctx);
    const sum = await engine.scan('claude');
    const snap = engine.snapshot(sum.snapshotId);
    const sizes = snap.forest.nodes.map((n) => n.s.bytes).sort((a, b) => a - b);
    const median = sizes[Math.floor(sizes.length / 2)]!;
    const { ids: got } = await engine.matchRules(sum.snapshotId, { largerThanBytes: median });
    expect(got.sort()).toEqual(
      snap.forest.nodes
        .filter((n) => n.s.bytes > median && n.s.selectable)
        .map((n) => n.s.itemId)
        .sort(),
    );
    const project = snap.forest.projects.find((p) => !p.virtual)!;
    const inProject = await engine.matchRules(sum.snapshotId, { project: project.roots[0]!, olderThanDays: 0 });
    expect(inProject.ids.length).toBe(snap.forest.nodes.filter((n) => n.projectKey === project.id && n.s.selectable).length);
    expect(m).toBeTruthy();
  });
});

describe('the plan file of a route that removes descendants', () => {
  it('lists each root, then the sessions its route removes with it (removedWith), and counts them in the totals', () => {
    const snap = snapshot([
      rec('r', { ageDays: 90, bytes: 10, deletionDescendantIds: ['k1', 'k2'] }),
      rec('k1', { ageDays: 90, bytes: 20, parentId: 'r' }),
      rec('k2', { ageDays: 90, bytes: 30, parentId: 'k1' }),
      rec('solo', { ageDays: 90, bytes: 40 }),
      rec('new', { ageDays: 1 }),
    ]);
    const m = evaluateRules(snap, { olderThanDays: 30 });
    // Every old session matches; k1 and k2 go with r, so the planner uses r and solo as roots.
    expect(m.matched.map((x) => x.id).sort()).toEqual(['session:k1', 'session:k2', 'session:r', 'session:solo']);
    const plan = buildPlan(
      snap,
      m.matched.map((x) => x.id),
      { readOnly: false, routeAvailable: true, officialSessions: true },
    );
    const file = planFileFrom(snap, { olderThanDays: 30 }, m, plan);
    expect(file.items.map((i) => [i.id, i.removedWith ?? null])).toEqual([
      ['session:r', null],
      ['session:k1', 'session:r'],
      ['session:k2', 'session:r'],
      ['session:solo', null],
    ]);
    expect(file.items[1]!.reason).toMatch(/removed with title r by Codex/);
    expect(file.totals).toEqual({ items: 4, bytes: 100, skipped: 0 });
    expect(selectedIds(validatePlanFile(JSON.parse(JSON.stringify(file))))).toEqual(['session:r', 'session:solo']);
  });
});

describe('a plan file against a fresh scan', () => {
  it('refuses a new descendant the route would also remove, and a descendant that is gone', () => {
    const before = snapshot([rec('r', { ageDays: 90, deletionDescendantIds: ['k1'] }), rec('k1', { ageDays: 90, parentId: 'r' })]);
    const m = evaluateRules(before, { olderThanDays: 30 });
    const opts = { readOnly: false, routeAvailable: true, officialSessions: true };
    const file = planFileFrom(
      before,
      { olderThanDays: 30 },
      m,
      buildPlan(
        before,
        m.matched.map((x) => x.id),
        opts,
      ),
    );
    expect(selectedIds(file)).toEqual(['session:r']);
    const same = snapshot([rec('r', { ageDays: 90, deletionDescendantIds: ['k1'] }), rec('k1', { ageDays: 90, parentId: 'r' })]);
    expect(() => assertPlanUnchanged(file, same, buildPlan(same, selectedIds(file), opts))).not.toThrow();
    // A subagent appeared under r since the plan was made: deleting r now would take it too.
    const grown = snapshot([
      rec('r', { ageDays: 90, deletionDescendantIds: ['k1', 'k2'] }),
      rec('k1', { ageDays: 90, parentId: 'r' }),
      rec('k2', { ageDays: 90, parentId: 'r' }),
    ]);
    expect(() => assertPlanUnchanged(file, grown, buildPlan(grown, selectedIds(file), opts))).toThrow(
      /title k2 \(session:k2\) would also be removed and is not in the plan/,
    );
    const shrunk = snapshot([rec('r', { ageDays: 90 })]);
    expect(() => assertPlanUnchanged(file, shrunk, buildPlan(shrunk, selectedIds(file), opts))).toThrow(/title k1 \(session:k1\) is gone/);
    // Same ids, one grew by a byte.
    const bigger = snapshot([rec('r', { ageDays: 90, deletionDescendantIds: ['k1'] }), rec('k1', { ageDays: 90, parentId: 'r', bytes: 101 })]);
    expect(() => assertPlanUnchanged(file, bigger, buildPlan(bigger, selectedIds(file), opts))).toThrow(
      /title k1 \(session:k1\) changed since the plan was made/,
    );
  });

  it('pi: runs only while every item is unchanged: an appended transcript refuses, naming the session; a tampered file is refused', async () => {
    const m = buildPiFixture({
      agentDir: t.env.PI_CODING_AGENT_DIR!,
      projects: 2,
      sessionsPerProject: 6,
      forkRate: 0,
      now: NOW,
      cwdRoot: join(t.env.HOME!, 'src'),
    });
    const engine = new Engine(ADAPTERS, t.ctx);
    const first = await engine.scan('pi');
    const { file } = await engine.retentionPlan(first.snapshotId, { olderThanDays: 20 });
    expect(file.items.length).toBeGreaterThan(1);
    // Unchanged: the fresh plan is accepted.
    const again = await engine.scan('pi');
    const ok = await engine.planFromFile(again.snapshotId, file);
    expect(ok.items.map((i) => i.id).sort()).toEqual(file.items.map((i) => i.id).sort());
    // One transcript grows (its mtime kept): refused, naming it.
    const target = m.sessions.find((s) => `session:${s.id}` === file.items[0]!.id)!;
    appendFileSync(target.file, '{"type":"message","message":{"role":"user","content":"more"}}\n');
    utimesSync(target.file, new Date(target.mtime), new Date(target.mtime));
    const changed = await engine.scan('pi');
    const err = await engine.planFromFile(changed.snapshotId, file).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PlanRefusedError);
    expect((err as Error).message).toMatch(new RegExp(`${target.id}\\) changed since the plan was made`));
    // A tampered file is refused before anything else.
    await expect(engine.planFromFile(changed.snapshotId, { ...file, items: [{ ...file.items[0]!, extra: 1 } as never] })).rejects.toThrow(
      /unknown field "extra"/,
    );
  });
});
