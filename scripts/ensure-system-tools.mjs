#!/usr/bin/env node
// The Debian tools the tests run for real: age and zstd (backup interop),
// tmux (the PTY journeys run under it), gnome-keyring and dbus-daemon (the
// key ring test's private Secret Service), OpenSSH's client and server (the
// fleet tests start their own sshd); and one data file, the age
// reference's own test file (golang-filippo-age-dev, 50 KB, no
// dependencies) for the age reference corpus. `npm test` calls this first (the
// vitest global setup): when everything is on PATH it returns at once,
// without apt; as root with apt-get it installs what is missing; otherwise it
// stops with one line naming the packages and the command that installs them,
// so no test waits on a tool that is not there.

import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Executable → the Debian package that provides it. */
export const SYSTEM_TOOLS = [
  ['age', 'age'],
  ['zstd', 'zstd'],
  ['tar', 'tar'],
  ['tmux', 'tmux'],
  ['gnome-keyring-daemon', 'gnome-keyring'],
  ['dbus-run-session', 'dbus-daemon'],
  ['strace', 'strace'],
  ['ssh', 'openssh-client'],
  ['ssh-keygen', 'openssh-client'],
];

/** Files the tests read → the Debian package that ships them. */
export const SYSTEM_FILES = [
  ['/usr/share/gocode/src/filippo.io/age/testdata/example.age', 'golang-filippo-age-dev'],
  ['/usr/share/gocode/src/filippo.io/age/testdata/example_keys.txt', 'golang-filippo-age-dev'],
  // The fleet tests start their own sshd; it lives in /usr/sbin, which a non-root PATH often lacks.
  ['/usr/sbin/sshd', 'openssh-server'],
];

export function onPath(name, env) {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue;
    const p = join(dir, name);
    try {
      if (!statSync(p).isFile()) continue;
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // not here
    }
  }
  return null;
}

/** The packages whose executables are missing from PATH, or whose files are missing. */
export function missingPackages(env, files = SYSTEM_FILES) {
  return [...new Set([...SYSTEM_TOOLS.filter(([exe]) => !onPath(exe, env)), ...files.filter(([path]) => !existsSync(path))].map(([, pkg]) => pkg))];
}

export function installCommand(pkgs, asRoot) {
  return `${asRoot ? '' : 'sudo '}apt-get update && ${asRoot ? '' : 'sudo '}apt-get install -y --no-install-recommends ${pkgs.join(' ')}`;
}

/**
 * Returns null when every tool and file is present (afterwards), else the
 * one line to print. `files`: [path, package] pairs (tests pass their own).
 * `run` executes apt-get (injected by tests); it is called only when
 * something is missing and we are root with apt-get on PATH.
 */
export function ensureSystemTools({ env = process.env, isRoot = process.getuid?.() === 0, run = runApt, files = SYSTEM_FILES } = {}) {
  const missing = missingPackages(env, files);
  if (!missing.length) return null;
  const apt = onPath('apt-get', env);
  if (isRoot && apt) {
    // Another test run may hold the dpkg lock: wait for it rather than fail.
    const lock = ['-o', 'DPkg::Lock::Timeout=180'];
    const ok = run(apt, ['-qq', ...lock, 'update'], env) && run(apt, ['-y', '-qq', ...lock, 'install', '--no-install-recommends', ...missing], env);
    const still = missingPackages(env, files);
    if (!still.length) return null;
    return `The tests need ${still.join(', ')}, and ${ok ? 'apt-get installed them but they are still not on PATH' : 'apt-get could not install them'}; run "${installCommand(still, true)}" and try again.`;
  }
  if (!apt) return `The tests need ${missing.join(', ')} (Debian package names); install them with your package manager and run npm test again.`;
  return `The tests need ${missing.join(', ')}; install them with "${installCommand(missing, false)}" and run npm test again.`;
}

function runApt(apt, args, env) {
  const r = spawnSync(apt, args, { env: { ...env, DEBIAN_FRONTEND: 'noninteractive' }, stdio: ['ignore', 'ignore', 'inherit'], timeout: 600_000 });
  return r.status === 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const line = ensureSystemTools();
  if (line) {
    process.stderr.write(`${line}\n`);
    process.exit(1);
  }
}
