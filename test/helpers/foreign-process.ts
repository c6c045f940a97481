// A process the test starts that is NOT a descendant of this process, as an
// agent the user started would be: cleanerx never counts its own children
// and their descendants as writers (engine/processes.ts), so a "user's
// agent" spawned directly by a test would be invisible to writer checks.
// A subshell starts the program in the background and exits at once, so the
// program is reparented away from us; a watcher shell (our child, the
// program's process-group leader) lives exactly as long as the program, so
// killing the group (-child.pid) stops both and `exit` means the program is
// gone.

import { spawn, type ChildProcess } from 'node:child_process';

const SCRIPT = [
  'in=$1; shift',
  'pid=$( ("$@" <"$in" >/dev/null 2>&1 & echo $!) )',
  'echo "$pid"',
  // A zombie (a reaper-less pid 1 in a container) counts as gone.
  "while [ -e /proc/$pid ] && ! grep -qs '^[0-9]* (.*) [ZX] ' /proc/$pid/stat; do sleep 0.1; done",
].join('\n');

export async function spawnForeign(
  cmd: string,
  args: string[],
  o: { cwd?: string; env?: NodeJS.ProcessEnv; stdinFile?: string; uid?: number } = {},
): Promise<{ child: ChildProcess; pid: number }> {
  const child = spawn('/bin/sh', ['-c', SCRIPT, 'sh', o.stdinFile ?? '/dev/null', cmd, ...args], {
    cwd: o.cwd,
    env: o.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'ignore'],
    ...(o.uid !== undefined ? { uid: o.uid, gid: o.uid } : {}),
  });
  const pid = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /^(\d+)\n/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`the launcher of ${cmd} exited (${code}) before naming its pid`)));
  });
  return { child, pid };
}

/** Stops the program and its watcher (the watcher leads the process group). */
export function killForeign(child: ChildProcess): void {
  try {
    if (child.pid) process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
