// A real OpenSSH server for the fleet tests (Debian's openssh-server):
// started by the test, not as a daemon (-D -e), on 127.0.0.1 and a free
// port, with a generated host key and config. Each "host" is one user key:
// its authorized_keys line forces a login script that sets that host's own
// isolated agent homes (HOME, XDG_*, the agents' home variables, cleanerx's
// dirs, an empty fake /proc) and PATH, then runs the command ssh was asked
// to run. One account (the test's own; root in CI) carries every host, so it
// works as root and not. The client side gets a generated ssh config
// (IdentityFile, UserKnownHostsFile, Port): nothing reads the real ~/.ssh.

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { isolatedEnv } from '../../src/demo/demo-home.js';
import { CLI } from './constants.js';

export const SSHD = '/usr/sbin/sshd';

/** Stops at once, in one line, when sshd is missing (npm test installs it where it can). */
export function requireSshd(): void {
  if (!existsSync(SSHD) || !existsSync('/usr/bin/ssh') || !existsSync('/usr/bin/ssh-keygen'))
    throw new Error(
      `${SSHD} or ssh is missing: install Debian's openssh-server and openssh-client (apt-get install -y openssh-server) to run the fleet tests.`,
    );
}

export interface LabHost {
  name: string;
  /** The host's own root: home/ (its agent homes), tmp/, proc/. */
  root: string;
  /** The environment its logins get (the agents' homes and cleanerx's dirs in root). */
  env: Record<string, string>;
  /** Its `cleanerx` (a wrapper around this checkout's dist/cli.js), null for a host without one. */
  cleanerx: string | null;
}

export interface HostSpec {
  name: string;
  /** false: the login PATH has no cleanerx. */
  cleanerx?: boolean;
  /** A stand-in cleanerx script (its body after #!/bin/sh) in place of the real one: a hostile host. */
  fake?: string;
  /** The key may open a terminal (ssh -t). */
  pty?: boolean;
}

export interface SshLab {
  /** The client config to pass as --ssh-config / ssh -F. */
  config: string;
  hosts: Map<string, LabHost>;
  /** An alias whose port is closed: ssh fails to connect (ConnectTimeout bounds it). */
  downHost: string;
  /** The sshd's log so far (for failure messages). */
  log(): string;
  stop(): Promise<void>;
}

function keygen(file: string): void {
  const r = spawnSync('/usr/bin/ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'cleanerx-test', '-f', file], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ssh-keygen failed: ${r.stderr}`);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

function addHost(dir: string, spec: HostSpec): { host: LabHost; key: string; authorized: string } {
  const root = join(dir, 'hosts', spec.name);
  const env = isolatedEnv(root);
  mkdirSync(env.HOME!, { recursive: true });
  for (const d of ['bin', 'tmp', 'proc']) mkdirSync(join(root, d), { recursive: true });
  let cleanerx: string | null = null;
  if (spec.cleanerx !== false) {
    cleanerx = join(root, 'bin', 'cleanerx');
    writeFileSync(cleanerx, spec.fake ? `#!/bin/sh\n${spec.fake}\n` : `#!/bin/sh\nexec ${q(process.execPath)} ${q(CLI)} "$@"\n`);
    chmodSync(cleanerx, 0o755);
  }
  const all: Record<string, string> = {
    ...env,
    PATH: `${join(root, 'bin')}:/usr/bin:/bin`,
    LANG: 'C.UTF-8',
    TMPDIR: join(root, 'tmp'),
    CLEANERX_PROC_ROOT: join(root, 'proc'),
  };
  writeFileSync(
    join(root, 'env.sh'),
    Object.entries(all)
      .map(([k, v]) => `export ${k}=${q(v)}\n`)
      .join(''),
  );
  const login = join(root, 'login.sh');
  // Like a login: the host's environment, its home, then the command as the user's shell would run it.
  writeFileSync(login, `#!/bin/sh\n. ${q(join(root, 'env.sh'))}\ncd "$HOME" || exit 1\nexec /bin/sh -c "$SSH_ORIGINAL_COMMAND"\n`);
  chmodSync(login, 0o755);
  const key = join(dir, 'keys', spec.name);
  keygen(key);
  const authorized = `command="${login}",restrict${spec.pty ? ',pty' : ''} ${readFileSync(`${key}.pub`, 'utf8').trim()}\n`;
  return { host: { name: spec.name, root, env: all, cleanerx }, key, authorized };
}

/** Starts sshd with one key per host and writes the client config; stop() ends it. */
export async function startSshLab(dir: string, specs: HostSpec[]): Promise<SshLab> {
  requireSshd();
  mkdirSync(join(dir, 'keys'), { recursive: true });
  const asRoot = process.getuid?.() === 0;
  // sshd as root checks its privilege separation directory (the Debian package creates it only when its service starts).
  if (asRoot) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const hostKey = join(dir, 'keys', 'ssh_host_ed25519_key');
  keygen(hostKey);
  const hosts = new Map<string, LabHost>();
  let authorized = '';
  let clientHosts = '';
  for (const spec of specs) {
    const h = addHost(dir, spec);
    hosts.set(spec.name, h.host);
    authorized += h.authorized;
    clientHosts += `Host ${spec.name}\n  IdentityFile ${h.key}\n`;
  }
  writeFileSync(join(dir, 'authorized_keys'), authorized, { mode: 0o600 });
  const port = await freePort();
  const closed = await freePort();
  const user = userInfo().username;
  const sshdConfig = join(dir, 'sshd_config');
  writeFileSync(
    sshdConfig,
    [
      `ListenAddress 127.0.0.1:${port}`,
      `HostKey ${hostKey}`,
      'PidFile none',
      'UsePAM no',
      'StrictModes no',
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      `AllowUsers ${user}`,
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PermitRootLogin prohibit-password',
      'PermitUserEnvironment no',
      'MaxStartups 64',
      'LogLevel INFO',
      '',
    ].join('\n'),
  );
  const known = join(dir, 'known_hosts');
  writeFileSync(known, `[127.0.0.1]:${port} ${readFileSync(`${hostKey}.pub`, 'utf8').trim()}\n`);
  const config = join(dir, 'ssh_config');
  writeFileSync(
    config,
    `${clientHosts}Host down\n  Port ${closed}\n  ConnectTimeout 5\nHost *\n  HostName 127.0.0.1\n  Port ${port}\n  User ${user}\n  UserKnownHostsFile ${known}\n  GlobalKnownHostsFile /dev/null\n  StrictHostKeyChecking yes\n  IdentitiesOnly yes\n  IdentityAgent none\n  PasswordAuthentication no\n  ControlMaster no\n  LogLevel ERROR\n`,
  );
  let log = '';
  const child: ChildProcess = spawn(SSHD, ['-D', '-e', '-f', sshdConfig], { stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr!.on('data', (b: Buffer) => {
    log = (log + b.toString()).slice(-20_000);
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const end = Date.now() + 20_000;
  while (!/Server listening on 127\.0\.0\.1/.test(log)) {
    if (child.exitCode !== null || Date.now() > end) {
      child.kill('SIGKILL');
      throw new Error(`sshd did not start:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    config,
    hosts,
    downHost: 'down',
    log: () => log,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
