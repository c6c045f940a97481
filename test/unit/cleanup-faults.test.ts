// Fault injection for the cleanup transaction. The real `cleanerx clean`
// process is killed (SIGKILL) at every named crash point of a pi plan and of
// a Claude Code plan; a second cleanerx then recovers (accept or safely
// close). Every byte outside the plan must be unchanged and every planned
// path either entirely gone or byte-identical. Then the special cases:
// symlink swap, growth, foreign owner, a live agent, a full disk, a
// protected item, unknown and obsolete journals.

import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  appendFileSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join, relative, sep } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildClaudeFixture } from '../../src/adapters/claude/fixture.js';
import { buildPiFixture } from '../../src/adapters/pi/fixture.js';
import { ADAPTERS } from '../../src/adapters/registry.js';
import { Engine } from '../../src/engine/api/engine.js';
import { backupService } from '../../src/backup/service.js';
import { crashPointsFor } from '../../src/engine/core/faults.js';
import { journalDir, listJournals, type Journal } from '../../src/engine/cleanup/journal.js';
import type { AgentKind, CleanupPlan } from '../../src/engine/core/model.js';
import { CLI } from '../helpers/pty-screen.js';
import { fakeProcess, makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

// ---- fixtures --------------------------------------------------------------

interface Scenario {
  agent: AgentKind;
  /** Builds the store in a fresh temp home; returns the item ids to clean. */
  build(t: TempEnv): string[];
}

const PI: Scenario = {
  agent: 'pi',
  build(t) {
    const m = buildPiFixture({
      agentDir: t.env.PI_CODING_AGENT_DIR!,
      projects: 2,
      sessionsPerProject: 2,
      forkRate: 0,
      config: true,
      bodyBytes: 600,
      cwdRoot: join(t.env.HOME!, 'src'),
    });
    // Two root sessions nobody forked from (sessions[0] has the cross-project forks).
    const roots = m.sessions.filter((s) => s.kind === 'root' && !m.sessions.some((x) => x.parentId === s.id));
    return [`session:${roots[0]!.id}`, `session:${roots[1]!.id}`, 'cache:pi-models-store'];
  },
};

const CLAUDE: Scenario = {
  agent: 'claude',
  build(t) {
    const m = buildClaudeFixture({
      configDir: t.env.CLAUDE_CONFIG_DIR!,
      projects: 2,
      sessionsPerProject: 3,
      bodyBytes: 600,
      cwdRoot: join(t.env.HOME!, 'code'),
    });
    // The session that owns the most paths (transcript, session dir, tasks, file-history, image-cache, debug…).
    const s = [...m.sessions].sort((a, b) => b.ownedPaths.length - a.ownedPaths.length)[0]!;
    return [`session:${s.id}`, 'claude-cache'];
  },
};

const stateDirOf = (t: TempEnv): string => t.env.CLEANERX_STATE_DIR!;

/** Builds the scenario in a fresh temp env and reviews its plan in-process (nothing is executed). */
async function setUp(sc: Scenario): Promise<{ t: TempEnv; ids: string[]; engine: Engine; plan: CleanupPlan }> {
  const t = makeTempEnv('cleanerx-faults-');
  envs.push(t);
  const ids = sc.build(t);
  const engine = new Engine(ADAPTERS, t.ctx, undefined, backupService(t.ctx.env));
  const summary = await engine.scan(sc.agent);
  const plan = await engine.plan(summary.snapshotId, ids);
  return { t, ids, engine, plan };
}

const envs: TempEnv[] = [];
afterEach(() => {
  for (const t of envs.splice(0)) t.cleanup();
});

// ---- whole-home hashing ------------------------------------------------------

/** relative path → "file <mode> <sha256>" | "link <target>" | "dir"; the excluded dirs (cleanerx's state) are skipped. */
type Tree = Map<string, string>;

function hashHome(home: string, exclude: string[]): Tree {
  const out: Tree = new Map();
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      if (exclude.includes(p)) continue;
      const rel = relative(home, p);
      const st = lstatSync(p);
      if (st.isSymbolicLink()) out.set(rel, `link ${readlinkSync(p)}`);
      else if (st.isDirectory()) {
        // cleanerx may create the parents of its own state dir (.local/state); their other content still counts.
        if (!exclude.some((x) => x.startsWith(p + sep))) out.set(rel, 'dir');
        walk(p);
      } else if (st.isFile()) out.set(rel, `file ${(st.mode & 0o7777).toString(8)} ${createHash('sha256').update(readFileSync(p)).digest('hex')}`);
      else out.set(rel, `other ${st.mode.toString(8)}`);
    }
  };
  walk(home);
  return out;
}

const homeTree = (t: TempEnv): Tree => hashHome(t.env.HOME!, [stateDirOf(t)]);
const under = (rel: string, p: string): boolean => rel === p || rel.startsWith(p + sep);
const restrict = (tree: Tree, keep: (rel: string) => boolean): Record<string, string> => Object.fromEntries([...tree].filter(([k]) => keep(k)));

/** (b) and (c): nothing outside the planned paths changed; each planned path is gone (removed) or byte-identical (kept). */
function expectOutcome(t: TempEnv, before: Tree, after: Tree, planned: string[], removed: ReadonlySet<string>, tampered?: string): void {
  const rel = planned.map((p) => relative(t.env.HOME!, p));
  const skip = tampered === undefined ? null : relative(t.env.HOME!, tampered);
  const outside = (k: string): boolean => !rel.some((p) => under(k, p));
  expect(restrict(after, outside)).toEqual(restrict(before, outside));
  rel.forEach((p, i) => {
    if (p === skip) return; // changed by the test itself; checked by the caller
    const inBefore = restrict(before, (k) => under(k, p));
    const inAfter = restrict(after, (k) => under(k, p));
    expect(Object.keys(inBefore).length, `${p} existed before`).toBeGreaterThan(0);
    // Never half-modified: whatever is left is a byte-identical subset of what was there.
    for (const [k, v] of Object.entries(inAfter)) expect(v, k).toBe(inBefore[k]);
    if (removed.has(planned[i]!)) expect(inAfter, `${p} is entirely gone`).toEqual({});
    else expect(inAfter, `${p} is untouched`).toEqual(inBefore);
  });
}

// ---- the real binary -----------------------------------------------------------

function cli(t: TempEnv, args: string[], extra: Record<string, string> = {}): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [CLI, ...args], { env: { ...t.env, ...extra }, encoding: 'utf8', input: '', timeout: 20_000 });
}

const cleanArgs = (sc: Scenario, ids: string[]): string[] => ['clean', '--agent', sc.agent, ...ids.flatMap((id) => ['--id', id]), '--yes'];

function readJournals(t: TempEnv): { names: string[]; journals: Journal[] } {
  const dir = journalDir(stateDirOf(t));
  const names = existsSync(dir) ? readdirSync(dir).sort() : [];
  return { names, journals: names.filter((n) => n.endsWith('.json')).map((n) => JSON.parse(readFileSync(join(dir, n), 'utf8')) as Journal) };
}

interface Listed {
  operationId: string;
  status: string;
  observed: string;
}

function parseRecovery(out: string): Listed[] {
  const re = /^(\S+)  .+  (\S+)\n  recorded: .*\n  observed: (All applied|Partially applied|Not applied|Not provable) — /gm;
  return [...out.matchAll(re)].map((m) => ({ operationId: m[1]!, status: m[2]!, observed: m[3]! }));
}

// ---- crash points --------------------------------------------------------------

/** The planned paths a crash at `point` has already removed (crash points sit between whole paths). */
function removedAt(point: string, ops: string[][]): Set<string> {
  const all = ops.flat();
  if (point.startsWith('journal:')) return new Set(['journal:verifying', 'journal:verified', 'journal:complete'].includes(point) ? all : []);
  let m = /^mutation:(\d+):(running|applied)$/.exec(point);
  if (m) return new Set(ops.slice(0, Number(m[1]) + (m[2] === 'applied' ? 1 : 0)).flat());
  m = /^remove:(\d+):(\d+):(before|after)$/.exec(point);
  if (m) {
    const i = Number(m[1]);
    return new Set([...ops.slice(0, i).flat(), ...ops[i]!.slice(0, Number(m[2]) + (m[3] === 'after' ? 1 : 0))]);
  }
  throw new Error(`unknown crash point ${point}`);
}

/** The journal status the killed process left behind. */
function statusAt(point: string): string {
  if (point === 'journal:created' || point === 'journal:preflight') return 'planned';
  if (point.startsWith('journal:')) return point.slice('journal:'.length);
  return 'deleting';
}

// The shape of each plan (paths per operation), from an in-process review of a fresh fixture.
async function shapeOf(sc: Scenario): Promise<{ ops: number[]; items: number[] }> {
  const t = makeTempEnv('cleanerx-faults-shape-');
  try {
    const ids = sc.build(t);
    const engine = new Engine(ADAPTERS, t.ctx, undefined, backupService(t.ctx.env));
    const plan = await engine.plan((await engine.scan(sc.agent)).snapshotId, ids);
    return { ops: plan.operations.map((o) => o.paths.length), items: plan.items.map((i) => i.paths.length) };
  } finally {
    t.cleanup();
  }
}

const PI_SHAPE = await shapeOf(PI);
const CLAUDE_SHAPE = await shapeOf(CLAUDE);
const SHAPES = { pi: PI_SHAPE.ops, claude: CLAUDE_SHAPE.ops };
const ITEM_PATHS = { pi: PI_SHAPE.items, claude: CLAUDE_SHAPE.items };
const POINTS = { pi: crashPointsFor(SHAPES.pi), claude: crashPointsFor(SHAPES.claude) };
const TOTAL = POINTS.pi.length + POINTS.claude.length;
console.log(
  `cleanup fault injection: ${TOTAL} crash points (pi plan ${JSON.stringify(SHAPES.pi)} → ${POINTS.pi.length}, Claude plan ${JSON.stringify(SHAPES.claude)} → ${POINTS.claude.length})`,
);

describe(`crash points: ${TOTAL} in total (pi ${POINTS.pi.length}, Claude Code ${POINTS.claude.length})`, () => {
  it('the plans have the shape the issue asks for', () => {
    // pi: 2 sessions + the model catalog cache, one path each.
    expect(ITEM_PATHS.pi).toEqual([1, 1, 1]);
    // Claude Code: one session owning several paths (transcript, session dir, file-history, debug…) + claude-cache.
    expect(ITEM_PATHS.claude).toHaveLength(2);
    expect(ITEM_PATHS.claude[0]).toBeGreaterThanOrEqual(5);
    expect(ITEM_PATHS.claude[1]).toBeGreaterThanOrEqual(2);
    for (const a of ['pi', 'claude'] as const) {
      expect(SHAPES[a].reduce((x, y) => x + y, 0)).toBe(ITEM_PATHS[a].reduce((x, y) => x + y, 0));
      // Every path of the plan has its own before/after pair.
      expect(POINTS[a].filter((p) => p.startsWith('remove:'))).toHaveLength(2 * ITEM_PATHS[a].reduce((x, y) => x + y, 0));
    }
  });

  describe.each([
    { sc: PI, points: POINTS.pi },
    { sc: CLAUDE, points: POINTS.claude },
  ])('$sc.agent', ({ sc, points }) => {
    it('without a crash point: complete, planned paths gone, everything else identical', async () => {
      const { t, ids, plan } = await setUp(sc);
      const planned = plan.operations.flatMap((o) => o.paths);
      const before = homeTree(t);
      const r = cli(t, cleanArgs(sc, ids));
      expect(r.stderr).not.toMatch(/cleanerx:/);
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(/^complete: /m);
      expectOutcome(t, before, homeTree(t), planned, new Set(planned));
      const { names, journals } = readJournals(t);
      expect(names).toHaveLength(1);
      expect(journals[0]!.status).toBe('complete');
      expect(cli(t, ['recovery']).stdout).toBe('No interrupted cleanup.\n');
    });

    it.each(points)('SIGKILL at %s → recovered, outside bytes unchanged', async (point) => {
      const { t, ids, plan } = await setUp(sc);
      expect(plan.blockers).toEqual([]);
      const ops = plan.operations.map((o) => o.paths);
      expect(ops.map((o) => o.length)).toEqual(SHAPES[sc.agent as keyof typeof SHAPES]);
      const planned = ops.flat();
      const before = homeTree(t);

      const r = cli(t, cleanArgs(sc, ids), { CLEANERX_CRASH_AT: point });
      expect(r.error).toBeUndefined();
      expect(r.status === null ? r.signal : r.status, r.stderr).toSatisfy((x: unknown) => x === 'SIGKILL' || x === 137);

      // The killed process left exactly one committed journal (no partial) with this plan, at this status.
      const crashed = readJournals(t);
      expect(crashed.names).toHaveLength(1);
      const j = crashed.journals[0]!;
      expect(j.plan.operations.map((o) => o.paths)).toEqual(ops);
      expect(j.status).toBe(statusAt(point));

      const removed = removedAt(point, ops);
      const list = cli(t, ['recovery']);
      expect(list.status, list.stderr).toBe(0);
      let finalStatus: string;
      if (point === 'journal:complete') {
        expect(list.stdout).toBe('No interrupted cleanup.\n');
        finalStatus = 'complete';
      } else {
        const ops2 = parseRecovery(list.stdout);
        expect(ops2, list.stdout).toHaveLength(1);
        expect(ops2[0]!.operationId).toBe(j.operationId);
        const expected = removed.size === planned.length ? 'All applied' : removed.size === 0 ? 'Not applied' : 'Partially applied';
        expect(ops2[0]!.observed).toBe(expected);
        const action = expected === 'All applied' ? 'accept' : 'close';
        if (point === 'journal:deleting' || point === 'remove:0:0:after') {
          // Accepting is refused unless the rescan shows everything gone (checked on one untouched and one partial run).
          const refused = cli(t, ['recovery', 'accept', j.operationId]);
          expect(refused.status).toBe(2);
          expect(refused.stderr).toMatch(/Cannot accept/);
        }
        const done = cli(t, ['recovery', action, j.operationId]);
        expect(done.status, done.stderr).toBe(0);
        // (a) the same command lists again after acting: nothing is left to recover.
        expect(done.stdout).toBe('No interrupted cleanup.\n');
        finalStatus = action === 'accept' ? 'complete' : 'terminated';
      }

      // (b) + (c)
      expectOutcome(t, before, homeTree(t), planned, removed);
      // (d)
      const after = readJournals(t);
      expect(after.names).toEqual(crashed.names);
      expect(after.journals[0]!.status).toBe(finalStatus);
      expect(after.journals[0]!.plan).toEqual(j.plan);
    });
  });
});

// ---- special cases -----------------------------------------------------------------

const BOTH = [
  { name: 'pi', sc: PI, quit: /^Quit pi and retry/, comm: 'pi' },
  { name: 'Claude Code', sc: CLAUDE, quit: /^Quit Claude Code and retry/, comm: 'claude' },
];

/** The only journal, which must have ended without touching anything. */
function expectSingleJournal(t: TempEnv, status: string): Journal {
  const { names, journals } = readJournals(t);
  expect(names).toHaveLength(1);
  expect(journals[0]!.status).toBe(status);
  return journals[0]!;
}

describe.each(BOTH)('special cases: $name', ({ sc, quit, comm }) => {
  it('a planned file swapped for a symlink after review is refused; nothing changes, the link target is untouched', async () => {
    const { t, plan, engine } = await setUp(sc);
    const victim = plan.items[0]!.paths[0]!;
    const target = join(t.env.HOME!, 'elsewhere', 'precious.txt');
    mkdirSync(join(t.env.HOME!, 'elsewhere'));
    writeFileSync(target, 'do not delete me\n');
    unlinkSync(victim);
    symlinkSync(target, victim);
    const before = homeTree(t);
    const r = await engine.execute(plan.id);
    expect(r.status).toBe('failed');
    expect(r.message).toMatch(/changed after|symbolic link/);
    expect(homeTree(t)).toEqual(before);
    expect(readFileSync(target, 'utf8')).toBe('do not delete me\n');
    expect(lstatSync(victim).isSymbolicLink()).toBe(true);
    expectSingleJournal(t, 'terminated');
  });

  it('a planned file grown after the scan is refused ("changed after"); nothing is removed', async () => {
    const { t, plan, engine } = await setUp(sc);
    appendFileSync(plan.items[0]!.paths[0]!, '{"type":"message","note":"written after the scan"}\n');
    const before = homeTree(t);
    const r = await engine.execute(plan.id);
    expect(r.status).toBe('failed');
    expect(r.message).toMatch(/changed after the inventory scan/);
    expect(homeTree(t)).toEqual(before);
    expectSingleJournal(t, 'terminated');
  });

  /**
   * Runs the plan and, when the executor reports it is about to remove the
   * first path of the last planned item (progress comes before each path's
   * re-check), lets `tamper` change one path of that item. Returns the home as
   * it was before execution, right after tampering, and at the end.
   */
  async function tamperMidRun(sc: Scenario, pick: (paths: string[]) => string, tamper: (victim: string, t: TempEnv) => void, prepare?: (t: TempEnv) => void) {
    const { t, plan, engine } = await setUp(sc);
    prepare?.(t);
    const flat = plan.operations.flatMap((o) => o.paths);
    const lastItem = plan.items[plan.items.length - 1]!;
    const victim = pick(lastItem.paths);
    const before = homeTree(t);
    let mid: Tree | null = null;
    const result = await engine.execute(plan.id, {}, (p) => {
      if (mid === null && p.phase === 'deleting' && p.current === lastItem.label) {
        tamper(victim, t);
        mid = homeTree(t);
      }
    });
    expect(mid, 'the executor reported the last item before removing it').not.toBeNull();
    return { t, plan, engine, flat, victim, before, mid: mid! as Tree, after: homeTree(t), result };
  }

  it('a symlink swapped in right before its removal stops the run there; earlier paths removed, later ones untouched', async () => {
    const outsideText = 'outside the plan\n';
    const { t, engine, flat, victim, before, mid, after, result } = await tamperMidRun(
      sc,
      (paths) => paths[0]!,
      (v, tt) => {
        rmSync(v, { recursive: true });
        symlinkSync(join(tt.env.HOME!, 'elsewhere.txt'), v);
      },
      (tt) => writeFileSync(join(tt.env.HOME!, 'elsewhere.txt'), outsideText),
    );
    expect(result.status).toBe('failed');
    expect(result.message).toMatch(/is a symbolic link.*No later item was touched/);
    expect(readFileSync(join(t.env.HOME!, 'elsewhere.txt'), 'utf8')).toBe(outsideText);
    expect(lstatSync(victim).isSymbolicLink()).toBe(true);
    // Nothing at all happened after the swap; before it, exactly the paths ahead of the victim went.
    expect(after).toEqual(mid);
    const v = flat.indexOf(victim);
    expect(v).toBeGreaterThan(0);
    expectOutcome(t, before, after, flat, new Set(flat.slice(0, v)), victim);
    const j = expectSingleJournal(t, 'failed');
    expect(j.mutations.some((m) => m.status === 'running')).toBe(true);
    expect(j.mutations.every((m) => m.status !== 'applied' || m.index < j.mutations.find((x) => x.status === 'running')!.index)).toBe(true);
    // Recovery rescans: it accepts only when nothing planned is listed any more, and never touches agent data.
    const [op] = await engine.recoveryList();
    expect(['All applied', 'Partially applied']).toContain(op!.observed);
    expect(op!.canAccept).toBe(op!.observed === 'All applied');
    if (!op!.canAccept) await expect(engine.recoveryAction(j.operationId, 'accept')).rejects.toThrow(/Cannot accept/);
    expect(await engine.recoveryAction(j.operationId, op!.canAccept ? 'accept' : 'close')).toEqual([]);
    expect(homeTree(t)).toEqual(after);
    expectSingleJournal(t, op!.canAccept ? 'complete' : 'terminated');
  });

  it('a planned file grown between preflight and its removal is refused ("changed after"); later paths untouched', async () => {
    const { t, flat, victim, before, mid, after, result } = await tamperMidRun(
      sc,
      (paths) => paths.find((p) => lstatSync(p).isFile())!,
      (v) => appendFileSync(v, 'more\n'),
    );
    expect(result.status).toBe('failed');
    expect(result.message).toMatch(/Target changed after scan/);
    const v = flat.indexOf(victim);
    expectOutcome(t, before, after, flat, new Set(flat.slice(0, v)), victim);
    const rel = relative(t.env.HOME!, victim);
    expect(after.get(rel)).toBe(mid.get(rel)); // the grown file is kept as it is now
    expect(after.get(rel)).not.toBe(before.get(rel));
    expectSingleJournal(t, 'failed');
  });

  it(`a live ${comm} process started after review: execute refuses with "Quit …"; nothing changes`, async () => {
    const { t, plan, engine } = await setUp(sc);
    expect(plan.blockers).toEqual([]);
    fakeProcess(t.procRoot, 4242, comm, [comm]);
    const before = homeTree(t);
    const r = await engine.execute(plan.id);
    expect(r.status).toBe('failed');
    expect(r.message).toMatch(quit);
    expect(r.message).toContain('pid 4242');
    expect(homeTree(t)).toEqual(before);
    expectSingleJournal(t, 'terminated');
    // The next scan sees the writer: nothing is selectable and a new plan is blocked.
    const s = await engine.scan(sc.agent);
    const again = await engine.plan(s.snapshotId, plan.selectedItemIds);
    expect(again.operations.flatMap((o) => o.blockers).length).toBeGreaterThan(0);
  });

  it('a disk-full journal write (journal:ENOSPC) refuses before any mutation and leaves no committed journal', async () => {
    const { t, plan, engine } = await setUp(sc);
    const before = homeTree(t);
    const saved = process.env.CLEANERX_FAULT;
    process.env.CLEANERX_FAULT = 'journal:ENOSPC';
    try {
      await expect(engine.execute(plan.id)).rejects.toThrow(/ENOSPC/);
    } finally {
      if (saved === undefined) delete process.env.CLEANERX_FAULT;
      else process.env.CLEANERX_FAULT = saved;
    }
    expect(homeTree(t)).toEqual(before);
    const { names } = readJournals(t);
    expect(names.filter((n) => !n.endsWith('.partial'))).toEqual([]);
    // A sibling partial (as a crash mid-write would leave) is ignored by the journal reader and blocks nothing.
    mkdirSync(journalDir(stateDirOf(t)), { recursive: true });
    writeFileSync(join(journalDir(stateDirOf(t)), '.0b6f5f43-7a4e-4f51-a1a0-0e2d1d5e2c11.json.1234.partial'), '{"formatVersion":2,"oper');
    expect(await listJournals(stateDirOf(t))).toEqual([]);
    expect(await engine.recoveryList()).toEqual([]);
    // With space again, the same selection cleans completely.
    const again = await engine.plan(plan.snapshotId, plan.selectedItemIds);
    expect(again.blockers).toEqual([]);
    expect((await engine.execute(again.id)).status).toBe('complete');
    expectOutcome(
      t,
      before,
      homeTree(t),
      again.operations.flatMap((o) => o.paths),
      new Set(again.operations.flatMap((o) => o.paths)),
    );
  });

  it('a disk-full journal write through the CLI: exit 1, nothing changed, no journal', async () => {
    const { t, ids } = await setUp(sc);
    const before = homeTree(t);
    const r = cli(t, cleanArgs(sc, ids), { CLEANERX_FAULT: 'journal:ENOSPC' });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^cleanerx: ENOSPC: injected fault on journal write\n$/);
    expect(homeTree(t)).toEqual(before);
    expect(readJournals(t).names).toEqual([]);
    expect(cli(t, ['recovery']).stdout).toBe('No interrupted cleanup.\n');
  });

  it('a protected item cannot be planned ("Blocked: protected item cannot be selected"), in-process and through the CLI', async () => {
    const { t, engine, ids } = await setUp(sc);
    const s = await engine.scan(sc.agent);
    const prot = s.items.find((i) => i.category === 'protected')!;
    expect(prot).toBeDefined();
    await expect(engine.plan(s.snapshotId, [prot.id])).rejects.toThrow('Blocked: protected item cannot be selected.');
    await expect(engine.plan(s.snapshotId, [...ids, prot.id])).rejects.toThrow('Blocked: protected item cannot be selected.');
    const before = homeTree(t);
    const r = cli(t, ['clean', '--agent', sc.agent, '--id', ids[0]!, '--id', prot.id, '--yes']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/Blocked: protected item cannot be selected/);
    expect(homeTree(t)).toEqual(before);
    expect(readJournals(t).names).toEqual([]);
  });

  it.each([
    ['a future format version', JSON.stringify({ formatVersion: 3, operationId: 'x', agent: 'pi', status: 'deleting' })],
    ['text that is not JSON', 'not json at all'],
    ['a status-only journal with an extra key', JSON.stringify({ operationId: 'x', status: 'deleting', agent: 'pi' })],
  ])('an unknown journal (%s) blocks all cleanup until it is moved away', async (_what, text) => {
    const { t, plan: first, engine } = await setUp(sc);
    const dir = journalDir(stateDirOf(t));
    mkdirSync(dir, { recursive: true });
    const unknown = join(dir, '7d4f1e0a-0000-4000-8000-000000000001.json');
    writeFileSync(unknown, text);
    const before = homeTree(t);
    const s = await engine.scan(sc.agent);
    const plan = await engine.plan(s.snapshotId, first.selectedItemIds);
    expect(plan.blockers.join('\n')).toMatch(/unrecognized cleanup journal blocks all cleanup/);
    await expect(engine.execute(plan.id)).rejects.toThrow(/The plan has blockers: An unrecognized cleanup journal/);
    const listed = await engine.recoveryList();
    expect(listed).toHaveLength(1);
    expect(listed[0]!.unknown).toBe(true);
    expect(listed[0]!.canAccept || listed[0]!.canClose).toBe(false);
    expect(homeTree(t)).toEqual(before);
    expect(readFileSync(unknown, 'utf8')).toBe(text); // never rewritten or removed by cleanerx
    // Moved away: cleanup proceeds.
    unlinkSync(unknown);
    const ok = await engine.plan(s.snapshotId, first.selectedItemIds);
    expect(ok.blockers).toEqual([]);
    expect((await engine.execute(ok.id)).status).toBe('complete');
  });
});

describe('special cases: foreign owner', () => {
  const FOREIGN = 4242;
  const isRoot = process.getuid?.() === 0;

  it('a Claude Code session with a foreign-owned file is not selectable and its plan is blocked', async () => {
    if (!isRoot) {
      // chown to another uid needs root; without it this case cannot be built.
      expect(process.getuid?.()).not.toBe(0);
      return;
    }
    const t = makeTempEnv('cleanerx-faults-');
    envs.push(t);
    const [sessionId] = CLAUDE.build(t);
    const engine = new Engine(ADAPTERS, t.ctx, undefined, backupService(t.ctx.env));
    const s0 = await engine.scan('claude');
    expect(s0.selection.some((x) => x.id === sessionId)).toBe(true);
    const first = await engine.plan(s0.snapshotId, [sessionId!]);
    const sidecar = first.items[0]!.paths.find((p) => lstatSync(p).isDirectory())!;
    const inner = join(sidecar, readdirSync(sidecar).sort()[0]!);
    chownSync(inner, FOREIGN, FOREIGN);
    const before = homeTree(t);
    const s = await engine.scan('claude');
    expect(s.selection.some((x) => x.id === sessionId)).toBe(false); // selection lists selectable sessions only
    const detail = await engine.detail(s.snapshotId, sessionId!);
    expect(detail.selectable).toBe(false);
    expect(detail.blockedReason).toMatch(/belongs to another user/);
    const plan = await engine.plan(s.snapshotId, [sessionId!]);
    expect(plan.operations[0]!.blockers.join('\n')).toMatch(/belongs to another user/);
    await expect(engine.execute(plan.id)).rejects.toThrow(/The plan has blockers/);
    expect(homeTree(t)).toEqual(before);
    expect(readJournals(t).names).toEqual([]);
  });

  it('a foreign-owned pi cache is not selectable and its plan is blocked; a foreign-owned pi session is not listed', async () => {
    if (!isRoot) {
      expect(process.getuid?.()).not.toBe(0);
      return;
    }
    const t = makeTempEnv('cleanerx-faults-');
    envs.push(t);
    const ids = PI.build(t);
    const engine = new Engine(ADAPTERS, t.ctx, undefined, backupService(t.ctx.env));
    const s0 = await engine.scan('pi');
    expect(s0.selection.some((x) => x.id === ids[0])).toBe(true);
    expect(s0.items.find((i) => i.id === 'cache:pi-models-store')!.selectable).toBe(true);
    const first = await engine.plan(s0.snapshotId, ids);
    const [sessionFile, , cacheFile] = first.items.map((i) => i.paths[0]!);
    chownSync(cacheFile!, FOREIGN, FOREIGN);
    chownSync(sessionFile!, FOREIGN, FOREIGN);
    const before = homeTree(t);
    const s = await engine.scan('pi');
    const cache = s.items.find((i) => i.id === 'cache:pi-models-store')!;
    expect(cache.selectable).toBe(false);
    const plan = await engine.plan(s.snapshotId, ['cache:pi-models-store']);
    expect(plan.operations[0]!.blockers.join('\n')).toMatch(/belongs to another user/);
    await expect(engine.execute(plan.id)).rejects.toThrow(/The plan has blockers/);
    expect(s.selection.some((x) => x.id === ids[0])).toBe(false);
    expect(s.warnings.some((w) => w.path === sessionFile && /another user/.test(w.reason))).toBe(true);
    await expect(engine.plan(s.snapshotId, [ids[0]!])).rejects.toThrow(/Unknown item id/);
    expect(homeTree(t)).toEqual(before);
    expect(readJournals(t).names).toEqual([]);
  });

  it('a planned file chowned to another user after review is refused; nothing changes', async () => {
    if (!isRoot) {
      expect(process.getuid?.()).not.toBe(0);
      return;
    }
    const { t, plan, engine } = await setUp(PI);
    chownSync(plan.items[1]!.paths[0]!, FOREIGN, FOREIGN);
    const before = homeTree(t);
    const r = await engine.execute(plan.id);
    expect(r.status).toBe('failed');
    expect(r.message).toMatch(/changed after the inventory scan|another user/);
    expect(homeTree(t)).toEqual(before);
    expectSingleJournal(t, 'terminated');
  });
});

describe('special cases: obsolete journals', () => {
  it('a strictly obsolete pre-v2 journal {operationId, status} is removed by listJournals and blocks nothing', async () => {
    const { t, plan: first, engine } = await setUp(PI);
    const dir = journalDir(stateDirOf(t));
    mkdirSync(dir, { recursive: true });
    const old = join(dir, '0190f000-0000-7000-8000-00000000beef.json');
    writeFileSync(old, JSON.stringify({ operationId: '0190f000-0000-7000-8000-00000000beef', status: 'deleting' }));
    expect(await listJournals(stateDirOf(t))).toEqual([]);
    expect(existsSync(old)).toBe(false);
    writeFileSync(old, JSON.stringify({ status: 'complete', operationId: 'legacy' }));
    const plan = await engine.plan(first.snapshotId, first.selectedItemIds);
    expect(plan.blockers).toEqual([]);
    expect(existsSync(old)).toBe(false);
    expect((await engine.execute(plan.id)).status).toBe('complete');
  });
});

// ---- backup phase -------------------------------------------------------------------

describe('backup crash points (pi, clean --backup)', () => {
  const backupPoints = crashPointsFor(SHAPES.pi, true).filter((p) => p.startsWith('backup:'));
  const secret = { CLEANERX_TEST_MODE: '1', CLEANERX_SCRYPT_LOG_N: '12' };

  it('the backup phase has six crash points between preflight and the first removal', () => {
    const all = crashPointsFor(SHAPES.pi, true);
    expect(backupPoints).toHaveLength(6);
    expect(all.indexOf('journal:preflight')).toBeLessThan(all.indexOf('backup:writing'));
    expect(all.indexOf('backup:committed')).toBeLessThan(all.indexOf('journal:deleting'));
  });

  it.each(backupPoints)('SIGKILL at %s → nothing removed; closing leaves no stray archive', async (point) => {
    const { t, ids: all } = await setUp(PI);
    // Only restorable items can be backed up: the sessions, not the cache.
    const ids = all.filter((id) => id.startsWith('session:'));
    const own = [stateDirOf(t), t.env.CLEANERX_DATA_DIR!];
    const before = hashHome(t.env.HOME!, own);
    const r = spawnSync(process.execPath, [CLI, ...cleanArgs(PI, ids), '--backup'], {
      env: { ...t.env, ...secret, CLEANERX_CRASH_AT: point },
      encoding: 'utf8',
      input: 'passphrase-123\n',
      timeout: 30_000,
    });
    expect(r.status === null ? r.signal : r.status, r.stderr).toSatisfy((x: unknown) => x === 'SIGKILL' || x === 137);
    const list = parseRecovery(cli(t, ['recovery'], secret).stdout);
    expect(list).toHaveLength(1);
    expect(list[0]!.observed).toBe('Not applied');
    const done = cli(t, ['recovery', 'close', list[0]!.operationId], secret);
    expect(done.status, done.stderr).toBe(0);
    // Every byte of the agent's home is as it was: the backup phase never removes anything.
    expect([...hashHome(t.env.HOME!, own)]).toEqual([...before]);
    // Only a cataloged, verified archive may remain; partials and uncataloged candidates are gone.
    const dir = join(t.env.CLEANERX_DATA_DIR!, 'backups');
    const files = existsSync(dir) ? readdirSync(dir) : [];
    expect(files.filter((f) => f.endsWith('.partial'))).toEqual([]);
    const catalog = files.includes('catalog.json')
      ? (JSON.parse(readFileSync(join(dir, 'catalog.json'), 'utf8')) as { records: { id: string }[] }).records
      : [];
    expect(files.filter((f) => f.endsWith('.cxb')).sort()).toEqual(catalog.map((c) => `${c.id}.cxb`).sort());
    expect(catalog.length).toBe(point === 'backup:committed' ? 1 : 0);
  });
});
