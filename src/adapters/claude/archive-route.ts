// ArchiveRoute for Claude Code: the mark the Agent SDK's archiveSession and
// unarchiveSession keep beside the transcript, `<bucket>/<id>/archived.json`
// = {"archived": true|false, "at": <ISO time>, "by": <who>}, mode 0600 in a
// 0700 directory, replaced atomically, in every project bucket that holds the
// transcript (as the SDK does).
//
// cleanerx writes that mark itself instead of calling the SDK at runtime: the
// SDK would become a runtime dependency whose optional native Claude binary
// (~200 MB per platform) every user's `npm install` would fetch — the
// `overrides` placeholder works only inside this repository. The format is
// proved against the real pinned SDK by test/peers/claude-archive.test.ts
// (its listSessions reports what cleanerx wrote, cleanerx reads what the SDK
// wrote). `by` says "cleanerx", honestly; the SDK reads only the other two.

import { randomBytes } from 'node:crypto';
import { closeSync, constants as C, fsyncSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { ArchiveRoute } from '../../engine/core/adapter.js';
import { type DirHandle, lstatAt, mkdirAt, openChildDir, openFileAt, openTrustedDir, readdirAt, renameAt, unlinkAt } from '../../engine/host/anchored-fs.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type SetArchived = ArchiveRoute['setArchived'];

// Every write goes through folder handles opened from the home without
// following a link (engine/host/anchored-fs.ts): a project folder swapped for
// a link mid-run stops the run instead of redirecting the mark elsewhere.

/** The project buckets (by name) whose `<id>.jsonl` is a regular file; links are never followed. */
function bucketsOf(projects: DirHandle, id: string): string[] {
  const out: string[] = [];
  for (const n of readdirAt(projects).sort()) {
    if (!lstatAt(projects, n)?.isDirectory()) continue;
    let bucket: DirHandle;
    try {
      bucket = openChildDir(projects, n);
    } catch {
      continue;
    }
    try {
      if (lstatAt(bucket, `${id}.jsonl`)?.isFile()) out.push(n);
    } finally {
      bucket.close();
    }
  }
  return out;
}

/** `<bucket>/<id>/archived.json` written atomically inside the held `<id>` folder: an exclusive temporary, fsync, rename, fsync of the folder. */
function writeMark(projects: DirHandle, bucketName: string, id: string, mark: string): void {
  const bucket = openChildDir(projects, bucketName);
  try {
    const st = lstatAt(bucket, id);
    if (st && !st.isDirectory()) throw new Error(`${join(bucket.display, id)} is not a directory`);
    if (!st) mkdirAt(bucket, id, 0o700);
    const dir = openChildDir(bucket, id);
    try {
      const tmp = `.archived.json.${randomBytes(6).toString('hex')}.partial`;
      const fd = openFileAt(dir, tmp, C.O_WRONLY | C.O_CREAT | C.O_EXCL, 0o600);
      try {
        const buf = Buffer.from(mark);
        for (let off = 0; off < buf.length; ) off += writeSync(fd, buf, off, buf.length - off);
        fsyncSync(fd);
      } catch (e) {
        closeSync(fd);
        unlinkAt(dir, tmp);
        throw e;
      }
      closeSync(fd);
      try {
        renameAt(dir, tmp, dir, 'archived.json');
      } catch (e) {
        unlinkAt(dir, tmp);
        throw e;
      }
      fsyncSync(dir.fd);
    } finally {
      dir.close();
    }
  } finally {
    bucket.close();
  }
}

export const setClaudeArchived: SetArchived = async (inst, _ctx, sessionIds, archived) => {
  const ids = [...new Set(sessionIds)];
  const bad = ids.find((id) => typeof id !== 'string' || !UUID.test(id));
  if (bad !== undefined) throw new Error(`Not a Claude Code session id: ${JSON.stringify(String(bad).slice(0, 64))}.`);
  let projects: DirHandle;
  try {
    projects = openTrustedDir(join(inst.home, 'projects'));
  } catch (e) {
    throw new Error(`Claude Code has no usable projects directory at ${join(inst.home, 'projects')} (${(e as Error).message}); rescan.`);
  }
  try {
    const found = new Map<string, string[]>();
    for (const id of ids) {
      const buckets = bucketsOf(projects, id);
      if (!buckets.length) throw new Error(`Claude Code has no transcript of session ${id}; rescan.`);
      found.set(id, buckets);
    }
    const changed: string[] = [];
    const failed: { id: string; reason: string }[] = [];
    const mark = `${JSON.stringify({ archived, at: new Date().toISOString(), by: 'cleanerx' })}`;
    for (const [id, buckets] of found) {
      try {
        for (const bucket of buckets) writeMark(projects, bucket, id, mark);
        changed.push(id);
      } catch (e) {
        failed.push({ id, reason: (e as Error).message });
        break;
      }
    }
    return { changed, failed };
  } finally {
    projects.close();
  }
};
