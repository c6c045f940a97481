// `cleanerx backups [list|verify|restore|delete] [id]`: the backup catalog.
// Restore shows what it would create first; delete and restore need --yes.

import { formatBytes } from '../engine/core/format.js';
import { AGENT_NAMES } from '../engine/core/model.js';
import { safe, safeText } from '../engine/core/text.js';
import { UsageError } from '../engine/host/own-dirs.js';
import type { EngineFactory } from './engine-factory.js';
import { runKeyStore } from './key.js';
import type { PassphraseReader } from './passphrase.js';
import type { Printer } from './printer.js';

export type BackupsAction = 'list' | 'verify' | 'restore' | 'delete' | 'key-store';

export interface BackupsOptions {
  action: BackupsAction;
  /** The backup id, or file|keyring for key-store. */
  id?: string;
  yes: boolean;
}

export interface BackupsDeps {
  engine: EngineFactory;
  io: Printer;
  passphrase: PassphraseReader;
}

export async function runBackups(opts: BackupsOptions, deps: BackupsDeps): Promise<number> {
  const { action, id, yes } = opts;
  if (action === 'key-store') return runKeyStore({ to: id }, deps);
  const { io } = deps;
  const engine = await deps.engine({ readOnly: false });
  if (action === 'list') {
    const list = await engine.backupsList();
    if (!list.length) io.out(safe`No backups.`);
    for (const b of list) {
      io.out(
        safe`${safeText(b.id)}  ${AGENT_NAMES[b.agent] ?? safeText(b.agent)}  ${safeText(b.createdAt)}  ${b.itemCount} items  ${formatBytes(b.originalBytes)} → ${formatBytes(b.archiveBytes)}  verified ${safeText(b.verifiedAt)}`,
      );
    }
    return 0;
  }
  if (!id) throw new UsageError(`backups ${action} needs a backup id (see cleanerx backups list).`);
  if (action === 'delete') {
    if (!yes) throw new UsageError('Nothing was deleted: add --yes to delete this backup forever.');
    await engine.backupDelete(id);
    io.out(safe`Deleted backup ${safeText(id)}.`);
    return 0;
  }
  const passphrase = (await engine.keyInfo()).needsPassphrase ? await deps.passphrase.read(safe`Backup key passphrase: `) : '';
  if (action === 'verify') {
    const r = await engine.backupVerify(id, passphrase);
    io.out(safe`Verified: all ${r.entries} entries (${formatBytes(r.bytes)}) match the manifest.`);
    return 0;
  }
  const dry = await engine.backupRestore(id, passphrase, true);
  const what = dry.unit;
  const folders = (n: number): string => `${n} empty ${n === 1 ? 'folder' : 'folders'}`;
  io.out(
    safe`Restore would create ${dry.restored} ${safeText(what)} (${formatBytes(dry.bytes)})${dry.alreadyPresent ? safe`, ${dry.alreadyPresent} of them already in place` : ''}${dry.emptyDirs.length ? safe` and ${folders(dry.emptyDirs.length)}` : ''}:`,
    ...dry.paths.map((p) => safe`  ${safeText(p)}`),
    ...dry.emptyDirs.map((p) => safe`  ${safeText(p)}/`),
  );
  if (!yes) throw new UsageError(`Nothing was restored: add --yes to restore these ${what}.`);
  const r = await engine.backupRestore(id, passphrase);
  const dirs = r.emptyDirs.length ? safe`, ${folders(r.emptyDirs.length)} recreated` : '';
  io.out(safe`Restored ${r.restored} ${safeText(what)}${r.alreadyPresent ? safe` (${r.alreadyPresent} already in place)` : ''}${dirs}.`);
  for (const n of r.notInBackup) io.out(safeText(n));
  return 0;
}
