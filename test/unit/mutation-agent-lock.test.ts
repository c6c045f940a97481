// The per-agent cleanup lock, case by case (#26 item 5: the mutants of
// engine/cleanup/agent-lock.ts). Real lock files in a temp state dir: what
// the lock file holds, which holders count as alive, what is cleaned of a
// hostile file, every refusal with its sentence, and a release that never
// removes a lock that is no longer its own.

import { spawnSync } from 'node:child_process';
import fs, { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { acquireAgentLock, liveLockHolder, lockPath } from '../../src/engine/cleanup/agent-lock.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
let state: string;
let lock: string;
const servers: Server[] = [];
const mounts: string[] = [];
beforeEach(() => {
  t = makeTempEnv('cleanerx-lock-rules-');
  state = t.env.CLEANERX_STATE_DIR!;
  lock = lockPath(state, 'pi');
  mkdirSync(join(state, 'locks'), { recursive: true });
});
afterEach(async () => {
  vi.restoreAllMocks();
  syncBuiltinESMExports();
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
  for (const m of mounts.splice(0)) spawnSync('umount', [m]).status === 0 || spawnSync('umount', ['-l', m]);
  t.cleanup();
});

/** Field 22 of /proc/self/stat, counted here independently of the module. */
const myStart = (): string => readFileSync('/proc/self/stat', 'latin1').split(') ')[1]!.split(' ')[19]!;
const hold = (v: unknown): void => writeFileSync(lock, typeof v === 'string' ? v : JSON.stringify(v));
const refusal = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    return (e as Error).message;
  }
  return 'not refused';
};

describe('the lock file', () => {
  it('holds who took it, cleaned; private modes; the folder made when missing', () => {
    const l = acquireAgentLock(state, 'pi', `clean ${'x'.repeat(500)}\u001b[2J`);
    const v = JSON.parse(readFileSync(lock, 'utf8'));
    expect(v.pid).toBe(process.pid);
    expect(v.procStart).toBe(myStart());
    expect(v.startedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(v.command).toBe(`clean ${'x'.repeat(394)}`);
    expect(statSync(lock).mode & 0o777).toBe(0o600);
    l.release();
    const fresh = join(t.root, 'fresh-state');
    acquireAgentLock(fresh, 'pi').release();
    expect(statSync(join(fresh, 'locks')).mode & 0o777).toBe(0o700);
  });

  it('by default it names the command line that took it', () => {
    const l = acquireAgentLock(state, 'pi');
    expect(JSON.parse(readFileSync(lock, 'utf8')).command).toBe(
      process.argv
        .slice(1)
        .join(' ')
        .replace(/[^\x20-\x7e]/g, '?')
        .slice(0, 400),
    );
    l.release();
  });
});

describe('who holds it', () => {
  it('a live holder is read back cleaned and bounded', () => {
    hold({ pid: process.pid, procStart: myStart(), startedAt: `2026-01-01T00:00:00Z${'s'.repeat(50)}`, command: `a\u0007b${'c'.repeat(200)}` });
    const h = liveLockHolder(state, 'pi')!;
    expect(h.pid).toBe(process.pid);
    expect(h.procStart).toBe(myStart());
    expect(h.startedAt).toBe(`2026-01-01T00:00:00Z${'s'.repeat(20)}`);
    expect(h.command).toBe(`a?b${'c'.repeat(157)}`);
    hold({ pid: process.pid, procStart: 7, startedAt: 1, command: null });
    expect(liveLockHolder(state, 'pi')).toEqual({ pid: process.pid, procStart: null, startedAt: '?', command: '?' });
  });

  it('a long procStart is cut before it is compared: another start time, so not alive', () => {
    hold({ pid: process.pid, procStart: `${myStart()}${'9'.repeat(40)}`, startedAt: 'x', command: 'x' });
    expect(liveLockHolder(state, 'pi')).toBeNull();
    hold({ pid: process.pid, procStart: `${myStart()}\u0000`, startedAt: 'x', command: 'x' });
    expect(liveLockHolder(state, 'pi')).toBeNull();
  });

  it('no holder: no pid, a pid that is no number, zero, negative or not whole; or a file that is no JSON', () => {
    for (const v of [{}, { pid: String(process.pid) }, { pid: 0 }, { pid: -1 }, { pid: 1.5 }, '{broken', 'null']) {
      hold(v);
      expect(liveLockHolder(state, 'pi'), JSON.stringify(v)).toBeNull();
    }
  });

  it('no lock, or a folder in its place: no holder, never an error', () => {
    expect(liveLockHolder(state, 'pi')).toBeNull();
    mkdirSync(lock);
    expect(liveLockHolder(state, 'pi')).toBeNull();
  });
});

describe('taking it', () => {
  it('over a holder that cannot be alive (pid 0 or below, not whole): taken over', () => {
    for (const pid of [0, -1, 1.5]) {
      hold({ pid, procStart: null, startedAt: 'x', command: 'x' });
      acquireAgentLock(state, 'pi').release();
      expect(existsSync(lock)).toBe(false);
    }
  });

  it('a file that is no JSON: "starting" while fresh, taken over once older than 5 s', () => {
    hold('{half');
    expect(refusal(() => acquireAgentLock(state, 'pi'))).toBe(`Another pi cleanup is starting (lock ${lock}); wait a moment and try again.`);
    const old = Date.now() / 1000 - 6;
    utimesSync(lock, old, old);
    acquireAgentLock(state, 'pi').release();
    expect(existsSync(lock)).toBe(false);
  });

  it('a folder or a socket at the lock: refused with the reason', async () => {
    mkdirSync(lock);
    expect(refusal(() => acquireAgentLock(state, 'pi'))).toBe(`The cleanup lock ${lock} is not a regular file; remove it and try again.`);
    const sock = lockPath(state, 'claude');
    const s = createServer();
    servers.push(s);
    await new Promise<void>((r) => s.listen(sock, r));
    expect(refusal(() => acquireAgentLock(state, 'claude'))).toBe(`The cleanup lock ${sock} cannot be read (ENXIO); check its permissions and try again.`);
  });

  it('a lock folder that cannot be written: refused, naming the code and the folder', (c) => {
    const dir = join(state, 'locks');
    const r = spawnSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=1m', 'tmpfs', dir], { encoding: 'utf8' });
    if (r.error || r.status !== 0) c.skip(`mount(2) is not permitted here (${r.stderr?.trim() || r.error?.message}); this test needs a read-only tmpfs`);
    mounts.push(dir);
    expect(refusal(() => acquireAgentLock(state, 'pi'))).toBe(`The cleanup lock ${lock} cannot be created (EROFS); check ${dir} and try again.`);
  });
});

describe('giving it back', () => {
  it('once only: the same file put back after the release is not removed again', () => {
    const l = acquireAgentLock(state, 'pi');
    const keep = join(t.root, 'same-inode');
    linkSync(lock, keep);
    l.release();
    expect(existsSync(lock)).toBe(false);
    linkSync(keep, lock);
    l.release();
    expect(existsSync(lock)).toBe(true);
  });

  it('a lock replaced by another file is left to its new owner', () => {
    const l = acquireAgentLock(state, 'pi');
    // The old file stays linked elsewhere, so the new one cannot reuse its inode.
    linkSync(lock, join(t.root, 'old'));
    writeFileSync(`${lock}.new`, 'x');
    spawnSync('mv', ['-f', `${lock}.new`, lock]);
    l.release();
    expect(readFileSync(lock, 'utf8')).toBe('x');
  });
});

describe('the edges', () => {
  const openFds = (): number => readdirSync('/proc/self/fd').length;
  /** openSync with O_EXCL answers EEXIST (and creates nothing) the first `times` calls; how many such calls were made. */
  function exclusiveTaken(times: number): { calls: number } {
    const seen = { calls: 0 };
    const real = fs.openSync;
    vi.spyOn(fs, 'openSync').mockImplementation(((p: fs.PathLike, flags: number, mode?: number) => {
      if (typeof flags === 'number' && flags & fs.constants.O_EXCL && seen.calls++ < times) throw Object.assign(new Error('EEXIST'), { code: 'EEXIST' });
      return real(p, flags, mode);
    }) as typeof fs.openSync);
    syncBuiltinESMExports();
    return seen;
  }

  it('a lock released between the failed create and the read is simply tried again', () => {
    const seen = exclusiveTaken(1);
    const l = acquireAgentLock(state, 'pi');
    expect(seen.calls).toBe(2);
    expect(JSON.parse(readFileSync(lock, 'utf8')).pid).toBe(process.pid);
    l.release();
  });

  it('a lock that keeps coming and going: three tries, then refused', () => {
    const seen = exclusiveTaken(Number.POSITIVE_INFINITY);
    expect(refusal(() => acquireAgentLock(state, 'pi'))).toBe(`The pi cleanup lock keeps changing (${lock}); try again.`);
    expect(seen.calls).toBe(3);
  });

  it('an unreadable lock is "starting" until exactly 5 s old, then taken over', () => {
    // A whole second, so the file's mtime holds it exactly.
    const now = Math.floor(Date.now() / 1000) * 1000;
    hold('{half');
    utimesSync(lock, (now - 5000) / 1000, (now - 5000) / 1000);
    vi.useFakeTimers({ toFake: ['Date'], now });
    try {
      acquireAgentLock(state, 'pi').release();
    } finally {
      vi.useRealTimers();
    }
    expect(existsSync(lock)).toBe(false);
  });

  it('a stale lock replaced by a live one between its read and its removal is left alone: that one is running', () => {
    hold({ pid: 0, procStart: null, startedAt: 'x', command: 'x' });
    const real = fs.lstatSync;
    let swapped = false;
    vi.spyOn(fs, 'lstatSync').mockImplementation(((p: fs.PathLike, o?: fs.StatSyncOptions) => {
      if (!swapped && String(p) === lock) {
        swapped = true;
        // Another cleanup removed the stale file and took the lock: a new file, a new inode (the old one stays linked elsewhere, so its inode is not reused).
        linkSync(lock, join(t.root, 'stale'));
        fs.unlinkSync(lock);
        hold({ pid: process.ppid, procStart: null, startedAt: 'now', command: 'other' });
      }
      return real(p, o);
    }) as typeof fs.lstatSync);
    syncBuiltinESMExports();
    expect(refusal(() => acquireAgentLock(state, 'pi'))).toMatch(new RegExp(`^Another pi cleanup is running \\(pid ${process.ppid},`));
    expect(JSON.parse(readFileSync(lock, 'utf8')).command).toBe('other');
  });

  it('a symbolic link at the lock: refused, naming it', () => {
    symlinkSync(join(t.root, 'elsewhere'), lock);
    expect(refusal(() => acquireAgentLock(state, 'pi'))).toBe(`The cleanup lock ${lock} is a symbolic link; remove it and try again.`);
  });

  it('a fresh lock whose pid is no number has no holder: "starting", not taken over', () => {
    hold({ pid: '123', procStart: null, startedAt: 'x', command: 'x' });
    expect(refusal(() => acquireAgentLock(state, 'pi'))).toBe(`Another pi cleanup is starting (lock ${lock}); wait a moment and try again.`);
  });

  it('a holder this process may not signal (EPERM) is alive; one that is gone (ESRCH) is not', () => {
    hold({ pid: process.ppid, procStart: null, startedAt: 'x', command: 'x' });
    const kill = vi.spyOn(process, 'kill');
    kill.mockImplementation(() => {
      throw Object.assign(new Error('EPERM'), { code: 'EPERM' });
    });
    expect(liveLockHolder(state, 'pi')?.pid).toBe(process.ppid);
    kill.mockImplementation(() => {
      throw Object.assign(new Error('ESRCH'), { code: 'ESRCH' });
    });
    expect(liveLockHolder(state, 'pi')).toBeNull();
  });

  it('the file is one JSON line; taking, reading and giving back leave no descriptor open', () => {
    const before = openFds();
    const l = acquireAgentLock(state, 'pi');
    expect(readFileSync(lock, 'utf8')).toMatch(/^\{.*\}\n$/);
    expect(liveLockHolder(state, 'pi')?.pid).toBe(process.pid);
    l.release();
    expect(openFds()).toBe(before);
  });

  it('by default the command is the process’s arguments joined by spaces', () => {
    const argv = process.argv;
    process.argv = ['node', '/usr/bin/cleanerx', 'clean', '--yes'];
    try {
      const l = acquireAgentLock(state, 'pi');
      expect(JSON.parse(readFileSync(lock, 'utf8')).command).toBe('/usr/bin/cleanerx clean --yes');
      l.release();
    } finally {
      process.argv = argv;
    }
  });
});
