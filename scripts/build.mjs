#!/usr/bin/env node
// `npm run build` (and `npm ci`'s prepare): tsc into dist/, the bin made
// executable, then the stamp that lets `npm start` skip a build of a current dist/.

import { spawnSync } from 'node:child_process';
import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inputsKey, writeStamp } from './build-stamp.mjs';

export function build(root) {
  const key = inputsKey(root);
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) return false;
  chmodSync(join(root, 'dist', 'cli.js'), 0o755);
  writeStamp(root, key);
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  if (!build(root)) {
    process.stderr.write('The build failed (tsc errors above); fix them and run it again.\n');
    process.exit(1);
  }
}
