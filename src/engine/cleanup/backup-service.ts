// What the engine needs of backups, as an interface: the engine never
// imports src/backup/**. The composition roots (src/worker.ts, the CLI's
// engine factory) inject src/backup/service.ts; an Engine built without
// one offers no backups (NO_BACKUPS).

import type { SessionExportEntry } from '../core/adapter.js';
import type { AgentKind, BackupProgress, BackupSummary, KeyInfo, RestoreSummary } from '../core/model.js';
import { RequestError } from '../core/validate.js';
import type { BackupKey, TakeBackup } from './backup-step.js';

export type KeyStoreKind = 'file' | 'keyring';

interface BackupRestoreRequest {
  dataDir: string;
  id: string;
  identity: string;
  agent: AgentKind;
  /** Root label → fixed directory (e.g. pi_home → the pi agent dir). */
  roots: Record<string, string>;
  uid: number;
  stagingParent: string;
  journalDir: string;
  dryRun: boolean;
  /** Only the entries at or beneath these paths (the missing paths of a partially applied item). */
  onlyPaths?: readonly string[];
  /** The agent's import route for official session exports: what it imported (or, dry, would import). */
  importSessions?: (exports: SessionExportEntry[], dryRun: boolean) => Promise<string[]>;
  /** A real restore's plan (what its dry run would return), once the archive is checked and the destinations preflighted, before any is written. */
  onPlanned?: (planned: RestoreSummary) => void;
  /** The archive's read (entries and bytes checked so far), the destinations' check, the writing. */
  onProgress?: (p: BackupProgress) => void;
}

interface SettleRestoresRequest {
  journalDir: string;
  stagingParent: string;
  agent?: AgentKind;
  /** The roots the agent's data may be written to now, or a sentence why not (it is running). */
  rootsFor(agent: AgentKind): Promise<Record<string, string> | string>;
}

export interface SettledRestore {
  restoreId: string;
  agent: AgentKind | null;
  outcome: 'completed' | 'rolledBack' | 'discarded' | 'pending' | 'unknown';
  message: string;
  backupId: string | null;
  restored: string[];
}

export interface BackupService {
  unlockOrCreateKey(dataDir: string, store: KeyStoreKind, passphrase: string): Promise<BackupKey>;
  unlockKey(dataDir: string, store: KeyStoreKind, passphrase: string): Promise<BackupKey>;
  keyStatus(dataDir: string): Promise<Omit<KeyInfo, 'store' | 'needsPassphrase'>>;
  /** Always checks the key file's passphrase. */
  exportKey(dataDir: string, passphrase: string): Promise<string>;
  switchKeyStore(dataDir: string, to: KeyStoreKind, passphrase: string): Promise<void>;
  /** The catalog, newest first. */
  list(dataDir: string): Promise<BackupSummary[]>;
  /** Decrypts the whole archive of a catalog entry and checks it belongs to it. */
  verify(dataDir: string, backup: BackupSummary, identity: string, onProgress?: (p: BackupProgress) => void): Promise<{ entries: number; bytes: number }>;
  restore(r: BackupRestoreRequest): Promise<RestoreSummary>;
  /** Finishes (or rolls back) restores a kill interrupted. */
  settleRestores(r: SettleRestoresRequest): Promise<SettledRestore[]>;
  delete(dataDir: string, id: string): Promise<void>;
  /** Removes the archive (and its partial file) a cleanup had begun for a backup never committed. */
  discardCandidate(dataDir: string, id: string): Promise<void>;
  /** The executor's backup step. */
  take: TakeBackup;
}

const unavailable = (): Promise<never> => Promise.reject(new RequestError('Backups are not available in this build of cleanerx.'));

/** An engine without backups: no catalog, every other call refused. */
export const NO_BACKUPS: BackupService = {
  unlockOrCreateKey: unavailable,
  unlockKey: unavailable,
  keyStatus: unavailable,
  exportKey: unavailable,
  switchKeyStore: unavailable,
  list: async () => [],
  verify: unavailable,
  restore: unavailable,
  settleRestores: unavailable,
  delete: unavailable,
  discardCandidate: unavailable,
  take: unavailable,
};
