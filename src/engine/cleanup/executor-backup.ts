// The executor's backup step: written, reopened, verified and in the catalog
// before anything is removed (the take itself is injected: the engine never
// imports src/backup). A failed backup ends the run with nothing removed.
// A back-up-only plan ends right after it, its journal complete.

import type { ExecuteResult } from '../core/model.js';
import type { ExportProgress } from './backup-step.js';
import { t } from '../i18n/index.js';
import { failRun, type BackupRequest, type Failed, type Run } from './executor-run.js';

interface BackupTaken {
  backupId?: string;
  /** An official export moves the store's revision; the delete then expects the one it reported. */
  revisionAfterExport?: string;
}

/** The official-delete roots whose exports the backup holds (OpenCode), in plan order. */
export function exportRoots(run: Run): string[] {
  return run.plan.operations.flatMap((o) => (o.kind === 'officialDelete' ? (o.rootSessionIds ?? []) : []));
}

export async function backupStep(run: Run, backup: BackupRequest | undefined): Promise<BackupTaken | Failed> {
  if (!backup) return {};
  const { plan, j, store } = run;
  try {
    const roots = exportRoots(run);
    const exportSessions =
      roots.length && backup.exportSessions ? (dir: string, onProgress?: ExportProgress) => backup.exportSessions!(roots, dir, onProgress) : undefined;
    const taken = await backup.take({
      plan,
      journal: j,
      store,
      dataDir: backup.dataDir,
      key: backup.key,
      roots: backup.roots,
      retentionDays: backup.retentionDays,
      progress: run.progress,
      exportSessions,
    });
    run.warnings.push(...taken.warnings);
    return { backupId: taken.id, revisionAfterExport: taken.revisionAfterExport };
  } catch (e) {
    return { failed: await failRun(run, `${(e as Error).message} Nothing was removed.`, false) };
  }
}

/** Back up only: the verified backup is in the catalog; nothing is removed, so the journal ends here. */
export async function finishBackupOnly(run: Run, backupId: string | undefined): Promise<ExecuteResult> {
  const { j, store } = run;
  const total = run.plan.items.length;
  if (!backupId) return failRun(run, 'Back up only needs the backup step; nothing was removed.', false);
  await store.transition(j, (x) => (x.status = 'verified'), 'journal:verified');
  await store.transition(j, (x) => (x.status = 'complete'), 'journal:complete');
  run.progress({ phase: 'done', done: total });
  return {
    operationId: j.operationId,
    status: 'complete',
    message: t('backupOnly.done', { count: total, id: backupId }),
    removedItems: 0,
    removedBytes: 0,
    backupId,
  };
}
