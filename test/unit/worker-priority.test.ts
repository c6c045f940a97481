// The engine's worker thread runs a little below the UI thread (its own nice
// value; Linux keeps one per thread) once the first rows are out (a page or a
// scan answered), so on a busy machine a long scan does not take the CPU from
// the keys; before that it runs as the UI does (the first rows must come
// quickly). The UI thread keeps its own.

import { readdirSync, readFileSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EngineApi } from '../../src/engine/api/api.js';
import { createWorkerEngine } from '../../src/engine/api/worker-client.js';
import { buildPiFixture } from '../../src/adapters/pi/fixture.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

const WORKER = new URL('../../dist/worker.js', import.meta.url);

/** The nice value of every thread of this process (field 19 of /proc/self/task/<tid>/stat). */
function threadNices(): number[] {
  const dir = '/proc/self/task';
  return readdirSync(dir).map((tid) => {
    const stat = readFileSync(join(dir, tid, 'stat'), 'utf8');
    // The name field may hold spaces and parentheses: count fields after its closing one.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[16]);
  });
}

let t: TempEnv;
let engine: EngineApi | null = null;
beforeEach(() => {
  t = makeTempEnv();
});
afterEach(async () => {
  await engine?.close();
  engine = null;
  t.cleanup();
});

describe.runIf(process.platform === 'linux')('the engine worker thread', () => {
  it('runs as the UI does until the first rows are out (here: a scan answered), then a little below it; the calling thread keeps its own', async () => {
    buildPiFixture({ agentDir: t.env.PI_CODING_AGENT_DIR!, projects: 1, sessionsPerProject: 3, forkRate: 0, cwdRoot: join(t.env.HOME!, 'src') });
    const mine = getPriority(0);
    const before = threadNices().filter((n) => n > mine).length;
    engine = createWorkerEngine(WORKER, { env: t.env, opts: { readOnly: false, demo: false } });
    // Answered: the worker has run its start-up, and detection has run.
    await engine.loadSettings();
    await engine.detect();
    expect(threadNices().filter((n) => n > mine).length).toBe(before);
    const s = await engine.scan('pi', () => undefined);
    expect(s.sessionCount).toBe(3);
    const after = threadNices();
    expect(after.filter((n) => n > mine).length).toBe(before + 1);
    expect(after).toContain(mine + 5);
    expect(getPriority(0)).toBe(mine);
  });

  it('started under nice (nice -n 3 cleanerx): the worker goes 5 below that, not to 5', async () => {
    const start = getPriority(0);
    const mine = Math.min(19, start + 3);
    // This thread only; the worker thread inherits it, as it would from a niced process.
    setPriority(0, mine);
    try {
      buildPiFixture({ agentDir: t.env.PI_CODING_AGENT_DIR!, projects: 1, sessionsPerProject: 3, forkRate: 0, cwdRoot: join(t.env.HOME!, 'src') });
      engine = createWorkerEngine(WORKER, { env: t.env, opts: { readOnly: false, demo: false } });
      expect((await engine.scan('pi', () => undefined)).sessionCount).toBe(3);
      expect(threadNices()).toContain(Math.min(19, mine + 5));
      expect(getPriority(0)).toBe(mine);
    } finally {
      // Only root may lower it again; elsewhere this file's thread stays at the raised value.
      try {
        setPriority(0, start);
      } catch {}
    }
  });
});
