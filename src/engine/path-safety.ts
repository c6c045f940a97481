// Path safety for the file routes: a target must sit beneath a fixed,
// allowlisted root, reached without a symbolic link at any component, hold
// no link inside, belong to this user, stay on the root's filesystem, and
// neither be, lie under, nor contain a protected path. Its identity is
// captured at execution start and checked again right before removal, and
// removal itself never follows a link.

import { lstatSync, readdirSync, rmdirSync, unlinkSync, type Stats } from 'node:fs';
import { isAbsolute, normalize, sep } from 'node:path';
import { walkOwned } from './revision.js';

export class UnsafePathError extends Error {
  readonly unsafe = true;
}

export interface FileIdentity {
  path: string;
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  /** Metadata revision of the whole tree under the path. */
  revision: string;
}

export interface SafetyContext {
  roots: readonly string[];
  protectedPaths: readonly string[];
  uid: number;
}

const within = (child: string, parent: string): boolean => child === parent || child.startsWith(parent.endsWith(sep) ? parent : parent + sep);

/** Validates one target and captures its identity; throws UnsafePathError with a plain reason. */
export function captureIdentity(target: string, ctx: SafetyContext): FileIdentity {
  if (!isAbsolute(target)) throw new UnsafePathError(`Refusing a relative path: ${target}`);
  if (target.split(sep).includes('..') || normalize(target) !== target) throw new UnsafePathError(`Refusing a path with "..": ${target}`);
  const root = ctx.roots.find((r) => within(target, r) && target !== r);
  if (!root) throw new UnsafePathError(`${target} is outside the allowed roots.`);
  for (const p of ctx.protectedPaths) {
    if (within(target, p) || within(p, target)) throw new UnsafePathError(`${target} is or contains protected data (${p}).`);
  }
  const rootStat = lstatOrThrow(root);
  if (rootStat.isSymbolicLink()) throw new UnsafePathError(`The root ${root} is a symbolic link.`);
  // Every component from the root down to the target must be a real directory (or the target itself).
  const rel = target.slice(root.length + 1).split(sep);
  let cur = root;
  for (let i = 0; i < rel.length; i++) {
    cur = `${cur}${sep}${rel[i]}`;
    const st = lstatOrThrow(cur);
    if (st.isSymbolicLink()) throw new UnsafePathError(`${cur} is a symbolic link.`);
    if (i < rel.length - 1 && !st.isDirectory()) throw new UnsafePathError(`${cur} is not a directory.`);
    if (st.dev !== rootStat.dev) throw new UnsafePathError(`${cur} is on another filesystem than ${root}.`);
  }
  const st = lstatOrThrow(target);
  const tree = walkOwned([target], { uid: ctx.uid });
  if (tree.unsafe) throw new UnsafePathError(tree.unsafe);
  return { path: target, dev: st.dev, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, revision: tree.revision! };
}

/** Throws when the path is no longer exactly what was captured. */
export function revalidate(id: FileIdentity, ctx: SafetyContext): void {
  let now: FileIdentity;
  try {
    now = captureIdentity(id.path, ctx);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new UnsafePathError(`${id.path} is gone; target changed after scan.`);
    throw e;
  }
  if (now.dev !== id.dev || now.ino !== id.ino || now.size !== id.size || now.mtimeMs !== id.mtimeMs || now.revision !== id.revision) {
    throw new UnsafePathError(`Target changed after scan: ${id.path}`);
  }
}

/**
 * Removes a file or a directory tree bottom-up, checking every entry with
 * lstat as it goes: a link is unlinked itself (never followed), and an entry
 * on another device stops the removal.
 */
export function removeNoFollow(target: string, dev: number): void {
  const st = lstatSync(target);
  if (st.dev !== dev) throw new UnsafePathError(`${target} moved to another filesystem.`);
  if (!st.isDirectory() || st.isSymbolicLink()) {
    unlinkSync(target);
    return;
  }
  for (const name of readdirSync(target)) removeNoFollow(`${target}${sep}${name}`, dev);
  rmdirSync(target);
}

function lstatOrThrow(p: string): Stats {
  try {
    return lstatSync(p);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'ENOENT') throw Object.assign(new UnsafePathError(`${p} does not exist.`), { code: 'ENOENT' });
    throw new UnsafePathError(`${p} cannot be checked (${err.code ?? 'error'}).`);
  }
}
