// `cleanerx scan --json`: a stable, versioned contract (documented in the
// docs/json.md). Fields are only ever added, never renamed.

import type { Engine } from './engine.js';
import { isoOrNull } from '../core/format.js';
import type { SessionNode } from '../inventory/forest.js';
import { NO_PROJECT_ID, type AgentKind, type Category, type CategoryTotal, type Installation } from '../core/model.js';

interface ScanReport {
  version: 1;
  agents: AgentReport[];
}

interface AgentReport {
  agent: AgentKind;
  state: Installation['state'];
  home: string;
  executable: string | null;
  version: string | null;
  writers: { pid: number; name: string; user?: string; command?: string; evidence?: string }[];
  totals: { bytes: number; items: number; byCategory: Partial<Record<Category, CategoryTotal>> };
  projects: { id: string; label: string; roots: string[]; sessions: number; bytes: number }[];
  sessions: {
    id: string;
    title: string;
    projectId: string | null;
    parentId: string | null;
    /** The parent the agent records, also when it is not listed (an orphan: parentId is null then). */
    recordedParentId: string | null;
    cwd: string | null;
    state: string;
    source: string;
    createdAt: string | null;
    updatedAt: string | null;
    bytes: number;
    selectable: boolean;
    blockedReason: string | null;
    paths: string[];
  }[];
  items: { id: string; category: Category; label: string; bytes: number; selectable: boolean; blockedReason: string | null; paths: string[] }[];
  warnings: { path: string; reason: string }[];
  /** Deleted files of the store a process still holds open (their rows are items `held-deleted:*`); absent when none. */
  deletedOpen?: { files: number; bytes: number };
  /**
   * The agent's own sweep (Claude's cleanupPeriodDays as the pinned Claude Code resolves it): the days in effect,
   * where they come from, whether that differs from what the user wrote, and the sessions it deletes at its next start.
   */
  sweep?: { days: number; source: string; path: string | null; differs: boolean; written: string | null; dueSessionIds: string[] };
}

/**
 * The parent a session's agent records: the listed parent, else the one it
 * names that this scan does not list (Codex's and OpenCode's parent id; for
 * pi, the id in the gone parent file's name), else null.
 */
function recordedParent(n: SessionNode): string | null {
  if (n.parent) return n.parent.s.id;
  const m = n.s.metadata;
  for (const v of [m.missingParentSessionId, m.missingParentId, n.s.parentId]) if (typeof v === 'string' && v) return v;
  return null;
}

function sweepReport(snap: Snapshot): Pick<AgentReport, 'sweep'> {
  const sweep = snap.inventory.sweep;
  if (!sweep?.resolution) return {};
  const { days, source, path } = sweep.resolution;
  const dueSessionIds = snap.matchIds({ updated: 'agentSweep' }).ids;
  return { sweep: { days, source, path, differs: Boolean(sweep.written), written: sweep.written ?? null, dueSessionIds } };
}

type Snapshot = ReturnType<Engine['snapshot']>;
type Summary = Awaited<ReturnType<Engine['scan']>>;
type Head = Omit<AgentReport, 'sessions' | 'items' | 'warnings'>;

/** One agent's scan, read before anything is printed: a failed scan leaves stdout empty. */
interface AgentScan {
  agent: AgentKind;
  inst: Installation;
  summary: Summary;
  snap: Snapshot;
}

/** Every agent scanned, in order (the `--version` of a slow-starting agent, OpenCode's ~2 s, runs while the stores are read). */
export async function scanAgents(engine: Engine, agents: AgentKind[]): Promise<AgentScan[]> {
  const detecting = engine.detect({ versions: true, agents });
  detecting.catch(() => undefined);
  const out: AgentScan[] = [];
  for (const agent of agents) {
    const summary = await engine.scan(agent);
    const inst = (await detecting).find((i) => i.agent === agent)!;
    out.push({ agent, inst, summary, snap: engine.snapshot(summary.snapshotId) });
  }
  return out;
}

/** The fields before the sessions, in the contract's order. */
function headOf({ agent, inst, summary, snap }: AgentScan): Head {
  return {
    agent,
    state: inst.state,
    home: inst.home,
    executable: inst.executable,
    version: inst.version,
    writers: summary.writers.map((w) => ({ pid: w.pid, name: w.name, user: w.user, command: w.command, evidence: w.evidence })),
    ...(summary.deletedOpen ? { deletedOpen: summary.deletedOpen } : {}),
    ...sweepReport(snap),
    totals: { bytes: summary.totals.bytes, items: summary.totals.items, byCategory: summary.byCategory },
    projects: summary.projects
      .filter((p) => p.id !== NO_PROJECT_ID)
      .map((p) => ({ id: p.id, label: p.label, roots: p.roots, sessions: p.sessions, bytes: p.bytes })),
  };
}

function sessionRow(n: SessionNode): AgentReport['sessions'][number] {
  return {
    id: n.s.id,
    title: n.s.title,
    projectId: n.projectKey === NO_PROJECT_ID ? null : n.projectKey,
    parentId: n.parent ? n.parent.s.id : null,
    recordedParentId: recordedParent(n),
    cwd: n.s.cwd,
    state: n.s.state,
    source: n.s.source,
    createdAt: isoOrNull(n.s.createdAt),
    updatedAt: isoOrNull(n.s.updatedAt),
    bytes: n.s.bytes,
    selectable: n.s.selectable,
    blockedReason: n.s.blockedReason ?? null,
    paths: n.s.paths,
  };
}

function itemRow(it: Snapshot['items'][number]): AgentReport['items'][number] {
  return {
    id: it.id,
    category: it.category,
    label: it.label,
    bytes: it.bytes,
    selectable: it.selectable,
    blockedReason: it.blockedReason ?? null,
    paths: it.paths,
  };
}

function warningsOf({ inst, summary }: AgentScan): AgentReport['warnings'] {
  return [...inst.warnings.map((w) => ({ path: inst.home, reason: w })), ...summary.warnings];
}

/** The whole report as one object (the text listing reads it). */
export function scanReport(scans: readonly AgentScan[]): ScanReport {
  return {
    version: 1,
    agents: scans.map((a) => ({
      ...headOf(a),
      sessions: a.snap.forest.nodes.map(sessionRow),
      items: a.snap.items.map(itemRow),
      warnings: warningsOf(a),
    })),
  };
}

/** Rows per piece of the streamed report: big enough that a write is worth it, small enough that no piece is megabytes. */
const ROWS_PER_PIECE = 512;

/** `rows` mapped and stringified a piece at a time, comma-joined as JSON.stringify joins an array's elements. */
function* rowPieces<T, R>(rows: readonly T[], row: (r: T) => R): Generator<string> {
  for (let i = 0; i < rows.length; i += ROWS_PER_PIECE) {
    const part: string[] = [];
    for (let j = i; j < Math.min(i + ROWS_PER_PIECE, rows.length); j++) part.push(JSON.stringify(row(rows[j]!)));
    yield (i ? ',' : '') + part.join(',');
  }
}

/**
 * The same report as JSON text, in pieces whose concatenation is exactly
 * JSON.stringify(scanReport(scans)); the rows are stringified as they are
 * written, so 100k sessions never sit in memory as one 50 MB string.
 */
export function* scanReportPieces(scans: readonly AgentScan[]): Generator<string> {
  yield '{"version":1,"agents":[';
  for (const [i, a] of scans.entries()) {
    // The head's closing brace gives way to the arrays that follow it.
    yield `${i ? ',' : ''}${JSON.stringify(headOf(a)).slice(0, -1)},"sessions":[`;
    yield* rowPieces(a.snap.forest.nodes, sessionRow);
    yield '],"items":[';
    yield* rowPieces(a.snap.items, itemRow);
    yield `],"warnings":${JSON.stringify(warningsOf(a))}}`;
  }
  yield ']}';
}
