// All-or-nothing restore. The archive is decrypted and checked into private
// staging first; every destination is preflighted (beneath its fixed root,
// no link on the way, same owner and device, nothing already there in any
// form, no duplicates); each file is then committed through a staged
// sibling partial and a no-replace link. On any error everything this
// restore created is removed again, newest first, identity-checked.

import { randomUUID } from 'node:crypto';
import { constants as fsconst, createWriteStream, promises as fsp, type Stats } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { ensurePrivateDir } from '../engine/atomic.js';
import { crashPoint, failPoint } from '../engine/faults.js';
import type { AgentKind } from '../engine/model.js';
import { ArchiveError, readArchive, type Manifest, type ManifestEntry } from './archive.js';

export interface RestoreOptions {
  archivePath: string;
  identity: string;
  agent: AgentKind;
  /** Root label → fixed directory (e.g. pi_home → the pi agent dir). */
  roots: Record<string, string>;
  uid: number;
  stagingParent: string;
  /** Stop after the preflight, reporting what would be restored. */
  dryRun?: boolean;
  /** The catalog id the archive must carry. */
  expectId?: string;
  /**
   * Entries under this root label are official session exports: they are not
   * copied anywhere but handed, decrypted and hash-checked in staging, to the
   * agent's import route (relative path → staged file). Returns what it restored.
   */
  sessionImport?: { root: string; run(staged: Map<string, string>, dryRun: boolean): Promise<string[]> };
}

export interface RestoreResult {
  manifest: Manifest;
  restored: string[];
}

interface Planned {
  entry: ManifestEntry;
  staged: string;
  dest: string;
}

export async function restoreArchive(o: RestoreOptions): Promise<RestoreResult> {
  await ensurePrivateDir(o.stagingParent);
  const staging = join(o.stagingParent, `restore-${randomUUID()}`);
  await fsp.mkdir(staging, { mode: 0o700 });
  try {
    const staged = new Map<ManifestEntry, string>();
    let n = 0;
    const manifest = await readArchive(
      o.archivePath,
      o.identity,
      {
        manifest: (m) => {
          if (o.expectId && m.id !== o.expectId) throw new ArchiveError('The archive does not belong to this catalog entry.');
        },
        payload: async (entry, stream) => {
          const file = join(staging, String(n++));
          await pipeline(stream, createWriteStream(file, { flags: 'wx', mode: 0o600 }));
          staged.set(entry, file);
        },
      },
      o.agent,
    );
    const imp = o.sessionImport;
    if (imp && manifest.entries.some((e) => e.root === imp.root)) {
      if (manifest.entries.some((e) => e.root !== imp.root)) throw new ArchiveError('The archive mixes session exports with files; cleanerx never writes such an archive.');
      const byPath = new Map(manifest.entries.map((e) => [e.relativePath, staged.get(e)!]));
      return { manifest, restored: await imp.run(byPath, Boolean(o.dryRun)) };
    }
    const planned = await preflight(manifest, staged, o);
    if (o.dryRun) return { manifest, restored: planned.map((p) => p.dest) };
    await commit(planned, o.uid);
    return { manifest, restored: planned.map((p) => p.dest) };
  } finally {
    await fsp.rm(staging, { recursive: true, force: true });
  }
}

async function lstatOrNull(p: string): Promise<Stats | null> {
  try {
    return await fsp.lstat(p);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

async function preflight(m: Manifest, staged: Map<ManifestEntry, string>, o: RestoreOptions): Promise<Planned[]> {
  const out: Planned[] = [];
  const dests = new Set<string>();
  for (const entry of m.entries) {
    const rootDir = o.roots[entry.root];
    if (!rootDir) throw new ArchiveError(`The archive restores into "${entry.root}", which is not a root of ${o.agent}.`);
    const root = await lstatOrNull(rootDir);
    if (!root || root.isSymbolicLink() || !root.isDirectory()) throw new ArchiveError(`The restore root ${rootDir} is missing or not a plain directory.`);
    const dest = join(rootDir, ...entry.relativePath.split('/'));
    if (!dest.startsWith(rootDir + sep)) throw new ArchiveError(`${entry.relativePath} escapes its root.`);
    if (dests.has(dest)) throw new ArchiveError(`Two entries restore to ${dest}.`);
    dests.add(dest);
    // Existing ancestors must be real directories of this user on the root's device.
    const parts = entry.relativePath.split('/');
    let cur = rootDir;
    for (let i = 0; i < parts.length - 1; i++) {
      cur = join(cur, parts[i]!);
      const st = await lstatOrNull(cur);
      if (!st) break;
      if (st.isSymbolicLink() || !st.isDirectory()) throw new ArchiveError(`${cur} is not a plain directory; nothing was restored.`);
      if (o.uid >= 0 && st.uid !== o.uid) throw new ArchiveError(`${cur} belongs to another user; nothing was restored.`);
      if (st.dev !== root.dev) throw new ArchiveError(`${cur} is on another filesystem; nothing was restored.`);
    }
    if (await lstatOrNull(dest)) throw new ArchiveError(`${dest} already exists; a restore never overwrites anything.`);
    out.push({ entry, staged: staged.get(entry)!, dest });
  }
  return out;
}

async function commit(planned: Planned[], uid: number): Promise<void> {
  const createdDirs: string[] = [];
  const committed: { path: string; dev: number; ino: number }[] = [];
  const partials: string[] = [];
  try {
    for (let i = 0; i < planned.length; i++) {
      const p = planned[i]!;
      const parent = dirname(p.dest);
      for (const d of missingDirs(parent, await existingAncestor(parent))) {
        await fsp.mkdir(d, { mode: 0o700 });
        createdDirs.push(d);
      }
      const partial = join(parent, `.cleanerx-restore-${randomUUID()}.partial`);
      partials.push(partial);
      // The staged file moves when staging shares the destination's filesystem (no second copy of the data).
      await fsp.rename(p.staged, partial).catch(async (e: NodeJS.ErrnoException) => {
        if (e.code !== 'EXDEV') throw e;
        await fsp.copyFile(p.staged, partial, fsconst.COPYFILE_EXCL);
      });
      await fsp.chmod(partial, p.entry.mode ?? 0o600);
      const fh = await fsp.open(partial, 'r');
      await fh.sync();
      await fh.close();
      crashPoint(`restore:${i}:before`);
      failPoint(`restore:${i}:before`);
      // link() never replaces: a destination that appeared meanwhile fails with EEXIST.
      await fsp.link(partial, p.dest);
      const st = await fsp.lstat(p.dest);
      committed.push({ path: p.dest, dev: st.dev, ino: st.ino });
      await fsp.unlink(partial);
      partials.pop();
      crashPoint(`restore:${i}:after`);
      failPoint(`restore:${i}:after`);
      if (uid >= 0 && st.uid !== uid) throw new ArchiveError(`${p.dest} was not created as this user.`);
    }
    for (const d of new Set(planned.map((p) => dirname(p.dest)))) {
      const dh = await fsp.open(d, 'r');
      await dh.sync();
      await dh.close();
    }
  } catch (e) {
    for (const c of committed.reverse()) {
      const st = await lstatOrNull(c.path).catch(() => null);
      if (st && st.dev === c.dev && st.ino === c.ino) await fsp.unlink(c.path).catch(() => undefined);
    }
    for (const p of partials) await fsp.unlink(p).catch(() => undefined);
    for (const d of createdDirs.reverse()) await fsp.rmdir(d).catch(() => undefined);
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') throw new ArchiveError('A destination appeared during the restore; everything restored so far was removed again.');
    throw e;
  }
}

async function existingAncestor(dir: string): Promise<string> {
  let cur = dir;
  while (!(await lstatOrNull(cur))) cur = dirname(cur);
  return cur;
}

/** The directories between an existing ancestor and `dir`, outermost first. */
function missingDirs(dir: string, existing: string): string[] {
  const out: string[] = [];
  for (let cur = dir; cur !== existing && cur.length > existing.length; cur = dirname(cur)) out.unshift(cur);
  return out;
}
