// The one contract every agent folder implements. The engine only ever sees
// this interface; concrete adapters are handed to it by the composition root
// (src/adapters/registry.ts), so the engine never imports an agent.

import type { SessionExplain } from './explain.js';
import type { Localized } from '../i18n/localized.js';
import type { AgentDetailLabels, AgentKind, Installation, Inventory, Preview, ResidueSurface, ScanProgress, SessionRecord, Writer } from './model.js';
import type { ResumeCommand } from './shell-quote.js';

/** Everything outside the process that an adapter may consult. Tests build one. */
export interface HostContext {
  env: Readonly<Record<string, string | undefined>>;
  /** Effective uid, or -1 where the platform has none. */
  uid: number;
  platform: NodeJS.Platform;
  now(): number;
  /** Root of /proc (tests point it at a fake tree). */
  procRoot: string;
}

export interface HomeResolution {
  home: string;
  source: 'override' | 'env' | 'default';
}

/**
 * What the rest of cleanerx knows of an agent without running it: the engine
 * and the UI get these at runtime (the Engine holds the adapters; the UI reads
 * Installation), so nothing outside the agent's folder spells them.
 */
interface AdapterDescriptor {
  kind: AgentKind;
  /** The agent's name as the user knows it, in every message and screen. */
  displayName: string;
  /** What the Memory screen says about this agent's memory and what is not memory, in every language. */
  memoryNotice: Localized;
  /** Env var that moves the agent's home, shown in Settings. */
  homeEnvVar: string;
  /**
   * The agent's own variables cleanerx reads and the rule each value must
   * meet: checked before anything runs, a broken one is a usage error (one
   * sentence, exit 2), never silently ignored.
   */
  envVars: readonly AgentEnvVar[];
  /**
   * The agent's own variables that keep its whole store under `home` (a test's
   * or the demo's throw-away home), beside the shared HOME and XDG_* dirs.
   */
  isolatedEnv(home: string): Record<string, string>;
  /** How the detail pane names the session sources and metadata this agent records. */
  labels: AgentDetailLabels;
  /** Executable names searched for on PATH and in package-manager dirs. */
  binaryNames: string[];
  /** Extra directories searched for the executable (beyond the shared list). */
  extraBinDirs(ctx: HostContext, home: string): string[];
  /** The agent's own command that reopens a session, as its pinned CLI accepts it (`c` copies it); null when it has none for this one. */
  resumeCommand(session: Pick<SessionRecord, 'id' | 'cwd' | 'paths'>): ResumeCommand | null;
  /** Its part of `cleanerx --demo` (absent: an empty isolated home). */
  demo?: AgentDemo;
}

/** What an agent brings to the throw-away demo home. */
export interface AgentDemo {
  /**
   * Writes the agent's demo data into the home `env` (the isolated env) points
   * at; its fixture builder is a dynamic import inside, so a command about one
   * agent never loads it.
   */
  build(env: Readonly<Record<string, string>>, now: number): Promise<void>;
  /** The package pinned in cleanerx's package.json whose program the demo runs, when there is one. */
  pinned?: { pkg: string; bin: string };
}

/** One of an agent's variables and its rule. */
export interface AgentEnvVar {
  name: string;
  /** The one plain sentence saying what to set (in the current language), or null when the value (trimmed, non-empty) is usable. */
  check(value: string): string | null;
}

export interface AgentAdapter extends AdapterDescriptor {
  /** Default home (and env var) when there is no override. Never touches disk. */
  resolveHome(ctx: HostContext): HomeResolution;
  /** Cheap check: does the home hold data this adapter recognizes? */
  hasData(home: string): Promise<boolean>;
  /** Turns `<bin> --version` output into a plain version string. */
  cleanVersion(raw: string): string;
  /**
   * The variable that moves the agent's home when `<bin> --version` itself
   * writes there: the probe points it at a private empty dir, removed after
   * (src/engine/host/probe-home.ts).
   */
  versionProbeHomeVar?: string;
  /**
   * The version the installation itself states without starting the program
   * (an npm package manifest beside the binary); null when it states none,
   * and detection asks `<bin> --version` (a process start: OpenCode ~0.7 s CPU).
   */
  installedVersion?(executable: string): Promise<string | null>;
  /** Full inventory of the store. Must not retain transcript bodies. */
  scan(inst: Installation, ctx: HostContext, onProgress: (p: ScanProgress) => void): Promise<Inventory>;
  /** Bounded, read-only preview of one item found by a previous scan. */
  preview(inst: Installation, itemPaths: string[], itemId: string): Promise<Preview>;
  /** A session's bytes by record type, streamed and bounded, read only (on demand: it reads the whole session). */
  explain?(inst: Installation, itemPaths: string[], itemId: string): Promise<SessionExplain>;
  /** Present when the agent's items are removed by the path transaction. */
  fileRoute?: FileRoute;
  /** Present when sessions leave through the agent's own official route (OpenCode, Codex). */
  sessionRoute?: SessionRoute;
  /**
   * Present when some non-session items are cleaned by an official call, not
   * by removing their paths (Codex memory reset, Codex log-row pruning). Such
   * items carry `metadata.route === 'official'`, and `metadata.officialKind`
   * says what the call does for the plan's note: 'rows' (old rows deleted
   * from a kept database), 'compact' (a database compaction: nothing lost),
   * 'gc' (git gc of a snapshot repository); absent, the agent's own call,
   * which cannot be undone.
   */
  itemRoute?: ItemRoute;
  /** Present when the agent's pinned version archives sessions by its own route (Codex, Claude Code, OpenCode; not pi). */
  archiveRoute?: ArchiveRoute;
  /** Every surface the pinned agent keeps for a session, probed after a cleanup (`src/adapters/<agent>/residue.ts`). */
  residue?: ResidueProbe;
}

/** A removed session as the residue probe sees it: the agent's id and the paths the scan gave it. */
export interface ResidueTarget {
  id: string;
  paths: readonly string[];
}

/**
 * Read-only and bounded: for each removed session, every surface of the agent
 * (files, database rows, index lines) that still holds something of it. The
 * agent's own list is the engine's rescan and is not probed here. A surface
 * that cannot be read is reported `unreadable`, never thrown; SQLite is read
 * through engine/host/sqlite-quiet.ts only.
 */
export interface ResidueProbe {
  sessions(inst: Installation, ctx: HostContext, targets: readonly ResidueTarget[]): Promise<Map<string, ResidueSurface[]>>;
}

/**
 * Archive and unarchive through the agent's own route. Nothing is removed and
 * no byte is freed: the session stays on disk, only the agent's mark changes.
 * Throws before any change when an id is unknown or malformed, or the store's
 * revision differs from `opts.expectedRevision`; otherwise reports per
 * session. A session already in the wanted state counts as changed (an
 * interrupted plan is re-applied safely). The rescan that follows, through
 * the agent's own lister, is the proof.
 */
export interface ArchiveRoute {
  /** False when the pinned agent archives but offers no way back (OpenCode 1.18). */
  unarchive: boolean;
  setArchived(
    inst: Installation,
    ctx: HostContext,
    sessionIds: readonly string[],
    archived: boolean,
    opts?: { expectedRevision?: string; timeoutMs?: number },
  ): Promise<{ changed: string[]; failed: { id: string; reason: string }[] }>;
}

export interface ItemRoute {
  /**
   * Applies each item's official cleanup. Throws before any change when a
   * precondition fails (writers, revision); otherwise reports per item. An
   * applied item must be absent from the next scan (that rescan is the proof).
   */
  applyItems(
    inst: Installation,
    ctx: HostContext,
    itemIds: readonly string[],
    opts?: {
      timeoutMs?: number;
      /** Called at least every 2 s while an item runs: bytes the agent's own tool has written for it so far. */
      onProgress?: (itemId: string, written: number) => void;
    },
  ): Promise<{ applied: string[]; failed: { id: string; reason: string }[] }>;
}

interface FileRoute {
  /** The fixed roots every removal must lie beneath. */
  roots(inst: Installation, ctx: HostContext): string[];
  /** Processes that write the store now (re-checked right before mutation). */
  writers(inst: Installation, ctx: HostContext): Promise<Writer[]>;
}

/**
 * Official session routes (OpenCode's CLI/server, Codex's App Server). Every
 * function re-reads the store read-only, expands each root to the subtree the
 * agent's own delete removes, and re-checks writers itself. A function that
 * throws has changed nothing; a returned result says exactly what a read-only
 * re-read of the store proved.
 *
 * The engine passes `expectedRevision` = the roots' `metadata.routeRevision`
 * from the scan. After a session is reported deleted, the engine itself
 * removes whatever of that session's `paths` still exists (session-owned
 * media the agent leaves behind), through the path transaction under
 * `fileRoute.roots`. Agents without export/import (Codex) are irreversible.
 */
export interface SessionRoute {
  /**
   * Deletes each root and, by the agent's own recursion, its descendants.
   * Roots that are descendants of other roots are skipped (already covered).
   * Throws before any mutation when an id is unknown or malformed, the store
   * revision differs from `opts.expectedRevision`, or a running agent is not
   * verified (or reports a session of the scope as busy). Stops at the first
   * failed root.
   */
  deleteSessions(
    inst: Installation,
    ctx: HostContext,
    rootIds: readonly string[],
    opts?: {
      expectedRevision?: string;
      /** Roots from which one private loopback server is used instead of one process per root (default 4). */
      bulkThreshold?: number;
      /** Per official process or request batch, ms. */
      timeoutMs?: number;
      onProgress?: (done: number, total: number, currentId: string) => void;
      shouldStop?: () => boolean;
    },
  ): Promise<{
    /** How the agent was reached, for the record (e.g. 'cli', 'privateServer', 'verifiedServer'). */
    route: string;
    /** Why the private server was not used when it was wanted. */
    fallbackReason?: string;
    /** Roots actually requested (minimal set, in order). */
    roots: string[];
    /** Every session id (roots and descendants) proven gone by the re-read. */
    deleted: string[];
    /** Ids of the expanded scope still present, or roots not attempted, with why. */
    failed: { id: string; reason: string }[];
    stopped: boolean;
    durationMs: number;
  }>;
  /**
   * Offline only: exports every session of each root's expanded subtree
   * (parents first) into `stagingDir` (absolute, a real directory owned by the
   * user with mode 0700; created when missing) as `<id>.json` (mode 0600),
   * each verified to be the session's JSON. Throws (and removes what it wrote)
   * on any failure. `revision` is the store's revision after the exports (an
   * agent's export may itself move it), with the scope re-checked unchanged:
   * the delete that follows expects it.
   */
  exportSessions?(
    inst: Installation,
    ctx: HostContext,
    rootIds: readonly string[],
    stagingDir: string,
    opts?: {
      expectedRevision?: string;
      timeoutMs?: number;
      /** Exports in flight at once (default: the cores). */
      parallel?: number;
      /** After each verified export file. */
      onProgress?: (done: number, total: number, currentId: string) => void;
    },
  ): Promise<{ exports: SessionExportEntry[]; revision: string }>;
  /**
   * Offline only: preflights every export (plain file, matching id, no
   * duplicate, not already in the store, original directory present), then
   * imports them in order from their recorded directories. When one fails,
   * the sessions this call imported are deleted again through the official
   * route (in reverse) and it throws with both outcomes.
   */
  importSessions?(
    inst: Installation,
    ctx: HostContext,
    exports: readonly SessionExportEntry[],
    opts?: { timeoutMs?: number },
  ): Promise<{
    imported: string[];
    /** Imported sessions that OpenCode filed under another project than the exported one (the directory's project changed). */
    rehomed: { id: string; from: string; to: string }[];
    durationMs: number;
  }>;
}

/** One verified session export written by SessionRoute.exportSessions. */
export interface SessionExportEntry {
  id: string;
  /** Absolute path of the export file. */
  file: string;
  /** The session's working directory (import runs there). */
  directory: string;
  parentId: string | null;
  title: string;
  bytes: number;
  sha256: string;
}

export function defaultHostContext(env: NodeJS.ProcessEnv = process.env): HostContext {
  return {
    env: { ...env },
    uid: typeof process.geteuid === 'function' ? process.geteuid() : -1,
    platform: process.platform,
    now: () => Date.now(),
    procRoot: '/proc',
  };
}
