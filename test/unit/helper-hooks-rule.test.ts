// A worker runs many test files with one copy of each helper module
// (vitest.config.ts: isolate false). A vitest hook a helper registers when
// its module is evaluated therefore belongs to the first file that imported
// it, and never runs for the later ones: the harness's teardown was such a
// hook, and the tmux servers and apps of every later file outlived their
// tests (seven were still running after a `.ci/run`). Hooks that must run for
// every file live in the setup file; a helper registers them inside the
// function a test file calls (useTmuxDemo, coreJourney).

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from '../helpers/constants.js';

const SETUP = new Set(['agents-setup.ts', 'global-setup.ts']);
const HOOK_AT_TOP = /^(?:afterEach|beforeEach|afterAll|beforeAll)\(/m;

it('no helper module registers a vitest hook when it is loaded (only the setup file does)', () => {
  const dir = join(ROOT, 'test', 'helpers');
  const offenders = readdirSync(dir)
    .filter((f) => f.endsWith('.ts') && !SETUP.has(f))
    .filter((f) => HOOK_AT_TOP.test(readFileSync(join(dir, f), 'utf8')));
  expect(offenders).toEqual([]);
  // The harness's teardown is the setup file's, for every file.
  expect(readFileSync(join(dir, 'agents-setup.ts'), 'utf8')).toMatch(/afterEach\(\(\) => \(globalThis as \{ cleanerxDisposeScreens/);
});
