// The residue proof's engine part (engine/cleanup/residue.ts): an item the
// rescan still lists, a planned path that survived, a survivor the fresh scan
// offers as a selectable item (a follow-up), a probe that throws; and the
// Claude and pi probes on hand-made stores (listings only, nothing changed).

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { claudeResidue } from '../../src/adapters/claude/residue.js';
import { piResidue } from '../../src/adapters/pi/residue.js';
import { proveResidue } from '../../src/engine/cleanup/residue.js';
import type { CleanupPlan, Installation, Item, PlanItem } from '../../src/engine/core/model.js';
import { Snapshot } from '../../src/engine/inventory/snapshot.js';
import { installationOf, sessionRecord } from '../helpers/executor-harness.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { hashTree } from '../helpers/tree-hash.js';

let t: TempEnv;
afterEach(() => t?.cleanup());

const inst = (home: string): Installation => installationOf(home);
const planItem = (id: string, paths: string[]): PlanItem => ({ id, label: id, category: 'session', bytes: 1, paths, recoverable: false, depth: 0 });
const put = (p: string, body = 'x'): string => {
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, body);
  return p;
};

describe('proveResidue (engine)', () => {
  it('still listed, a surviving path offered as a follow-up item, and a clean one', async () => {
    t = makeTempEnv('cleanerx-res-');
    const home = t.env.HOME!;
    const kept = put(join(home, 'cache', 'a.bin'));
    const leftOnly = put(join(home, 'left', 'b.bin'));
    const cacheItem: Item = {
      id: 'cache:x',
      category: 'cache',
      label: 'x',
      paths: [join(home, 'cache')],
      bytes: 1,
      risk: 'safe',
      recoverable: true,
      selectable: true,
      metadata: {},
    };
    const after = new Snapshot(
      'pi',
      inst(home),
      { sessions: [sessionRecord('listed', [])], items: [cacheItem], projects: [], warnings: [], writers: [] },
      Date.now(),
      0,
    );
    const plan = {
      items: [
        planItem('session:listed', []),
        planItem('session:cached', [kept]),
        planItem('session:left', [leftOnly]),
        planItem('session:gone', [join(home, 'nope')]),
      ],
    } as unknown as CleanupPlan;
    const r = await proveResidue(plan, after, t.ctx);
    expect(r).toEqual([
      { id: 'session:listed', label: 'session:listed', verdict: 'partial', surfaces: [{ surface: 'list', why: 'listed' }] },
      {
        id: 'session:cached',
        label: 'session:cached',
        verdict: 'partial',
        surfaces: [{ surface: 'file', path: kept, why: 'followUp', followUpId: 'cache:x' }],
      },
      { id: 'session:left', label: 'session:left', verdict: 'partial', surfaces: [{ surface: 'file', path: leftOnly, why: 'noRoute' }] },
      { id: 'session:gone', label: 'session:gone', verdict: 'complete', surfaces: [] },
    ]);
  });

  it("a probe's surfaces join the verdict; a follow-up it names that the scan does not offer is noRoute; a probe that throws proves nothing", async () => {
    t = makeTempEnv('cleanerx-res-');
    const after = new Snapshot('pi', inst(t.env.HOME!), { sessions: [], items: [], projects: [], warnings: [], writers: [] }, Date.now(), 0);
    const plan = { items: [planItem('session:a', [])] } as unknown as CleanupPlan;
    const named = await proveResidue(plan, after, t.ctx, {
      sessions: async () => new Map([['a', [{ surface: 'memory', path: '/m.sqlite', why: 'noRoute' as const, followUpId: 'memory:global', count: 2 }]]]),
    });
    expect(named[0]).toMatchObject({ verdict: 'partial', surfaces: [{ surface: 'memory', path: '/m.sqlite', why: 'noRoute', count: 2 }] });
    expect(named[0]!.surfaces[0]!.followUpId).toBeUndefined();
    const thrown = await proveResidue(plan, after, t.ctx, {
      sessions: async () => {
        throw new Error('boom');
      },
    });
    expect(thrown[0]).toMatchObject({ verdict: 'partial', surfaces: [{ surface: 'probe', why: 'unreadable' }] });
  });
});

describe('agent probes on hand-made stores', () => {
  it('Claude: transcript, an older copy in another project, the archive mark, file-history, todos and the temp folder; nothing changed', async () => {
    t = makeTempEnv('cleanerx-res-claude-');
    const home = t.env.CLAUDE_CONFIG_DIR!;
    const id = '0b5a3c1e-1111-4222-8333-944455556666';
    const other = '7c5a3c1e-1111-4222-8333-944455556666';
    const transcript = put(join(home, 'projects', '-a', `${id}.jsonl`));
    const copy = put(join(home, 'projects', '-b', `${id}.jsonl`));
    put(join(home, 'projects', '-a', `${other}.jsonl`));
    const mark = put(join(home, 'projects', '-a', id, 'archived.json'), '{}');
    const fh = join(home, 'file-history', id);
    put(join(fh, 'v1'));
    const todo = put(join(home, 'todos', `${id}-agent-${id}.json`), '[]');
    const tmp = join(t.root, 'ctmp');
    const task = join(tmp, `claude-${t.ctx.uid}`, '-a', id);
    put(join(task, 'tasks', 'x.output'));
    const ctx = { ...t.ctx, env: { ...t.ctx.env, CLAUDE_CODE_TMPDIR: tmp } };
    const before = hashTree(t.root);
    const r = await claudeResidue({ ...inst(home), agent: 'claude' }, ctx, [{ id, paths: [transcript] }]);
    expect(new Set(r.get(id)!.map((s) => `${s.surface} ${s.path}`))).toEqual(
      new Set([`transcript ${transcript}`, `otherProjectCopy ${copy}`, `archivedMark ${mark}`, `fileHistory ${fh}`, `todos ${todo}`, `tempRoot ${task}`]),
    );
    expect(hashTree(t.root)).toEqual(before);
    // Gone from all of them: nothing to report.
    expect(
      (await claudeResidue({ ...inst(home), agent: 'claude' }, ctx, [{ id: '9c5a3c1e-1111-4222-8333-944455556666', paths: [] }])).get(
        '9c5a3c1e-1111-4222-8333-944455556666',
      ),
    ).toEqual([]);
  });

  it('pi: the session file in any bucket and checkpoints/<id>/', async () => {
    t = makeTempEnv('cleanerx-res-pi-');
    const home = t.env.PI_CODING_AGENT_DIR!;
    const id = '01a18fc6-fc99-711f-9d30-f9c67064b0c5';
    const file = put(join(home, 'sessions', '--home-u-x--', `2026-01-01T00-00-00-000Z_${id}.jsonl`));
    const cp = join(home, 'checkpoints', id);
    put(join(cp, 'blobs', 'ab'));
    const r = await piResidue(inst(home), [{ id, paths: [] }]);
    expect(r.get(id)).toEqual([
      { surface: 'sessionFile', path: file, why: 'noRoute' },
      { surface: 'checkpoints', path: cp, why: 'noRoute' },
    ]);
  });
});
