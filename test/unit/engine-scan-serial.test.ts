// Scans of one agent run one after another (the Overview's background scans
// and the app's own may ask at once; two walks of one store at a time would
// race their snapshots), scans of different agents side by side, and a failed
// scan does not block the next one of its agent. The real adapters scan real
// fixture homes; each scan call is wrapped only to record when it runs.

import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { ADAPTERS } from '../../src/adapters/registry.js';
import { buildClaudeFixture } from '../../src/adapters/claude/fixture.js';
import { buildPiFixture } from '../../src/adapters/pi/fixture.js';
import { Engine } from '../../src/engine/api/engine.js';
import type { AgentAdapter } from '../../src/engine/core/adapter.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
afterEach(() => t?.cleanup());

/** The adapters, with every scan recorded as `start agent` / `end agent`; `gate` holds a scan until released. */
function recording(events: string[], failFirst?: string) {
  const gates: (() => void)[] = [];
  let failed = false;
  const adapters = ADAPTERS.map(
    (a): AgentAdapter => ({
      ...a,
      scan: async (inst, ctx, onProgress) => {
        events.push(`start ${a.kind}`);
        // Held until the test lets it go, so an overlap would show in the events.
        await new Promise<void>((r) => gates.push(r));
        try {
          if (a.kind === failFirst && !failed) {
            failed = true;
            throw new Error('the first scan fails');
          }
          return await a.scan(inst, ctx, onProgress);
        } finally {
          events.push(`end ${a.kind}`);
        }
      },
    }),
  );
  /** Releases every held scan until all of `done` settled. */
  const drain = async (done: Promise<unknown>[]): Promise<void> => {
    let settled = false;
    void Promise.allSettled(done).then(() => (settled = true));
    while (!settled) {
      gates.splice(0).forEach((g) => g());
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  return { adapters, drain, held: () => gates.length };
}

function homes(): void {
  t = makeTempEnv('cleanerx-scan-serial-');
  buildPiFixture({ agentDir: t.env.PI_CODING_AGENT_DIR!, cwdRoot: join(t.env.HOME!, 'src'), projects: 1, sessionsPerProject: 2, seed: 3 });
  buildClaudeFixture({ configDir: t.env.CLAUDE_CONFIG_DIR!, projects: 1, sessionsPerProject: 2, bodyBytes: 200, cwdRoot: join(t.env.HOME!, 'code') });
}

it('two scans of one agent run in turn; scans of two agents run side by side', async () => {
  homes();
  const events: string[] = [];
  const r = recording(events);
  const engine = new Engine(r.adapters, t.ctx);
  const scans = [engine.scan('pi'), engine.scan('pi'), engine.scan('claude')];
  // Let both first scans reach their adapters: pi's second must still wait.
  for (let i = 0; i < 200 && r.held() < 2; i++) await new Promise((res) => setTimeout(res, 5));
  expect(events.slice().sort()).toEqual(['start claude', 'start pi']);
  await r.drain(scans);
  const [a, b, c] = await Promise.all(scans);
  const pi = events.filter((e) => e.endsWith(' pi'));
  expect(pi).toEqual(['start pi', 'end pi', 'start pi', 'end pi']);
  expect(a.agent).toBe('pi');
  expect(b.snapshotId).not.toBe(a.snapshotId);
  expect(c.agent).toBe('claude');
});

it("a scan that fails does not hold back its agent's next scan", async () => {
  homes();
  const events: string[] = [];
  const r = recording(events, 'pi');
  const engine = new Engine(r.adapters, t.ctx);
  const first = engine.scan('pi');
  const second = engine.scan('pi');
  await r.drain([first.catch(() => undefined), second]);
  await expect(first).rejects.toThrow('the first scan fails');
  expect((await second).agent).toBe('pi');
  expect(events).toEqual(['start pi', 'end pi', 'start pi', 'end pi']);
});
