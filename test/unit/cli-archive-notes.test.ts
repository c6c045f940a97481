// Archive wording and hints on the command line (#27 part 5), through the
// real binary: `plan --archive`'s "to run exactly this plan" hint keeps
// --archive (following it makes the same archive plan, not a delete plan);
// pi, which has no archive route, is refused in one sentence (exit 2) by
// plan, plan --json and clean, and is never said to archive; OpenCode 1.18's
// archive is never called reversible or "can be unarchived", and its missing
// unarchive is refused; Codex's notes say that its archive and unarchive
// take the spawned subagent threads along, and that its unarchive marks the
// threads as just used — each checked against the real Codex.

import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resetSocketBypass } from '../../src/adapters/codex/connection.js';
import { buildClaudeFixture } from '../../src/adapters/claude/fixture.js';
import { buildPiFixture } from '../../src/adapters/pi/fixture.js';
import { buildStore as buildCodexStore, CODEX_BIN, rawClient, serverListing } from '../helpers/codex.js';
import { CLI } from '../helpers/constants.js';
import { buildStore as buildOpencodeStore, makeTemplate, OPENCODE_BIN, opencodeEnv, type Template } from '../helpers/opencode.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';

let t: TempEnv;
afterEach(() => {
  resetSocketBypass();
  t?.cleanup();
});

function run(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [CLI, ...args], { env: { ...t.env, ...env }, encoding: 'utf8', input: '' });
}

interface ScanSession {
  id: string;
  parentId: string | null;
  state: string;
  selectable: boolean;
  updatedAt: string | null;
}
const sessionsOf = (r: { stdout: string }): ScanSession[] => (JSON.parse(r.stdout) as { agents: { sessions: ScanSession[] }[] }).agents[0]!.sessions;

describe('plan --archive: the hint runs exactly this plan', () => {
  it('carries --archive (and --unarchive), and following it makes the same archive plan', () => {
    t = makeTempEnv('cleanerx-archive-hint-');
    buildClaudeFixture({ configDir: t.env.CLAUDE_CONFIG_DIR!, projects: 1, sessionsPerProject: 3, seed: 4, cwdRoot: join(t.env.HOME!, 'code') });
    const text = run(['plan', '--agent', 'claude', '--state', 'current', '--archive']);
    expect(text.status, text.stderr).toBe(0);
    const hint = /To run exactly this plan: cleanerx (.*) > plan\.json, then cleanerx clean --plan plan\.json --yes$/m.exec(text.stdout);
    expect(hint, text.stdout).toBeTruthy();
    const args = hint![1]!.split(' ');
    expect(args).toContain('--archive');
    const followed = run(args);
    expect(followed.status, followed.stderr).toBe(0);
    const file = JSON.parse(followed.stdout) as { action?: string; items: { id: string }[] };
    expect(file.action).toBe('archive');
    const direct = JSON.parse(run(['plan', '--agent', 'claude', '--state', 'current', '--archive', '--json']).stdout) as { items: { id: string }[] };
    expect(file.items.map((i) => i.id)).toEqual(direct.items.map((i) => i.id));
    // Once one is archived, the unarchive plan's hint keeps --unarchive.
    const one = file.items[0]!.id;
    expect(run(['clean', '--agent', 'claude', '--archive', one, '--yes']).status).toBe(0);
    expect(run(['plan', '--agent', 'claude', '--state', 'archived', '--unarchive']).stdout).toMatch(
      /cleanerx plan --agent claude --state archived --unarchive --json > plan\.json/,
    );
  });
});

describe('pi has no archive route', () => {
  it('plan --archive (text and --json), plan --unarchive and clean --archive are refused in one sentence, exit 2, nothing written', () => {
    t = makeTempEnv('cleanerx-archive-pi-');
    const m = buildPiFixture({
      agentDir: t.env.PI_CODING_AGENT_DIR!,
      projects: 2,
      sessionsPerProject: 3,
      forkRate: 0.5,
      now: Date.now(),
      cwdRoot: join(t.env.HOME!, 'src'),
    });
    const before = hashTree(t.root);
    for (const args of [
      ['plan', '--agent', 'pi', '--older-than', '1d', '--archive'],
      ['plan', '--agent', 'pi', '--older-than', '1d', '--archive', '--json'],
      ['clean', '--agent', 'pi', '--archive', m.sessions[0]!.id],
      ['clean', '--agent', 'pi', '--archive', m.sessions[0]!.id, '--yes'],
    ]) {
      const r = run(args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stdout, args.join(' ')).toBe('');
      expect(r.stderr).toBe('cleanerx: pi has no official archive route in this version.\n');
    }
    const un = run(['plan', '--agent', 'pi', '--older-than', '1d', '--unarchive']);
    expect(un.status).toBe(2);
    expect(un.stderr).toBe('cleanerx: pi has no official unarchive route in this version.\n');
    expect(treeDiff(before, hashTree(t.root))).toEqual([]);
  });
});

describe('OpenCode 1.18.33 archives one way', () => {
  let template: Template;
  beforeAll(async () => {
    template = await makeTemplate();
  }, 180_000);
  afterAll(() => template?.cleanup());

  it('its archive is never said to be reversible or undoable; its unarchive is refused in one sentence', () => {
    t = makeTempEnv('cleanerx-archive-opencode-');
    buildOpencodeStore(t, template);
    const env = { ...opencodeEnv(t), PATH: `${dirname(OPENCODE_BIN)}:/usr/bin:/bin` };
    const run = (args: string[]) => spawnSync(process.execPath, [CLI, ...args], { env, encoding: 'utf8', input: '' });
    const scan = run(['scan', '--agent', 'opencode', '--json']);
    expect(scan.status, scan.stderr).toBe(0);
    const s = sessionsOf(scan).find((x) => x.state === 'current' && x.selectable && !x.parentId)!;
    expect(s).toBeTruthy();

    const clean = run(['clean', '--agent', 'opencode', '--archive', s.id]);
    expect(clean.status).toBe(2);
    const all = clean.stdout + clean.stderr;
    expect(all).not.toMatch(/can be unarchived|reversible/i);
    expect(clean.stdout).toContain('OpenCode: archive 1 session — frees 0 B; OpenCode cannot unarchive them');
    expect(clean.stdout).toContain(
      "Sessions are archived by OpenCode's own route: they stay on disk, but OpenCode has no unarchive, so they cannot be brought back into its list.",
    );
    expect(clean.stderr).toBe('cleanerx: Add --yes to archive these sessions (nothing is removed, but OpenCode cannot unarchive them).\n');

    const plan = run(['plan', '--agent', 'opencode', '--state', 'current', '--archive']);
    expect(plan.status, plan.stderr).toBe(0);
    expect(plan.stdout).not.toMatch(/can be unarchived|reversible/i);
    const json = JSON.parse(run(['plan', '--agent', 'opencode', '--state', 'current', '--archive', '--json']).stdout) as { notes: string[] };
    expect(json.notes.join(' ')).not.toMatch(/can be unarchived|reversible/i);

    const un = run(['plan', '--agent', 'opencode', '--state', 'archived', '--unarchive']);
    expect(un.status).toBe(2);
    expect(un.stdout).toBe('');
    expect(un.stderr).toBe('cleanerx: OpenCode 1.18 has no official unarchive (its server keeps a session archived), so cleanerx cannot offer one.\n');
  }, 120_000);
});

describe('Codex archives and unarchives the subagents a thread spawned', () => {
  it('the notes say so, with the count, and that unarchive marks them as just used; Codex does exactly that', async () => {
    t = makeTempEnv('cleanerx-archive-codex-');
    buildCodexStore(t, { threads: 8, subagentRate: 0.8, seed: 11 });
    const env = { PATH: `${dirname(CODEX_BIN)}:/usr/bin:/bin` };
    const sessions = sessionsOf(run(['scan', '--agent', 'codex', '--json'], env));
    const kids = (id: string): string[] => sessions.filter((s) => s.parentId === id).flatMap((s) => [s.id, ...kids(s.id)]);
    const root = sessions.find((s) => !s.parentId && s.state === 'current' && s.selectable && kids(s.id).length > 1)!;
    expect(root, JSON.stringify(sessions)).toBeTruthy();
    const spawned = kids(root.id);

    const preview = run(['clean', '--agent', 'codex', '--archive', root.id], env);
    expect(preview.status, preview.stderr).toBe(2);
    expect(preview.stdout).toContain(`Codex also archives the ${spawned.length} subagent sessions they spawned.`);
    expect(preview.stdout).toContain('Codex: archive 1 session — frees 0 B, reversible');
    const done = run(['clean', '--agent', 'codex', '--archive', root.id, '--yes', '--json'], env);
    expect(done.status, done.stderr).toBe(0);
    const c = await rawClient(t);
    try {
      const listed = new Map((await serverListing(c)).map((s) => [s.id, s.archived]));
      for (const id of [root.id, ...spawned]) expect(listed.get(id), id).toBe(true);
    } finally {
      await c.close();
    }

    const before = new Map(sessionsOf(run(['scan', '--agent', 'codex', '--json'], env)).map((s) => [s.id, s.updatedAt]));
    const back = run(['clean', '--agent', 'codex', '--unarchive', root.id], env);
    expect(back.status, back.stderr).toBe(2);
    expect(back.stdout).toContain(`Codex also unarchives the ${spawned.length} subagent sessions they spawned.`);
    expect(back.stdout).toContain(
      'Codex marks every session it unarchives as just used (its updated time becomes now), so each looks freshly used: --older-than will not select it until it ages again.',
    );
    const planText = run(['plan', '--agent', 'codex', '--state', 'archived', '--unarchive'], env);
    expect(planText.stdout).toContain('Codex marks every session it unarchives as just used');
    const started = Date.now();
    expect(run(['clean', '--agent', 'codex', '--unarchive', root.id, '--yes'], env).status).toBe(0);
    const after = sessionsOf(run(['scan', '--agent', 'codex', '--json'], env));
    for (const id of [root.id, ...spawned]) {
      const s = after.find((x) => x.id === id)!;
      expect(s.state, id).toBe('current');
      expect(s.updatedAt, id).not.toBe(before.get(id));
      expect(Date.parse(s.updatedAt!), id).toBeGreaterThanOrEqual(Math.floor(started / 1000) * 1000 - 1000);
    }
  }, 180_000);
});
