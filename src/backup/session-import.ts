// Restore of official session exports (OpenCode): the archive's index.json,
// checked against the staged files, becomes the import route's input. The
// archive was already decrypted and hash-checked entry by entry; this only
// refuses an index that does not describe exactly those files.

import { promises as fsp } from 'node:fs';
import type { SessionExportEntry } from '../engine/core/adapter.js';
import { ArchiveError } from './archive.js';
import { SESSION_EXPORT_INDEX } from './take.js';
import { parseBoundedJson } from '../engine/core/bounded-json.js';

const MAX_INDEX_BYTES = 64 * 1024 * 1024;
const SAFE_ID = /^[A-Za-z0-9_-]{1,200}$/;

interface IndexEntry {
  id: string;
  name: string;
  directory: string;
  parentId: string | null;
  title: string;
  bytes: number;
  sha256: string;
}

/** Reads and checks the staged index; returns the exports in the order they were written (parents first). */
export async function stagedExports(staged: Map<string, string>): Promise<SessionExportEntry[]> {
  const indexFile = staged.get(SESSION_EXPORT_INDEX);
  if (!indexFile) throw new ArchiveError('The archive holds session exports without their index.');
  const st = await fsp.stat(indexFile);
  if (st.size > MAX_INDEX_BYTES) throw new ArchiveError('The session export index is too large.');
  let raw: unknown;
  try {
    raw = parseBoundedJson(await fsp.readFile(indexFile, 'utf8'));
  } catch {
    throw new ArchiveError('The session export index is not valid JSON.');
  }
  if (!Array.isArray(raw) || raw.length === 0) throw new ArchiveError('The session export index lists no sessions.');
  const seen = new Set<string>();
  const out: SessionExportEntry[] = [];
  for (const v of raw as Partial<IndexEntry>[]) {
    if (!v || typeof v !== 'object' || typeof v.id !== 'string' || !SAFE_ID.test(v.id))
      throw new ArchiveError('The session export index holds a malformed session id.');
    if (v.name !== `${v.id}.json`) throw new ArchiveError(`The export of ${v.id} has an unexpected name.`);
    if (seen.has(v.id)) throw new ArchiveError(`The session ${v.id} appears twice in the backup.`);
    seen.add(v.id);
    const file = staged.get(v.name);
    if (!file) throw new ArchiveError(`The export of ${v.id} is missing from the archive.`);
    if (typeof v.directory !== 'string' || !v.directory.startsWith('/')) throw new ArchiveError(`The export of ${v.id} records no absolute working directory.`);
    if (v.parentId !== null && typeof v.parentId !== 'string') throw new ArchiveError(`The export of ${v.id} has a malformed parent.`);
    if (typeof v.bytes !== 'number' || typeof v.sha256 !== 'string') throw new ArchiveError(`The export of ${v.id} has no size or hash.`);
    out.push({
      id: v.id,
      file,
      directory: v.directory,
      parentId: v.parentId ?? null,
      title: typeof v.title === 'string' ? v.title : v.id,
      bytes: v.bytes,
      sha256: v.sha256,
    });
  }
  if (staged.size !== out.length + 1) throw new ArchiveError('The archive holds files the session export index does not list.');
  return out;
}
