// A bounded look at running processes through /proc (Linux). Used only to
// find an agent that is writing its store; nothing is ever signalled.
// cleanerx's own children and their descendants (`<agent> --version`
// probes, the private OpenCode server, official CLI calls) and zombies are
// left out: they are this process's work or have exited, never a user's
// agent writing. A probe that has exited but is not yet reaped (the event
// loop busy with the scan) is a zombie whose environ can no longer be read,
// which the writer checks would otherwise count as "unknown: a writer".

import { closeSync, constants, openSync, promises as fsp, readdirSync, readlinkSync, readSync } from 'node:fs';
import { canonicalPath } from './fsx.js';
import { basename, join } from 'node:path';
import { cleanText } from '../core/text.js';
import { ownTreeRoots } from './own-children.js';

export interface ProcessInfo {
  pid: number;
  comm: string;
  argv: string[];
  exe: string | null;
  /** From /proc/<pid>/stat; null when it cannot be read. */
  ppid?: number | null;
}

const MAX_PROCS = 4096;
const MAX_CMDLINE = 16 * 1024;
const MAX_ENVIRON = 256 * 1024;

/** `self` is this process (tests pass 1 to see the tree as a container's entrypoint sees it). */
export async function listProcesses(procRoot: string, self = process.pid): Promise<ProcessInfo[]> {
  let names: string[];
  try {
    names = await fsp.readdir(procRoot);
  } catch {
    return [];
  }
  const pids = names.filter((n) => /^\d+$/.test(n)).slice(0, MAX_PROCS);
  const out: ProcessInfo[] = [];
  // /proc files are made by the kernel on read, never a disk wait: read them in turn with one buffer.
  // Three awaited open/read/close trips per file through the thread pool cost ~25 ms of CPU for 95 processes.
  const buf = Buffer.allocUnsafe(MAX_CMDLINE);
  for (const pid of pids) {
    const dir = `${procRoot}/${pid}`;
    const stat = parseStat(readSmall(`${dir}/stat`, 1024, buf));
    if (stat && (stat.state === 'Z' || stat.state === 'X')) continue;
    const comm = readSmall(`${dir}/comm`, 256, buf)?.trim() ?? '';
    const raw = readSmall(`${dir}/cmdline`, MAX_CMDLINE, buf) ?? '';
    const argv = raw.split('\0').filter((a) => a.length > 0);
    let exe: string | null;
    try {
      exe = readlinkSync(`${dir}/exe`);
    } catch {
      exe = null;
    }
    if (!comm && argv.length === 0) continue;
    out.push({ pid: Number(pid), comm, argv, exe, ppid: stat?.ppid ?? null });
  }
  const own = new Set<number>();
  for (const root of ownTreeRoots(self)) {
    if (root !== self) own.add(root);
    for (const pid of ownDescendants(out, root)) own.add(pid);
  }
  return out.filter((p) => p.pid !== self && !own.has(p.pid)).sort((a, b) => a.pid - b.pid);
}

/** The pids below `root` in the parent links of `procs` (a cycle in a hostile tree ends the walk). */
export function ownDescendants(procs: readonly ProcessInfo[], root: number): Set<number> {
  const children = new Map<number, number[]>();
  for (const p of procs) if (p.ppid != null && p.ppid !== p.pid) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p.pid]);
  const out = new Set<number>();
  const todo = [...(children.get(root) ?? [])];
  while (todo.length) {
    const pid = todo.pop()!;
    if (pid === root || out.has(pid)) continue;
    out.add(pid);
    todo.push(...(children.get(pid) ?? []));
  }
  return out;
}

/** State and parent from /proc/<pid>/stat: fields 3 and 4, after the parenthesized comm (which may hold spaces and parentheses). */
export function parseStat(s: string | null): { state: string; ppid: number | null } | null {
  if (!s) return null;
  const close = s.lastIndexOf(')');
  if (close < 0) return null;
  const fields = s.slice(close + 2).split(' ');
  const ppid = Number(fields[1]);
  return { state: fields[0] ?? '', ppid: Number.isInteger(ppid) && ppid >= 0 ? ppid : null };
}

/** At most `max` bytes of a small file, read through `buf`, as text; null when it cannot be read. O_NONBLOCK: a fake /proc's FIFO never blocks. */
function readSmall(p: string, max: number, buf: Buffer): string | null {
  let fd: number;
  try {
    fd = openSync(p, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const n = readSync(fd, buf, 0, Math.min(max, buf.length), 0);
    return buf.toString('utf8', 0, n);
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/**
 * The process's own name as a user would recognize it, made safe to show:
 * any user can name a process (prctl, argv[0]) `\e]0;…\a`, and this name is
 * printed by scan, doctor and clean and drawn by the TUI.
 */
export function processName(p: ProcessInfo): string {
  return cleanText(p.comm, 64) || cleanText(p.argv[0] ? basename(p.argv[0]) : '', 64) || String(p.pid);
}

/** Basename equality, case-insensitive, with and without a Windows suffix. */
export function nameIs(value: string | null | undefined, names: string[]): boolean {
  if (!value) return false;
  const b = basename(value)
    .toLowerCase()
    .replace(/\.(exe|cmd|bat)$/, '');
  return names.includes(b);
}

/** A process's environment (bounded), or null when it cannot be read (another user's process: treat as unknown). */
export async function readProcessEnviron(procRoot: string, pid: number): Promise<Map<string, string> | null> {
  try {
    const fh = await fsp.open(join(procRoot, String(pid), 'environ'), 'r');
    try {
      const buf = Buffer.alloc(MAX_ENVIRON);
      const { bytesRead } = await fh.read(buf, 0, MAX_ENVIRON, 0);
      const env = new Map<string, string>();
      for (const kv of buf.toString('utf8', 0, bytesRead).split('\0')) {
        const eq = kv.indexOf('=');
        if (eq > 0) env.set(kv.slice(0, eq), kv.slice(eq + 1));
      }
      return env;
    } finally {
      await fh.close();
    }
  } catch {
    return null;
  }
}

/**
 * Pids (this one too) with one of `paths` open, read from
 * /proc/<pid>/fd synchronously and bounded; a process whose descriptors
 * cannot be read (another user's) is passed over.
 */
export function pidsHoldingSync(procRoot: string, paths: readonly string[]): number[] {
  const wanted = new Set(paths.flatMap((p) => [p, canonicalPath(p)]));
  let names: string[];
  try {
    names = readdirSync(procRoot);
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const n of names.slice(0, MAX_PROCS * 2)) {
    if (!/^\d+$/.test(n)) continue;
    let fds: string[];
    try {
      fds = readdirSync(`${procRoot}/${n}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds.slice(0, 65536)) {
      let target: string;
      try {
        target = readlinkSync(`${procRoot}/${n}/fd/${fd}`);
      } catch {
        continue;
      }
      if (wanted.has(target)) {
        out.push(Number(n));
        break;
      }
    }
  }
  return out;
}
