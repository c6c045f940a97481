// `npm run check` fails on a dead export (#31.5): an export of src/ that no
// other module names. The rule on a made-up tree, both ways, and on this
// repository, which has none.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without types
import { deadExports, exportedNames } from '../../scripts/dead-exports.mjs';

let dir: string | null = null;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = null;
});

it('reads every declared export, and skips compile-time assertions', () => {
  const names = exportedNames(
    'export function f() {}\nexport const a = 1, b = 2;\nexport interface I {}\nexport type T = string;\nexport type Ok = Assert<true>;\nfunction g() {}\n',
  );
  expect(names).toEqual(['f', 'a', 'b', 'I', 'T']);
});

it('names an export no other module uses, and not one a test or module imports', () => {
  dir = mkdtempSync(join(tmpdir(), 'cleanerx-dead-'));
  for (const d of ['src', 'test', 'bench', 'scripts']) mkdirSync(join(dir, d));
  writeFileSync(
    join(dir, 'src', 'a.ts'),
    'export function usedElsewhere() {}\nexport function usedInTest() {}\nexport const deadOne = 1;\nconst x = deadOne;\n',
  );
  writeFileSync(join(dir, 'src', 'b.ts'), "import { usedElsewhere } from './a.js';\nusedElsewhere();\n");
  writeFileSync(join(dir, 'test', 'a.test.ts'), "import { usedInTest } from '../src/a.js';\n");
  expect(deadExports(dir)).toEqual(['src/a.ts: deadOne']);
});

it('this repository has no dead export', () => {
  expect(deadExports()).toEqual([]);
});
