// The processes cleanerx itself starts (version probes, Codex's App Server,
// OpenCode's CLI and private server, git), while they live. Writer checks
// leave out cleanerx's own process tree; normally that is everything below
// this pid, but when cleanerx runs as PID 1 (a container's entrypoint) every
// orphan in the container is reparented to it, a user's agent among them.
// There, only the subtrees of the children it started are its own.

import { spawn, type ChildProcess } from 'node:child_process';

const live = new Set<number>();

/** Records a child until it exits. Returns the child, for chaining at the spawn site. */
function trackChild<T extends ChildProcess>(child: T): T {
  const pid = child.pid;
  if (pid === undefined) return child;
  live.add(pid);
  child.once('exit', () => live.delete(pid));
  child.once('error', () => live.delete(pid));
  return child;
}

/** Where cleanerx's own process tree starts: this pid, or as PID 1 the children it started. */
export function ownTreeRoots(pid = process.pid): number[] {
  return pid === 1 ? [...live] : [pid];
}

/** `spawn` with the child tracked: the same overloads, the same child. */
export const spawnTracked: typeof spawn = ((...args: unknown[]) => trackChild((spawn as (...a: unknown[]) => ChildProcess)(...args))) as typeof spawn;
