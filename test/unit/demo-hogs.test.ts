// The demo holds the hogs of a real agent server (#28.6), so a newcomer can
// try reclaiming them in `--demo`: Claude's background task output in its
// temp root, OpenCode's snapshot repository and database space, Codex's logs
// database with old rows, as the real binary's scan of the demo home reports
// them.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { buildDemoCodexLogs } from '../../src/demo/codex-demo-logs.js';
import { createDemoHome } from '../../src/demo/demo-home.js';
import { findDemoTools } from '../../src/demo/demo-tools.js';
import { hasGit } from '../../src/adapters/opencode/fixture-snapshots.js';
import { buildDemoOpencodeStore, bundledOpencodeBinDir } from '../../src/demo/opencode-demo.js';
import { CLI } from '../helpers/constants.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
afterEach(() => t?.cleanup());

interface ScanItem {
  id: string;
  bytes: number;
  selectable: boolean;
  paths: string[];
}

it.runIf(typeof process.getuid === 'function')("offers Claude's leaked task output, inside the demo home, as one safe item of megabytes", async () => {
  t = makeTempEnv();
  const tmp = join(t.root, 'tmp');
  mkdirSync(tmp);
  const demo = await createDemoHome(Date.now(), undefined, tmp);
  const r = spawnSync(process.execPath, [CLI, 'scan', '--agent', 'claude', '--json'], {
    env: { PATH: process.env.PATH, ...demo.env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(r.status, r.stderr).toBe(0);
  const agent = JSON.parse(r.stdout).agents[0] as { items: ScanItem[]; sessions: { id: string; bytes: number }[] };
  const temp = agent.items.find((i) => i.id === 'claude-temp');
  expect(temp).toBeDefined();
  expect(temp!.bytes).toBeGreaterThan(4_000_000);
  expect(temp!.selectable).toBe(true);
  for (const p of temp!.paths) expect(p.startsWith(demo.root + '/')).toBe(true);
  // A session's own temp folder goes with that session.
  expect(agent.sessions.some((s) => s.bytes > 1_000_000)).toBe(true);
});

it.runIf(bundledOpencodeBinDir() !== null && hasGit())(
  "holds OpenCode's hogs: unreachable snapshots for gc, a stale leaked pack (the fresh one left alone), free database pages",
  async () => {
    t = makeTempEnv();
    const tmp = join(t.root, 'tmp');
    mkdirSync(tmp);
    const demo = await createDemoHome(Date.now(), undefined, tmp);
    await buildDemoOpencodeStore(demo.root, demo.env, bundledOpencodeBinDir()!, Date.now());
    const r = spawnSync(process.execPath, [CLI, 'scan', '--agent', 'opencode', '--json'], {
      env: { PATH: process.env.PATH, ...demo.env },
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(r.status, r.stderr).toBe(0);
    const items = (JSON.parse(r.stdout).agents[0] as { items: ScanItem[] }).items;
    const one = (prefix: string): ScanItem => {
      const found = items.filter((i) => i.id.startsWith(prefix));
      expect(found.map((i) => i.id)).toHaveLength(1);
      return found[0]!;
    };
    expect(one('snapshot-gc:opencode:').bytes).toBeGreaterThan(1_000_000);
    const leaked = one('snapshot-tmp:opencode:');
    expect(leaked.paths.map((p) => p.split('/').pop())).toEqual(['tmp_pack_Q7dmo1']);
    expect(one('compact:opencode-db').bytes).toBeGreaterThan(1_500_000);
    for (const i of [leaked, one('snapshot-gc:opencode:'), one('compact:opencode-db')]) expect(i.selectable).toBe(true);
  },
  180_000,
);

it.runIf(findDemoTools().missing.every((m) => m.agent !== 'codex'))(
  'holds a Codex logs database that Codex made, with rows older than the retention: the suggested plan deletes them and compacts it',
  async () => {
    t = makeTempEnv();
    const tmp = join(t.root, 'tmp');
    mkdirSync(tmp);
    const demo = await createDemoHome(Date.now(), undefined, tmp);
    const env = { ...demo.env, PATH: [...findDemoTools().dirs, '/usr/bin', '/bin'].join(':') };
    expect(await buildDemoCodexLogs(demo.root, env, Date.now())).toBe(true);
    // The build home is gone; only the database moved in.
    expect(existsSync(join(demo.root, 'codex-build'))).toBe(false);
    const r = spawnSync(process.execPath, [CLI, 'plan', '--agent', 'codex', '--suggested', '--json'], { env, encoding: 'utf8', timeout: 120_000 });
    expect(r.status, r.stderr).toBe(0);
    const plan = JSON.parse(r.stdout) as { items: { id: string; bytes: number }[] };
    const ids = plan.items.map((i) => i.id);
    expect(ids).toEqual(expect.arrayContaining(['logs:database', 'compact:logs']));
    expect(plan.items.find((i) => i.id === 'logs:database')!.bytes).toBeGreaterThan(1_000_000);
  },
  180_000,
);
