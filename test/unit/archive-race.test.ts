// The Claude archive under a hostile race: a flipper exchanges the project
// folder with a link to a decoy outside the home, in a tight
// renameat2(RENAME_EXCHANGE) loop, while cleanerx writes `archived.json`
// marks for every session in it. Writes go through folder handles opened
// from the home without following links, so the decoy never gains a folder,
// a mark or a partial file; the run either writes into the real folder or
// stops with a plain sentence.

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { ADAPTERS } from '../../src/adapters/registry.js';
import { buildClaudeFixture } from '../../src/adapters/claude/fixture.js';
import { Engine } from '../../src/engine/api/engine.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

const FLIPPER = fileURLToPath(new URL('../helpers/flipper.py', import.meta.url));
let t: TempEnv;
let flipper: ChildProcess | null = null;
afterEach(() => {
  flipper?.kill('SIGKILL');
  t?.cleanup();
});

const sleep = new Int32Array(new SharedArrayBuffer(4));

it('a project folder swapped for a link mid-archive: nothing is written outside the home (7 runs)', { timeout: 120_000 }, async () => {
  for (let run = 0; run < 7; run++) {
    t = makeTempEnv();
    const m = buildClaudeFixture({
      configDir: t.env.CLAUDE_CONFIG_DIR!,
      projects: 1,
      sessionsPerProject: 44,
      seed: 7 + run,
      hostile: false,
      cwdRoot: join(t.env.HOME!, 'code'),
    });
    const projects = join(t.env.CLAUDE_CONFIG_DIR!, 'projects');
    const bucket = join(projects, m.sessions[0]!.bucket);
    const victim = join(t.root, 'victim');
    mkdirSync(victim);
    const link = join(projects, 'decoy-link');
    symlinkSync(victim, link);
    const engine = new Engine(ADAPTERS, t.ctx);
    const summary = await engine.scan('claude');
    const ids = m.sessions.filter((s) => !s.archived).map((s) => `session:${s.id}`);
    const plan = await engine.plan(summary.snapshotId, ids, 'archive');
    const ready = join(t.root, 'flipper-ready');
    // Flipping starts once the first mark folder exists: the run is past its checks and writing.
    const first = join(bucket, ids[0]!.slice('session:'.length));
    flipper = spawn('python3', [FLIPPER, bucket, link, ready, `+${join(first, 'archived.json')}`], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    flipper.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<void>((r) => flipper!.on('exit', () => r()));
    for (let i = 0; i < 2000 && !existsSync(ready); i++) Atomics.wait(sleep, 0, 0, 5);
    const result = await engine.execute(plan.id).catch((e: Error) => ({ status: 'threw', message: e.message }));
    flipper.kill('SIGTERM');
    await exited;
    flipper = null;
    expect(Number(out.trim()), 'the flipper exchanged the folder').toBeGreaterThan(0);
    expect(readdirSync(victim), `run ${run}: ${JSON.stringify(result).slice(0, 300)}`).toEqual([]);
    t.cleanup();
  }
});
