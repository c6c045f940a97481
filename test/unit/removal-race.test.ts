// Removal under a hostile race: a flipper process exchanges a planned
// directory (or its parent) with a symlink to a decoy outside the home, in
// a tight renameat2(RENAME_EXCHANGE) loop, for the whole removal. Nothing
// outside the plan may change, and recovery must describe what is really
// left of each planned path.

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { buildClaudeFixture } from '../../src/adapters/claude/fixture.js';
import { buildPiFixture } from '../../src/adapters/pi/fixture.js';
import { ADAPTERS } from '../../src/adapters/registry.js';
import { Engine } from '../../src/engine/api/engine.js';
import type { CleanupPlan, ExecuteResult } from '../../src/engine/core/model.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

const FLIPPER = fileURLToPath(new URL('../helpers/flipper.py', import.meta.url));
/** Files in file-history/<id> per run: the issue's 20,000 once, then smaller runs for more races. */
const CLAUDE_FILES = [20_000, 3000, 3000];
const PI_SESSIONS = 24;
const PI_RUNS = 30;

const envs: TempEnv[] = [];
const flippers: ChildProcess[] = [];
afterEach(() => {
  for (const f of flippers.splice(0)) f.kill('SIGKILL');
  for (const t of envs.splice(0)) t.cleanup();
});

const sleep = new Int32Array(new SharedArrayBuffer(4));
/** Blocks this thread until `p` exists: the flipper is running before the run starts. */
function waitFor(p: string): void {
  for (let i = 0; i < 2000 && !existsSync(p); i++) Atomics.wait(sleep, 0, 0, 5);
  if (!existsSync(p)) throw new Error('the flipper did not start');
}

interface Flipper {
  /** Stops flipping with both names back in place; resolves to the number of exchanges. */
  stop(): Promise<number>;
}

function startFlipper(t: TempEnv, a: string, b: string, triggers: string[]): Flipper {
  const ready = join(t.root, `flipper-ready-${flippers.length}`);
  const child = spawn('python3', [FLIPPER, a, b, ready, ...triggers], { stdio: ['ignore', 'pipe', 'inherit'] });
  flippers.push(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number>((resolve) => child.on('exit', () => resolve(Number(out.trim()))));
  waitFor(ready);
  return {
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

type ItemState = 'present' | 'gone' | 'partial';

/** What really is left of each planned item, by its paths' entries in the before/after pictures of the home. */
function itemStates(plan: CleanupPlan, home: string, before: Map<string, string>, after: Map<string, string>): ItemState[] {
  return plan.items.map((item) => {
    const states = item.paths.map((p) => {
      const rel = relative(home, p);
      const inside = (k: string): boolean => k === rel || k.startsWith(rel + '/');
      const was = [...before.keys()].filter(inside);
      const left = was.filter((k) => after.get(k) === before.get(k));
      return left.length === was.length ? 'present' : left.length === 0 && !after.has(rel) ? 'gone' : 'partial';
    });
    return states.every((s) => s === 'present') ? 'present' : states.every((s) => s === 'gone') ? 'gone' : 'partial';
  });
}

/** The run changed nothing outside its plan, and recovery reports exactly what is left. */
async function expectTruth(
  t: TempEnv,
  engine: Engine,
  plan: CleanupPlan,
  result: ExecuteResult,
  before: Map<string, string>,
  decoy: string,
  decoyBefore: Map<string, string>,
): Promise<void> {
  const home = t.env.HOME!;
  expect(treeDiff(decoyBefore, hashTree(decoy)), 'files outside the home changed').toEqual([]);
  const state = t.env.CLEANERX_STATE_DIR!;
  const after = hashTree(home, [state]);
  const planned = plan.items.flatMap((i) => i.paths.map((p) => relative(home, p)));
  // cleanerx may create the parents of its own state dir.
  const stateParent = (k: string): boolean => state.startsWith(join(home, k) + '/');
  const outside = (k: string): boolean => !planned.some((p) => k === p || k.startsWith(p + '/')) && !stateParent(k);
  const changed = treeDiff(before, after).filter((line) => outside(line.replace(/^\S+ /, '')));
  expect(changed, 'entries outside the plan changed').toEqual([]);

  const states = itemStates(plan, home, before, after);
  const listed = await engine.recoveryList();
  console.log(
    `race run: ${result.status}${result.status === 'complete' ? '' : ` (${result.message})`} · items ${JSON.stringify(states)} · recovery ${listed[0]?.observed ?? 'nothing to recover'}`,
  );
  if (result.status === 'complete') {
    expect(
      states.every((s) => s === 'gone'),
      `complete, yet ${JSON.stringify(states)}`,
    ).toBe(true);
    expect(listed).toEqual([]);
    return;
  }
  expect(result.message).toMatch(/\.$/);
  expect(listed).toHaveLength(1);
  const op = listed[0]!;
  const truth = states.every((s) => s === 'gone') ? 'All applied' : states.every((s) => s === 'present') ? 'Not applied' : 'Partially applied';
  expect(op.observed, `${op.reason} (items ${JSON.stringify(states)})`).toBe(truth);
  expect(op.canAccept).toBe(truth === 'All applied');
  // Closing never touches agent data.
  await engine.recoveryAction(op.operationId, 'close');
  expect(treeDiff(after, hashTree(home, [state]))).toEqual([]);
}

describe('removal under a renameat2 exchange race', () => {
  it(`Claude Code: file-history/<id> with ${CLAUDE_FILES.join(' / ')} files exchanged with a symlink to a decoy outside the home (${CLAUDE_FILES.length} runs)`, async () => {
    const RUNS = CLAUDE_FILES.length;
    let raced = 0;
    for (let run = 0; run < RUNS; run++) {
      const t = makeTempEnv('cleanerx-race-');
      envs.push(t);
      const m = buildClaudeFixture({
        configDir: t.env.CLAUDE_CONFIG_DIR!,
        projects: 1,
        sessionsPerProject: 4,
        bodyBytes: 300,
        cwdRoot: join(t.env.HOME!, 'code'),
        seed: 7 + run,
      });
      const s = m.sessions.find((x) => x.ownedPaths.some((p) => p.includes('/file-history/')))!;
      expect(s, 'a session with file history').toBeDefined();
      const fh = s.ownedPaths.find((p) => p.includes('/file-history/'))!;
      const decoy = join(t.root, 'decoy');
      mkdirSync(decoy);
      const names: string[] = [];
      for (let i = 0; i < CLAUDE_FILES[run]!; i++) names.push(`${i.toString(16).padStart(16, '0')}@v1`);
      for (const n of names) {
        writeFileSync(join(fh, n), 'backup\n');
        writeFileSync(join(decoy, n), 'decoy: never delete\n');
      }
      const link = join(t.root, 'swap-link');
      symlinkSync(decoy, link);
      const engine = new Engine(ADAPTERS, t.ctx);
      const summary = await engine.scan('claude');
      const plan = await engine.plan(summary.snapshotId, [`session:${s.id}`]);
      expect(plan.blockers).toEqual([]);
      expect(plan.items[0]!.paths).toContain(fh);
      const before = hashTree(t.env.HOME!, [t.env.CLEANERX_STATE_DIR!]);
      const decoyBefore = hashTree(decoy);
      // The exchange begins once ~150 files of the directory are gone, in the order a removal lists them.
      const order = readdirSync(fh);
      const flipper = startFlipper(
        t,
        fh,
        link,
        order.slice(150, 160).map((n) => join(fh, n)),
      );
      const result = await engine.execute(plan.id);
      const exchanges = await flipper.stop();
      // Back in place, unless the directory was removed (then no exchange can happen any more).
      expect(lstatSync(link).isSymbolicLink()).toBe(true);
      if (existsSync(fh)) expect(lstatSync(fh).isDirectory()).toBe(true);
      if (exchanges > 0) raced++;
      await expectTruth(t, engine, plan, result, before, decoy, decoyBefore);
    }
    // A loaded machine may finish a run before the flipper is scheduled; most runs must have raced.
    expect(raced, 'runs the flipper raced').toBeGreaterThanOrEqual(RUNS / 2);
  }, 120_000); // ~20 s alone; the margin is for a machine shared with other test runs

  it(`pi: the bucket exchanged with a symlink during the unlinks (${PI_RUNS} runs of ${PI_SESSIONS} sessions)`, async () => {
    const RUNS = PI_RUNS;
    let raced = 0;
    for (let run = 0; run < RUNS; run++) {
      const t = makeTempEnv('cleanerx-race-');
      envs.push(t);
      const m = buildPiFixture({
        agentDir: t.env.PI_CODING_AGENT_DIR!,
        projects: 1,
        sessionsPerProject: PI_SESSIONS,
        forkRate: 0,
        bodyBytes: 200,
        cwdRoot: join(t.env.HOME!, 'src'),
        seed: 11 + run,
      });
      const sessions = m.sessions.filter((x) => x.kind === 'root');
      expect(sessions.length).toBeGreaterThan(PI_SESSIONS / 2);
      const bucket = dirname(sessions[0]!.file);
      const decoy = join(t.root, 'decoy');
      mkdirSync(decoy);
      for (const x of m.sessions) writeFileSync(join(decoy, x.file.slice(bucket.length + 1)), 'decoy: never delete\n');
      const link = join(t.root, 'swap-link');
      symlinkSync(decoy, link);
      const engine = new Engine(ADAPTERS, t.ctx);
      const summary = await engine.scan('pi');
      const plan = await engine.plan(
        summary.snapshotId,
        sessions.map((x) => `session:${x.id}`),
      );
      expect(plan.blockers).toEqual([]);
      const before = hashTree(t.env.HOME!, [t.env.CLEANERX_STATE_DIR!]);
      const decoyBefore = hashTree(decoy);
      const first = plan.operations[0]!.paths[0]!;
      const flipper = startFlipper(t, bucket, link, [first]);
      const result = await engine.execute(plan.id);
      const exchanges = await flipper.stop();
      expect(lstatSync(bucket).isDirectory() && lstatSync(link).isSymbolicLink()).toBe(true);
      if (exchanges > 0) raced++;
      await expectTruth(t, engine, plan, result, before, decoy, decoyBefore);
    }
    // A loaded machine may finish a run before the flipper is scheduled; most runs must have raced.
    expect(raced, 'runs the flipper raced').toBeGreaterThanOrEqual(RUNS / 2);
  }, 120_000); // ~20 s alone; the margin is for a machine shared with other test runs
});
