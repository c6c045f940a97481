// Layouts of newer pi builds, read only (#29.7): checkpoints/<session id>/
// goes with its session (paths, bytes, revision) and leaves with it in a
// cleanup; checkpoints of no listed session and sessions.sqlite are
// read-only rows with their bytes and "no route in this version".

import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { piAdapter } from '../../src/adapters/pi/index.js';
import { ADAPTERS } from '../../src/adapters/registry.js';
import { buildPiFixture } from '../../src/adapters/pi/fixture.js';
import { Engine } from '../../src/engine/api/engine.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';

let t: TempEnv;
afterEach(() => t?.cleanup());

it('checkpoints go with their session; the rest and sessions.sqlite are read-only rows', async () => {
  t = makeTempEnv();
  const home = t.env.PI_CODING_AGENT_DIR!;
  const m = buildPiFixture({ agentDir: home, projects: 1, sessionsPerProject: 3, seed: 7, forkRate: 0, cwdRoot: join(t.env.HOME!, 'src') });
  const s = m.sessions[0]!;
  const cp = join(home, 'checkpoints', s.id);
  mkdirSync(join(cp, 'blobs'), { recursive: true });
  writeFileSync(join(cp, 'blobs', 'a'.repeat(64)), 'x'.repeat(20_000));
  const stray = join(home, 'checkpoints', '019a0000-0000-7000-8000-000000000000');
  mkdirSync(stray);
  writeFileSync(join(stray, 'b'), 'y');
  writeFileSync(join(home, 'sessions.sqlite'), Buffer.alloc(8192, 1));

  const engine = new Engine(ADAPTERS, t.ctx);
  const sum = await engine.scan('pi');
  const snap = engine.snapshot(sum.snapshotId);
  const rec = snap.forest.nodeById.get(s.id)!.s;
  expect(rec.paths).toEqual([s.file, cp]);
  expect(rec.bytes).toBeGreaterThan(20_000);
  expect(snap.item('protected:pi:checkpoints')).toMatchObject({
    paths: [stray],
    selectable: false,
    blockedReason: expect.stringMatching(/no route in this version/),
  });
  expect(snap.item('protected:pi:sessions.sqlite')).toMatchObject({ paths: [join(home, 'sessions.sqlite')], selectable: false });

  const before = hashTree(home);
  const r = await engine.execute((await engine.plan(sum.snapshotId, [rec.itemId])).id);
  expect(r.status, r.message).toBe('complete');
  expect(existsSync(cp)).toBe(false);
  const changes = treeDiff(before, hashTree(home));
  for (const c of changes) expect(c === `removed ${s.file.slice(home.length + 1)}` || c.startsWith(`removed checkpoints/${s.id}`), c).toBe(true);
  expect(existsSync(stray)).toBe(true);
  // The rescan lists every other session.
  expect((await piAdapter.scan({ ...snap.installation }, t.ctx, () => undefined)).sessions).toHaveLength(m.sessions.length - 1);
}, 60_000);
