// The engine's BackupService, implemented by the backup modules. This file
// is loaded at startup by the composition roots, so it imports nothing of
// the backup code itself: each call loads what it needs on first use (a
// scan never pays for age, zstd and tar). `env` is the engine's own
// (HostContext.env): the key-ring helper child runs with it, not with this
// process's environment.

import { promises as fsp } from 'node:fs';
import type { RestoreResult } from './restore.js';
import type { BackupService } from '../engine/cleanup/backup-service.js';
import type { RestoreSummary } from '../engine/core/model.js';
import { RequestError } from '../engine/core/validate.js';

export function backupService(env: Readonly<Record<string, string | undefined>>): BackupService {
  return {
    async unlockOrCreateKey(dataDir, store, passphrase) {
      return (await import('./key-source.js')).unlockOrCreateKey(env, dataDir, store, passphrase);
    },
    async unlockKey(dataDir, store, passphrase) {
      return (await import('./key-source.js')).unlockKey(env, dataDir, store, passphrase);
    },
    async keyStatus(dataDir) {
      return (await import('./keystore.js')).keyStatus(dataDir);
    },
    async exportKey(dataDir, passphrase) {
      return (await import('./keystore.js')).exportIdentity(dataDir, passphrase);
    },
    async switchKeyStore(dataDir, to, passphrase) {
      await (await import('./key-source.js')).switchKeyStore(env, dataDir, to, passphrase);
    },
    async list(dataDir) {
      const { archivePathFor, loadCatalog } = await import('./catalog.js');
      return (await loadCatalog(dataDir))
        .map((r) => ({
          id: r.id,
          agent: r.agent,
          createdAt: r.createdAt,
          expiresAt: r.expiresAt,
          itemCount: r.itemCount,
          originalBytes: r.originalBytes,
          onDiskBytes: typeof r.onDiskBytes === 'number' && Number.isFinite(r.onDiskBytes) ? r.onDiskBytes : null,
          archiveBytes: r.archiveBytes,
          verifiedAt: r.verifiedAt,
          operationId: r.operationId,
          path: archivePathFor(dataDir, r.id),
        }))
        .sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1));
    },
    async verify(dataDir, r, identity, onProgress) {
      const [{ readArchiveTable }, { archivePathFor }] = await Promise.all([import('./archive.js'), import('./catalog.js')]);
      const onRead =
        onProgress &&
        ((done: number, total: number, bytesDone: number, bytesTotal: number) => onProgress({ step: 'reading', done, total, bytesDone, bytesTotal }));
      const m = await readArchiveTable(archivePathFor(dataDir, r.id), identity, {}, r.agent, { onRead });
      if (m.id !== r.id || m.operationId !== r.operationId) throw new RequestError('The archive does not belong to this catalog entry.');
      return { entries: m.entries.length, bytes: m.originalBytes };
    },
    async restore(q) {
      const [{ archivePathFor }, { restoreArchive }, { stagedExports }, { sessionExportRoot }] = await Promise.all([
        import('./catalog.js'),
        import('./restore.js'),
        import('./session-import.js'),
        import('./take.js'),
      ]);
      const imp = q.importSessions;
      const sessionImport = imp
        ? { root: sessionExportRoot(q.agent), run: async (staged: Map<string, string>, dry: boolean) => imp(await stagedExports(staged), dry) }
        : undefined;
      const summary = (res: RestoreResult): RestoreSummary => ({
        restored: res.restored.length,
        alreadyPresent: res.alreadyPresent.length,
        bytes: res.manifest.originalBytes,
        paths: res.restored,
        unit: res.manifest.entries.rootLabels().includes(sessionExportRoot(q.agent)) ? 'sessions' : 'files',
        emptyDirs: res.emptyDirs,
        notInBackup: res.notInBackup,
      });
      const onPlanned = q.onPlanned;
      const res = await restoreArchive({
        archivePath: archivePathFor(q.dataDir, q.id),
        identity: q.identity,
        agent: q.agent,
        roots: q.roots,
        uid: q.uid,
        stagingParent: q.stagingParent,
        journalDir: q.journalDir,
        dryRun: q.dryRun,
        expectId: q.id,
        sessionImport,
        onlyPaths: q.onlyPaths,
        onPlanned: onPlanned && ((planned) => onPlanned(summary(planned))),
        onProgress: q.onProgress,
      });
      return summary(res);
    },
    async settleRestores(q) {
      return (await import('./restore.js')).settlePendingRestores(q);
    },
    async delete(dataDir, id) {
      await (await import('./catalog.js')).deleteBackup(dataDir, id);
    },
    async discardCandidate(dataDir, id) {
      const path = (await import('./catalog.js')).archivePathFor(dataDir, id);
      for (const p of [`${path}.partial`, path]) {
        const st = await fsp.lstat(p).catch(() => null);
        if (st?.isFile()) await fsp.unlink(p);
      }
    },
    async take(o) {
      return (await import('./take.js')).takeBackup(o);
    },
  };
}
