// The archive CLI as a script uses it, through the real binary (dist/cli.js):
// `clean --archive ID --yes --json` (the JSON names the action), `--unarchive`,
// the usage errors (two targets, no --yes), and `plan --archive --json`
// writing a plan file whose action is archive, which `clean --plan FILE`
// runs. Claude Code fixture home; only the archive marks change.

import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { buildClaudeFixture, type ClaudeFixtureManifest } from '../../src/adapters/claude/fixture.js';
import { CLI } from '../helpers/constants.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';

let t: TempEnv;
let m: ClaudeFixtureManifest;
beforeEach(() => {
  t = makeTempEnv('cleanerx-archive-cli-');
  m = buildClaudeFixture({ configDir: t.env.CLAUDE_CONFIG_DIR!, projects: 1, sessionsPerProject: 3, seed: 4, cwdRoot: join(t.env.HOME!, 'code') });
});
afterEach(() => t.cleanup());

const run = (args: string[]) => spawnSync(process.execPath, [CLI, ...args], { env: t.env, encoding: 'utf8', input: '' });
const markOf = (id: string): string => join(t.env.CLAUDE_CONFIG_DIR!, 'projects', m.sessions.find((s) => s.id === id)!.bucket, id, 'archived.json');

it('clean --archive and --unarchive go through the plan, say the action in JSON, and change only the mark', async () => {
  const s = m.sessions.find((x) => !x.archived && !x.hiddenByClaude)!;
  const before = hashTree(t.env.CLAUDE_CONFIG_DIR!);

  const noYes = run(['clean', '--agent', 'claude', '--archive', s.id]);
  expect(noYes.status).toBe(2);
  expect(noYes.stderr).toMatch(/--yes to archive/);
  expect(run(['clean', '--agent', 'claude', '--archive', s.id, '--id', s.id, '--yes']).status).toBe(2);
  expect(treeDiff(before, hashTree(t.env.CLAUDE_CONFIG_DIR!))).toEqual([]);

  const r = run(['clean', '--agent', 'claude', '--archive', s.id, '--yes', '--json']);
  expect(r.status, r.stderr).toBe(0);
  expect(r.stderr).toMatch(/archive 1 session — frees 0 B, reversible/);
  const json = JSON.parse(r.stdout) as Record<string, unknown>;
  expect(json).toMatchObject({ status: 'complete', action: 'archive', removedItems: 0, removedBytes: 0 });
  expect(JSON.parse(readFileSync(markOf(s.id), 'utf8')).archived).toBe(true);
  const changed = treeDiff(before, hashTree(t.env.CLAUDE_CONFIG_DIR!));
  expect(
    changed.every((l) => l.includes(s.id)),
    changed.join('\n'),
  ).toBe(true);

  const u = run(['clean', '--agent', 'claude', '--unarchive', s.id, '--yes', '--json']);
  expect(u.status, u.stderr).toBe(0);
  expect(JSON.parse(u.stdout)).toMatchObject({ status: 'complete', action: 'unarchive' });
  expect(JSON.parse(readFileSync(markOf(s.id), 'utf8')).archived).toBe(false);
}, 120_000);

it('plan --archive writes a plan file whose action is archive; clean --plan runs it', async () => {
  const p = run(['plan', '--agent', 'claude', '--state', 'current', '--archive', '--json']);
  expect(p.status, p.stderr).toBe(0);
  const file = JSON.parse(p.stdout) as { action?: string; items: { id: string; bytes: number }[]; totals: { bytes: number } };
  expect(file.action).toBe('archive');
  expect(file.items.length).toBeGreaterThan(0);
  expect(file.totals.bytes).toBe(0);
  const path = join(t.root, 'archive-plan.json');
  writeFileSync(path, p.stdout);
  const r = run(['clean', '--plan', path, '--yes', '--json']);
  expect(r.status, r.stderr).toBe(0);
  expect(JSON.parse(r.stdout)).toMatchObject({ status: 'complete', action: 'archive', removedBytes: 0 });
  for (const i of file.items) expect(JSON.parse(readFileSync(markOf(i.id.slice('session:'.length)), 'utf8')).archived).toBe(true);

  // A tampered action is refused as usage of a bad file, nothing changed.
  writeFileSync(path, JSON.stringify({ ...JSON.parse(p.stdout), action: 'shred' }));
  const bad = run(['clean', '--plan', path, '--yes']);
  expect(bad.status).not.toBe(0);
  expect(bad.stderr).toMatch(/action is not archive or unarchive/);
}, 120_000);
