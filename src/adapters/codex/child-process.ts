// Codex processes cleanerx starts: each in its own process group, stdin/out
// piped, stderr kept (bounded) for messages, and killed on every exit path —
// close(), a crash of the channel, and cleanerx's own exit.

import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { spawnTracked } from '../../engine/host/own-children.js';

const MAX_STDERR = 16 * 1024;
const live = new Set<ChildProcessWithoutNullStreams>();
let hooked = false;

function hookExit(): void {
  if (hooked) return;
  hooked = true;
  // Synchronous last resort: no Codex process outlives cleanerx.
  process.on('exit', () => {
    for (const c of live) killGroup(c.pid, 'SIGKILL');
  });
}

export function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (!pid) return;
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

interface CodexChild {
  proc: ChildProcessWithoutNullStreams;
  stderr(): string;
  /** Resolves once the process has exited (with its code or signal). */
  exited: Promise<string>;
  /** Ends stdin, waits up to `graceMs`, then kills the whole group. */
  stop(graceMs?: number): Promise<void>;
}

/** Pids of the Codex processes cleanerx runs right now (never mistaken for the user's writers). */
export function ownCodexPids(): Set<number> {
  return new Set([...live].map((c) => c.pid).filter((p): p is number => typeof p === 'number'));
}

export function startCodex(bin: string, args: string[], env: Record<string, string>): CodexChild {
  hookExit();
  // cwd "/": no project of the user's is the server's working directory.
  const proc = spawnTracked(bin, args, { cwd: '/', env, stdio: ['pipe', 'pipe', 'pipe'], detached: true, windowsHide: true });
  live.add(proc);
  let err = '';
  proc.stderr.on('data', (c: Buffer) => {
    if (err.length < MAX_STDERR) err += c.toString('utf8').slice(0, MAX_STDERR - err.length);
  });
  proc.stdin.on('error', () => undefined);
  const exited = new Promise<string>((resolve) => {
    let done = false;
    const finish = (why: string): void => {
      if (done) return;
      done = true;
      live.delete(proc);
      resolve(why);
    };
    proc.on('error', (e) => finish(`could not start: ${e.message}`));
    proc.on('exit', (code, signal) => finish(signal ? `killed by ${signal}` : `exit ${code}`));
  });
  return {
    proc,
    stderr: () => err,
    exited,
    async stop(graceMs = 2000) {
      if (!live.has(proc)) return;
      try {
        proc.stdin.end();
      } catch {
        // closed
      }
      const t = setTimeout(() => killGroup(proc.pid, 'SIGTERM'), graceMs);
      const k = setTimeout(() => killGroup(proc.pid, 'SIGKILL'), graceMs + 2000);
      await exited;
      clearTimeout(t);
      clearTimeout(k);
      // Anything the server left in its group (helpers) goes too.
      killGroup(proc.pid, 'SIGKILL');
    },
  };
}

/** stderr without colour codes and Codex's known harmless warnings, one line. */
export function plainStderr(s: string): string {
  return (
    s
      // eslint-disable-next-line no-control-regex
      .replace(/\x1b\[[0-9;]*[A-Za-z]/g, '')
      .split('\n')
      .filter((l) => l.trim() && !/could not create PATH aliases|bubblewrap/i.test(l))
      .join(' ')
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, 1000)
  );
}
