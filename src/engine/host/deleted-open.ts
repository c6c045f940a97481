// Space held by deleted files: a file removed from an agent's store (or its
// temp root) while a process still has it open keeps every block until that
// process closes it — reports of 350 GB of task output that "required lsof +
// kill". Read from /proc/<pid>/fd: a descriptor whose link ends in
// " (deleted)" and names a path under one of the roots. Each file is one
// read-only row with its allocated bytes and every holder (pid, user,
// cleaned command line); nothing can free it but the process, so nothing is
// offered. Processes whose fd dir cannot be read (another user's) are passed
// over.

import { promises as fsp } from 'node:fs';
import { basename, join } from 'node:path';
import { cleanText } from '../core/text.js';
import { canonicalPath } from './fsx.js';
import { processName } from './processes.js';
import { userName } from './writer-evidence.js';

interface DeletedHolder {
  pid: number;
  name: string;
  user: string;
  command: string;
}

interface DeletedOpenFile {
  /** The path the file had (as the kernel reports it, " (deleted)" removed). */
  path: string;
  dev: number;
  ino: number;
  /** st_blocks × 512 of the open file: what closing it gives back. */
  bytes: number;
  holders: DeletedHolder[];
}

const MAX_PROCS = 4096;
const MAX_FDS = 65536;
const SUFFIX = ' (deleted)';
/** A test's /proc mirrors a real descriptor by a link to /proc/<pid>/fd/<n>: followed one more step. */
const PROC_FD = /^\/proc\/\d+\/fd\/\d+$/;

async function readSmall(p: string): Promise<string> {
  try {
    return (await fsp.readFile(p, 'utf8')).slice(0, 16 * 1024);
  } catch {
    return '';
  }
}

function within(p: string, roots: readonly string[]): boolean {
  return roots.some((r) => p === r || p.startsWith(r.endsWith('/') ? r : `${r}/`));
}

/** Every deleted-but-open regular file under `roots` that a process this user can inspect holds, largest first. */
export async function deletedOpenFiles(roots: readonly string[], procRoot = '/proc'): Promise<DeletedOpenFile[]> {
  const spelled = [...new Set(roots.filter(Boolean).flatMap((r) => [r, canonicalPath(r)]))];
  if (!spelled.length) return [];
  let names: string[];
  try {
    names = await fsp.readdir(procRoot);
  } catch {
    return [];
  }
  const byInode = new Map<string, DeletedOpenFile>();
  for (const pid of names.filter((n) => /^\d+$/.test(n)).slice(0, MAX_PROCS)) {
    const fdDir = join(procRoot, pid, 'fd');
    let fds: string[];
    try {
      fds = (await fsp.readdir(fdDir)).slice(0, MAX_FDS);
    } catch {
      continue;
    }
    let holder: DeletedHolder | null = null;
    for (const fd of fds) {
      let target = await fsp.readlink(join(fdDir, fd)).catch(() => '');
      if (PROC_FD.test(target)) target = await fsp.readlink(target).catch(() => '');
      if (!target.endsWith(SUFFIX)) continue;
      const path = target.slice(0, -SUFFIX.length);
      if (!within(path, spelled)) continue;
      // stat follows the descriptor to the open (unlinked) file itself.
      const st = await fsp.stat(join(fdDir, fd)).catch(() => null);
      if (!st?.isFile() || st.nlink !== 0) continue;
      const key = `${st.dev}:${st.ino}`;
      let f = byInode.get(key);
      if (!f) {
        f = { path: cleanText(path, 4096), dev: st.dev, ino: st.ino, bytes: st.blocks * 512, holders: [] };
        byInode.set(key, f);
      }
      if (!holder) {
        const argv = (await readSmall(join(procRoot, pid, 'cmdline'))).split('\0').filter(Boolean);
        const info = { pid: Number(pid), comm: (await readSmall(join(procRoot, pid, 'comm'))).trim(), argv, exe: null };
        const owner = await fsp.stat(join(procRoot, pid)).catch(() => null);
        holder = {
          pid: info.pid,
          name: processName(info),
          user: owner ? await userName(owner.uid) : '?',
          command: cleanText(argv.join(' '), 256) || processName(info),
        };
      }
      if (!f.holders.some((h) => h.pid === holder!.pid)) f.holders.push(holder);
    }
  }
  return [...byInode.values()].sort((a, b) => b.bytes - a.bytes);
}

/** The row's label: what holds the space and what frees it. */
export const deletedOpenLabel = (f: DeletedOpenFile): string => `Deleted but still open · ${cleanText(basename(f.path), 200)}`;
