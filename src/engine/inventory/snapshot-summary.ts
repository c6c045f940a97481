// The scan summary the overview screens draw: totals by category, the age
// histogram, the largest sessions, the items, and the selection index.

import type { Forest, SessionNode } from './forest.js';
import { projectComparator, type SnapshotOrder } from './snapshot-order.js';
import { SelectionBuilder } from '../core/selection.js';
import {
  CATEGORIES,
  type AgentKind,
  type Category,
  type CategoryTotal,
  type Installation,
  type Inventory,
  type Item,
  type ScanSummary,
  type ScanWarning,
} from '../core/model.js';

const DAY = 86_400_000;

/** What of a snapshot the summary reads. */
interface SummarySource {
  readonly id: string;
  readonly agent: AgentKind;
  readonly installation: Installation;
  readonly inventory: Inventory;
  readonly scannedAt: number;
  readonly durationMs: number;
  readonly provisional: boolean;
  readonly forest: Forest;
  readonly items: Item[];
  readonly warnings: ScanWarning[];
}

/** `compact`: the selection index as typed arrays (`selectionIndex`), `selection` left empty. */
export function snapshotSummary(snap: SummarySource, order: SnapshotOrder, compact = false): ScanSummary {
  const byCategory: Partial<Record<Category, CategoryTotal>> = {};
  const add = (c: Category, bytes: number): void => {
    byCategory[c] ??= { bytes: 0, items: 0 };
    const t = byCategory[c];
    t.bytes += bytes;
    t.items++;
  };
  let archived = 0;
  const sources = new Set<string>();
  // The agent's own sweep at its next start (the 'agentSweep' filter's sessions): older than its period, not exempt.
  const sweep = snap.inventory.sweep;
  const sweepDays = sweep?.sessionDays;
  const due =
    typeof sweepDays === 'number'
      ? (s: SessionNode['s']): boolean => s.updatedAt != null && s.updatedAt < snap.scannedAt - sweepDays * DAY && !sweep!.exempt?.sources.includes(s.source)
      : (): boolean => false;
  const forecast = { sessions: 0, bytes: 0 };
  const ages = [
    { label: '< 7 days', max: 7, sessions: 0, bytes: 0 },
    { label: '7–30 days', max: 30, sessions: 0, bytes: 0 },
    { label: '30–90 days', max: 90, sessions: 0, bytes: 0 },
    { label: '> 90 days', max: Infinity, sessions: 0, bytes: 0 },
  ];
  for (const n of snap.forest.nodes) {
    const s = n.s;
    add(s.state === 'archived' ? 'archivedSession' : 'session', s.bytes);
    if (s.state === 'archived') archived++;
    sources.add(s.source);
    const age = s.updatedAt == null ? Infinity : (snap.scannedAt - s.updatedAt) / DAY;
    const bucket = ages.find((a) => age < a.max) ?? ages[ages.length - 1]!;
    bucket.sessions++;
    bucket.bytes += s.bytes;
    if (due(s)) {
      forecast.sessions++;
      forecast.bytes += s.bytes;
    }
  }
  for (const it of snap.items) add(it.category, it.bytes);
  const totals: CategoryTotal = { bytes: 0, items: 0 };
  for (const c of CATEGORIES) {
    if (c === 'protected') continue;
    totals.bytes += byCategory[c]?.bytes ?? 0;
    totals.items += byCategory[c]?.items ?? 0;
  }
  // The ten largest, as a stable sort by size would list them (no copy and sort of every node).
  const largest: SessionNode[] = [];
  for (const n of snap.forest.nodes) {
    if (largest.length === 10 && n.s.bytes <= largest[9]!.s.bytes) continue;
    let i = largest.length;
    while (i > 0 && largest[i - 1]!.s.bytes < n.s.bytes) i--;
    largest.splice(i, 0, n);
    if (largest.length > 10) largest.pop();
  }
  return {
    snapshotId: snap.id,
    agent: snap.agent,
    installation: snap.installation,
    scannedAt: snap.scannedAt,
    durationMs: snap.durationMs,
    totals,
    byCategory,
    sessionCount: snap.forest.nodes.length,
    archivedSessionCount: archived,
    sources: [...sources].sort(),
    // Only the projects' order: the full 'size' view (every node sorted) is built when a page asks for it.
    projects: (order.peek('size')?.projects ?? [...snap.forest.projects].sort(projectComparator('size'))).map((p) => ({
      id: p.id,
      label: p.label,
      roots: p.roots,
      sessions: p.sessions,
      bytes: p.bytes,
    })),
    largestSessions: largest.map((n) => ({
      id: n.s.itemId,
      title: n.s.title,
      bytes: n.s.bytes,
      projectLabel: snap.forest.projectById.get(n.projectKey)?.label ?? '',
    })),
    ageHistogram: ages.map(({ label, sessions, bytes }) => ({ label, sessions, bytes })),
    ...(typeof sweepDays === 'number'
      ? {
          sweepForecast: {
            agentName: sweep!.agentName,
            days: sweepDays,
            rule: sweep!.sessionRule,
            ...forecast,
            ...(sweep!.written ? { written: sweep!.written } : {}),
          },
        }
      : {}),
    items: snap.provisional
      ? []
      : snap.items.map((it) => ({
          id: it.id,
          category: it.category,
          label: it.label,
          subtitle: it.subtitle,
          bytes: it.bytes,
          risk: it.risk,
          selectable: it.selectable,
          blockedReason: it.blockedReason,
          pathLabel: it.paths[0] ?? '',
          modifiedAt: it.modifiedAt,
        })),
    // A provisional view offers nothing to mark: an empty index keeps every mark path shut.
    ...selectionFields(snap, compact),
    warnings: snap.warnings,
    writers: snap.inventory.writers,
    readOnly: false,
    ...(snap.provisional ? { provisional: true } : {}),
  };
}

function selectionFields(snap: SummarySource, compact: boolean): Pick<ScanSummary, 'selection' | 'selectionIndex'> {
  const nodes = snap.provisional ? [] : snap.forest.nodes;
  if (!compact) return { selection: nodes.filter((n) => n.s.selectable).map((n) => ({ id: n.s.itemId, projectId: n.projectKey, bytes: n.s.bytes })) };
  let count = 0;
  for (const n of nodes) if (n.s.selectable) count++;
  const b = new SelectionBuilder(count);
  for (const n of nodes) if (n.s.selectable) b.add(n.s.itemId, n.projectKey, n.s.bytes);
  return { selection: [], selectionIndex: b.build() };
}
