// Directory handles opened without following links, for removals and
// restore writes that a swapped ancestor cannot redirect. Node has no
// openat/unlinkat, so on Linux every operation goes through
// /proc/self/fd/<fd>/<name>: the kernel resolves the fd link to the very
// directory that was opened (wherever it has since moved), and only the one
// last component is looked up by name — with O_NOFOLLOW where it is opened
// (libuv adds O_CLOEXEC to every open).
// Off Linux there is no such anchor: anchoredSupported() is false and
// callers refuse to mutate.

import {
  constants as C,
  closeSync,
  existsSync,
  fstatSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readlinkSync,
  renameSync,
  rmdirSync,
  unlinkSync,
  type Stats,
} from 'node:fs';
import { normalize } from 'node:path';

/** A refused or failed anchored operation; `code` is the errno name (ELOOP for a link, ENOTDIR…). */
export class AnchoredError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

let supported: boolean | undefined;

/** True where directory handles can anchor operations (Linux with /proc mounted). */
export function anchoredSupported(): boolean {
  supported ??= process.platform === 'linux' && existsSync('/proc/self/fd');
  return supported;
}

/** Throws the plain refusal mutations give where handles cannot anchor them. */
export function assertAnchoredSupported(): void {
  if (!anchoredSupported()) {
    throw new AnchoredError(
      'This system offers no way to remove or restore files without following a swapped folder (cleanerx needs Linux with /proc); nothing was changed.',
      'ENOTSUP',
    );
  }
}

const DIR_FLAGS = C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW;

export class DirHandle {
  private open = true;
  constructor(
    readonly fd: number,
    /** The path for messages only; never reopened. */
    readonly display: string,
  ) {}

  /** Identity of the directory itself, from the handle. */
  stat(): Stats {
    return fstatSync(this.fd);
  }

  close(): void {
    if (!this.open) return;
    this.open = false;
    closeSync(this.fd);
  }

  /** The anchored path of an entry (internal to this module's operations). */
  at(name: string): string {
    if (!this.open) throw new AnchoredError(`The folder handle for ${this.display} is already closed.`, 'EBADF');
    return `/proc/self/fd/${this.fd}/${checkName(name, this.display)}`;
  }

  get path(): string {
    return `/proc/self/fd/${this.fd}`;
  }
}

function checkName(name: string, where: string): string {
  if (!name || name === '.' || name === '..' || name.includes('/') || name.includes('\0')) {
    throw new AnchoredError(`Refusing the entry name "${name}" in ${where}: a single plain name is required.`, 'EINVAL');
  }
  return name;
}

const join = (display: string, name: string): string => (display.endsWith('/') ? display + name : `${display}/${name}`);

function wrap(e: unknown, what: string): AnchoredError {
  const code = (e as NodeJS.ErrnoException).code ?? 'EIO';
  if (e instanceof AnchoredError) return e;
  const why: Record<string, string> = {
    ELOOP: 'is a symbolic link',
    ENOTDIR: 'is not a directory',
    ENOENT: 'does not exist',
    EEXIST: 'already exists',
    EACCES: 'is not accessible',
    EPERM: 'is not permitted',
    ENOTEMPTY: 'is not empty',
    EXDEV: 'is on another filesystem',
  };
  return new AnchoredError(`${what} ${why[code] ?? `cannot be used (${code})`}.`, code);
}

/** Opens a child directory of `parent` by name; a link or non-directory is refused (ELOOP/ENOTDIR). */
export function openChildDir(parent: DirHandle, name: string): DirHandle {
  assertAnchoredSupported();
  const display = join(parent.display, name);
  try {
    return new DirHandle(openSync(parent.at(name), DIR_FLAGS), display);
  } catch (e) {
    // O_DIRECTORY|O_NOFOLLOW reports a link as ENOTDIR: name it for what it is.
    if ((e as NodeJS.ErrnoException).code === 'ENOTDIR' && lstatAt(parent, name)?.isSymbolicLink())
      throw new AnchoredError(`${display} is a symbolic link.`, 'ELOOP');
    throw wrap(e, display);
  }
}

/** Opens an absolute directory path component by component from '/', refusing any symbolic link on the way. */
export function openRootDir(absPath: string): DirHandle {
  assertAnchoredSupported();
  if (!absPath.startsWith('/')) throw new AnchoredError(`Refusing a relative path: ${absPath}`, 'EINVAL');
  const parts = absPath.split('/').filter((p) => p !== '');
  if (parts.some((p) => p === '.' || p === '..')) throw new AnchoredError(`Refusing a path with "." or "..": ${absPath}`, 'EINVAL');
  let cur: DirHandle;
  try {
    cur = new DirHandle(openSync('/', DIR_FLAGS), '/');
  } catch (e) {
    throw wrap(e, '/');
  }
  return descend(cur, parts);
}

/**
 * Like openRootDir, but a symbolic link on the way is followed when only
 * root could have made or swapped it (owned by uid 0, in a root-owned
 * directory nobody else may write), as /home → /var/home on some systems;
 * its target is then walked with the same rule. Any other link is refused,
 * and every link when cleanerx itself runs as root.
 */
export function openTrustedDir(absPath: string): DirHandle {
  let path = absPath;
  for (let hops = 0; hops < 40; hops++) {
    const parts = path.split('/').filter((p) => p !== '');
    if (!path.startsWith('/') || parts.some((p) => p === '.' || p === '..'))
      throw new AnchoredError(`Refusing the path ${absPath}: it must be absolute, without "." or "..".`, 'EINVAL');
    let cur = openRootDir('/');
    let i = 0;
    let redirected: string | null = null;
    try {
      for (; i < parts.length; i++) {
        const st = lstatAt(cur, parts[i]!);
        if (st?.isSymbolicLink()) {
          const dir = cur.stat();
          // Running as root, a root-owned link proves nothing: anyone with our rights made it.
          if (process.geteuid?.() === 0 || st.uid !== 0 || dir.uid !== 0 || (dir.mode & 0o022) !== 0)
            throw new AnchoredError(`${join(cur.display, parts[i]!)} is a symbolic link.`, 'ELOOP');
          const target = readlinkSync(cur.at(parts[i]!));
          const base = target.startsWith('/') ? target : `${cur.display === '/' ? '' : cur.display}/${target}`;
          redirected = normalize([base, ...parts.slice(i + 1)].join('/'));
          break;
        }
        const next = openChildDir(cur, parts[i]!);
        cur.close();
        cur = next;
      }
    } catch (e) {
      cur.close();
      throw e;
    }
    if (redirected === null) return cur;
    cur.close();
    path = redirected;
  }
  throw new AnchoredError(`${absPath} has too many symbolic links on the way.`, 'ELOOP');
}

/** Opens `relComponents` below `root` one handle at a time; `root` stays open and owned by the caller. */
export function openDirPath(root: DirHandle, relComponents: readonly string[]): DirHandle {
  assertAnchoredSupported();
  if (relComponents.length === 0) {
    // A second handle on the same directory, so the caller may close either. Through "/." : the fd entry
    // itself is a link, which O_NOFOLLOW refuses as the last component.
    try {
      return new DirHandle(openSync(`${root.path}/.`, DIR_FLAGS), root.display);
    } catch (e) {
      throw wrap(e, root.display);
    }
  }
  const first = openChildDir(root, relComponents[0]!);
  return descend(first, relComponents.slice(1));
}

/** Walks down from `start` (which it takes over and closes on the way). */
function descend(start: DirHandle, parts: readonly string[]): DirHandle {
  let cur = start;
  for (const p of parts) {
    let next: DirHandle;
    try {
      next = openChildDir(cur, p);
    } catch (e) {
      cur.close();
      throw e;
    }
    cur.close();
    cur = next;
  }
  return cur;
}

/** lstat of an entry by name; null when it does not exist. */
export function lstatAt(dir: DirHandle, name: string): Stats | null {
  try {
    return lstatSync(dir.at(name));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw wrap(e, join(dir.display, name));
  }
}

/** The names in the directory, from the handle. */
export function readdirAt(dir: DirHandle): string[] {
  try {
    return readdirSync(dir.path);
  } catch (e) {
    throw wrap(e, dir.display);
  }
}

/** Unlinks a non-directory entry by name (a link is removed itself, never followed). */
export function unlinkAt(dir: DirHandle, name: string): void {
  try {
    unlinkSync(dir.at(name));
  } catch (e) {
    throw wrap(e, join(dir.display, name));
  }
}

/** Removes an empty directory entry by name. */
export function rmdirAt(dir: DirHandle, name: string): void {
  try {
    rmdirSync(dir.at(name));
  } catch (e) {
    throw wrap(e, join(dir.display, name));
  }
}

export function mkdirAt(dir: DirHandle, name: string, mode = 0o700): void {
  try {
    mkdirSync(dir.at(name), { mode });
  } catch (e) {
    throw wrap(e, join(dir.display, name));
  }
}

/**
 * Opens a file by name with O_NOFOLLOW always, and O_NONBLOCK when opened
 * for reading so that a FIFO in its place cannot block; callers check the
 * fstat for a regular file before reading.
 */
export function openFileAt(dir: DirHandle, name: string, flags: number, mode = 0o600): number {
  let f = flags | C.O_NOFOLLOW;
  if ((flags & 3) === C.O_RDONLY) f |= C.O_NONBLOCK;
  try {
    return openSync(dir.at(name), f, mode);
  } catch (e) {
    throw wrap(e, join(dir.display, name));
  }
}

/** Commits a file under a new name without replacing anything there (EEXIST); a link is linked itself. */
export function linkAt(fromDir: DirHandle, fromName: string, toDir: DirHandle, toName: string): void {
  try {
    linkSync(fromDir.at(fromName), toDir.at(toName));
  } catch (e) {
    throw wrap(e, join(toDir.display, toName));
  }
}

/** rename(2) between two handles; replaces an existing non-directory target as rename does. */
export function renameAt(fromDir: DirHandle, fromName: string, toDir: DirHandle, toName: string): void {
  try {
    renameSync(fromDir.at(fromName), toDir.at(toName));
  } catch (e) {
    throw wrap(e, join(toDir.display, toName));
  }
}

/** Same directory or file: device and inode agree. */
export const sameIdentity = (a: { dev: number; ino: number }, b: { dev: number; ino: number }): boolean => a.dev === b.dev && a.ino === b.ino;
