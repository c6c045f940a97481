// The engine's data model. Pure types: the UI, the CLI and the adapters all
// speak these, and nothing here knows about a terminal.

import type { WalkLog } from './walk-log.js';

// An agent's kind: the `kind` of its descriptor (src/adapters/<agent>/index.ts),
// listed in src/adapters/registry.ts. No list of agents lives here: which
// kinds exist, their order and names come from engine/core/agents.ts, which
// the registry fills.
export type AgentKind = string;

export const CATEGORIES = ['session', 'archivedSession', 'memory', 'attachment', 'generatedImage', 'log', 'cache', 'temporary', 'protected'] as const;
export type Category = (typeof CATEGORIES)[number];

export type Risk = 'safe' | 'review' | 'high' | 'protected';

type DetectionState = 'installed' | 'dataOnly' | 'notFound';

export interface Writer {
  pid: number;
  name: string;
  /** The process's user (name, else uid), where it was read. */
  user?: string;
  /** The command line, cleaned and bounded. */
  command?: string;
  /** What ties it to this store ("holds …/opencode.db open", "HOME=/home/alice"), or why that could not be read. */
  evidence?: string;
}

/** A blocked reason that names the writers it stands for (the user can check each pid). */
export function runningReason(base: string, writers: readonly Writer[]): string {
  return writers.length ? `${base} Running: ${describeWriters(writers)}.` : base;
}

/** Writers as one line for blocked reasons: "opencode pid 12 (alice: opencode serve; HOME=/home/alice)". */
export function describeWriters(writers: readonly Writer[], max = 3): string {
  const named = writers.slice(0, max).map((w) => {
    const facts = [w.user && w.command ? `${w.user}: ${w.command}` : (w.command ?? w.user), w.evidence].filter(Boolean);
    return `${w.name} pid ${w.pid}${facts.length ? ` (${facts.join('; ')})` : ''}`;
  });
  return named.join(', ') + (writers.length > max ? `, and ${writers.length - max} more` : '');
}

/** How the detail pane names what one agent records (its descriptor's `labels`). */
export interface AgentDetailLabels {
  /** A session's `source` value → what the Source field says (an unlisted value is shown as it is). */
  sources: Readonly<Record<string, string>>;
  /** Session metadata keys shown in the Metadata section, with their labels (other keys are not shown). */
  metadata: Readonly<Record<string, string>>;
  /** What archiving offers with this agent's pinned version (absent: no official archive route, `why` says so). */
  archive?: ArchiveSupport;
  /** What the agent loses when an item of a category goes (OpenCode: a session's undo), beside the generic cost. */
  losses?: Partial<Record<Category, string>>;
  /** Why `--orphans` matches nothing, for an agent whose records never leave a session without its parent (absent: it records missing parents as `metadata.missingParentId`). */
  noOrphans?: string;
}

/** The agent's official archive route as the UI may offer it. */
export interface ArchiveSupport {
  archive: boolean;
  unarchive: boolean;
  /** Why an absent direction is absent ("OpenCode 1.18 has no official unarchive"). */
  why?: string;
  /** The route also archives (and unarchives) every session each one spawned — its deletion descendants (Codex's subagent threads). */
  spawned?: boolean;
  /** Unarchiving marks each session as just used: the agent sets its updated time to now (Codex). */
  unarchiveTouches?: boolean;
}

/** What a plan does to its sessions: remove them (the default), or mark them archived / current through the agent's route. */
export type PlanAction = 'delete' | 'archive' | 'unarchive' | 'backupOnly';

/** What removing (or archiving) one item costs, shown in the detail pane and the review (issue #16 part 6). */
export interface ItemCost {
  /** backup: cleanerx can back it up and restore it; reversible: the action itself can be undone (archive); none. */
  recoverable: 'backup' | 'reversible' | 'none';
  /** The agent makes it again by itself (caches, temporary data). */
  regenerable: boolean;
  /** The agent must be quit first. */
  needsAgentStopped: boolean;
  /** What the agent can no longer do afterwards, in plain words ('' when nothing). */
  agentLoses: string;
}

export interface Installation {
  agent: AgentKind;
  /** The agent's name as the user knows it (from its adapter descriptor). */
  displayName: string;
  /** What the Memory screen says about this agent's memory (from its descriptor). */
  memoryNotice: string;
  /**
   * The descriptor's detail labels, which the Engine hands its snapshots with
   * the installation. Absent from installations built by hand (tests): then
   * no source is renamed and no metadata is shown.
   */
  labels?: AgentDetailLabels;
  state: DetectionState;
  /** Absolute resolved home (data root) of the agent. */
  home: string;
  /** Where the home came from: a settings override, an env var, or the default. */
  homeSource: 'override' | 'env' | 'default';
  executable: string | null;
  version: string | null;
  warnings: string[];
}

/** Anything the user can see in a list: a session, a cache, a protected file. */
export interface Item {
  id: string;
  category: Category;
  label: string;
  subtitle?: string;
  /** Absolute paths this item owns, as discovered under the configured home. */
  paths: string[];
  bytes: number;
  modifiedAt?: number;
  risk: Risk;
  recoverable: boolean;
  selectable: boolean;
  blockedReason?: string;
  projectId?: string;
  sessionId?: string;
  metadata: Record<string, string | number | boolean>;
}

export type SessionState = 'current' | 'archived';

export interface SessionRecord {
  /** The agent's own session id. */
  id: string;
  /** The item id (`session:<id>`) used for marks, plans and the selection index. */
  itemId: string;
  title: string;
  /** True when the title is the agent's explicit name, not a derived one. */
  named: boolean;
  cwd: string | null;
  projectId: string | null;
  /** The displayed lineage parent (agent session id), after validation. */
  parentId: string | null;
  /** Sessions that the agent's own delete route removes together with this one. */
  deletionDescendantIds: string[];
  state: SessionState;
  source: string;
  createdAt: number | null;
  updatedAt: number | null;
  bytes: number;
  paths: string[];
  /** Whether cleanerx can back it up and restore it. */
  recoverable: boolean;
  selectable: boolean;
  blockedReason?: string;
  metadata: Record<string, string | number | boolean>;
}

export interface ProjectGroup {
  id: string;
  label: string;
  roots: string[];
}

export interface ScanWarning {
  path: string;
  reason: string;
}

/** What an adapter hands the engine after reading a store. */
export interface Inventory {
  sessions: SessionRecord[];
  /** Non-session items: memory, logs, caches, protected metadata. */
  items: Item[];
  projects: ProjectGroup[];
  warnings: ScanWarning[];
  writers: Writer[];
  /** What the agent deletes by itself (read from its settings, read only). */
  sweep?: AgentSweep;
  /** Roots outside the home whose files the rows also account for (Claude's temp roots). */
  attributionRoots?: string[];
  /** What the adapter's walks already stat'ed and listed, so the attribution walk reuses it (this scan's only). */
  walkLog?: WalkLog;
  /** Filled by the engine after the scan (engine/inventory/attribution.ts). */
  attribution?: Attribution;
  /**
   * Why the agent's sessions could not be read (a database or index that failed).
   * Their absence is then unknown: nothing derived from them may call an item
   * unused, orphaned or empty, and such items are blocked with this reason.
   */
  sessionsUnread?: string;
}

/**
 * How much of what lies on disk under an agent's home (and its other roots)
 * the inventory's rows account for: a du-like walk (lstat only, no link
 * followed, one filesystem per root, each hard-linked inode once), counting
 * the allocated size (512-byte blocks) of regular files.
 */
export interface Attribution {
  measure: 'allocated';
  roots: string[];
  totalBytes: number;
  totalFiles: number;
  /** In a session, an item or a protected entry. */
  accountedBytes: number;
  accountedFiles: number;
  /** In a read-only "not recognized" row (metadata.unrecognized). */
  unrecognizedBytes: number;
  unrecognizedFiles: number;
  /** Files claimed by more than one row (none, when the adapter is right); the first few paths. */
  doubleCountedFiles: number;
  doubleCounted: { path: string; rows: string[] }[];
  /** Subtrees the walk did not enter (another filesystem, unreadable, the entry cap). */
  notWalked: ScanWarning[];
}

export const NO_PROJECT_ID = '__no_project';
export const NO_PROJECT_LABEL = 'No project';

export interface CategoryTotal {
  bytes: number;
  items: number;
}

interface ProjectSummary {
  id: string;
  label: string;
  roots: string[];
  sessions: number;
  bytes: number;
}

export interface SelectionEntry {
  id: string;
  projectId: string;
  bytes: number;
}

/**
 * The selection index as one string and typed arrays (engine/selection.ts):
 * entry i is the id `ids.slice(ends[i-1] ?? 0, ends[i])`, its size `bytes[i]`
 * and its project `projectIds[project[i]]`.
 */
export interface CompactSelection {
  ids: string;
  ends: Uint32Array;
  bytes: Float64Array;
  project: Uint32Array;
  projectIds: string[];
  /** SelectionLookup's hash table, built with the index (in the worker) so the UI does not build it when a scan lands. */
  table?: Int32Array;
}

export interface ItemSummary {
  id: string;
  category: Category;
  label: string;
  subtitle?: string;
  bytes: number;
  risk: Risk;
  selectable: boolean;
  blockedReason?: string;
  pathLabel: string;
  modifiedAt?: number;
}

/** The compact answer to scan(): never the session records themselves. */
export interface ScanSummary {
  snapshotId: string;
  agent: AgentKind;
  installation: Installation;
  scannedAt: number;
  durationMs: number;
  totals: CategoryTotal;
  byCategory: Partial<Record<Category, CategoryTotal>>;
  sessionCount: number;
  archivedSessionCount: number;
  sources: string[];
  projects: ProjectSummary[];
  largestSessions: { id: string; title: string; bytes: number; projectLabel: string }[];
  ageHistogram: { label: string; sessions: number; bytes: number }[];
  items: ItemSummary[];
  /** In-process callers get the entries; an engine built with `compactSelection` leaves this empty and fills `selectionIndex`. */
  selection: SelectionEntry[];
  /** The same index, compact and transferable (what the worker sends the UI). */
  selectionIndex?: CompactSelection;
  warnings: ScanWarning[];
  writers: Writer[];
  readOnly: boolean;
  /**
   * A partial view published while the scan runs: page it, never plan or mark
   * from it (its selection is empty); the final summary replaces it.
   */
  provisional?: boolean;
  /** Change since an earlier scan and the trend of the last ones (cleanerx's own scan history). */
  growth?: GrowthSummary;
  /** What of the agent's disk use the rows account for (absent for provisional views and agents not found). */
  attribution?: Attribution;
  /** Files of the agent's store deleted but still held open by a process (deleted-open.ts): space only that process can free. */
  deletedOpen?: { files: number; bytes: number };
  /** What the agent's own sweep deletes at its next start (Claude's cleanupPeriodDays), and whether the rule differs from what the user wrote. */
  sweepForecast?: { agentName: string; days: number; rule: string; sessions: number; bytes: number; written?: string };
}

export interface ScanProgress {
  agent: AgentKind;
  phase: string;
  files: number;
  bytes: number;
  /**
   * Adapter → engine only (never crosses the worker boundary): the sessions
   * read so far, built when the engine asks. Optional, so adapters without it
   * simply publish nothing until their scan returns.
   */
  partial?: () => Inventory;
  /** Engine → UI: the latest provisional summary, when one was just published. */
  provisional?: ScanSummary;
}

// ---- paging -------------------------------------------------------------

/** agentSweep: the sessions the agent's own sweep deletes at its next start (Claude's cleanupPeriodDays forecast). */
export type UpdatedFilter = 'all' | 'within7' | 'within30' | 'older30' | 'older90' | 'agentSweep';

export interface SessionFilter {
  text?: string;
  updated?: UpdatedFilter;
  state?: SessionState;
  source?: string;
  projectId?: string;
}

export type SortKey = 'updated' | 'size' | 'title';

export interface ExpansionSpec {
  /** Default: projects open, sessions with children closed. */
  base: 'default' | 'allOpen' | 'allClosed';
  /** Node ids whose state is flipped relative to `base`. */
  toggled: string[];
}

interface PageScope {
  view: 'tree' | 'flat';
  expansion?: ExpansionSpec;
}

export interface PageRequest {
  snapshotId: string;
  scope: PageScope;
  filter: SessionFilter;
  sort: SortKey;
  /** Oldest, smallest or Z→A first (each key's default is newest, largest, A→Z). */
  reverse?: boolean;
  offset: number;
  limit: number;
}

export type RowKind = 'project' | 'session';

export interface Row {
  kind: RowKind;
  /** Item id for sessions, project id for projects. */
  id: string;
  depth: number;
  title: string;
  projectLabel: string;
  source: string;
  state: SessionState | '';
  updatedAt: number | null;
  bytes: number;
  childCount: number;
  expandable: boolean;
  expanded: boolean;
  /** An ancestor shown only to place a filter match: never markable. */
  context: boolean;
  selectable: boolean;
  blockedReason?: string;
  named: boolean;
  /** Project rows of a filtered view: how many of its sessions match, and their size. */
  matchedSessions?: number;
  matchedBytes?: number;
}

export interface PageResult {
  snapshotId: string;
  total: number;
  offset: number;
  rows: Row[];
  matched: number;
  /** The size of the matching sessions (every session when no filter is set). */
  matchedBytes: number;
}

interface DetailField {
  label: string;
  value: string;
}

export interface Detail {
  id: string;
  kind: 'session' | 'project' | 'item';
  title: string;
  sections: { heading: string; fields: DetailField[] }[];
  paths: string[];
  blockedReason?: string;
  selectable: boolean;
}

/** What `c` and `y` copy of one session: shell-quoted text, or why there is none. */
export interface SessionCopy {
  /** The agent's own command that reopens the session (`cd <cwd> && codex resume <id>`). */
  resume: string | null;
  /** The session's id and its file (`<id> <path>`; the id alone when it has none). */
  reference: string | null;
  /** Why `resume` is null: the agent has no such command for it, or a part holds a character no copied command may carry. */
  resumeWhy?: 'none' | 'unsafe';
}

export type PreviewBlock = { kind: 'message'; role: string; text: string } | { kind: 'text'; title: string; text: string } | { kind: 'notice'; text: string };

export interface Preview {
  id: string;
  source: string;
  truncated: boolean;
  bytesRead: number;
  blocks: PreviewBlock[];
  warning?: string;
}

// ---- cleanup ------------------------------------------------------------

export interface PlanItem {
  id: string;
  label: string;
  category: Category;
  bytes: number;
  paths: string[];
  recoverable: boolean;
  /** Present for items the route removes because of another selected item. */
  includedBecause?: string;
  depth: number;
  /** Sessions: the agent's id and last update, so a fork and its parent of one title can be told apart. */
  sessionId?: string;
  updatedAt?: number | null;
  /** What this item's removal (or archive) costs. */
  cost?: ItemCost;
}

/**
 * removePaths: the path transaction; officialDelete: the agent's own session
 * delete for `rootSessionIds` (then any session paths it left behind);
 * officialItems: the agent's own call per item (Codex memory reset).
 */
export type OperationKind = 'removePaths' | 'officialDelete' | 'officialItems' | 'archive' | 'unarchive';

export interface PlanOperation {
  index: number;
  kind: OperationKind;
  itemIds: string[];
  sessionIds: string[];
  /** officialDelete: the minimal roots the route is called for. */
  rootSessionIds?: string[];
  paths: string[];
  bytes: number;
  backupEligible: boolean;
  requiresAgentExit: boolean;
  blockers: string[];
}

export interface CleanupPlan {
  id: string;
  snapshotId: string;
  agent: AgentKind;
  createdAt: string;
  selectedItemIds: string[];
  expandedSessionIds: string[];
  items: PlanItem[];
  operations: PlanOperation[];
  estimatedBytes: number;
  estimatedBackupBytes: number;
  backupEligible: boolean;
  backupWhyNot?: string;
  /** A backup holds only the recoverable items: one sentence on what it leaves out (caches, temp, sessions without an import route). */
  backupNotCovered?: string;
  /** …and those items' ids. */
  backupUncoveredIds?: string[];
  irreversible: boolean;
  /** One plain line per official route the plan uses, shown in the review. */
  routeNotes: string[];
  blockers: string[];
  /** archive / unarchive: the sessions are only marked through the agent's route (absent: delete). */
  action?: PlanAction;
}

export interface ExecuteProgress {
  /** `key`: the backup key is unlocked (or created) first, scrypt's few seconds before anything else. */
  phase: 'key' | 'preflight' | 'backup' | 'deleting' | 'verifying' | 'done';
  done: number;
  total: number;
  bytesDone: number;
  bytesTotal: number;
  current?: string;
  /** Bytes an official item route has written for the current item so far (git gc's new pack); moves while done/bytesDone cannot. */
  written?: number;
  /** Estimated milliseconds left of a long counted step (exports, deletes), from its pace so far. */
  etaMs?: number;
}

/**
 * Progress of a backup's verify or restore: unlocking the key (scrypt: a few
 * seconds, nothing to count), reading the archive (entries and their bytes
 * decrypted and hash-checked so far), checking the destinations, writing them.
 */
export interface BackupProgress {
  step: 'unlocking' | 'reading' | 'checking' | 'writing';
  done: number;
  total: number;
  bytesDone: number;
  bytesTotal: number;
}

export interface ExecuteResult {
  operationId: string;
  status: 'complete' | 'failed';
  message: string;
  removedItems: number;
  removedBytes: number;
  /** The fresh scan after the cleanup (also the new snapshot). */
  summary?: ScanSummary;
  backupId?: string;
  /** One sentence per entry under a planned path that the backup does not hold (a FIFO, socket or device). */
  warnings?: string[];
  /** The disk space the plan promised and what the filesystems gave back, measured (engine/cleanup/freed-bytes.ts). */
  freed?: FreedBytes;
  /** Per removed item: gone from every surface the agent keeps, or what survives where (engine/cleanup/residue.ts). */
  residue?: ItemResidue[];
}

/**
 * Why a surface still holds something of a removed item: `followUp` — the
 * next scan offers it as the item `followUpId`; `noRoute` — no documented
 * route removes it (cleanerx never rewrites the agent's own file or rows);
 * `listed` — the agent still lists it; `unreadable` — the surface could not
 * be read, so its absence is not proven.
 */
type ResidueWhy = 'followUp' | 'noRoute' | 'listed' | 'unreadable';

/** One place where something of a removed item survives. `surface` is a stable code (docs/residue.md). */
export interface ResidueSurface {
  surface: string;
  path?: string;
  why: ResidueWhy;
  followUpId?: string;
  /** Rows or lines, where the surface counts them. */
  count?: number;
}

export interface ItemResidue {
  id: string;
  /** The plan's label, for the result's sentences (`clean --json` leaves it out: ids and codes only). */
  label: string;
  verdict: 'complete' | 'partial';
  surfaces: ResidueSurface[];
}

/** Why the space freed differs from the promise by more than 5% (the result screen says each in a sentence). */
export type FreedExplanation = 'databasePages' | 'otherWrites' | 'otherFrees' | 'hardLinks' | 'sparse' | 'blockRounding' | 'backup' | 'incomplete' | 'estimate';

export interface FilesystemFreed {
  /** A directory on that filesystem (the first planned path's nearest existing parent). */
  path: string;
  device: number;
  /** The plan's estimate for the items on this filesystem. */
  promisedBytes: number;
  /** st_blocks × 512 of what the cleanup removed here (lstat before and after; hard-linked files not counted). */
  allocatedBytes: number;
  /** Free space after minus free space before (statfs), as the filesystem reports it. */
  freedBytes: number;
}

export interface FreedBytes {
  promisedBytes: number;
  allocatedBytes: number;
  freedBytes: number;
  filesystems: FilesystemFreed[];
  /** Empty when freed and promised are within 5% of each other. */
  explanations: FreedExplanation[];
}

/** What a backup restore put back (or, dry, would). */
export interface RestoreSummary {
  /** Files (or sessions) now holding their backed-up content, `alreadyPresent` of them already byte-identical before. */
  restored: number;
  /** Of `restored`: the ones that were already in place and left as they were. */
  alreadyPresent: number;
  bytes: number;
  paths: string[];
  unit: 'files' | 'sessions';
  /** The backup's empty dirs that were recreated. */
  emptyDirs: string[];
  /** One sentence per FIFO, socket or device the backup does not hold, so not restored. */
  notInBackup: string[];
}

export interface ExecuteOptions {
  backup?: boolean;
  /** Unlocks (or, the first time, creates) the backup key. Held in memory only. */
  passphrase?: string;
}

export interface BackupSummary {
  id: string;
  agent: AgentKind;
  createdAt: string;
  expiresAt: string;
  itemCount: number;
  /** Content: the apparent size of the files inside the archive. */
  originalBytes: number;
  /** On disk: what the backed-up items took on disk when backed up (the review's number); null in older catalogs. */
  onDiskBytes: number | null;
  /** The archive file's own size. */
  archiveBytes: number;
  verifiedAt: string;
  operationId: string;
  path: string;
}

export interface KeyInfo {
  path: string;
  exists: boolean;
  problem?: string;
  /** Where the identity is unlocked from (Settings → K switches). */
  store: 'file' | 'keyring';
  /** False when the OS key ring unlocks the key: no passphrase is asked. */
  needsPassphrase: boolean;
}

export interface RecoveryOperation {
  operationId: string;
  agent: AgentKind | null;
  path: string;
  status: string;
  recorded: string;
  observed: 'All applied' | 'Not applied' | 'Partially applied' | 'Not provable';
  reason: string;
  canAccept: boolean;
  canRestore: boolean;
  restoreWhyNot: string;
  canClose: boolean;
  unknown: boolean;
}

export interface AgentSweep {
  /** The agent's name as the sentences use it ("Claude"). */
  agentName: string;
  /**
   * Sessions are deleted at the agent's first start once this many days
   * passed since their last change; 'never': the rule turns the sweep off;
   * 'unknown': the rule could not be read; null: the agent has no session
   * sweep to speak of (nothing is said).
   */
  sessionDays: number | 'never' | 'unknown' | null;
  /** Where the rule comes from, or why there is none ("cleanupPeriodDays 30, the default"). */
  sessionRule: string;
  /** Sessions of these sources follow another rule (Claude's desktop app): the sentence instead of a date. */
  exempt?: { sources: string[]; text: string };
  /** Non-session items the agent prunes itself: an exact item id, or a prefix ending in ':'. */
  itemRules: { id: string; text: string }[];
  /** One sentence when the agent's settings could not be read (the default is assumed). */
  warning?: string;
  /** Where the number of days comes from (Claude: the settings file that wins, or the default). */
  resolution?: { days: number; source: string; path: string | null };
  /** One sentence when what the user wrote is not what the agent uses (an invalid or overridden value). */
  written?: string;
}

export interface CategoryGrowth {
  /** Bytes now minus bytes then (negative when it shrank). */
  bytes: number;
  items: number;
}

/** What the Overview shows: the change since `since` per category, and the total bytes of the last scans, oldest first. */
export interface GrowthSummary {
  since: number | null;
  byCategory: Partial<Record<Category, CategoryGrowth>>;
  totalBytes: number;
  /** Total managed bytes (protected excluded) of the kept scans and this one, oldest first. */
  trend: { at: number; bytes: number }[];
  /** One sentence when the history file could not be used (it is then started afresh). */
  warning?: string;
}
