// Residue proof (#29.1, "Done means") against the agents' own listers: the
// Claude Agent SDK's listSessions() (0.3.333, JavaScript) and pi's
// SessionManager.listAll() (0.73.1). A deleted session is COMPLETE and the
// agent's lister no longer lists it; a session whose sidecar (Claude:
// projects/<bucket>/<id>/) or checkpoint folder (pi: checkpoints/<id>/) is
// written again by a stopped write, after the removal and before the verify
// step, is PARTIAL naming that surface and its path, and still not listed.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ADAPTERS } from '../../src/adapters/registry.js';
import { buildClaudeFixture } from '../../src/adapters/claude/fixture.js';
import { buildPiFixture } from '../../src/adapters/pi/fixture.js';
import { Engine } from '../../src/engine/api/engine.js';
import { atCrashPoints } from '../../src/engine/core/faults.js';
import { ROOT } from '../helpers/constants.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { budget } from '../helpers/budget.js';

let t: TempEnv;
afterEach(() => {
  atCrashPoints(null);
  t?.cleanup();
});

const CLAUDE_LISTER = fileURLToPath(new URL('./claude-list.mjs', import.meta.url));
const PI_LISTER = fileURLToPath(new URL('./pi-list-all.mjs', import.meta.url));
const PI_SM = join(ROOT, 'node_modules', '@mariozechner', 'pi-coding-agent', 'dist', 'core', 'session-manager.js');

function listed(lister: string, ...args: string[]): string[] {
  const r = spawnSync(process.execPath, [lister, ...args], { cwd: t.root, env: t.env, encoding: 'utf8', timeout: budget(60_000) });
  if (r.status !== 0) throw new Error(`lister failed (${r.status ?? r.signal}): ${r.stderr}`);
  const out = JSON.parse(r.stdout) as { sessionId?: string; id?: string }[] | { sessions: { id: string }[] };
  return (Array.isArray(out) ? out : out.sessions).map((s) => ('sessionId' in s && s.sessionId ? s.sessionId : s.id!));
}
const claudeListed = (): string[] => listed(CLAUDE_LISTER);
const piListed = (): string[] => listed(PI_LISTER, PI_SM);

/** Deletes one session through the engine; `lateWrite` runs after the removal, before the verify step. */
async function clean(agent: 'claude' | 'pi', id: string, lateWrite?: () => void) {
  const engine = new Engine(ADAPTERS, t.ctx);
  const sum = await engine.scan(agent);
  const itemId = `session:${id}`;
  expect(engine.snapshot(sum.snapshotId).session(itemId), itemId).toBeTruthy();
  const plan = await engine.plan(sum.snapshotId, [itemId]);
  expect(plan.blockers).toEqual([]);
  atCrashPoints((name) => {
    if (name === 'journal:verifying') lateWrite?.();
  });
  const r = await engine.execute(plan.id);
  atCrashPoints(null);
  return { r, itemId };
}

describe("Claude Code, against the Agent SDK's listSessions()", () => {
  function store() {
    t = makeTempEnv('cleanerx-res-claude-');
    const m = buildClaudeFixture({
      configDir: t.env.CLAUDE_CONFIG_DIR!,
      cwdRoot: join(t.env.HOME!, 'code'),
      projects: 2,
      sessionsPerProject: 4,
      seed: 21,
      hostile: false,
    });
    const copies = new Set(m.skipped.filter((k) => k.why.startsWith('older copy')).map((k) => k.path.slice(k.path.lastIndexOf('/') + 1, -'.jsonl'.length)));
    // A session with a sidecar folder of its own (subagents, tool results), listed by the SDK, with no older copy elsewhere.
    const victim = m.sessions
      .filter((s) => !copies.has(s.id) && s.ownedPaths.some((p) => p === join(t.env.CLAUDE_CONFIG_DIR!, 'projects', s.bucket, s.id)))
      .sort((a, b) => b.ownedPaths.length - a.ownedPaths.length)[0]!;
    expect(victim, 'a session with its own folder').toBeTruthy();
    expect(claudeListed()).toContain(victim.id);
    return { victim, sidecar: join(t.env.CLAUDE_CONFIG_DIR!, 'projects', victim.bucket, victim.id) };
  }

  it(
    'a deleted session is COMPLETE and the SDK no longer lists it',
    async () => {
      const { victim } = store();
      const before = claudeListed();
      const { r, itemId } = await clean('claude', victim.id);
      expect(r.status, r.message).toBe('complete');
      expect(r.residue).toEqual([{ id: itemId, label: expect.any(String), verdict: 'complete', surfaces: [] }]);
      expect(claudeListed().sort()).toEqual(before.filter((id) => id !== victim.id).sort());
    },
    budget(120_000),
  );

  it(
    'a sidecar folder written again after the removal is PARTIAL naming it; the SDK still does not list the session',
    async () => {
      const { victim, sidecar } = store();
      const { r, itemId } = await clean('claude', victim.id, () => {
        mkdirSync(join(sidecar, 'subagents'), { recursive: true });
        writeFileSync(join(sidecar, 'subagents', 'agent-late.jsonl'), '{"type":"user"}\n');
      });
      expect(r.residue).toHaveLength(1);
      const res = r.residue![0]!;
      expect(res).toMatchObject({ id: itemId, verdict: 'partial' });
      expect(res.surfaces, JSON.stringify(res.surfaces)).toContainEqual(expect.objectContaining({ surface: 'sidecar', path: sidecar }));
      expect(res.surfaces.some((s) => s.surface === 'list')).toBe(false);
      expect(existsSync(victim.file)).toBe(false);
      expect(claudeListed()).not.toContain(victim.id);
    },
    budget(120_000),
  );
});

describe('pi, against its SessionManager.listAll() (0.73.1)', () => {
  function store() {
    t = makeTempEnv('cleanerx-res-pi-');
    const home = t.env.PI_CODING_AGENT_DIR!;
    const m = buildPiFixture({ agentDir: home, cwdRoot: join(t.env.HOME!, 'src'), projects: 2, sessionsPerProject: 3, seed: 4, forkRate: 0 });
    const victim = m.sessions.find((s) => s.kind === 'root')!;
    // The rewind blobs a newer pi keeps per session: they go with it.
    const checkpoints = join(home, 'checkpoints', victim.id);
    mkdirSync(join(checkpoints, 'blobs'), { recursive: true });
    writeFileSync(join(checkpoints, 'blobs', 'ab12'), 'x'.repeat(5000));
    expect(piListed()).toContain(victim.id);
    return { victim, checkpoints };
  }

  it(
    'a deleted session (its checkpoints with it) is COMPLETE and pi no longer lists it',
    async () => {
      const { victim, checkpoints } = store();
      const before = piListed();
      const { r, itemId } = await clean('pi', victim.id);
      expect(r.status, r.message).toBe('complete');
      expect(r.residue).toEqual([{ id: itemId, label: expect.any(String), verdict: 'complete', surfaces: [] }]);
      expect(existsSync(checkpoints)).toBe(false);
      expect(piListed().sort()).toEqual(before.filter((id) => id !== victim.id).sort());
    },
    budget(120_000),
  );

  it(
    'a checkpoint folder written again after the removal is PARTIAL naming it; pi still does not list the session',
    async () => {
      const { victim, checkpoints } = store();
      const { r, itemId } = await clean('pi', victim.id, () => {
        mkdirSync(join(checkpoints, 'blobs'), { recursive: true });
        writeFileSync(join(checkpoints, 'blobs', 'cd34'), 'late');
      });
      expect(r.residue).toHaveLength(1);
      const res = r.residue![0]!;
      expect(res).toMatchObject({ id: itemId, verdict: 'partial' });
      expect(res.surfaces, JSON.stringify(res.surfaces)).toContainEqual(expect.objectContaining({ surface: 'checkpoints', path: checkpoints, why: 'noRoute' }));
      expect(res.surfaces.some((s) => s.surface === 'list')).toBe(false);
      expect(existsSync(victim.file)).toBe(false);
      expect(piListed()).not.toContain(victim.id);
    },
    budget(120_000),
  );
});
