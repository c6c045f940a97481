// The engine side of the one review (#28.1): planGroup keeps one plan per
// agent, every one executable in turn (plan() keeps only its own, so a
// second agent's plan() made the first one's stale); latestSnapshot names
// the snapshot a kept summary must still match, and moves with a rescan.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { ADAPTERS } from '../../src/adapters/registry.js';
import { buildClaudeFixture } from '../../src/adapters/claude/fixture.js';
import { buildPiFixture } from '../../src/adapters/pi/fixture.js';
import { Engine } from '../../src/engine/api/engine.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv | null = null;
afterEach(() => {
  t?.cleanup();
  t = null;
});

it('planGroup: one plan per agent, all kept, each executed in turn; one request per agent', async () => {
  t = makeTempEnv('cleanerx-plan-group-');
  const pi = buildPiFixture({
    agentDir: t.env.PI_CODING_AGENT_DIR!,
    projects: 1,
    sessionsPerProject: 2,
    forkRate: 0,
    bodyBytes: 200,
    cwdRoot: join(t.env.HOME!, 'src'),
  });
  const claude = buildClaudeFixture({ configDir: t.env.CLAUDE_CONFIG_DIR!, projects: 1, sessionsPerProject: 2, seed: 3, cwdRoot: join(t.env.HOME!, 'code') });
  const engine = new Engine(ADAPTERS, t.ctx);
  expect(await engine.latestSnapshot('pi')).toBeNull();
  const sp = await engine.scan('pi');
  const sc = await engine.scan('claude');
  expect(await engine.latestSnapshot('pi')).toBe(sp.snapshotId);
  const piId = `session:${pi.sessions[0]!.id}`;
  const claudeId = `session:${claude.sessions[0]!.id}`;
  const plans = await engine.planGroup([
    { snapshotId: sp.snapshotId, ids: [piId] },
    { snapshotId: sc.snapshotId, ids: [claudeId] },
  ]);
  expect(plans.map((p) => p.agent)).toEqual(['pi', 'claude']);
  expect(plans.every((p) => p.blockers.length === 0)).toBe(true);
  for (const p of plans) expect((await engine.execute(p.id)).status).toBe('complete');
  expect(existsSync(pi.sessions[0]!.file)).toBe(false);
  expect(existsSync(pi.sessions[1]!.file)).toBe(true);
  // The executor's rescan is the agent's newest snapshot now.
  expect(await engine.latestSnapshot('pi')).not.toBe(sp.snapshotId);
  await expect(engine.planGroup([])).rejects.toThrow(/at least one agent/);
  const again = await engine.scan('pi');
  await expect(
    engine.planGroup([
      { snapshotId: again.snapshotId, ids: [] },
      { snapshotId: again.snapshotId, ids: [] },
    ]),
  ).rejects.toThrow(/one request per agent/);
}, 120_000);
