// A scan changes nothing. With the real pinned agents' stores — Codex indexed
// by its own App Server, OpenCode's database made by opencode itself, Claude
// Code and pi homes — every inventory (`scan --json`, `scan --read-only`,
// `doctor`, `plan`, and the app's first screen) leaves every byte of every
// agent's home, database, WAL and side file as it was. Only cleanerx's own
// dirs may change.

import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_SERVER_START_NOTE } from '../../src/adapters/codex/scan.js';
import { buildClaudeFixture } from '../../src/adapters/claude/fixture.js';
import { buildPiFixture } from '../../src/adapters/pi/fixture.js';
import { openPty } from '../helpers/app-screen.js';
import { buildStore as buildCodexStore, CODEX_BIN, rawClient, serverListing } from '../helpers/codex.js';
import { CLI } from '../helpers/constants.js';
import { buildStore as buildOpencodeStore, makeTemplate, OPENCODE_BIN, type Template } from '../helpers/opencode.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';
import { budget } from '../helpers/budget.js';

let t: TempEnv;
let template: Template;
let env: Record<string, string>;

beforeAll(async () => {
  template = await makeTemplate();
  t = makeTempEnv('cleanerx-readonly-');
  buildPiFixture({
    agentDir: t.env.PI_CODING_AGENT_DIR!,
    projects: 2,
    sessionsPerProject: 3,
    seed: 2,
    forkRate: 0.3,
    config: true,
    cwdRoot: join(t.env.HOME!, 'src'),
  });
  buildClaudeFixture({ configDir: t.env.CLAUDE_CONFIG_DIR!, projects: 2, sessionsPerProject: 2, seed: 3, hostile: false, cwdRoot: join(t.env.HOME!, 'code') });
  buildOpencodeStore(t, template, { projects: 1, rootsPerProject: 2, messagesPerSession: 1 });
  buildCodexStore(t, { threads: 6, seed: 9 });
  // Codex indexes its store the first time its App Server runs (as it has on any machine where Codex was used): let it, then stop it.
  const c = await rawClient(t);
  try {
    expect((await serverListing(c)).length).toBeGreaterThan(3);
  } finally {
    await c.close();
  }
  await new Promise((r) => setTimeout(r, 300));
  // cleanerx's own dirs (and their parents) exist, as after any earlier run: only the agents' stores are compared.
  for (const d of [t.env.CLEANERX_STATE_DIR!, t.env.CLEANERX_CONFIG_DIR!, t.env.CLEANERX_DATA_DIR!]) mkdirSync(d, { recursive: true });
  // The temp dir beside the home, not above it, as on a user's machine: Codex makes no helper links in a home under the temp dir.
  mkdirSync(join(t.root, 'tmp'));
  env = {
    ...t.env,
    TMPDIR: join(t.root, 'tmp'),
    PATH: `${dirname(OPENCODE_BIN)}:${dirname(CODEX_BIN)}:${join(process.cwd(), 'node_modules', '.bin')}:/usr/bin:/bin`,
  };
}, budget(300_000));
afterAll(() => {
  t?.cleanup();
  template?.cleanup();
});

/** Every file outside cleanerx's own dirs, the temp dir and the fake /proc, by content, mode and size. */
function everythingElse(): Map<string, string> {
  return hashTree(t.root, [
    t.env.CLEANERX_STATE_DIR!,
    t.env.CLEANERX_CONFIG_DIR!,
    t.env.CLEANERX_DATA_DIR!,
    t.env.CLEANERX_CACHE_DIR ?? join(t.root, 'none'),
    t.procRoot,
    join(t.root, 'tmp'),
  ]);
}

function cli(args: string[]): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { env, encoding: 'utf8', input: '', timeout: budget(240_000), killSignal: 'SIGKILL' });
  return { status: r.status, out: r.stdout + r.stderr };
}

describe('every inventory leaves every agent store byte-identical', () => {
  for (const args of [
    ['scan', '--json'],
    ['scan', '--read-only'],
    ['doctor'],
    ['plan', '--agent', 'codex', '--older-than', '1d'],
    ['plan', '--agent', 'opencode', '--older-than', '1d'],
  ]) {
    it(`cleanerx ${args.join(' ')}`, { timeout: budget(240_000) }, () => {
      const before = everythingElse();
      const r = cli(args);
      expect(r.status, r.out).toBe(0);
      expect(treeDiff(before, everythingElse())).toEqual([]);
    });
  }

  it('a Codex plan says that its confirmed delete starts the App Server, and what Codex does as it starts; unconfirmed, nothing changes', {
    timeout: budget(240_000),
  }, () => {
    const report = JSON.parse(cli(['scan', '--agent', 'codex', '--json']).out) as { agents: { sessions?: { id: string; selectable: boolean }[] }[] };
    const id = report.agents[0]!.sessions!.find((x) => x.selectable)!.id;
    const before = everythingElse();
    const r = cli(['clean', '--agent', 'codex', '--id', id]);
    expect(r.status, r.out).toBe(2);
    expect(r.out).toContain(APP_SERVER_START_NOTE);
    expect(treeDiff(before, everythingElse())).toEqual([]);
  });

  it('the app, from its first screen until it quits', { timeout: budget(120_000) }, async () => {
    const before = everythingElse();
    const s = openPty({ args: [], env, cols: 100, rows: 30 });
    await s.waitFor('Sessions (', 60_000);
    await s.waitSettled();
    for (const key of [']', ']', ']']) {
      s.press(key);
      await s.waitSettled();
    }
    s.press('q');
    expect(await s.waitExit()).toBe(0);
    expect(treeDiff(before, everythingElse())).toEqual([]);
  });
});
