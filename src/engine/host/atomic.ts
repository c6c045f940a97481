// Atomic replace: same-directory sibling partial created new, fsync'd,
// renamed over the target, then the directory fsync'd. A crash leaves either
// the old file or the new one, never a torn one.
//
// Only into a directory this user owns and no one else may write (#26),
// checked through a descriptor on it, so that no other user can replace the
// partial or the target in it before the rename. The path to it
// is followed as given: a user who links ~/.local/state elsewhere chose
// that. Plain open flags and fstat, so macOS is held to the same rule.

import { randomUUID } from 'node:crypto';
import { constants, promises as fsp } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { injectedFault } from '../core/faults.js';

export async function ensurePrivateDir(dir: string): Promise<void> {
  await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
}

/** The directory that receives the file, opened and checked through its descriptor; one sentence naming it when refused. */
async function openOwnDir(dir: string): Promise<FileHandle> {
  const dh = await fsp.open(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  const st = await dh.stat();
  const uid = process.geteuid?.();
  let why: string | null = null;
  if (uid !== undefined && st.uid !== uid) why = 'it belongs to another user; point cleanerx at a directory of your own';
  else if ((st.mode & 0o022) !== 0) why = `other users can write in it; make it private (chmod go-w ${dir}) and try again`;
  if (why) {
    await dh.close();
    throw new Error(`Refusing to write into ${dir}: ${why}.`);
  }
  return dh;
}

/** `data` may come in pieces (an Iterable of strings): a long journal is never one string. */
export async function writeFileAtomic(target: string, data: string | Buffer | Iterable<string>, mode = 0o600, faultTag?: string): Promise<void> {
  const dir = dirname(target);
  await ensurePrivateDir(dir);
  const dh = await openOwnDir(dir);
  try {
    await replaceIn(dh, dir, target, data, mode, faultTag);
  } finally {
    await dh.close();
  }
}

async function replaceIn(
  dh: FileHandle,
  dir: string,
  target: string,
  data: string | Buffer | Iterable<string>,
  mode: number,
  faultTag?: string,
): Promise<void> {
  const existing = await fsp.lstat(target).catch(() => null);
  if (existing?.isSymbolicLink()) throw new Error(`refusing to replace a symbolic link: ${target}`);
  const partial = join(dir, `.${basename(target)}.${randomUUID()}.partial`);
  const fh = await fsp.open(partial, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
  try {
    const fault = faultTag ? injectedFault(faultTag) : null;
    if (fault) throw fault;
    // Each piece from the current position on (writeFile writes it whole).
    if (typeof data === 'string' || Buffer.isBuffer(data)) await fh.writeFile(data);
    else for (const piece of data) await fh.writeFile(piece);
    await fh.sync();
  } catch (e) {
    await fh.close();
    await fsp.unlink(partial).catch(() => undefined);
    throw e;
  }
  await fh.close();
  try {
    await fsp.rename(partial, target);
  } catch (e) {
    await fsp.unlink(partial).catch(() => undefined);
    throw e;
  }
  await dh.sync();
}
