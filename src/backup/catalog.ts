// $XDG_DATA_HOME/cleanerx/backups/catalog.json: the verified archives, written
// atomically. Only `<backups>/<id>.cxb` derived from a catalog id is ever
// touched; an archive is removed before its catalog entry, so a retried
// delete after an interruption only drops the stale entry.

import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir, writeFileAtomic } from '../engine/host/atomic.js';
import type { AgentKind } from '../engine/core/model.js';
import { BoundedReadError, readRegularTextAsync } from '../engine/host/bounded-read.js';
import { parseBoundedJson } from '../engine/core/bounded-json.js';

export interface BackupRecord {
  id: string;
  createdAt: string;
  expiresAt: string;
  archivePath: string;
  archiveBytes: number;
  originalBytes: number;
  /** The backed-up items' size on disk (allocated, as the scan and the review measure it); absent in records before it was kept. */
  onDiskBytes?: number;
  itemCount: number;
  operationId: string;
  agent: AgentKind;
  verifiedAt: string;
}

/** Far above any real catalog (a record is ~400 bytes); anything larger is not ours. */
const MAX_CATALOG_BYTES = 32 * 1024 * 1024;

const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function backupsDir(dataDir: string): string {
  return join(dataDir, 'backups');
}

export function archivePathFor(dataDir: string, id: string): string {
  if (!ID.test(id)) throw new Error(`"${id}" is not a backup id.`);
  return join(backupsDir(dataDir), `${id}.cxb`);
}

export async function loadCatalog(dataDir: string): Promise<BackupRecord[]> {
  const path = join(backupsDir(dataDir), 'catalog.json');
  let text: string;
  try {
    text = await readRegularTextAsync(path, MAX_CATALOG_BYTES);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    if (e instanceof BoundedReadError) throw new Error(`Cannot read the backup catalog: ${e.message}`);
    throw new Error(`Cannot read the backup catalog ${path} (${(e as Error).message}).`);
  }
  let v: { records?: unknown };
  try {
    v = parseBoundedJson(text) as { records?: unknown };
  } catch {
    throw new Error(`The backup catalog ${path} is not valid JSON; move it away to start a new catalog (the archives stay in ${backupsDir(dataDir)}).`);
  }
  if (!v || !Array.isArray(v.records))
    throw new Error(`The backup catalog ${path} is not valid; move it away to start a new catalog (the archives stay in ${backupsDir(dataDir)}).`);
  return (v.records as BackupRecord[]).filter((r) => r && typeof r.id === 'string' && ID.test(r.id));
}

async function saveCatalog(dataDir: string, records: BackupRecord[]): Promise<void> {
  await ensurePrivateDir(backupsDir(dataDir));
  await writeFileAtomic(join(backupsDir(dataDir), 'catalog.json'), JSON.stringify({ records }, null, 2) + '\n', 0o600, 'catalog');
}

export async function addRecord(dataDir: string, r: BackupRecord): Promise<void> {
  const all = await loadCatalog(dataDir);
  await saveCatalog(dataDir, [...all.filter((x) => x.id !== r.id), r]);
}

/** Deletes one backup forever: the archive first, then its entry. */
export async function deleteBackup(dataDir: string, id: string): Promise<void> {
  const all = await loadCatalog(dataDir);
  if (!all.some((r) => r.id === id)) throw Object.assign(new Error(`No backup ${id} in the catalog.`), { request: true });
  const path = archivePathFor(dataDir, id);
  try {
    const st = await fsp.lstat(path);
    if (st.isSymbolicLink() || !st.isFile()) throw Object.assign(new Error(`${path} is not a regular file; nothing was deleted.`), { request: true });
    await fsp.unlink(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  await saveCatalog(
    dataDir,
    all.filter((r) => r.id !== id),
  );
}
