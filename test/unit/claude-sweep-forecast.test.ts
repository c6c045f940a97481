// Claude's own sweep, forecast (issue #29 part 6): cleanupPeriodDays as the
// pinned Claude Code resolves it. For every rule the pinned SDK's own
// settings engine (resolveSettings of @anthropic-ai/claude-agent-sdk 0.3.333,
// the CLI's merge) is asked on the same files, and cleanerx must agree:
// the default, each source overriding the one below, invalid and
// out-of-range values (the whole file ignored, the next source applies), a
// file that is not JSON, managed settings on top. Then the forecast: the
// sessions whose transcript is older than the period are those listed.

import { mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveSettings } from '@anthropic-ai/claude-agent-sdk';
import { claudeSweep } from '../../src/adapters/claude/sweep.js';
import { ADAPTERS } from '../../src/adapters/registry.js';
import { Engine } from '../../src/engine/api/engine.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
const saved = { HOME: process.env.HOME, CLAUDE_CONFIG_DIR: process.env.CLAUDE_CONFIG_DIR };
beforeEach(() => {
  t = makeTempEnv();
  // The SDK reads the user settings where a Claude started with this environment would.
  process.env.HOME = t.env.HOME;
  process.env.CLAUDE_CONFIG_DIR = t.env.CLAUDE_CONFIG_DIR;
});
afterEach(() => {
  process.env.HOME = saved.HOME;
  process.env.CLAUDE_CONFIG_DIR = saved.CLAUDE_CONFIG_DIR;
  t.cleanup();
});

interface Files {
  user?: string;
  project?: string;
  local?: string;
  managed?: string;
}

async function both(f: Files): Promise<{ ours: unknown; theirs: unknown; written?: string }> {
  const home = t.env.CLAUDE_CONFIG_DIR!;
  const cwd = join(t.root, 'work', 'app');
  const managedDir = join(t.root, 'managed');
  mkdirSync(join(cwd, '.claude'), { recursive: true });
  mkdirSync(home, { recursive: true });
  mkdirSync(managedDir, { recursive: true });
  const put = (p: string, v: string | undefined): void => (v === undefined ? rmSync(p, { force: true }) : writeFileSync(p, v));
  put(join(home, 'settings.json'), f.user);
  put(join(cwd, '.claude', 'settings.json'), f.project);
  put(join(cwd, '.claude', 'settings.local.json'), f.local);
  put(join(managedDir, 'managed-settings.json'), f.managed);
  const sweep = await claudeSweep(home, { cwd, managedDir });
  // The managed tier reaches the SDK as server-managed settings (same trust level as the managed file; no /etc in a test).
  const r = await resolveSettings({ cwd, ...(f.managed ? { serverManagedSettings: JSON.parse(f.managed) } : {}) });
  return { ours: sweep.sessionDays, theirs: r.effective.cleanupPeriodDays ?? 30, written: sweep.written };
}

const days = (n: unknown): string => JSON.stringify({ cleanupPeriodDays: n });

describe('cleanupPeriodDays as the pinned Claude Code resolves it', () => {
  it('the default: 30 days when no file sets it', async () => {
    const r = await both({ user: '{"model":"opus"}' });
    expect(r.ours).toBe(r.theirs);
    expect(r.ours).toBe(30);
  });

  it('user settings.json', async () => {
    const r = await both({ user: days(99999) });
    expect(r.ours).toBe(r.theirs);
    expect(r.ours).toBe(99999);
    expect(r.written).toBeUndefined();
  });

  it('project settings override the user file, local settings override both', async () => {
    const p = await both({ user: days(7), project: days(14) });
    expect(p.ours).toBe(p.theirs);
    expect(p.ours).toBe(14);
    expect(p.written).toMatch(/settings\.json says 7, overridden/);
    const l = await both({ user: days(7), project: days(14), local: days(3) });
    expect(l.ours).toBe(l.theirs);
    expect(l.ours).toBe(3);
  });

  it('managed settings win over every file', async () => {
    const r = await both({ user: days(7), project: days(14), managed: days(60) });
    expect(r.ours).toBe(r.theirs);
    expect(r.ours).toBe(60);
  });

  it.each([0, -1, 1.5, '30', null])('an invalid value (%s) drops its whole file: the next source applies', async (bad) => {
    const over = await both({ user: days(7), project: days(bad) });
    expect(over.ours).toBe(over.theirs);
    expect(over.ours).toBe(7);
    const alone = await both({ user: days(bad) });
    expect(alone.ours).toBe(alone.theirs);
    expect(alone.ours).toBe(30);
    expect(alone.written).toMatch(/which Claude rejects/);
  });

  it('out of range: 1e400 is not a whole number; a file that is not JSON is ignored', async () => {
    const huge = await both({ user: '{"cleanupPeriodDays": 1e400}' });
    expect(huge.ours).toBe(huge.theirs);
    expect(huge.ours).toBe(30);
    const broken = await both({ user: days(7), project: '{"cleanupPeriodDays": 3,' });
    expect(broken.ours).toBe(broken.theirs);
    expect(broken.ours).toBe(7);
    const array = await both({ user: '[1]', local: days(5) });
    expect(array.ours).toBe(array.theirs);
    expect(array.ours).toBe(5);
  });
});

describe('the forecast', () => {
  it('lists the transcripts older than the period: those Claude deletes at its next start', async () => {
    const home = t.env.CLAUDE_CONFIG_DIR!;
    const now = Date.UTC(2026, 11, 2, 12);
    const proj = join(home, 'projects', '-work-app');
    mkdirSync(proj, { recursive: true });
    writeFileSync(join(home, 'settings.json'), days(10));
    const ages: Record<string, number> = {};
    for (const age of [1, 9, 11, 40]) {
      const id = randomUUID();
      const p = join(proj, `${id}.jsonl`);
      writeFileSync(p, JSON.stringify({ type: 'user', sessionId: id, cwd: '/work/app', message: { role: 'user', content: `age ${age}` } }) + '\n');
      const m = (now - age * 86_400_000) / 1000;
      utimesSync(p, m, m);
      ages[id] = age;
    }
    const engine = new Engine(ADAPTERS, { ...t.ctx, now: () => now });
    const sum = await engine.scan('claude');
    expect(sum.sweepForecast).toMatchObject({ days: 10, sessions: 2 });
    const due = (await engine.matchIds(sum.snapshotId, { updated: 'agentSweep' })).ids.map((id) => ages[id.replace(/^session:/, '')]);
    expect(due.sort((a, b) => a! - b!)).toEqual([11, 40]);
    await engine.close();
  });
});
