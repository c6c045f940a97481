// Which processes hold a database (or its -wal, -shm, -journal) open, from
// /proc/<pid>/fd. A compaction replaces the file by rename: a process that
// holds the old inode would keep reading and writing a file nobody sees
// again, so any holder refuses the compaction. Unlike the writer checks,
// cleanerx's own children count (its private OpenCode server holds
// opencode.db), and so does cleanerx itself. A process whose fd directory
// cannot be read (another user's, or a non-dumpable one such as ssh-agent)
// is passed over: the database lives in a 0700/0600 home of this user, and
// the caller has already required the agent stopped.

import { promises as fsp } from 'node:fs';
import { processName, type ProcessInfo } from '../host/processes.js';

export interface Holder {
  pid: number;
  name: string;
  path: string;
}

const MAX_PROCS = 4096;
const MAX_FDS = 65536;

async function readSmall(p: string): Promise<string> {
  try {
    // Stryker disable next-line MethodExpression: a bound on the read only; processName cuts comm and argv[0] to 64 characters.
    return (await fsp.readFile(p, 'utf8')).slice(0, 4096);
  } catch {
    return '';
  }
}

/** Every open descriptor, in any process this user can inspect, of one of `paths` (matched by device and inode). */
export async function fileHolders(paths: string[], procRoot = '/proc'): Promise<Holder[]> {
  const targets = new Map<string, string>();
  for (const p of paths) {
    // Stryker disable next-line ArrowFunction: undefined reads as null does (st?.isFile()).
    const st = await fsp.lstat(p).catch(() => null);
    if (st?.isFile()) targets.set(`${st.dev}:${st.ino}`, p);
  }
  // Stryker disable next-line ConditionalExpression: a shortcut; with no target no fd matches and the scan returns [] too.
  if (!targets.size) return [];
  let names: string[];
  try {
    names = await fsp.readdir(procRoot);
  } catch {
    return [];
  }
  const out: Holder[] = [];
  for (const pid of names.filter((n) => /^\d+$/.test(n)).slice(0, MAX_PROCS)) {
    const fdDir = `${procRoot}/${pid}/fd`;
    let fds: string[];
    try {
      fds = (await fsp.readdir(fdDir)).slice(0, MAX_FDS);
    } catch {
      continue;
    }
    for (const fd of fds) {
      // stat follows the fd link to the open file itself, even one unlinked or renamed since.
      // Stryker disable next-line ArrowFunction: undefined reads as null does (st && …).
      const st = await fsp.stat(`${fdDir}/${fd}`).catch(() => null);
      const hit = st && targets.get(`${st.dev}:${st.ino}`);
      if (!hit) continue;
      const info: ProcessInfo = {
        pid: Number(pid),
        // Stryker disable next-line MethodExpression: processName's cleanText turns the newline into a space and trims it.
        comm: (await readSmall(`${procRoot}/${pid}/comm`)).trim(),
        argv: (await readSmall(`${procRoot}/${pid}/cmdline`)).split('\0').filter(Boolean),
        exe: null,
      };
      out.push({ pid: Number(pid), name: processName(info), path: hit });
      break;
    }
  }
  return out;
}
