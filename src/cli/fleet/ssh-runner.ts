// One remote command over the user's own OpenSSH: their ~/.ssh/config, agent,
// ControlMaster and jump hosts apply; cleanerx runs no daemon. BatchMode
// makes a host that would ask for a password or a host key fail at once
// instead of waiting on a prompt nobody sees; the per-host timeout kills the
// whole ssh process group, so a host that accepts and then hangs is a row
// with its reason, never a hung fleet.

import { spawnTracked } from '../../engine/host/own-children.js';

/** How ssh is run: its config file (--ssh-config / CLEANERX_SSH_CONFIG), the ssh binary, the bounds. */
export interface SshSettings {
  /** `ssh -F FILE`; undefined: ssh's own ~/.ssh/config. */
  config?: string;
  /** The ssh executable (CLEANERX_SSH, tests pin it); default `ssh` from PATH. */
  ssh: string;
  /** Seconds a host may take for the whole command. */
  timeoutSeconds: number;
  /** Seconds ssh may take to connect (ConnectTimeout). */
  connectSeconds: number;
  env: Readonly<Record<string, string | undefined>>;
}

export interface SshResult {
  /** ssh's exit code (255: ssh itself failed; else the remote command's), null when killed. */
  code: number | null;
  stdout: string;
  /** The last part of stderr, bounded. */
  stderr: string;
  timedOut: boolean;
  /** stdout passed its bound and was cut: the command was stopped. */
  tooLarge: boolean;
  /** ssh could not be started at all (ENOENT). */
  spawnError?: string;
}

const STDERR_KEEP = 16 * 1024;

/**
 * The argv of `ssh … -- HOST COMMAND`: options first, `--` so no host is ever
 * read as an option. `interactive`: a terminal (-t) where ssh may ask the
 * user (no BatchMode); otherwise BatchMode and no terminal.
 */
export function sshArgv(s: Pick<SshSettings, 'config' | 'connectSeconds'>, host: string, command: string, interactive = false): string[] {
  const opts = ['-o', `ConnectTimeout=${s.connectSeconds}`];
  if (!interactive) opts.push('-o', 'BatchMode=yes', '-o', 'ServerAliveInterval=15', '-o', 'ServerAliveCountMax=2');
  if (s.config !== undefined) opts.unshift('-F', s.config);
  return [...opts, interactive ? '-t' : '-T', '--', host, command];
}

/** Runs COMMAND on HOST; stdin is `input` (or nothing). Never rejects. */
export function runSsh(s: SshSettings, host: string, command: string, input: string | Buffer | null, maxStdout: number): Promise<SshResult> {
  return new Promise((resolve) => {
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = '';
    let timedOut = false;
    let tooLarge = false;
    let done = false;
    const child = spawnTracked(s.ssh, sshArgv(s, host, command), {
      env: s.env as NodeJS.ProcessEnv,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    const kill = (): void => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, s.timeoutSeconds * 1000);
    const finish = (r: Omit<SshResult, 'stdout' | 'stderr' | 'timedOut' | 'tooLarge'>): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve({ ...r, stdout: Buffer.concat(out).toString('utf8'), stderr: err, timedOut, tooLarge });
    };
    child.stdout.on('data', (b: Buffer) => {
      outBytes += b.length;
      if (outBytes > maxStdout) {
        tooLarge = true;
        kill();
        return;
      }
      out.push(b);
    });
    child.stderr.on('data', (b: Buffer) => {
      err = (err + b.toString('utf8')).slice(-STDERR_KEEP);
    });
    child.on('error', (e) => finish({ code: null, spawnError: e.message }));
    child.on('close', (code) => finish({ code }));
    child.stdin.on('error', () => undefined);
    child.stdin.end(input ?? undefined);
  });
}

/** fn over items, at most `limit` at a time; results in the items' order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}
