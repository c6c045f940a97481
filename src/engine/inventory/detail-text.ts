// The detail pane's text for one session, project or item, and the reasons
// a row cannot be marked.

import { countDescendants, type Forest, type SessionNode } from './forest.js';
import type { SnapshotIndex } from './snapshot-index.js';
import { itemSweepText, sessionSweepText } from './agent-sweep.js';
import { formatBytes, formatDate } from '../core/format.js';
import { itemCost } from '../core/item-cost.js';
import { NO_PROJECT_ID, type AgentDetailLabels, type Category, type AgentKind, type Detail, type Installation, type Inventory } from '../core/model.js';
import { RequestError } from '../core/validate.js';

export const PROVISIONAL_REASON = 'Still scanning: marks are available when the scan finishes.';
export const CONTEXT_ROW_REASON = 'Ancestor of a filtered result';

// What one agent records is named by its adapter descriptor (`labels`, in
// src/adapters/<agent>/index.ts); the Engine hands it over with the
// installation. A hand-built installation without labels renames nothing.
const NO_LABELS: AgentDetailLabels = { sources: {}, metadata: {} };

/** What of a snapshot the detail text reads. */
export interface DetailSource {
  readonly agent: AgentKind;
  readonly installation: Installation;
  readonly inventory: Inventory;
  readonly scannedAt: number;
  readonly provisional: boolean;
  readonly forest: Forest;
}

export function detailText(snap: DetailSource, index: SnapshotIndex, id: string): Detail {
  const n = index.session(id);
  if (n) return sessionDetail(snap, n);
  const p = snap.forest.projectById.get(id);
  if (p) {
    return {
      id,
      kind: 'project',
      title: p.label,
      sections: [
        {
          heading: 'Project',
          fields: [
            { label: 'Sessions', value: String(p.sessions) },
            { label: 'Size', value: formatBytes(p.bytes) },
            { label: 'Updated', value: formatDate(p.latest || null) },
            { label: 'Roots', value: p.roots.length ? p.roots.join(', ') : p.virtual ? 'Sessions without a recognized project' : '—' },
            { label: 'Project id', value: p.id === NO_PROJECT_ID ? '—' : p.id },
          ],
        },
      ],
      paths: [],
      selectable: false,
    };
  }
  const it = index.item(id);
  if (!it) throw new RequestError(`unknown item id "${id}" in this snapshot`);
  return {
    id,
    kind: 'item',
    title: it.label,
    sections: [
      {
        heading: 'Facts',
        fields: [
          { label: 'Category', value: it.category },
          { label: 'Size', value: formatBytes(it.bytes) },
          { label: 'Risk', value: it.risk },
          { label: 'Recoverable', value: it.recoverable ? 'yes (backup-able)' : 'no' },
          { label: 'Identifier', value: it.id },
          { label: 'Modified', value: formatDate(it.modifiedAt ?? null) },
          ...(it.subtitle ? [{ label: 'About', value: it.subtitle }] : []),
        ],
      },
      ...(it.category === 'protected' ? [] : costSection(snap, it.category, it.recoverable, it.metadata?.requiresAgentExit === true)),
      ...sweepSection(snap.inventory.sweep ? itemSweepText(snap.inventory.sweep, it.id) : null),
    ],
    paths: it.paths,
    blockedReason: it.blockedReason,
    selectable: it.selectable,
  };
}

/** What removing it costs (issue #16 part 6): recoverable, regenerable, the agent stopped, what the agent loses; and the archive alternative. */
function costSection(
  snap: DetailSource,
  category: Category,
  recoverable: boolean,
  requiresExit: boolean,
  archivable?: 'archive' | 'unarchive',
): Detail['sections'] {
  const c = itemCost(category, recoverable, requiresExit, snap.installation.labels?.losses?.[category]);
  const support = snap.installation.labels?.archive;
  const fields = [
    { label: 'Recoverable', value: c.recoverable === 'backup' ? 'yes, from a backup cleanerx takes first' : 'no' },
    { label: 'Regenerable', value: c.regenerable ? 'yes, the agent makes it again' : 'no' },
    { label: 'Agent stopped', value: c.needsAgentStopped ? 'needed' : 'not needed' },
    { label: 'Agent loses', value: c.agentLoses || 'nothing it cannot rebuild' },
  ];
  if (archivable === 'archive')
    fields.push({
      label: 'Archive (A)',
      value: support?.archive ? 'reversible, frees 0 B, nothing removed' : `not offered: ${support?.why ?? 'the agent has no official archive route'}`,
    });
  if (archivable === 'unarchive')
    fields.push({
      label: 'Unarchive (A)',
      value: support?.unarchive ? 'offered, through the agent' : `not offered: ${support?.why ?? 'the agent has no official unarchive route'}`,
    });
  return [{ heading: 'If removed', fields }];
}

/** "Claude deletes this transcript on …": what the agent itself will do, read from its settings. */
function sweepSection(text: string | null): Detail['sections'] {
  return text ? [{ heading: "Agent's own cleanup", fields: [{ label: 'By itself', value: text }] }] : [];
}

function sessionDetail(snap: DetailSource, n: SessionNode): Detail {
  const s = n.s;
  const labels = snap.installation.labels ?? NO_LABELS;
  const project = snap.forest.projectById.get(n.projectKey);
  const parent = n.parent;
  const meta = Object.entries(s.metadata)
    .filter(([k]) => Object.hasOwn(labels.metadata, k))
    .map(([k, v]) => ({ label: labels.metadata[k]!, value: typeof v === 'boolean' ? (v ? 'yes' : 'no') : String(v) }));
  return {
    id: s.itemId,
    kind: 'session',
    title: s.title,
    sections: [
      {
        heading: 'Facts',
        fields: [
          { label: 'Size', value: formatBytes(s.bytes) },
          { label: 'Risk', value: 'high' },
          { label: 'Recoverable', value: s.recoverable ? 'yes (backup-able)' : 'no' },
          { label: 'Identifier', value: s.id },
          { label: 'Modified', value: formatDate(s.updatedAt) },
        ],
      },
      {
        heading: 'Session',
        fields: [
          { label: 'Project', value: project?.label ?? '—' },
          { label: 'Source', value: Object.hasOwn(labels.sources, s.source) ? labels.sources[s.source]! : s.source },
          { label: 'Status', value: s.state === 'archived' ? 'Archived' : 'Not loaded' },
          { label: 'Created', value: formatDate(s.createdAt) },
          { label: 'Updated', value: formatDate(s.updatedAt) },
          { label: 'Parent', value: parent ? `${parent.s.title} (${parent.s.id})` : '—' },
          { label: 'Children', value: String(n.children.length) },
          { label: 'In tree below', value: String(countDescendants(n)) },
          { label: 'Deleted with it', value: s.deletionDescendantIds.length ? String(s.deletionDescendantIds.length) : 'nothing else (forks are kept)' },
          { label: 'Working dir', value: s.cwd ?? 'No working directory' },
          { label: 'Project root', value: project?.roots.join(', ') || '—' },
        ],
      },
      ...(meta.length ? [{ heading: 'Metadata', fields: meta }] : []),
      ...costSection(
        snap,
        s.state === 'archived' ? 'archivedSession' : 'session',
        s.recoverable,
        s.metadata.requiresAgentExit === true,
        s.state === 'archived' ? 'unarchive' : 'archive',
      ),
      ...sweepSection(snap.inventory.sweep ? sessionSweepText(snap.inventory.sweep, s.updatedAt, snap.scannedAt, s.source) : null),
    ],
    paths: s.paths,
    blockedReason: snap.provisional ? PROVISIONAL_REASON : s.blockedReason,
    selectable: s.selectable && !snap.provisional,
  };
}
