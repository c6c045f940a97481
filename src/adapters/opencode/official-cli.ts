// Running the official `opencode` program for a route: always with --pure (no
// external plugins), the recognized database chosen through OPENCODE_DB, no
// auto-update, model fetch, share or LSP download, a hard timeout that kills
// the whole process group, and bounded captured output.

import { basename, dirname, join } from 'node:path';
import type { HostContext } from '../../engine/core/adapter.js';
import type { Installation } from '../../engine/core/model.js';
import { spawnTracked } from '../../engine/host/own-children.js';

const CLI_TIMEOUT_MS = 120_000;
const MAX_CAPTURE = 64 * 1024;

interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  ms: number;
}

/** The environment every official route runs with. */
export function opencodeEnv(inst: Installation, ctx: HostContext, db: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(ctx.env)) if (typeof v === 'string') env[k] = v;
  // A user's server credentials are never handed on, and no user server is targeted.
  delete env.OPENCODE_SERVER_PASSWORD;
  delete env.OPENCODE_SERVER_USERNAME;
  // The data dir the user chose (override) is the one OpenCode must use as well.
  if (basename(inst.home) === 'opencode' && join(env.XDG_DATA_HOME ?? '', 'opencode') !== inst.home) env.XDG_DATA_HOME = dirname(inst.home);
  Object.assign(env, {
    OPENCODE_DB: db,
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_PROJECT_CONFIG: '1',
    OPENCODE_DISABLE_SHARE: '1',
    OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
    OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
  });
  return env;
}

/**
 * Runs `exe --pure <args>` in `cwd`. stdout goes to `stdoutFd` when given
 * (export files), else is captured (≤ 64 KiB, like stderr).
 */
export function runOpencode(
  exe: string,
  args: string[],
  opts: { cwd: string; env: Record<string, string>; timeoutMs?: number; stdoutFd?: number },
): Promise<RunResult> {
  const started = Date.now();
  const timeout = opts.timeoutMs ?? CLI_TIMEOUT_MS;
  return new Promise((resolve) => {
    const child = spawnTracked(exe, ['--pure', ...args], {
      cwd: opts.cwd,
      env: opts.env,
      stdio: ['ignore', opts.stdoutFd ?? 'pipe', 'pipe'],
      detached: true,
      windowsHide: true,
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const cap = (cur: string, c: Buffer): string => (cur.length >= MAX_CAPTURE ? cur : cur + c.toString('utf8').slice(0, MAX_CAPTURE - cur.length));
    child.stdout?.on('data', (c: Buffer) => (stdout = cap(stdout, c)));
    child.stderr?.on('data', (c: Buffer) => (stderr = cap(stderr, c)));
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid, 'SIGKILL');
    }, timeout);
    let done = false;
    let grace: NodeJS.Timeout | undefined;
    const finish = (code: number | null, signal: NodeJS.Signals | null): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearTimeout(grace);
      child.stdout?.destroy();
      child.stderr?.destroy();
      resolve({ code, signal, stdout, stderr, timedOut, ms: Date.now() - started });
    };
    child.on('error', (e) => {
      stderr = cap(stderr, Buffer.from(String(e.message)));
      finish(null, null);
    });
    child.on('close', (code, signal) => finish(code, signal));
    child.on('exit', (code, signal) => {
      // 'close' waits for the pipes; a grandchild that inherited them (a background
      // install) must not hold the route up, and is left to finish its own work.
      grace = setTimeout(() => finish(code, signal), 1000);
    });
  });
}

export function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (!pid) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/** stderr without colour codes, one paragraph, at most 4 KiB: for failure messages. */
export function plainMessage(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s
    .replace(/\x1b\[[0-9;]*[A-Za-z]/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 4096);
}
