// The backup phase of a cleanup: unlock (or create) the key, write the
// archive, reopen and verify it, enter it in the catalog — each step a
// journal transition — and only then let mutation start.

import { agentName } from '../engine/core/agents.js';
import { join } from 'node:path';
import type { SessionExportEntry } from '../engine/core/adapter.js';
import type { TakeBackupOptions, TakenBackup } from '../engine/cleanup/backup-step.js';
import { collectEntries, collectFiles, newBackupId, readArchiveTable, skippedWarning, writeArchive } from './archive.js';
import { addRecord, archivePathFor, backupsDir } from './catalog.js';
import { ensurePrivateDir } from '../engine/host/atomic.js';
import { promises as fsp } from 'node:fs';
import { exportStagingParent, newExportStaging } from '../engine/host/export-staging.js';
import { crashPoint } from '../engine/core/faults.js';
import { t } from '../engine/i18n/index.js';
import { type StepClock, stepClock } from '../engine/core/step-clock.js';

export type { TakeBackupOptions, TakenBackup };

export async function takeBackup(o: TakeBackupOptions): Promise<TakenBackup> {
  const { store, journal: j } = o;
  const id = newBackupId();
  const archivePath = archivePathFor(o.dataDir, id);
  await ensurePrivateDir(backupsDir(o.dataDir));
  await store.transition(
    j,
    (x) => {
      x.backupStatus = 'writing';
      x.backupCandidateId = id;
    },
    'backup:writing',
  );
  const staged = o.exportSessions ? { dir: newExportStaging(o.dataDir), exportSessions: o.exportSessions } : undefined;
  try {
    return await archiveAndCatalog(o, id, archivePath, staged);
  } finally {
    if (staged) await fsp.rm(staged.dir, { recursive: true, force: true });
  }
}

// Stryker disable next-line StringLiteral: set once at module load, before the vitest runner activates a mutant (a static mutant the runs cannot test); mutation-take checks the archived index is index.json.
export const SESSION_EXPORT_INDEX = 'index.json';
// A declaration, not an arrow held in a const: its mutants then run when it is called, not at module load.
export function sessionExportRoot(agent: string): string {
  return `${agent}_session_export`;
}

/** Where the official exports are staged, and the export that fills it. */
interface Staged {
  dir: string;
  exportSessions: NonNullable<TakeBackupOptions['exportSessions']>;
}

async function archiveAndCatalog(o: TakeBackupOptions, id: string, archivePath: string, staged: Staged | undefined): Promise<TakenBackup> {
  const { store, journal: j } = o;
  const recoverable = o.plan.items.filter((i) => i.recoverable);
  const { files, emptyDirs, skipped, dirs } = await collectEntries(
    recoverable.flatMap((i) => i.paths),
    o.roots,
  );
  let revisionAfterExport: string | undefined;
  if (staged) {
    const staging = staged.dir;
    await ensurePrivateDir(exportStagingParent(o.dataDir));
    const agent = agentName(o.plan.agent);
    // Hundreds of exports take minutes: the count, and an estimate from their pace, move at least every second.
    let clock: StepClock | undefined;
    const onExport = (done: number, total: number): void => {
      clock ??= stepClock(total, (r) => o.progress({ phase: 'backup', current: t('pg.exporting', { agent, done: r.done, total: r.total }), etaMs: r.etaMs }));
      clock.step(done);
    };
    o.progress({ phase: 'backup', current: t('pg.exporting', { agent, done: 0, total: '…' }) });
    let exported: SessionExportEntry[];
    try {
      ({ exports: exported, revision: revisionAfterExport } = await staged.exportSessions(staging, onExport));
    } catch (e) {
      throw new Error(`The sessions could not be exported for the backup: ${(e as Error).message}`);
    } finally {
      clock?.stop();
    }
    // The plaintext exports are staged: a kill here must leave nothing behind for long (export-staging.ts sweeps it).
    crashPoint('backup:exported');
    // The index keeps what import needs (order, directory, parent) beside the export files.
    const index = exported.map(({ id: sid, file, directory, parentId, title, bytes, sha256 }) => ({
      id: sid,
      name: file.slice(staging.length + 1),
      directory,
      parentId,
      title,
      bytes,
      sha256,
    }));
    await fsp.writeFile(join(staging, SESSION_EXPORT_INDEX), JSON.stringify(index, null, 1) + '\n', { mode: 0o600, flag: 'wx' });
    const root = { label: sessionExportRoot(o.plan.agent), dir: staging };
    files.push(...(await collectFiles([join(staging, SESSION_EXPORT_INDEX), ...exported.map((e) => e.file)], [root])));
  }
  o.progress({ phase: 'backup', current: `${files.length} files` });
  // Only what the catalog needs is kept: the written manifest (an object per file) is not held through the verify.
  let written: { createdAt: string; expiresAt: string; originalBytes: number; files: number; archiveBytes: number };
  try {
    const w = await writeArchive({
      archivePath,
      recipient: o.key.recipient,
      agent: o.plan.agent,
      operationId: j.operationId,
      id,
      itemCount: recoverable.length,
      retentionDays: o.retentionDays,
      files,
      emptyDirs,
      skipped,
      dirs,
      onBytes: (done, total) => o.progress({ phase: 'backup', bytesDone: done, bytesTotal: total, current: 'writing the encrypted archive' }),
    });
    const { createdAt, expiresAt, originalBytes, entries } = w.manifest;
    written = { createdAt, expiresAt, originalBytes, files: entries.length, archiveBytes: w.archiveBytes };
  } catch (e) {
    throw new Error(`The backup could not be written: ${(e as Error).message}`);
  }
  await store.transition(j, (x) => (x.backupStatus = 'archiveCommitted'), 'backup:archiveCommitted');
  await store.transition(j, (x) => (x.backupStatus = 'verifying'), 'backup:verifying');
  o.progress({ phase: 'backup', current: 'reopening and verifying the archive' });
  try {
    // Reported per chunk read: passed on at most every 100 ms (each report crosses the worker).
    let at = 0;
    const m = await readArchiveTable(archivePath, o.key.identity, {}, o.plan.agent, {
      onRead: (_done, _total, bytesDone, bytesTotal) => {
        if (Date.now() - at < 100) return;
        at = Date.now();
        o.progress({ phase: 'backup', bytesDone, bytesTotal, current: 'reopening and verifying the archive' });
      },
    });
    if (m.id !== id || m.operationId !== j.operationId || m.entries.length !== written.files) throw new Error('the archive does not match what was written');
  } catch (e) {
    await fsp.unlink(archivePath).catch(() => undefined);
    throw new Error(`The backup failed its verification and was removed: ${(e as Error).message}`);
  }
  await store.transition(j, (x) => (x.backupStatus = 'verified'), 'backup:verified');
  await store.transition(j, (x) => (x.backupStatus = 'catalogWriting'), 'backup:catalogWriting');
  const now = new Date().toISOString();
  await addRecord(o.dataDir, {
    id,
    createdAt: written.createdAt,
    expiresAt: written.expiresAt,
    archivePath: join(backupsDir(o.dataDir), `${id}.cxb`),
    archiveBytes: written.archiveBytes,
    originalBytes: written.originalBytes,
    // The number the review showed for this backup (the plan's estimatedBackupBytes): one thing, one size (docs/sizes.md).
    onDiskBytes: recoverable.reduce((a, i) => a + i.bytes, 0),
    itemCount: recoverable.length,
    operationId: j.operationId,
    agent: o.plan.agent,
    verifiedAt: now,
  });
  await store.transition(
    j,
    (x) => {
      x.backupStatus = 'committed';
      x.backupId = id;
      x.status = 'backupWritten';
    },
    'backup:committed',
  );
  return { id, revisionAfterExport, warnings: skipped.map(skippedWarning) };
}
