// Claude Code's plugin cache (#29.2): version folders installed_plugins.json
// no longer names (superseded, or marked .orphaned_at) and old temp_git_*
// folders of interrupted installs are safe items; the installed version and
// the rest of plugins/ stay protected. A cleanup removes exactly them; an
// unreadable installed_plugins.json offers nothing; a running Claude blocks.

import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { PLUGIN_TEMP_ITEM, PLUGIN_VERSIONS_ITEM } from '../../src/adapters/claude/plugin-cache.js';
import { CLAUDE_RUNNING_REASON } from '../../src/adapters/claude/writers.js';
import { ADAPTERS } from '../../src/adapters/registry.js';
import { buildClaudeFixture } from '../../src/adapters/claude/fixture.js';
import { Engine } from '../../src/engine/api/engine.js';
import { fakeProcess, makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';

let t: TempEnv;
afterEach(() => t?.cleanup());

function store() {
  t = makeTempEnv();
  const home = t.env.CLAUDE_CONFIG_DIR!;
  buildClaudeFixture({ configDir: home, projects: 1, sessionsPerProject: 1, seed: 5, hostile: false, cwdRoot: join(t.env.HOME!, 'code') });
  const cache = join(home, 'plugins', 'cache', 'official');
  const version = (v: string, files = 3): string => {
    const d = join(cache, 'review-kit', v);
    mkdirSync(join(d, 'skills'), { recursive: true });
    for (let i = 0; i < files; i++) writeFileSync(join(d, 'skills', `s${i}.md`), `${v} ${i}\n`.repeat(400));
    return d;
  };
  const old = [version('1.0.0'), version('1.1.0')];
  writeFileSync(join(old[1]!, '.orphaned_at'), '1764000000000');
  const installed = version('1.2.0');
  writeFileSync(
    join(home, 'plugins', 'installed_plugins.json'),
    JSON.stringify({ version: 2, plugins: { 'review-kit@official': [{ scope: 'user', installPath: installed, version: '1.2.0' }] } }),
  );
  const hour = 3600;
  const tempOld = join(home, 'plugins', 'cache', 'temp_git_1764000000_ab12');
  const tempFresh = join(home, 'plugins', 'cache', 'temp_git_1764999999_cd34');
  for (const d of [tempOld, tempFresh]) {
    mkdirSync(d, { recursive: true });
    writeFileSync(join(d, 'pack'), 'x'.repeat(9000));
  }
  utimesSync(tempOld, Date.now() / 1000 - 3 * hour, Date.now() / 1000 - 3 * hour);
  return { home, old, installed, tempOld, tempFresh };
}

it('offers the versions nothing installs and old install leftovers; a cleanup removes exactly them', async () => {
  const s = store();
  const engine = new Engine(ADAPTERS, t.ctx);
  const sum = await engine.scan('claude');
  const snap = engine.snapshot(sum.snapshotId);
  const versions = snap.item(PLUGIN_VERSIONS_ITEM)!;
  expect(versions).toMatchObject({ category: 'cache', risk: 'safe', selectable: true });
  expect([...versions.paths].sort()).toEqual([...s.old].sort());
  expect(snap.item(PLUGIN_TEMP_ITEM)!.paths).toEqual([s.tempOld]);
  const protectedPaths = snap.items.filter((i) => i.category === 'protected').flatMap((i) => i.paths);
  for (const p of [s.installed, s.tempFresh, join(s.home, 'plugins', 'installed_plugins.json')]) expect(protectedPaths, p).toContain(p);

  const before = hashTree(s.home);
  const plan = await engine.plan(sum.snapshotId, [PLUGIN_VERSIONS_ITEM, PLUGIN_TEMP_ITEM]);
  expect(plan.blockers).toEqual([]);
  const r = await engine.execute(plan.id);
  expect(r.status, r.message).toBe('complete');
  const changes = treeDiff(before, hashTree(s.home));
  const planned = [...s.old, s.tempOld].map((p) => p.slice(s.home.length + 1));
  expect(changes.every((c) => c.startsWith('removed '))).toBe(true);
  for (const c of changes)
    expect(
      planned.some((p) => c === `removed ${p}` || c.startsWith(`removed ${p}/`)),
      c,
    ).toBe(true);
  expect(changes.length).toBeGreaterThan(planned.length);
  const again = engine.snapshot((await engine.scan('claude')).snapshotId);
  expect(again.item(PLUGIN_VERSIONS_ITEM)).toBeUndefined();
}, 60_000);

it('an installed_plugins.json that cannot be read offers nothing: plugins/ stays protected whole', async () => {
  const s = store();
  writeFileSync(join(s.home, 'plugins', 'installed_plugins.json'), '{"version": 2, "plugins": ');
  const engine = new Engine(ADAPTERS, t.ctx);
  const snap = engine.snapshot((await engine.scan('claude')).snapshotId);
  expect(snap.item(PLUGIN_VERSIONS_ITEM)).toBeUndefined();
  expect(snap.item(PLUGIN_TEMP_ITEM)).toBeUndefined();
  expect(snap.item('protected:claude:plugins')!.paths).toEqual([join(s.home, 'plugins')]);
}, 60_000);

it('a running Claude blocks both', async () => {
  store();
  fakeProcess(t.procRoot, 4242, 'claude', ['claude']);
  const engine = new Engine(ADAPTERS, t.ctx);
  const snap = engine.snapshot((await engine.scan('claude')).snapshotId);
  for (const id of [PLUGIN_VERSIONS_ITEM, PLUGIN_TEMP_ITEM])
    expect(snap.item(id)).toMatchObject({ selectable: false, blockedReason: expect.stringContaining(CLAUDE_RUNNING_REASON) });
}, 60_000);

it('a superseded version a running Claude still uses (a marker in its .in_use/) is not offered; an empty .in_use/ is no use', async () => {
  const s = store();
  // What Claude leaves in a version it superseded: an empty .in_use/ once its processes exited.
  mkdirSync(join(s.old[0]!, '.in_use'));
  // A process of another store still runs on this version: its marker.
  mkdirSync(join(s.old[1]!, '.in_use'));
  writeFileSync(join(s.old[1]!, '.in_use', '4242'), JSON.stringify({ pid: 4242 }));
  const engine = new Engine(ADAPTERS, t.ctx);
  const snap = engine.snapshot((await engine.scan('claude')).snapshotId);
  expect(snap.item(PLUGIN_VERSIONS_ITEM)!.paths).toEqual([s.old[0]]);
  const protectedPaths = snap.items.filter((i) => i.category === 'protected').flatMap((i) => i.paths);
  expect(protectedPaths).toContain(s.old[1]);
}, 60_000);
