// Run as root, some tests drop a child to user nobody (setpriv), since root
// passes every permission check. That child runs Node on this checkout: in a
// checkout nobody cannot reach (cloned under a 0700 home such as /root) those
// tests would fail one by one with "permission denied". The suite stops at
// once instead, with one line saying what to do.

import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';

const NOBODY = 65534;

/** Null when nobody can run Node on `repo` (or the tests do not run as root); else the one line to print. */
export function nobodyReachProblem(repo: string, isRoot = process.geteuid?.() === 0): string | null {
  if (!isRoot) return null;
  repo = resolve(repo);
  const files = [join(repo, 'package.json'), join(repo, 'node_modules', 'jiti', 'package.json')];
  const probe = `for (const f of ${JSON.stringify(files)}) require('fs').accessSync(f, require('fs').constants.R_OK)`;
  const r = spawnSync('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', process.execPath, '-e', probe], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  // No setpriv (not Debian's util-linux): nothing to check with; the tests that need it say so themselves.
  if (r.status === 0 || (r.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') return null;
  return (
    `Some tests run as user nobody (uid ${NOBODY}), who cannot run ${process.execPath} on ${repo} ` +
    '(a parent directory such as a 0700 home is closed to others); clone into a directory others can enter (e.g. /srv or /tmp), ' +
    'or give every parent directory o+x, and run npm test again.'
  );
}
