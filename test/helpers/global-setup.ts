// Before any test: the system tools the tests run for real are present (or
// installed, or the run stops at once with one line saying how), then dist/
// is built — only when stale — so PTY and CLI tests run the real `cleanerx`.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
// @ts-expect-error plain ESM scripts, shared with `npm run build` / `npm start`
import { inputsKey, isStale, writeStamp } from '../../scripts/build-stamp.mjs';
// @ts-expect-error plain ESM script shared with `node scripts/ensure-system-tools.mjs`
import { ensureSystemTools } from '../../scripts/ensure-system-tools.mjs';
// @ts-expect-error plain ESM script shared with `node scripts/ensure-peer-pi1.mjs`
import { ensurePeerPi1 } from '../../scripts/ensure-peer-pi1.mjs';
import { nobodyReachProblem } from './nobody-reach.js';
import { useScratch } from './scratch.js';

export default function setup(): () => void {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const problem = (ensureSystemTools as () => string | null)() ?? nobodyReachProblem(root) ?? (ensurePeerPi1 as () => string | null)();
  if (problem) {
    process.stderr.write(`${problem}\n`);
    process.exit(1);
  }
  const teardown = useScratch();
  if (!(isStale as (r: string) => boolean)(root)) return teardown;
  const key = (inputsKey as (r: string) => string)(root);
  const r = spawnSync(process.execPath, [`${root}/node_modules/typescript/bin/tsc`, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  // tsc emits even with type errors (status 2); `npm run typecheck` is where those fail. Anything else is no build.
  const emitted = r.status === 0 || (r.status === 2 && existsSync(`${root}/dist/cli.js`));
  // The processes run the bundles (scripts/bundle.mjs), as `npm run build` makes them.
  const b = emitted ? spawnSync(process.execPath, [`${root}/scripts/bundle.mjs`, root], { cwd: root, stdio: 'inherit' }) : null;
  if (b && b.status !== 0) {
    process.stderr.write('Bundling dist/ failed (see above); fix the build and run the tests again.\n');
    process.exit(1);
  }
  if (r.status === 0) {
    (writeStamp as (r: string, k: string) => void)(root, key);
    return teardown;
  }
  if (emitted) {
    process.stderr.write('dist/ was built with type errors (see above; npm run typecheck); the tests run on what tsc emitted.\n');
  } else {
    process.stderr.write(`Building dist/ failed (tsc exit ${r.status ?? r.signal}); fix the build and run the tests again.\n`);
    process.exit(1);
  }
  return teardown;
}
