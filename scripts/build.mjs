#!/usr/bin/env node
// `npm run build` (and `npm ci`'s prepare): tsc into dist/ (the per-module
// tree the tests and benches import), then the bundles the processes run
// (scripts/bundle.mjs, which also writes the executable bin), then the stamp
// that lets `npm start` skip a build of a current dist/.

import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inputsKey, writeStamp } from './build-stamp.mjs';

export function build(root) {
  const key = inputsKey(root);
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) return false;
  const b = spawnSync(process.execPath, [join(root, 'scripts', 'bundle.mjs'), root], { cwd: root, stdio: 'inherit' });
  if (b.status !== 0) return false;
  writeStamp(root, key);
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  if (!build(root)) {
    process.stderr.write('The build failed (tsc or bundle errors above); fix them and run it again.\n');
    process.exit(1);
  }
}
