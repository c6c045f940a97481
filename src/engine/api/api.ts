// The engine boundary: the only calls a screen or the CLI can make. Every
// call after scan() names the snapshot it is about; a stale id is an error.

import type {
  AgentKind,
  BackupProgress,
  BackupSummary,
  CleanupPlan,
  ExecuteOptions,
  KeyInfo,
  ExecuteProgress,
  ExecuteResult,
  Detail,
  Installation,
  PageRequest,
  PlanAction,
  PageResult,
  Preview,
  RestoreSummary,
  ScanProgress,
  ScanSummary,
  SessionCopy,
  SessionFilter,
} from '../core/model.js';
import type { SessionExplain } from '../core/explain.js';
import type { ENGINE_METHODS, EngineMethod } from '../core/engine-methods.js';
import type { ObservedRecoveryOperation } from '../cleanup/recovery.js';
import type { PlanFile } from '../inventory/retention/plan-file.js';
import type { AllAgentsOverview } from '../inventory/retention/all-agents.js';
import type { RetentionRules } from '../inventory/retention/rules.js';
import type { LoadedSettings, Settings } from '../host/settings.js';

// The request and answer types that live in the rooms below: the UI names them through this module (it uses only engine/core and the types of engine/api).
export type { AllAgentsOverview, CostWord } from '../inventory/retention/all-agents.js';
export type { RetentionRules } from '../inventory/retention/rules.js';
export type { LoadedSettings, Settings } from '../host/settings.js';

export interface EngineApi {
  /** Every agent (or only `agents`); `versions` runs each executable's --version. */
  detect(opts?: { versions?: boolean; agents?: AgentKind[] }): Promise<Installation[]>;
  scan(agent: AgentKind, onProgress?: (p: ScanProgress) => void): Promise<ScanSummary>;
  page(req: PageRequest): Promise<PageResult>;
  matchIds(snapshotId: string, filter: SessionFilter): Promise<{ ids: string[]; bytes: number }>;
  detail(snapshotId: string, id: string): Promise<Detail>;
  preview(snapshotId: string, id: string): Promise<Preview>;
  /** A session's bytes by record type (streams the whole session: on demand), read only. */
  explain(snapshotId: string, id: string): Promise<SessionExplain>;
  /** A session's resume command and its id and file, shell-quoted, for the clipboard. */
  sessionCopy(snapshotId: string, id: string): Promise<SessionCopy>;
  /** `action`: delete (the default), or archive / unarchive through the agent's own route. */
  plan(snapshotId: string, ids: string[], action?: PlanAction): Promise<CleanupPlan>;
  /** One plan per agent (one request per agent), every one kept until it is executed: the one review of everything marked. */
  planGroup(requests: { snapshotId: string; ids: string[] }[], action?: PlanAction): Promise<CleanupPlan[]>;
  /** The agent's newest snapshot id (null before its first scan): the app reuses its kept summary while this still names it. */
  latestSnapshot(agent: AgentKind): Promise<string | null>;
  /** The sessions a retention rule set selects (blocked ones only counted): what the Select menu shows before it marks. */
  matchRules(snapshotId: string, rules: RetentionRules): Promise<{ ids: string[]; bytes: number; skipped: number; notes: string[] }>;
  /** The expanded retention plan as its versioned file (and the reviewed plan behind it, null when nothing matches). */
  retentionPlan(snapshotId: string, rules: RetentionRules, action?: PlanAction): Promise<{ file: PlanFile; plan: CleanupPlan | null }>;
  /** A plan file checked against this snapshot: the same items, none new, every revision unchanged (else a refusal); then the plan to execute. */
  planFromFile(snapshotId: string, file: PlanFile): Promise<CleanupPlan>;
  /** Every agent's latest scan at once: bytes on disk, reclaimable (each byte once), the largest rows, the suggested plan. Scans nothing. */
  allAgents(): Promise<AllAgentsOverview>;
  execute(planId: string, opts?: ExecuteOptions, onProgress?: (p: ExecuteProgress) => void): Promise<ExecuteResult>;
  keyInfo(): Promise<KeyInfo>;
  keyExport(passphrase: string): Promise<string>;
  /** Switches where the backup key is unlocked from; the key ring is probed in a child process killed after 3 s. */
  keyStoreSet(store: 'file' | 'keyring', passphrase: string): Promise<KeyInfo>;
  backupsList(): Promise<BackupSummary[]>;
  /** `onProgress`: the key's unlock, then the entries and bytes decrypted and hash-checked so far. */
  backupVerify(id: string, passphrase: string, onProgress?: (p: BackupProgress) => void): Promise<{ entries: number; bytes: number }>;
  /**
   * `unit`: files put back by the path restore, or sessions brought back by the agent's import route. Takes the agent's cleanup lock (not for a dry run).
   * `onProgress`: the key's unlock, the archive's read, the destinations' check, the writing.
   */
  backupRestore(id: string, passphrase: string, dryRun?: boolean, onProgress?: (p: BackupProgress) => void): Promise<RestoreSummary>;
  backupDelete(id: string): Promise<void>;
  stopExecution(): Promise<void>;
  /** Each operation with what was observed of every path of every planned item. */
  recoveryList(): Promise<ObservedRecoveryOperation[]>;
  recoveryAction(operationId: string, action: 'accept' | 'close' | 'restore', passphrase?: string): Promise<ObservedRecoveryOperation[]>;
  loadSettings(): Promise<LoadedSettings>;
  saveSettings(s: Settings): Promise<void>;
  close(): Promise<void>;
}

// ---- type-level agreement of ENGINE_METHODS and EngineApi ----
type Assert<T extends true> = T;
type FnParam<K extends keyof EngineApi, I extends number> = NonNullable<Parameters<EngineApi[K]>[I]> extends (p: never) => void ? true : false;
type AnyFnParam<K extends keyof EngineApi> = Extract<Parameters<EngineApi[K]>[number], (p: never) => void> extends never ? false : true;
type ProgressAgrees<K extends keyof EngineApi> = (typeof ENGINE_METHODS)[K]['progress'] extends infer I extends number
  ? FnParam<K, I>
  : AnyFnParam<K> extends false
    ? true
    : false;
/** Every interface method is listed, and nothing else. */
export type EngineMethodsComplete = Assert<keyof EngineApi extends EngineMethod ? (EngineMethod extends keyof EngineApi ? true : false) : false>;
/** A method has a callback parameter exactly when the list says it streams progress, at the index it names. */
export type EngineProgressAgrees = Assert<{ [K in keyof EngineApi]: ProgressAgrees<K> }[keyof EngineApi]>;

export interface EngineOptions {
  readOnly: boolean;
  /** The demo lists data-only agents in the selector too. */
  demo: boolean;
  /** Summaries carry the selection index as `selectionIndex` (typed arrays) and an empty `selection` (the worker's form). */
  compactSelection?: boolean;
}
