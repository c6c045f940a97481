// The backup step of a cleanup, as the executor sees it: what it hands the
// backup code and what it gets back. The engine never imports the backup
// code; an implementation of this (src/backup/take.ts) is injected.

import type { SessionExportEntry } from '../core/adapter.js';
import type { CleanupPlan, ExecuteProgress } from '../core/model.js';
import type { Journal, JournalStore } from './journal.js';

export interface BackupKey {
  identity: string;
  recipient: string;
}

export interface TakeBackupOptions {
  plan: CleanupPlan;
  journal: Journal;
  store: JournalStore;
  dataDir: string;
  key: BackupKey;
  roots: { label: string; dir: string }[];
  retentionDays: number;
  /** Official exports (OpenCode sessions) written into a private staging dir and archived under `<agent>_session_export`. */
  exportSessions?: (stagingDir: string, onProgress?: ExportProgress) => Promise<{ exports: SessionExportEntry[]; revision: string }>;
  progress(p: Partial<ExecuteProgress> & Pick<ExecuteProgress, 'phase'>): void;
}

/** After each verified session export: how many of how many, and which. */
export type ExportProgress = (done: number, total: number, currentId: string) => void;

export interface TakenBackup {
  id: string;
  /** The store revision an official export left (the delete that follows expects it). */
  revisionAfterExport?: string;
  /** One sentence per entry the backup does not hold (FIFOs, sockets, devices under a planned path), for the result. */
  warnings: string[];
}

/** Writes the archive, reopens and verifies it, enters it in the catalog — each step a journal transition. */
export type TakeBackup = (o: TakeBackupOptions) => Promise<TakenBackup>;
