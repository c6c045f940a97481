// Claude Code's plugin cache against the pinned Claude Code itself (#29.2,
// "Done means"): the real binary of the Agent SDK 0.3.333 (installed for
// this test only, scripts/ensure-peer-claude.mjs) installs a plugin from a
// local marketplace and updates it twice, offline (no network namespace when
// root, no login), so Claude lays out three cached versions and names the
// newest in installed_plugins.json. cleanerx offers exactly the two
// superseded versions, frees them, and `claude plugin list --json` still
// loads the installed one from the cache (its source repository moved away,
// so the cache copy is what loads), with no error; nothing else changes.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PLUGIN_VERSIONS_ITEM } from '../../src/adapters/claude/plugin-cache.js';
import { ADAPTERS } from '../../src/adapters/registry.js';
import { buildClaudeFixture } from '../../src/adapters/claude/fixture.js';
import { Engine } from '../../src/engine/api/engine.js';
// @ts-expect-error plain ESM script shared with `node scripts/ensure-peer-claude.mjs`
import { CLAUDE_BIN, ensurePeerClaude } from '../../scripts/ensure-peer-claude.mjs';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';
import { budget } from '../helpers/budget.js';

let t: TempEnv;
afterEach(() => t?.cleanup());

beforeAll(() => {
  const problem = (ensurePeerClaude as () => string | null)();
  if (problem) throw new Error(problem);
}, budget(600_000));

/** No network for Claude: its own namespace when root can make one. */
const NO_NET = process.getuid?.() === 0 && spawnSync('unshare', ['-n', 'true']).status === 0;

function claude(args: string[], cwd: string): { status: number | null; stdout: string; stderr: string } {
  const env = { ...t.env, DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_TELEMETRY: '1' };
  const [cmd, argv] = NO_NET ? ['unshare', ['-n', CLAUDE_BIN as string, ...args]] : [CLAUDE_BIN as string, args];
  const r = spawnSync(cmd, argv, { cwd, env, encoding: 'utf8', input: '', timeout: budget(120_000) });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function ok(args: string[], cwd: string): string {
  const r = claude(args, cwd);
  expect(r.status, `claude ${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(0);
  return r.stdout;
}

function git(cwd: string, ...args: string[]): void {
  const r = spawnSync('git', ['-c', 'user.email=t@example.invalid', '-c', 'user.name=t', '-c', 'init.defaultBranch=main', ...args], { cwd, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
}

interface Listed {
  id: string;
  version: string;
  enabled: boolean;
  installPath?: string;
  errors?: string[];
}

describe('the plugin cache as the pinned Claude Code lays it out', () => {
  it(
    'three cached versions: cleanerx frees the two superseded ones, and Claude still lists the installed one loading from the cache',
    async () => {
      t = makeTempEnv('cleanerx-claude-plugins-');
      const home = t.env.CLAUDE_CONFIG_DIR!;
      // A user's store (sessions in projects/) beside the plugins.
      buildClaudeFixture({ configDir: home, projects: 1, sessionsPerProject: 2, seed: 3, hostile: false, cwdRoot: join(t.env.HOME!, 'code') });
      // The plugin's own repository (a git URL source, so Claude copies it into its cache) and a local marketplace naming it.
      const repo = join(t.root, 'review-kit');
      const market = join(t.root, 'market');
      mkdirSync(join(repo, '.claude-plugin'), { recursive: true });
      mkdirSync(join(repo, 'skills', 'hello'), { recursive: true });
      mkdirSync(join(market, '.claude-plugin'), { recursive: true });
      writeFileSync(join(repo, 'skills', 'hello', 'SKILL.md'), '---\nname: hello\ndescription: says hello\n---\nHello.\n');
      const release = (v: string): void => {
        writeFileSync(join(repo, '.claude-plugin', 'plugin.json'), JSON.stringify({ name: 'review-kit', version: v, description: 'Review kit' }));
        writeFileSync(
          join(market, '.claude-plugin', 'marketplace.json'),
          JSON.stringify({
            name: 'testmarket',
            owner: { name: 'Test' },
            plugins: [{ name: 'review-kit', source: { source: 'url', url: `file://${repo}` }, description: 'Review kit', version: v }],
          }),
        );
        git(repo, 'add', '-A');
        git(repo, 'commit', '-qm', v);
      };
      git(repo, 'init', '-q');
      release('1.0.0');
      ok(['plugin', 'marketplace', 'add', market], t.root);
      ok(['plugin', 'install', 'review-kit@testmarket'], t.root);
      for (const v of ['1.1.0', '1.2.0']) {
        release(v);
        ok(['plugin', 'marketplace', 'update', 'testmarket'], t.root);
        expect(ok(['plugin', 'update', 'review-kit@testmarket'], t.root)).toContain(v);
      }

      // What Claude laid out: every version kept, the newest named as installed.
      const versions = join(home, 'plugins', 'cache', 'testmarket', 'review-kit');
      expect(readdirSync(versions).sort()).toEqual(['1.0.0', '1.1.0', '1.2.0']);
      const installed = JSON.parse(readFileSync(join(home, 'plugins', 'installed_plugins.json'), 'utf8')) as {
        version: number;
        plugins: Record<string, { installPath: string; version: string }[]>;
      };
      // Claude marks what it superseded, and keeps an .in_use/ folder for its processes' markers (empty: none runs).
      for (const v of ['1.0.0', '1.1.0']) {
        expect(existsSync(join(versions, v, '.orphaned_at')), v).toBe(true);
        expect(readdirSync(join(versions, v, '.in_use')), v).toEqual([]);
      }
      expect(installed.version).toBe(2);
      expect(installed.plugins['review-kit@testmarket']).toEqual([expect.objectContaining({ installPath: join(versions, '1.2.0'), version: '1.2.0' })]);

      const engine = new Engine(ADAPTERS, t.ctx);
      const sum = await engine.scan('claude');
      const item = engine.snapshot(sum.snapshotId).item(PLUGIN_VERSIONS_ITEM);
      expect(item, 'the superseded versions are offered').toBeTruthy();
      expect([...item!.paths].sort()).toEqual([join(versions, '1.0.0'), join(versions, '1.1.0')]);
      const before = hashTree(home);
      const plan = await engine.plan(sum.snapshotId, [PLUGIN_VERSIONS_ITEM]);
      expect(plan.blockers).toEqual([]);
      const r = await engine.execute(plan.id);
      expect(r.status, r.message).toBe('complete');
      expect(r.residue?.[0]).toMatchObject({ verdict: 'complete' });
      // Exactly the two superseded version folders went.
      const changes = treeDiff(before, hashTree(home));
      for (const c of changes) expect(c, c).toMatch(/^removed plugins\/cache\/testmarket\/review-kit\/1\.[01]\.0(\/|$)/);
      expect(readdirSync(versions)).toEqual(['1.2.0']);

      // The source moved away: what Claude lists now loads from its cache.
      renameSync(repo, `${repo}.away`);
      const listed = JSON.parse(ok(['plugin', 'list', '--json'], t.root)) as Listed[];
      const kit = listed.find((p) => p.id === 'review-kit@testmarket');
      expect(kit, JSON.stringify(listed)).toMatchObject({ version: '1.2.0', enabled: true, installPath: join(versions, '1.2.0') });
      expect(kit!.errors ?? []).toEqual([]);
      expect(existsSync(join(versions, '1.2.0', '.claude-plugin', 'plugin.json'))).toBe(true);
      expect(ok(['plugin', 'list'], t.root)).toMatch(/review-kit@testmarket[\s\S]*Version: 1\.2\.0[\s\S]*enabled/);
    },
    budget(600_000),
  );
});
