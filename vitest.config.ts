import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';
import LongFirst from './test/helpers/long-first.js';

// A worker runs many test files one after another without a fresh process
// for each (a fresh process per file cost a third of the unit tier's CPU);
// test/helpers/agents-setup.ts gives every file the worker's starting
// environment, language and crash-point hook. A module mocked with vi.mock
// cannot be swapped under modules an earlier file already loaded, so the
// files that mock one get a process of their own, as do those that say
// `// vitest: own process` (state a module keeps for the process, such as a
// faked platform read once).
const mocking = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.ts') && !f.split('/').includes('node_modules'))
    .map((f) => join(dir, f))
    .filter((f) => /\bvi\.(?:do)?mock\(|^\/\/ vitest: own process\b/m.test(readFileSync(f, 'utf8')));
const ISOLATED = mocking('test');
const JOURNEYS = ['test/pty/**/*.test.ts', 'test/peers/**/*.test.ts'];
const JOURNEY_WORKERS = Number(process.env.CLEANERX_JOURNEY_WORKERS) || 4;

export default defineConfig({
  test: {
    globalSetup: ['test/helpers/global-setup.ts'],
    setupFiles: ['test/helpers/agents-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: the unit tier computes, a worker per core.
    maxWorkers: 2,
    sequence: { sequencer: LongFirst },
    projects: [
      {
        extends: true,
        test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, ...ISOLATED, ...JOURNEYS], isolate: false },
      },
      { extends: true, test: { name: 'isolated', include: ISOLATED, isolate: true } },
      // The PTY journeys and the real agents mostly wait (on the app's next frame, a server's answer): on two
      // workers the cores sat three-quarters idle. Vitest runs projects with other worker counts as a group of
      // their own, after the unit tier.
      {
        extends: true,
        test: {
          name: 'journeys',
          include: JOURNEYS,
          exclude: [...configDefaults.exclude, ...ISOLATED],
          isolate: false,
          maxWorkers: JOURNEY_WORKERS,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
