// The Debian tools a bench runs for real (age, zstd, tar for backup-1g),
// installed the way the tests get theirs (scripts/ensure-system-tools.mjs):
// as root with apt-get, what is missing is installed; otherwise one line
// names the packages and the command that installs them.

import { spawnSync } from 'node:child_process';
import { installCommand, onPath } from '../../scripts/ensure-system-tools.mjs';

/**
 * Resolves each executable to its absolute path (installing what is missing
 * when it can), or throws an Error whose message is the one line to print.
 * `tools` is a list of [executable, Debian package].
 */
export function ensureBenchTools(tools, { env = process.env, isRoot = process.getuid?.() === 0 } = {}) {
  const missing = () => [...new Set(tools.filter(([exe]) => !onPath(exe, env)).map(([, pkg]) => pkg))];
  let pkgs = missing();
  if (pkgs.length) {
    const apt = onPath('apt-get', env);
    if (!isRoot || !apt) {
      throw new Error(
        apt
          ? `this bench needs ${pkgs.join(', ')}; install them with "${installCommand(pkgs, false)}" and run it again.`
          : `this bench needs ${pkgs.join(', ')} (Debian package names); install them with your package manager and run it again.`,
      );
    }
    const lock = ['-o', 'DPkg::Lock::Timeout=180'];
    const run = (args) =>
      spawnSync(apt, args, { env: { ...env, DEBIAN_FRONTEND: 'noninteractive' }, stdio: ['ignore', 'ignore', 'inherit'], timeout: 600_000 }).status === 0;
    const ok = run(['-qq', ...lock, 'update']) && run(['-y', '-qq', ...lock, 'install', '--no-install-recommends', ...pkgs]);
    pkgs = missing();
    if (pkgs.length)
      throw new Error(
        `this bench needs ${pkgs.join(', ')}, and apt-get ${ok ? 'installed them but they are still not on PATH' : 'could not install them'}; run "${installCommand(pkgs, true)}" and try again.`,
      );
  }
  return Object.fromEntries(tools.map(([exe]) => [exe, onPath(exe, env)]));
}
