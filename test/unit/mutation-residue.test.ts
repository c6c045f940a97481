// The residue proof's engine part, rule by rule (#26 item 5: the mutants of
// engine/cleanup/residue.ts): which targets the agent's probe is asked about
// (sessions only, by session id, with their planned paths; no probe call
// without one), that its surfaces attach to sessions only and a path it
// names is not reported twice, and when a surviving surface is a follow-up
// (an item the fresh scan offers, selectable, not protected, holding the
// path itself or a folder above it).

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { proveResidue } from '../../src/engine/cleanup/residue.js';
import type { ResidueProbe, ResidueTarget } from '../../src/engine/core/adapter.js';
import type { CleanupPlan, Installation, Item, PlanItem, ResidueSurface } from '../../src/engine/core/model.js';
import { Snapshot } from '../../src/engine/inventory/snapshot.js';
import { installationOf } from '../helpers/executor-harness.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
afterEach(() => t?.cleanup());

const inst = (home: string): Installation => installationOf(home);
const planItem = (id: string, paths: string[], sessionId?: string): PlanItem =>
  ({ id, label: id, category: 'session', bytes: 1, paths, recoverable: false, depth: 0, ...(sessionId ? { sessionId } : {}) }) as PlanItem;
const item = (id: string, paths: string[], over: Partial<Item> = {}): Item => ({
  id,
  category: 'cache',
  label: id,
  paths,
  bytes: 1,
  risk: 'safe',
  recoverable: true,
  selectable: true,
  metadata: {},
  ...over,
});
const snapshot = (home: string, items: Item[] = []): Snapshot =>
  new Snapshot('pi', inst(home), { sessions: [], items, projects: [], warnings: [], writers: [] }, Date.now(), 0);
const plan = (items: PlanItem[]): CleanupPlan => ({ items }) as unknown as CleanupPlan;
const put = (p: string): string => {
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, 'x');
  return p;
};
function recordingProbe(answer: Map<string, ResidueSurface[]> = new Map()): ResidueProbe & { calls: ResidueTarget[][] } {
  const calls: ResidueTarget[][] = [];
  return {
    calls,
    sessions: async (_inst, _ctx, targets) => {
      calls.push(targets.map((x) => ({ id: x.id, paths: [...x.paths] })));
      return answer;
    },
  };
}

describe("the probe's targets", () => {
  it('sessions only, by their session id (or the id after "session:"), with their planned paths', async () => {
    t = makeTempEnv('cleanerx-mut-res-');
    const home = t.env.HOME!;
    const probe = recordingProbe();
    const gone = join(home, 'gone');
    await proveResidue(plan([planItem('session:a', [gone], 'A-id'), planItem('session:b', [gone]), planItem('cache:c', [gone])]), snapshot(home), t.ctx, probe);
    expect(probe.calls).toEqual([
      [
        { id: 'A-id', paths: [gone] },
        { id: 'b', paths: [gone] },
      ],
    ]);
  });

  it('no session in the plan: the probe is not asked', async () => {
    t = makeTempEnv('cleanerx-mut-res-');
    const probe = recordingProbe();
    const r = await proveResidue(plan([planItem('cache:c', [join(t.env.HOME!, 'gone')])]), snapshot(t.env.HOME!), t.ctx, probe);
    expect(probe.calls).toEqual([]);
    expect(r).toEqual([{ id: 'cache:c', label: 'cache:c', verdict: 'complete', surfaces: [] }]);
  });
});

describe("the probe's surfaces", () => {
  it('attach to the session by its session id, never to an item that is not a session', async () => {
    t = makeTempEnv('cleanerx-mut-res-');
    const home = t.env.HOME!;
    const s: ResidueSurface = { surface: 'index', why: 'noRoute', count: 1 };
    const probe = recordingProbe(
      new Map([
        ['A-id', [{ ...s }]],
        ['c', [{ ...s }]],
      ]),
    );
    const r = await proveResidue(plan([planItem('session:a', [], 'A-id'), planItem('cache:c', [])]), snapshot(home), t.ctx, probe);
    expect(r.map((x) => [x.id, x.verdict, x.surfaces])).toEqual([
      ['session:a', 'partial', [s]],
      ['cache:c', 'complete', []],
    ]);
  });

  it('a surviving planned path the probe names is reported once, as the probe names it; one it does not name is a file', async () => {
    t = makeTempEnv('cleanerx-mut-res-');
    const home = t.env.HOME!;
    const named = put(join(home, 'sessions', 'a.jsonl'));
    const other = put(join(home, 'sessions', 'a.extra'));
    const probe = recordingProbe(new Map([['a', [{ surface: 'sessionFile', path: named, why: 'noRoute' }]]]));
    const [r] = await proveResidue(plan([planItem('session:a', [named, other])]), snapshot(home), t.ctx, probe);
    expect(r!.surfaces).toEqual([
      { surface: 'file', path: other, why: 'noRoute' },
      { surface: 'sessionFile', path: named, why: 'noRoute' },
    ]);
  });
});

describe('follow-ups', () => {
  it('the item a surface names is the follow-up when the scan offers it; protected or not selectable, it is not', async () => {
    t = makeTempEnv('cleanerx-mut-res-');
    const home = t.env.HOME!;
    const surfaces = (id: string): ResidueSurface[] => [{ surface: 'memory', why: 'noRoute', followUpId: id }];
    const after = snapshot(home, [
      item('memory:ok', []),
      item('memory:protected', [], { category: 'protected' }),
      item('memory:fixed', [], { selectable: false }),
    ]);
    const probe = recordingProbe(
      new Map([
        ['ok', surfaces('memory:ok')],
        ['protected', surfaces('memory:protected')],
        ['fixed', surfaces('memory:fixed')],
      ]),
    );
    const r = await proveResidue(plan([planItem('session:ok', []), planItem('session:protected', []), planItem('session:fixed', [])]), after, t.ctx, probe);
    expect(r.map((x) => x.surfaces)).toEqual([
      [{ surface: 'memory', why: 'followUp', followUpId: 'memory:ok' }],
      [{ surface: 'memory', why: 'noRoute' }],
      [{ surface: 'memory', why: 'noRoute' }],
    ]);
  });

  it('by path: the item holding the path itself or a folder above it, never a sibling whose name only starts the same; never a protected one', async () => {
    t = makeTempEnv('cleanerx-mut-res-');
    const home = t.env.HOME!;
    const exact = put(join(home, 'logs', 'exact.log'));
    const below = put(join(home, 'cache', 'deep', 'b.bin'));
    const sibling = put(join(home, 'cache2', 'c.bin'));
    const guarded = put(join(home, 'keep', 'd.bin'));
    const after = snapshot(home, [
      item('logs:exact', [exact]),
      // Two folders: holding the path in one of them is enough.
      item('cache:dir', [join(home, 'elsewhere'), join(home, 'cache')]),
      item('keep:dir', [join(home, 'keep')], { category: 'protected' }),
      item('keep:fixed', [join(home, 'keep')], { selectable: false }),
    ]);
    const r = await proveResidue(
      plan([planItem('session:e', [exact]), planItem('session:b', [below]), planItem('session:s', [sibling]), planItem('session:g', [guarded])]),
      after,
      t.ctx,
    );
    expect(r.map((x) => x.surfaces)).toEqual([
      [{ surface: 'file', path: exact, why: 'followUp', followUpId: 'logs:exact' }],
      [{ surface: 'file', path: below, why: 'followUp', followUpId: 'cache:dir' }],
      [{ surface: 'file', path: sibling, why: 'noRoute' }],
      [{ surface: 'file', path: guarded, why: 'noRoute' }],
    ]);
  });

  it('a listed session and an unreadable probe are never follow-ups', async () => {
    t = makeTempEnv('cleanerx-mut-res-');
    const home = t.env.HOME!;
    const after = new Snapshot(
      'pi',
      inst(home),
      { sessions: [], items: [item('session:listed', [], { category: 'session' })], projects: [], warnings: [], writers: [] },
      Date.now(),
      0,
    );
    const r = await proveResidue(plan([planItem('session:listed', [])]), after, t.ctx, {
      sessions: async () => {
        throw new Error('unreadable');
      },
    });
    expect(r[0]!.surfaces).toEqual([
      { surface: 'list', why: 'listed' },
      { surface: 'probe', why: 'unreadable' },
    ]);
  });
});
