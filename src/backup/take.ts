// The backup phase of a cleanup: unlock (or create) the key, write the
// archive, reopen and verify it, enter it in the catalog — each step a
// journal transition — and only then let mutation start.

import { join } from 'node:path';
import type { Journal, JournalStore } from '../engine/journal.js';
import type { CleanupPlan, ExecuteProgress } from '../engine/model.js';
import { collectFiles, newBackupId, readArchive, writeArchive } from './archive.js';
import { addRecord, archivePathFor, backupsDir } from './catalog.js';
import { ensurePrivateDir } from '../engine/atomic.js';
import { promises as fsp } from 'node:fs';

export interface TakeBackupOptions {
  plan: CleanupPlan;
  journal: Journal;
  store: JournalStore;
  dataDir: string;
  key: { identity: string; recipient: string };
  roots: { label: string; dir: string }[];
  retentionDays: number;
  progress(p: Partial<ExecuteProgress> & Pick<ExecuteProgress, 'phase'>): void;
}

export async function takeBackup(o: TakeBackupOptions): Promise<string> {
  const { store, journal: j } = o;
  const id = newBackupId();
  const archivePath = archivePathFor(o.dataDir, id);
  await ensurePrivateDir(backupsDir(o.dataDir));
  await store.transition(j, (x) => {
    x.backupStatus = 'writing';
    x.backupCandidateId = id;
  }, 'backup:writing');
  const files = await collectFiles(o.plan.items.flatMap((i) => i.paths), o.roots);
  o.progress({ phase: 'backup', current: `${files.length} files` });
  let written;
  try {
    written = await writeArchive({
      archivePath,
      recipient: o.key.recipient,
      agent: o.plan.agent,
      operationId: j.operationId,
      id,
      itemCount: o.plan.items.length,
      retentionDays: o.retentionDays,
      files,
      onBytes: (done, total) => o.progress({ phase: 'backup', bytesDone: done, bytesTotal: total, current: 'writing the encrypted archive' }),
    });
  } catch (e) {
    throw new Error(`The backup could not be written: ${(e as Error).message}`);
  }
  await store.transition(j, (x) => (x.backupStatus = 'archiveCommitted'), 'backup:archiveCommitted');
  await store.transition(j, (x) => (x.backupStatus = 'verifying'), 'backup:verifying');
  o.progress({ phase: 'backup', current: 'reopening and verifying the archive' });
  try {
    const m = await readArchive(archivePath, o.key.identity, {}, o.plan.agent);
    if (m.id !== id || m.operationId !== j.operationId || m.entries.length !== written.manifest.entries.length) throw new Error('the archive does not match what was written');
  } catch (e) {
    await fsp.unlink(archivePath).catch(() => undefined);
    throw new Error(`The backup failed its verification and was removed: ${(e as Error).message}`);
  }
  await store.transition(j, (x) => (x.backupStatus = 'verified'), 'backup:verified');
  await store.transition(j, (x) => (x.backupStatus = 'catalogWriting'), 'backup:catalogWriting');
  const now = new Date().toISOString();
  await addRecord(o.dataDir, {
    id,
    createdAt: written.manifest.createdAt,
    expiresAt: written.manifest.expiresAt,
    archivePath: join(backupsDir(o.dataDir), `${id}.cxb`),
    archiveBytes: written.archiveBytes,
    originalBytes: written.manifest.originalBytes,
    itemCount: o.plan.items.length,
    operationId: j.operationId,
    agent: o.plan.agent,
    verifiedAt: now,
  });
  await store.transition(j, (x) => {
    x.backupStatus = 'committed';
    x.backupId = id;
    x.status = 'backupWritten';
  }, 'backup:committed');
  return id;
}
