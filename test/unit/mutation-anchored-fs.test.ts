// The anchored handles' refusals, messages, codes and descriptor hygiene
// (#26 item 5: the mutants of engine/host/anchored-fs.ts that
// anchored-fs.test.ts let through). The trusted-link rule is walked
// in-process as nobody (seteuid, given back after each case) over links
// root plants in a root-only folder of the temp dir: followed when root
// made both, refused when anyone else owns the link or the folder, or may
// write the folder, and refused to a root process. Off Linux every
// operation refuses (the platform is faked before the module's first check).

import {
  closeSync,
  constants as C,
  fstatSync,
  lchownSync,
  chmodSync,
  chownSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  AnchoredError,
  type DirHandle,
  linkAt,
  lstatAt,
  mkdirAt,
  openChildDir,
  openDirPath,
  openFileAt,
  openRootDir,
  openTrustedDir,
  readdirAt,
  renameAt,
  rmdirAt,
  sameIdentity,
  unlinkAt,
} from '../../src/engine/host/anchored-fs.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { otherFilesystem } from '../helpers/scratch.js';

const envs: TempEnv[] = [];
const handles: DirHandle[] = [];
afterEach(() => {
  for (const h of handles.splice(0)) h.close();
  for (const t of envs.splice(0)) t.cleanup();
});
function keep(h: DirHandle): DirHandle {
  handles.push(h);
  return h;
}

function tree(): { root: string; home: string } {
  const t = makeTempEnv('cleanerx-anchored-mut-');
  envs.push(t);
  const home = join(t.root, 'home');
  mkdirSync(join(home, 'a', 'b'), { recursive: true });
  writeFileSync(join(home, 'a', 'b', 'f'), 'inside');
  return { root: t.root, home };
}

/** The AnchoredError `fn` throws (failing the test when it throws anything else or nothing). */
function refusal(fn: () => unknown): AnchoredError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(AnchoredError);
    return e as AnchoredError;
  }
  throw new Error('expected a refusal, got none');
}

const openFds = (): number => readdirSync('/proc/self/fd').length;
/** Runs `fn` and says how many descriptors it left open beyond what it returned. */
function leaked(fn: () => DirHandle | undefined): number {
  const before = openFds();
  const h = fn();
  const after = openFds();
  h?.close();
  return after - before - (h ? 1 : 0);
}

const asRoot = process.geteuid?.() === 0;
const NOBODY = 65534;
/** Runs `fn` with the effective uid of nobody (as root), then root again. */
function asNobody<T>(fn: () => T): T {
  process.seteuid!(NOBODY);
  try {
    return fn();
  } finally {
    process.seteuid!(0);
  }
}

describe('errors: each an AnchoredError naming the entry, with its errno', () => {
  it('names what is wrong with the entry, joined to its folder with one slash', () => {
    const { home } = tree();
    const a = keep(openRootDir(join(home, 'a')));
    let e = refusal(() => openChildDir(a, 'missing'));
    expect([e.message, e.code]).toEqual([`${home}/a/missing does not exist.`, 'ENOENT']);
    e = refusal(() => rmdirAt(a, 'b'));
    expect([e.message, e.code]).toEqual([`${home}/a/b is not empty.`, 'ENOTEMPTY']);
    e = refusal(() => linkAt(a, 'b', a, 'c'));
    expect([e.message, e.code]).toEqual([`${home}/a/c is not permitted.`, 'EPERM']);
    e = refusal(() => unlinkAt(a, 'b'));
    expect([e.message, e.code]).toEqual([`${home}/a/b cannot be used (EISDIR).`, 'EISDIR']);
    e = refusal(() => unlinkAt(a, 'missing'));
    expect([e.message, e.code]).toEqual([`${home}/a/missing does not exist.`, 'ENOENT']);
    e = refusal(() => renameAt(a, 'missing', a, 'other'));
    expect([e.message, e.code]).toEqual([`${home}/a/other does not exist.`, 'ENOENT']);
    e = refusal(() => openFileAt(a, 'b', C.O_WRONLY));
    expect(e.code).toBe('EISDIR');
    // Below '/', no doubled slash.
    const slash = keep(openRootDir('/'));
    expect(slash.display).toBe('/');
    e = refusal(() => openChildDir(slash, 'cleanerx-no-such-entry'));
    expect(e.message).toBe('/cleanerx-no-such-entry does not exist.');
  });

  it('another filesystem: a link across it is refused as such', () => {
    const { home } = tree();
    const b = keep(openRootDir(join(home, 'a', 'b')));
    const other = otherFilesystem(home);
    const shm = keep(openRootDir(other));
    expect(shm.stat().dev).not.toBe(b.stat().dev);
    const e = refusal(() => linkAt(b, 'f', shm, `cleanerx-mut-${process.pid}`));
    expect([e.message, e.code]).toEqual([`${other}/cleanerx-mut-${process.pid} is on another filesystem.`, 'EXDEV']);
  });

  it('a folder nobody may enter is "not accessible" to nobody', () => {
    const { root, home } = tree();
    if (!asRoot) {
      // Not root: no other user to be; the same refusal from a folder without search permission.
      chmodSync(join(home, 'a'), 0o600);
      try {
        expect(refusal(() => openRootDir(join(home, 'a', 'b'))).code).toBe('EACCES');
      } finally {
        chmodSync(join(home, 'a'), 0o700);
      }
      return;
    }
    chmodSync(root, 0o755);
    chmodSync(home, 0o755);
    chmodSync(join(home, 'a'), 0o700);
    const e = asNobody(() => refusal(() => openRootDir(join(home, 'a', 'b'))));
    expect([e.message, e.code]).toEqual([`${home}/a is not accessible.`, 'EACCES']);
    const a = keep(openRootDir(join(home, 'a')));
    const l = asNobody(() => refusal(() => lstatAt(a, 'b')));
    expect([l.message, l.code]).toEqual([`${home}/a/b is not accessible.`, 'EACCES']);
    expect(lstatAt(a, 'b')!.isDirectory()).toBe(true);
    // Through a handle root opened: listing it, or a second handle on it, is refused to nobody too.
    for (const op of [() => readdirAt(a), () => openDirPath(a, [])]) {
      const r = asNobody(() => refusal(op));
      expect([r.message, r.code]).toEqual([`${home}/a is not accessible.`, 'EACCES']);
    }
  });

  it('a link in the way is refused as a link (ELOOP), a bad name as EINVAL, a closed handle as EBADF', () => {
    const { root, home } = tree();
    symlinkSync(join(root, 'elsewhere'), join(home, 'a', 'l'));
    const a = keep(openRootDir(join(home, 'a')));
    let e = refusal(() => openChildDir(a, 'l'));
    expect([e.message, e.code]).toEqual([`${home}/a/l is a symbolic link.`, 'ELOOP']);
    e = refusal(() => lstatAt(a, '..'));
    expect([e.message, e.code]).toEqual([`Refusing the entry name ".." in ${home}/a: a single plain name is required.`, 'EINVAL']);
    const closed = openRootDir(join(home, 'a'));
    closed.close();
    closed.close(); // a second close is a no-op, not a close of whatever took the number
    e = refusal(() => closed.at('b'));
    expect([e.message, e.code]).toEqual([`The folder handle for ${home}/a is already closed.`, 'EBADF']);
    e = refusal(() => mkdirAt(keep(openRootDir(join(home, 'a'))), 'b'));
    expect([e.message, e.code]).toEqual([`${home}/a/b already exists.`, 'EEXIST']);
  });

  it('close really closes the descriptor, once', () => {
    const { home } = tree();
    const h = openRootDir(home);
    const other = openRootDir(home);
    h.close();
    expect(() => fstatSync(h.fd)).toThrow(/EBADF/);
    const reused = openRootDir(join(home, 'a'));
    // Usually the same number again: closing h a second time must leave it open.
    h.close();
    expect(readdirAt(reused)).toEqual(['b']);
    reused.close();
    other.close();
  });
});

describe('paths: absolute, without "." or ".."', () => {
  it('openRootDir refuses a relative path and "." or ".." components by their own message', () => {
    const { home } = tree();
    let e = refusal(() => openRootDir('a/b'));
    expect([e.message, e.code]).toEqual(['Refusing a relative path: a/b', 'EINVAL']);
    for (const p of [`${home}/a/../a`, `${home}/./a`, `${home}/a/b/..`]) {
      e = refusal(() => openRootDir(p));
      expect([e.message, e.code]).toEqual([`Refusing a path with "." or "..": ${p}`, 'EINVAL']);
    }
  });

  it('openTrustedDir refuses the same, and a missing entry as missing', () => {
    const { home } = tree();
    for (const p of ['a/b', `${home}/a/../a`, `${home}/./a`, `${home}/a/b/..`]) {
      const e = refusal(() => openTrustedDir(p));
      expect([e.message, e.code]).toEqual([`Refusing the path ${p}: it must be absolute, without "." or "..".`, 'EINVAL']);
    }
    const e = refusal(() => openTrustedDir(join(home, 'a', 'missing', 'x')));
    expect([e.message, e.code]).toEqual([`${home}/a/missing does not exist.`, 'ENOENT']);
  });

  it('openDirPath of no components is a second handle on the same folder', () => {
    const { home } = tree();
    const a = openRootDir(join(home, 'a'));
    const again = keep(openDirPath(a, []));
    expect(again.fd).not.toBe(a.fd);
    expect(again.display).toBe(a.display);
    expect(sameIdentity(again.stat(), a.stat())).toBe(true);
    a.close();
    expect(readdirAt(again)).toEqual(['b']);
  });
});

describe('descriptors: none left open on any way out', () => {
  it('walks close every handle but the one they return, and all of them when they fail', () => {
    const { home } = tree();
    expect(leaked(() => openRootDir(join(home, 'a', 'b')))).toBe(0);
    expect(leaked(() => openTrustedDir(join(home, 'a', 'b')))).toBe(0);
    const a = keep(openRootDir(home));
    expect(leaked(() => openDirPath(a, ['a', 'b']))).toBe(0);
    for (const fail of [() => openRootDir(join(home, 'a', 'missing')), () => openTrustedDir(join(home, 'a', 'missing')), () => openDirPath(a, ['a', 'x'])])
      expect(
        leaked(() => {
          expect(fail).toThrow(/does not exist/);
          return undefined;
        }),
      ).toBe(0);
  });
});

describe('openFileAt', () => {
  const flagsOf = (fd: number): number => {
    const line = readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8').match(/^flags:\s+([0-7]+)/m)!;
    return Number.parseInt(line[1]!, 8);
  };
  it('adds O_NONBLOCK for reading only (a writer must not get EAGAIN)', () => {
    const { home } = tree();
    const b = keep(openRootDir(join(home, 'a', 'b')));
    const r = openFileAt(b, 'f', C.O_RDONLY);
    const w = openFileAt(b, 'f', C.O_WRONLY | C.O_APPEND);
    try {
      expect(flagsOf(r) & C.O_NONBLOCK).toBe(C.O_NONBLOCK);
      expect(flagsOf(w) & C.O_NONBLOCK).toBe(0);
    } finally {
      closeSync(r);
      closeSync(w);
    }
  });
});

describe('sameIdentity', () => {
  it('needs both the device and the inode', () => {
    expect(sameIdentity({ dev: 1, ino: 5 }, { dev: 1, ino: 5 })).toBe(true);
    expect(sameIdentity({ dev: 1, ino: 5 }, { dev: 2, ino: 5 })).toBe(false);
    expect(sameIdentity({ dev: 1, ino: 5 }, { dev: 1, ino: 6 })).toBe(false);
  });
});

describe('openTrustedDir follows only links root made in a root-only folder', () => {
  /** A root-only folder `d` (0755) holding `target/sub` and links to it; its ancestors searchable by nobody. */
  function trusted(): { d: string; target: string } {
    const { root } = tree();
    chmodSync(root, 0o755);
    const d = join(root, 'trusted');
    const target = join(d, 'target');
    mkdirSync(join(target, 'sub'), { recursive: true, mode: 0o755 });
    chmodSync(d, 0o755);
    chmodSync(target, 0o755);
    chmodSync(join(target, 'sub'), 0o755);
    symlinkSync(target, join(d, 'abs'));
    symlinkSync('target', join(d, 'rel'));
    return { d, target };
  }
  const ino = (h: DirHandle): number => {
    handles.push(h);
    return h.stat().ino;
  };

  it('as nobody: absolute and relative targets, mid-path too, without leaking a handle', () => {
    const { d, target } = trusted();
    if (!asRoot) {
      // Not root: no root-made link can be planted; a link the user made is refused.
      expect(refusal(() => openTrustedDir(join(d, 'abs'))).code).toBe('ELOOP');
      return;
    }
    const want = ino(openRootDir(target));
    const sub = ino(openRootDir(join(target, 'sub')));
    asNobody(() => {
      expect(ino(openTrustedDir(join(d, 'abs')))).toBe(want);
      expect(ino(openTrustedDir(join(d, 'rel')))).toBe(want);
      expect(ino(openTrustedDir(join(d, 'abs', 'sub')))).toBe(sub);
      expect(ino(openTrustedDir(join(d, 'rel', 'sub')))).toBe(sub);
      expect(leaked(() => openTrustedDir(join(d, 'rel', 'sub')))).toBe(0);
      // The system's own relative link below '/', where it has one (merged /usr).
      if (lstatAt(keep(openRootDir('/')), 'bin')?.isSymbolicLink()) expect(ino(openTrustedDir('/bin'))).toBe(ino(openRootDir('/usr/bin')));
    });
  });

  it('refused when the link or the folder belongs to someone else, when others may write the folder, and to root', () => {
    const { d } = trusted();
    if (!asRoot) {
      expect(refusal(() => openTrustedDir(join(d, 'rel'))).code).toBe('ELOOP');
      return;
    }
    const expectRefused = (why: string): void => {
      const e = asNobody(() => refusal(() => openTrustedDir(join(d, 'rel', 'sub'))));
      expect([e.message, e.code], why).toEqual([`${d}/rel is a symbolic link.`, 'ELOOP']);
    };
    // Root itself trusts no link.
    const e = refusal(() => openTrustedDir(join(d, 'rel')));
    expect([e.message, e.code]).toEqual([`${d}/rel is a symbolic link.`, 'ELOOP']);
    lchownSync(join(d, 'rel'), NOBODY, NOBODY);
    expectRefused('a link nobody owns');
    lchownSync(join(d, 'rel'), 0, 0);
    chownSync(d, NOBODY, NOBODY);
    expectRefused('a folder nobody owns');
    chownSync(d, 0, 0);
    chmodSync(d, 0o775);
    expectRefused('a group-writable folder');
    chmodSync(d, 0o757);
    expectRefused('a world-writable folder');
    chmodSync(d, 0o755);
    expect(asNobody(() => ino(openTrustedDir(join(d, 'rel', 'sub'))))).toBeGreaterThan(0);
  });

  it('follows 39 links in a row and refuses the 40th', () => {
    const { d, target } = trusted();
    if (!asRoot) return expect(refusal(() => openTrustedDir(join(d, 'abs'))).code).toBe('ELOOP');
    // l0 → l1 → … → lN-1 → target: N redirections.
    const chain = (name: string, n: number): string => {
      for (let i = 0; i < n; i++) symlinkSync(i === n - 1 ? target : `${name}${i + 1}`, join(d, `${name}${i}`));
      return join(d, `${name}0`);
    };
    const ok = chain('s', 39);
    const long = chain('t', 40);
    const want = ino(openRootDir(target));
    asNobody(() => {
      expect(ino(openTrustedDir(ok))).toBe(want);
      const e = refusal(() => openTrustedDir(long));
      expect([e.message, e.code]).toEqual([`${long} has too many symbolic links on the way.`, 'ELOOP']);
    });
  });
});

describe('off Linux (no /proc anchor)', () => {
  it('every operation refuses, saying why, before touching anything', async () => {
    const { home } = tree();
    const platform = Object.getOwnPropertyDescriptor(process, 'platform')!;
    vi.resetModules();
    const m = await import('../../src/engine/host/anchored-fs.js');
    Object.defineProperty(process, 'platform', { ...platform, value: 'darwin' });
    let supported: boolean;
    try {
      supported = m.anchoredSupported();
    } finally {
      Object.defineProperty(process, 'platform', platform);
    }
    expect(supported).toBe(false);
    const message =
      'This system offers no way to remove or restore files without following a swapped folder (cleanerx needs Linux with /proc); nothing was changed.';
    const dir = new m.DirHandle(openRootDir(home).fd, home);
    try {
      for (const op of [
        () => m.assertAnchoredSupported(),
        () => m.openRootDir(home),
        () => m.openRootDir('/'),
        () => m.openChildDir(dir, 'a'),
        () => m.openDirPath(dir, []),
        () => m.openTrustedDir(home),
      ]) {
        let caught: unknown;
        try {
          op();
        } catch (e) {
          caught = e;
        }
        expect(caught).toBeInstanceOf(m.AnchoredError);
        expect([(caught as AnchoredError).message, (caught as AnchoredError).code]).toEqual([message, 'ENOTSUP']);
      }
    } finally {
      dir.close();
    }
    vi.resetModules();
  });
});
