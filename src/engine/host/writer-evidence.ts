// Whether a running agent process is a writer of *this* store. On a shared
// server many people run the same agent; a process blocks a cleanup only when
// something ties it to this store: a file beneath the store held open, its
// working directory beneath it, or its environment naming it (as the agent
// itself resolves its home). A process of another user that cannot write the
// store is never a writer. Where the evidence cannot be read (another uid
// when cleanerx is not root, hidepid), the process still blocks, and the
// writer says exactly that. A process that exits during the check is gone.

import { promises as fsp, type Stats } from 'node:fs';
import { join, sep } from 'node:path';
import type { HostContext } from '../core/adapter.js';
import type { Writer } from '../core/model.js';
import { cleanText } from '../core/text.js';
import { canonicalPath } from './fsx.js';
import { processName, readProcessEnviron, type ProcessInfo } from './processes.js';

/** What ties a process to one store. */
export interface StoreTarget {
  /** The store's paths (home, data dir, database, temp root): an open file or cwd beneath one is evidence. */
  roots: string[];
  /**
   * Given a readable environment: the variable (`NAME=value`) through which
   * the agent would use this store, or null when it would use another one.
   */
  envEvidence(env: Map<string, string>): string | null;
}

const MAX_FDS = 8192;
const MAX_COMMAND_CHARS = 200;

/** `NAME=value` with the value cleaned (a hostile environment may hold escapes). */
export function envPair(name: string, value: string): string {
  return `${name}=${cleanText(value, 160)}`;
}

function under(p: string, roots: readonly string[]): string | null {
  const clean = p.replace(/ \(deleted\)$/, '');
  for (const r of roots) if (clean === r || clean.startsWith(r.endsWith(sep) ? r : r + sep)) return clean;
  return null;
}

/** Every spelling of the roots: as given and with links resolved (a process's fd names the resolved path). */
function rootSpellings(roots: readonly string[]): string[] {
  return [...new Set(roots.flatMap((r) => [r, canonicalPath(r)]))];
}

/** The user name of a uid from /etc/passwd (bounded), else the number. */
const userNames = new Map<number, string>();
export async function userName(uid: number): Promise<string> {
  const known = userNames.get(uid);
  if (known) return known;
  let name = String(uid);
  try {
    const text = (await fsp.readFile('/etc/passwd', 'utf8')).slice(0, 1 << 20);
    for (const line of text.split('\n')) {
      const f = line.split(':');
      if (f[2] === String(uid) && f[0]) {
        name = cleanText(f[0], 32) || name;
        break;
      }
    }
  } catch {
    // no passwd: the number
  }
  userNames.set(uid, name);
  return name;
}

/** uid, gid and supplementary groups from /proc/<pid>/status; null when the process is gone. */
async function credentials(procRoot: string, pid: number): Promise<{ uid: number; groups: Set<number> } | null> {
  const dir = join(procRoot, String(pid));
  const st = await fsp.stat(dir).catch(() => null);
  if (!st) return null;
  const groups = new Set<number>([st.gid]);
  const status = await fsp.readFile(join(dir, 'status'), 'utf8').catch(() => '');
  const g = /^Groups:\s*([\d ]*)$/m.exec(status);
  for (const n of (g?.[1] ?? '').trim().split(/\s+/)) if (n) groups.add(Number(n));
  const gid = /^Gid:\s*(\d+)/m.exec(status);
  if (gid) groups.add(Number(gid[1]));
  const uid = /^Uid:\s*\d+\s+(\d+)/m.exec(status);
  return { uid: uid ? Number(uid[1]) : st.uid, groups };
}

/** include/linux/sched.h: the task is in do_exit(). */
const PF_EXITING = 0x4;

/** Running or sleeping: its stat is readable, it is no zombie and not exiting. */
async function alive(procRoot: string, pid: number): Promise<boolean> {
  const stat = await fsp.readFile(join(procRoot, String(pid), 'stat'), 'latin1').catch(() => null);
  if (stat === null)
    return fsp.stat(join(procRoot, String(pid))).then(
      () => true,
      () => false,
    );
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // An exiting process still reads as running (R) with PF_EXITING in its flags, while its environment
  // already fails with ESRCH (seen under load): it writes nothing more.
  return fields[0] !== 'Z' && fields[0] !== 'X' && !(Number(fields[6]) & PF_EXITING);
}

/** Whether a process of `uid` (in `groups`) may write the directory `st`. */
function mayWrite(st: Stats, uid: number, groups: Set<number>): boolean {
  if (uid === 0 || st.uid === uid) return true;
  if (st.mode & 0o002) return true;
  return Boolean(st.mode & 0o020) && groups.has(st.gid);
}

/** The first root that exists, as the directory whose permissions decide who may write the store. */
async function storeDir(roots: readonly string[]): Promise<Stats | null> {
  for (const r of roots) {
    const st = await fsp.lstat(r).catch(() => null);
    if (st?.isDirectory()) return st;
  }
  return null;
}

async function heldFile(procRoot: string, pid: number, roots: readonly string[]): Promise<string | null | 'unreadable'> {
  const dir = join(procRoot, String(pid), 'fd');
  let fds: string[];
  try {
    fds = (await fsp.readdir(dir)).slice(0, MAX_FDS);
  } catch {
    return 'unreadable';
  }
  for (const fd of fds) {
    const target = await fsp.readlink(join(dir, fd)).catch(() => null);
    const hit = target && under(target, roots);
    if (hit) return hit;
  }
  return null;
}

type WriterVerdict = { writer: Writer } | { ruledOut: string } | { gone: true };

/**
 * The verdict on one agent process (already known to be the agent, and not
 * cleanerx's own child or probe) for the store `target`.
 */
export async function judgeWriter(ctx: HostContext, p: ProcessInfo, target: StoreTarget): Promise<WriterVerdict> {
  const cred = await credentials(ctx.procRoot, p.pid);
  if (!cred) return { gone: true };
  const user = await userName(cred.uid);
  const base: Writer = { pid: p.pid, name: processName(p), user, command: cleanText(p.argv.join(' '), MAX_COMMAND_CHARS) || processName(p) };
  if (ctx.uid >= 0 && cred.uid !== ctx.uid) {
    const dir = await storeDir(target.roots);
    if (dir && !mayWrite(dir, cred.uid, cred.groups)) return { ruledOut: `another user (${user}) who cannot write this store` };
  }
  const roots = rootSpellings(target.roots);
  const held = await heldFile(ctx.procRoot, p.pid, roots);
  if (held && held !== 'unreadable') return { writer: { ...base, evidence: `holds ${cleanText(held, 200)} open` } };
  const cwd = await fsp.readlink(join(ctx.procRoot, String(p.pid), 'cwd')).catch(() => null);
  const inCwd = cwd && under(cwd, roots);
  if (inCwd) return { writer: { ...base, evidence: `works in ${cleanText(inCwd, 200)}` } };
  const env = await readProcessEnviron(ctx.procRoot, p.pid);
  // Exited since it was listed (a zombie reads as an empty or unreadable environment): it writes nothing.
  if ((!env || env.size === 0) && !(await alive(ctx.procRoot, p.pid))) return { gone: true };
  if (env) {
    const named = target.envEvidence(env);
    return named ? { writer: { ...base, evidence: named } } : { ruledOut: 'its environment names another store' };
  }
  const why =
    cred.uid !== ctx.uid
      ? `its environment and open files cannot be read (a process of ${user}, who can write this store)`
      : 'its environment and open files cannot be read (hidepid or a protected process)';
  return { writer: { ...base, evidence: why } };
}

/**
 * The environment evidence of an agent whose home is `<HOME>/<rel>` unless
 * `override` names it: the variable that makes the process use `home`, or
 * null. A relative or missing value cannot be ruled out (the agent resolves
 * it against a cwd or passwd entry cleanerx does not see).
 */
export function homeEnvEvidence(env: Map<string, string>, home: string, override: string, rel: string[]): string | null {
  const wanted = canonicalPath(home);
  const o = env.get(override);
  if (o) {
    if (!o.startsWith('/')) return envPair(override, o);
    return canonicalPath(o) === wanted ? envPair(override, o) : null;
  }
  const h = env.get('HOME');
  if (!h) return 'no HOME in its environment';
  if (!h.startsWith('/')) return envPair('HOME', h);
  return canonicalPath(join(h, ...rel)) === wanted ? envPair('HOME', h) : null;
}
