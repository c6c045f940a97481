// The demo holds the hogs of a real agent server (#28.6), so a newcomer can
// try reclaiming them in `--demo`: Claude's background task output in its
// temp root, as the real binary's scan of the demo home reports it.

import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createDemoHome } from '../../src/demo/demo-home.js';
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

it.runIf(typeof process.getuid === 'function')("offers Claude's leaked task output, inside the demo home, as one safe item of megabytes", () => {
  t = makeTempEnv();
  const tmp = join(t.root, 'tmp');
  mkdirSync(tmp);
  const demo = createDemoHome(Date.now(), undefined, tmp);
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
