// Atomic replace: same-directory sibling partial created new, fsync'd,
// renamed over the target, then the directory fsync'd. A crash leaves either
// the old file or the new one, never a torn one.

import { randomUUID } from 'node:crypto';
import { constants, promises as fsp } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { injectedFault } from '../core/faults.js';

export async function ensurePrivateDir(dir: string): Promise<void> {
  await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
}

/** `data` may come in pieces (an Iterable of strings): a long journal is never one string. */
export async function writeFileAtomic(target: string, data: string | Buffer | Iterable<string>, mode = 0o600, faultTag?: string): Promise<void> {
  const dir = dirname(target);
  await ensurePrivateDir(dir);
  const existing = await fsp.lstat(target).catch(() => null);
  if (existing?.isSymbolicLink()) throw new Error(`refusing to replace a symbolic link: ${target}`);
  const partial = join(dir, `.${basename(target)}.${randomUUID()}.partial`);
  const fh = await fsp.open(partial, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode);
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
  const dh = await fsp.open(dir, constants.O_RDONLY);
  try {
    await dh.sync();
  } finally {
    await dh.close();
  }
}
