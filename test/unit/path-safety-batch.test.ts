// The batched removal path: a run holds one handle per bucket and revalidates
// each file through it. Between two files of one batch the bucket (or an
// ancestor) is moved, swapped for a link, or replaced; nothing the handle
// could still reach may be removed after that, and nothing outside the plan
// may change.

import { cpSync, existsSync, mkdirSync, readdirSync, renameSync, rmdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildPiFixture } from '../../src/adapters/pi/fixture.js';
import { ADAPTERS } from '../../src/adapters/registry.js';
import { Engine } from '../../src/engine/api/engine.js';
import { ParentHandles } from '../../src/engine/cleanup/path-safety.js';
import { lstatAt } from '../../src/engine/host/anchored-fs.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

const envs: TempEnv[] = [];
const held: ParentHandles[] = [];
afterEach(() => {
  for (const h of held.splice(0)) h.close();
  for (const t of envs.splice(0)) t.cleanup();
});

/** The file index at which the bucket is tampered with: files before it are already gone. */
const AT = 3;

async function setUp() {
  const t = makeTempEnv('cleanerx-batch-');
  envs.push(t);
  const m = buildPiFixture({
    agentDir: t.env.PI_CODING_AGENT_DIR!,
    projects: 1,
    sessionsPerProject: 12,
    forkRate: 0,
    bodyBytes: 200,
    cwdRoot: join(t.env.HOME!, 'src'),
    seed: 3,
  });
  const engine = new Engine(ADAPTERS, t.ctx);
  const summary = await engine.scan('pi');
  const plan = await engine.plan(
    summary.snapshotId,
    m.sessions.map((s) => `session:${s.id}`),
  );
  expect(plan.blockers).toEqual([]);
  const paths = plan.operations.flatMap((o) => o.paths);
  expect(paths.length).toBeGreaterThan(AT + 2);
  const bucket = dirname(paths[0]!);
  expect(paths.every((p) => dirname(p) === bucket)).toBe(true);
  return { t, engine, plan, paths, bucket };
}

type Tamper = (bucket: string, t: TempEnv) => void;

const moved = (t: TempEnv): string => join(t.root, 'moved-bucket');

const CASES: [string, Tamper, RegExp][] = [
  [
    'moved out of the home, a symlink to it in its place',
    (b, t) => {
      renameSync(b, moved(t));
      symlinkSync(moved(t), b);
    },
    /is a symbolic link/,
  ],
  ['moved out of the home, nothing in its place', (b, t) => renameSync(b, moved(t)), /is gone|does not exist/],
  [
    'moved out of the home, a symlink to a decoy with the same names in its place',
    (b, t) => {
      const decoy = join(t.root, 'decoy');
      mkdirSync(decoy);
      for (const n of readdirSync(b)) writeFileSync(join(decoy, n), 'decoy: never delete\n');
      renameSync(b, moved(t));
      symlinkSync(decoy, b);
    },
    /is a symbolic link/,
  ],
  [
    'moved out of the home, a copy of it (same names, new files) in its place',
    (b, t) => {
      renameSync(b, moved(t));
      cpSync(moved(t), b, { recursive: true, preserveTimestamps: true });
    },
    /changed after scan/,
  ],
  [
    'its parent (sessions/) moved out of the home, a symlink to it in its place',
    (b, t) => {
      const sessions = dirname(b);
      renameSync(sessions, join(t.root, 'moved-sessions'));
      symlinkSync(join(t.root, 'moved-sessions'), sessions);
    },
    /is a symbolic link/,
  ],
];

describe('batched removal: the bucket changes between two files of one batch', () => {
  it.each(CASES)('%s: refused there; nothing after the swap changes, anywhere', async (_name, tamper, why) => {
    const { t, engine, plan, paths, bucket } = await setUp();
    const state = t.env.CLEANERX_STATE_DIR!;
    const before = hashTree(t.root, [state]);
    let mid: Map<string, string> | null = null;
    let seen = 0;
    // Each path's progress line (it names the item) comes right before that path's re-check.
    const r = await engine.execute(plan.id, {}, (p) => {
      if (mid === null && p.phase === 'deleting' && p.current !== undefined && seen++ === AT) {
        tamper(bucket, t);
        mid = hashTree(t.root, [state]);
      }
    });
    expect(mid, 'the run reached the file to tamper before').not.toBeNull();
    expect(r.status).toBe('failed');
    expect(r.message).toMatch(why);
    expect(r.message).toMatch(/No later item was touched\.$/);
    // Nothing at all changed after the swap: not the moved files the held handle still reaches, not a decoy.
    expect(treeDiff(mid!, hashTree(t.root, [state]))).toEqual([]);
    // Before it, exactly the first files went; the rest are where the tamper put them, as they were.
    const rel = (p: string): string => p.slice(t.root.length + 1);
    const sessions = dirname(bucket);
    const nowAt = existsSync(join(t.root, 'moved-sessions'))
      ? (p: string) => join('moved-sessions', p.slice(sessions.length + 1))
      : (p: string) => join('moved-bucket', p.slice(bucket.length + 1));
    for (const p of paths.slice(0, AT)) expect(mid!.has(nowAt(p)) || mid!.has(rel(p))).toBe(false);
    for (const p of paths.slice(AT)) expect(mid!.get(nowAt(p))).toBe(before.get(rel(p)));
  });

  it('moved away and back between two files: the run completes, every planned file gone, nothing else changed', async () => {
    const { t, engine, plan, paths, bucket } = await setUp();
    const state = t.env.CLEANERX_STATE_DIR!;
    const before = hashTree(t.root, [state]);
    let done = false;
    let seen = 0;
    const r = await engine.execute(plan.id, {}, (p) => {
      if (!done && p.phase === 'deleting' && p.current !== undefined && seen++ === AT) {
        renameSync(bucket, moved(t));
        renameSync(moved(t), bucket);
        done = true;
      }
    });
    expect(done).toBe(true);
    expect(r.status, r.message).toBe('complete');
    const planned = new Set(paths.map((p) => p.slice(t.root.length + 1)));
    expect(treeDiff(before, hashTree(t.root, [state])).sort()).toEqual([...planned].map((p) => `removed ${p}`).sort());
  });
});

describe('ParentHandles', () => {
  function tree() {
    const t = makeTempEnv('cleanerx-parents-');
    envs.push(t);
    const root = join(t.env.HOME!, 'root');
    const bucket = join(root, 'a', 'bucket');
    mkdirSync(bucket, { recursive: true });
    writeFileSync(join(bucket, 'f'), 'x');
    const p = new ParentHandles();
    held.push(p);
    return { t, root, bucket, p };
  }

  it('hands out the same handle while the directory stays where it was opened', () => {
    const { root, bucket, p } = tree();
    const a = p.get(bucket, root)!;
    expect(a).not.toBeNull();
    expect(lstatAt(a.h, 'f')?.isFile()).toBe(true);
    expect(p.get(bucket, root)!.h).toBe(a.h);
  });

  it('drops a handle whose directory, or an ancestor of it, was renamed; opens afresh once it is back', () => {
    const { t, root, bucket, p } = tree();
    const first = p.get(bucket, root)!;
    renameSync(join(root, 'a'), join(t.root, 'away'));
    expect(p.get(bucket, root)).toBeNull();
    renameSync(join(t.root, 'away'), join(root, 'a'));
    const again = p.get(bucket, root)!;
    expect(again).not.toBeNull();
    expect(again.h).not.toBe(first.h);
  });

  it("reuses a revalidation's check only for the removal of that same path, right after it", () => {
    const { t, root, bucket, p } = tree();
    const a = p.get(bucket, root)!;
    const f = join(bucket, 'f');
    p.vouch(f, a);
    expect(p.forRemoval(f, bucket, root)).toBe(a);
    // Used once: a second removal of the path checks again, and so does any other path.
    renameSync(join(root, 'a'), join(t.root, 'away'));
    expect(p.forRemoval(f, bucket, root)).toBeNull();
    renameSync(join(t.root, 'away'), join(root, 'a'));
    const b = p.get(bucket, root)!;
    p.vouch(f, b);
    renameSync(join(root, 'a'), join(t.root, 'away'));
    expect(p.forRemoval(join(bucket, 'g'), bucket, root)).toBeNull();
    renameSync(join(t.root, 'away'), join(root, 'a'));
    const c = p.get(bucket, root)!;
    p.vouch(f, c);
    p.get(join(root, 'a'), root);
    renameSync(join(root, 'a'), join(t.root, 'away'));
    expect(p.forRemoval(f, bucket, root)).toBeNull();
  });

  it('never opens through a symlink, and drops a directory that was removed', () => {
    const { t, root, bucket, p } = tree();
    renameSync(bucket, join(t.root, 'real'));
    symlinkSync(join(t.root, 'real'), bucket);
    expect(p.get(bucket, root)).toBeNull();
    const other = join(root, 'other');
    mkdirSync(other);
    expect(p.get(other, root)).not.toBeNull();
    rmdirSync(other);
    expect(p.get(other, root)).toBeNull();
  });
});
