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

function sweepReport(snap: ReturnType<Engine['snapshot']>): Pick<AgentReport, 'sweep'> {
  const sweep = snap.inventory.sweep;
  if (!sweep?.resolution) return {};
  const { days, source, path } = sweep.resolution;
  const dueSessionIds = snap.matchIds({ updated: 'agentSweep' }).ids;
  return { sweep: { days, source, path, differs: Boolean(sweep.written), written: sweep.written ?? null, dueSessionIds } };
}

export async function buildScanReport(engine: Engine, agents: AgentKind[]): Promise<ScanReport> {
  // `--version` of a slow-starting agent (OpenCode: ~2 s) runs while the stores are read.
  const detecting = engine.detect({ versions: true, agents });
  detecting.catch(() => undefined);
  const out: AgentReport[] = [];
  for (const agent of agents) {
    const summary = await engine.scan(agent);
    const inst = (await detecting).find((i) => i.agent === agent)!;
    const snap = engine.snapshot(summary.snapshotId);
    out.push({
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
      sessions: snap.forest.nodes.map((n) => ({
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
      })),
      items: snap.items.map((it) => ({
        id: it.id,
        category: it.category,
        label: it.label,
        bytes: it.bytes,
        selectable: it.selectable,
        blockedReason: it.blockedReason ?? null,
        paths: it.paths,
      })),
      warnings: [...inst.warnings.map((w) => ({ path: inst.home, reason: w })), ...summary.warnings],
    });
  }
  return { version: 1, agents: out };
}
