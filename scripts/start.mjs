#!/usr/bin/env node
// `npm start`: builds only when dist/ is stale (a current dist/ starts in
// ~0.3 s instead of paying ~5 s of tsc), then runs dist/cli.js in this same
// process, so signals and the terminal reach cleanerx directly.

import { pathToFileURL, fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { isStale } from './build-stamp.mjs';
import { build } from './build.mjs';

/** Builds `root` when its dist/ is stale; false when a needed build failed. */
export function ensureBuilt(root, doBuild = build) {
  if (!isStale(root)) return true;
  return doBuild(root);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  if (!ensureBuilt(root)) {
    process.stderr.write('The build failed (tsc errors above); fix them and run npm start again.\n');
    process.exit(1);
  }
  const cli = join(root, 'dist', 'cli.js');
  process.argv = [process.argv[0], cli, ...process.argv.slice(2)];
  await import(pathToFileURL(cli).href);
}
