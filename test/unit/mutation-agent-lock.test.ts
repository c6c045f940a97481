// The per-agent cleanup lock, case by case (#26 item 5: the mutants of
// engine/cleanup/agent-lock.ts). Real lock files in a temp state dir: what
// the lock file holds, which holders count as alive, what is cleaned of a
// hostile file, every refusal with its sentence, and a release that never
// removes a lock that is no longer its own.

import { spawnSync } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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
