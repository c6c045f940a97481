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

import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import type { ArchiveRoute } from '../../engine/core/adapter.js';
import { writeFileAtomic } from '../../engine/host/atomic.js';
import { lstatOrNull } from '../../engine/host/fsx.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type SetArchived = ArchiveRoute['setArchived'];

/** The project buckets whose `<id>.jsonl` is a regular file (links are never followed). */
async function bucketsOf(projects: string, id: string): Promise<string[]> {
  const names = await fsp.readdir(projects).catch(() => [] as string[]);
  const out: string[] = [];
  for (const n of names.sort()) {
    const bucket = join(projects, n);
    if (!(await lstatOrNull(bucket))?.isDirectory()) continue;
    if ((await lstatOrNull(join(bucket, `${id}.jsonl`)))?.isFile()) out.push(bucket);
  }
  return out;
}

export const setClaudeArchived: SetArchived = async (inst, _ctx, sessionIds, archived) => {
  const ids = [...new Set(sessionIds)];
  const bad = ids.find((id) => typeof id !== 'string' || !UUID.test(id));
  if (bad !== undefined) throw new Error(`Not a Claude Code session id: ${JSON.stringify(String(bad).slice(0, 64))}.`);
  const projects = join(inst.home, 'projects');
  if (!(await lstatOrNull(projects))?.isDirectory()) throw new Error(`Claude Code has no projects directory at ${projects}; rescan.`);
  const found = new Map<string, string[]>();
  for (const id of ids) {
    const buckets = await bucketsOf(projects, id);
    if (!buckets.length) throw new Error(`Claude Code has no transcript of session ${id}; rescan.`);
    found.set(id, buckets);
  }
  const changed: string[] = [];
  const failed: { id: string; reason: string }[] = [];
  const mark = `${JSON.stringify({ archived, at: new Date().toISOString(), by: 'cleanerx' })}`;
  for (const [id, buckets] of found) {
    try {
      for (const bucket of buckets) {
        const dir = join(bucket, id);
        const st = await lstatOrNull(dir);
        if (st && !st.isDirectory()) throw new Error(`${dir} is not a directory`);
        if (!st) await fsp.mkdir(dir, { mode: 0o700 });
        await writeFileAtomic(join(dir, 'archived.json'), mark, 0o600);
      }
      changed.push(id);
    } catch (e) {
      failed.push({ id, reason: (e as Error).message });
      break;
    }
  }
  return { changed, failed };
};
