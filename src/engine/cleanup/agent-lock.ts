// One cleanup (or recovery) per agent at a time: a lock file per agent in
// cleanerx's state dir, created with O_EXCL|O_NOFOLLOW and holding who took
// it. A lock whose process is gone (or whose pid now belongs to a process
// started later) is stale and taken over. The file's content is outside
// data: read with a bound, cleaned before it is shown.

import { agentName } from '../core/agents.js';
import { closeSync, constants as C, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { t } from '../i18n/index.js';
import type { AgentKind } from '../core/model.js';
import { RequestError } from '../core/validate.js';

const MAX_LOCK_BYTES = 4096;

interface LockHolder {
  pid: number;
  /** Process start time in clock ticks since boot (/proc/<pid>/stat field 22), to tell a reused pid. */
  procStart: string | null;
  startedAt: string;
  command: string;
}

export class AgentLockError extends RequestError {
  constructor(
    message: string,
    readonly holder?: LockHolder,
  ) {
    super(message);
  }
}

export function lockPath(stateDir: string, agent: AgentKind): string {
  return join(stateDir, 'locks', `${agent}.lock`);
}

/** The start time of a live process, or null when it cannot be read. */
function procStartOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // Field 2 (comm) may hold spaces and parentheses: count from the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

function alive(h: LockHolder): boolean {
  if (!Number.isInteger(h.pid) || h.pid <= 0) return false;
  try {
    process.kill(h.pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const now = procStartOf(h.pid);
  return !(h.procStart && now && now !== h.procStart);
}

/** Printable ASCII only, bounded: the file could hold anything. A declaration, not a const arrow: a mutant of the arrow would be fixed at module load. */
function clean(s: unknown, max = 160): string {
  return typeof s === 'string' ? s.replace(/[^\x20-\x7e]/g, '?').slice(0, max) : '?';
}

function readHolder(path: string): { holder: LockHolder | null; ino: number } | null {
  let fd: number;
  try {
    fd = openSync(path, C.O_RDONLY | C.O_NOFOLLOW | C.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    if (code === 'ELOOP') throw new AgentLockError(t('lock.link', { path }));
    throw new AgentLockError(t('lock.unreadable', { path, code: String(code) }));
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new AgentLockError(t('lock.notRegular', { path }));
    const buf = Buffer.alloc(MAX_LOCK_BYTES);
    const n = readSync(fd, buf, 0, MAX_LOCK_BYTES, 0);
    let holder: LockHolder | null = null;
    try {
      const v = JSON.parse(buf.subarray(0, n).toString('utf8')) as Partial<LockHolder>;
      if (typeof v.pid === 'number')
        holder = {
          pid: v.pid,
          procStart: typeof v.procStart === 'string' ? clean(v.procStart, 32) : null,
          startedAt: clean(v.startedAt, 40),
          command: clean(v.command),
        };
    } catch {
      // Not JSON (or no object): holder stays null.
    }
    return { holder, ino: st.ino };
  } finally {
    closeSync(fd);
  }
}

/** The live process holding the agent's lock, if any (read-only; a stale or unreadable lock counts as none). */
export function liveLockHolder(stateDir: string, agent: AgentKind): LockHolder | null {
  try {
    const seen = readHolder(lockPath(stateDir, agent));
    // Stryker disable next-line OptionalChaining: without the ?. a missing lock throws a TypeError, and the catch below answers null as well.
    return seen?.holder && alive(seen.holder) ? seen.holder : null;
  } catch {
    return null;
  }
}

export interface AgentLock {
  release(): void;
}

/**
 * Takes the agent's cleanup lock or says who holds it. A holder that is
 * gone is taken over; an unreadable lock (half-written by a killed process)
 * counts as stale once it is older than a few seconds.
 */
export function acquireAgentLock(stateDir: string, agent: AgentKind, command = process.argv.slice(1).join(' ')): AgentLock {
  const dir = join(stateDir, 'locks');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = lockPath(stateDir, agent);
  const me: LockHolder = { pid: process.pid, procStart: procStartOf(process.pid), startedAt: new Date().toISOString(), command: clean(command, 400) };
  for (let attempt = 0; attempt < 3; attempt++) {
    let fd: number;
    try {
      fd = openSync(path, C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW, 0o600);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST')
        throw new AgentLockError(t('lock.cannotCreate', { path, code: String((e as NodeJS.ErrnoException).code), dir }));
      const seen = readHolder(path);
      if (!seen) continue; // released meanwhile
      const h = seen.holder;
      if (h && alive(h)) {
        throw new AgentLockError(
          t('lock.running', { agent: agentName(agent), pid: String(h.pid), started: String(h.startedAt), command: String(h.command) }),
          h,
        );
      }
      if (!h && Date.now() - lstatSync(path).mtimeMs < 5000) {
        throw new AgentLockError(t('lock.starting', { agent: agentName(agent), path }));
      }
      // Stale: remove it only if it is still the file just read.
      try {
        if (lstatSync(path).ino === seen.ino) unlinkSync(path);
      } catch {
        /* gone already */
      }
      continue;
    }
    let ino: number;
    try {
      writeSync(fd, JSON.stringify(me) + '\n');
      ino = fstatSync(fd).ino;
    } finally {
      closeSync(fd);
    }
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        try {
          if (lstatSync(path).ino === ino) unlinkSync(path);
        } catch {
          /* already gone */
        }
      },
    };
  }
  throw new AgentLockError(t('lock.changing', { agent: agentName(agent), path }));
}
