// Every test file starts with the agents installed (engine/core/agents.ts), as
// every entry point of cleanerx does by loading the registry first: a test of
// a flag parser or a file validator knows the same agents the binary knows.

import { appendFileSync, readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, expect, vi } from 'vitest';
import '../../src/adapters/registry.js';
import { atCrashPoints } from '../../src/engine/core/faults.js';
import { setLanguage } from '../../src/engine/i18n/index.js';
import { budget } from './budget.js';

// The default timeouts are budgets on a quiet 2-core machine: a file that starts on a loaded one gets
// them scaled as every wait is (test/helpers/budget.ts). A test's own explicit timeout stays as written.
vi.setConfig({ testTimeout: budget(30_000), hookTimeout: budget(60_000) });

// A worker runs many files one after another (vitest.config.ts). What a file
// sets in process.env, the language, a crash-point hook, a spy or a fake clock
// must not reach the next: each file starts as the worker did.
const worker = globalThis as { cleanerxStartEnv?: Record<string, string | undefined> };
if (!worker.cleanerxStartEnv) worker.cleanerxStartEnv = { ...process.env };
else {
  const start = worker.cleanerxStartEnv;
  for (const k of Object.keys(process.env)) if (!(k in start)) delete process.env[k];
  Object.assign(process.env, start);
}
setLanguage('en');
atCrashPoints(null);
// Spies, fake clocks and stubbed globals a previous file left in place.
vi.restoreAllMocks();
vi.useRealTimers();
vi.unstubAllGlobals();

// The screens a test opened through the harness (test/helpers/app-screen.ts), gone after it whatever happened:
// registered here because this file runs for every test file, the harness module only once per worker.
afterEach(() => (globalThis as { cleanerxDisposeScreens?: () => void }).cleanerxDisposeScreens?.());

// CLEANERX_TEST_CPU_LOG=<file>: each file's CPU (its worker's and the children
// it waited for, from /proc/self/stat) as "<seconds> <file>" lines, to find
// where the tiers' time goes on a machine too loaded for wall times to mean much.
const cpuLog = process.env.CLEANERX_TEST_CPU_LOG;
if (cpuLog) {
  const cpuTicks = (): number => {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime, stime, cutime, cstime: fields 14–17, 12–15 after the command name.
    return [11, 12, 13, 14].reduce((sum, i) => sum + Number(f[i]), 0);
  };
  let start = 0;
  let file = '';
  beforeAll(() => {
    start = cpuTicks();
    file = expect.getState().testPath ?? '';
  });
  afterAll(() => appendFileSync(cpuLog, `${((cpuTicks() - start) / 100).toFixed(2)} ${file}\n`));
}
