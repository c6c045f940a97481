// The detail pane's text for one session, project or item, and the reasons
// a row cannot be marked.

import { countDescendants, type Forest, type SessionNode } from './forest.js';
import type { SnapshotIndex } from './snapshot-index.js';
import { itemSweepText, sessionSweepText } from './agent-sweep.js';
import { formatBytes, formatDate } from '../core/format.js';
import { itemCost } from '../core/item-cost.js';
import { t } from '../i18n/index.js';
import { NO_PROJECT_ID, type AgentDetailLabels, type Category, type AgentKind, type Detail, type Installation, type Inventory } from '../core/model.js';
import { RequestError } from '../core/validate.js';

export const PROVISIONAL_REASON = 'Still scanning: marks are available when the scan finishes.';
export const CONTEXT_ROW_REASON = 'Ancestor of a filtered result';

// What one agent records is named by its adapter descriptor (`labels`, in
// src/adapters/<agent>/index.ts); the Engine hands it over with the
// installation. A hand-built installation without labels renames nothing.
const NO_LABELS: AgentDetailLabels = { sources: {}, metadata: {} };

/** What of a snapshot the detail text reads. */
interface DetailSource {
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
          heading: t('dt.project'),
          fields: [
            { label: t('dt.sessions'), value: String(p.sessions) },
            { label: t('dt.size'), value: formatBytes(p.bytes) },
            { label: t('dt.updated'), value: formatDate(p.latest || null) },
            { label: t('dt.roots'), value: p.roots.length ? p.roots.join(', ') : p.virtual ? t('dt.noProject') : '—' },
            { label: t('dt.projectId'), value: p.id === NO_PROJECT_ID ? '—' : p.id },
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
        heading: t('dt.facts'),
        fields: [
          { label: t('dt.category'), value: t(`dt.cat.${it.category}`) },
          { label: t('dt.size'), value: formatBytes(it.bytes) },
          { label: t('dt.risk'), value: t(`risk.${it.risk}`) },
          { label: t('dt.recoverable'), value: it.recoverable ? t('dt.backupable') : t('detail.no') },
          { label: t('dt.identifier'), value: it.id },
          { label: t('dt.modified'), value: formatDate(it.modifiedAt ?? null) },
          ...(it.subtitle ? [{ label: t('dt.about'), value: it.subtitle }] : []),
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
    { label: t('dt.recoverable'), value: c.recoverable === 'backup' ? t('dt.fromBackup') : t('detail.no') },
    { label: t('dt.regenerable'), value: c.regenerable ? t('dt.regenYes') : t('detail.no') },
    { label: t('dt.agentStopped'), value: c.needsAgentStopped ? t('dt.needed') : t('dt.notNeeded') },
    { label: t('dt.agentLoses'), value: c.agentLoses || t('dt.losesNothing') },
  ];
  if (archivable === 'archive')
    fields.push({
      label: t('dt.archive'),
      value: support?.archive ? t('dt.archiveOk') : t('dt.notOffered', { why: support?.why ?? t('dt.noArchiveRoute') }),
    });
  if (archivable === 'unarchive')
    fields.push({
      label: t('dt.unarchive'),
      value: support?.unarchive ? t('dt.unarchiveOk') : t('dt.notOffered', { why: support?.why ?? t('dt.noUnarchiveRoute') }),
    });
  return [{ heading: t('dt.ifRemoved'), fields }];
}

/** "Claude deletes this transcript on …": what the agent itself will do, read from its settings. */
function sweepSection(text: string | null): Detail['sections'] {
  return text ? [{ heading: t('dt.agentCleanup'), fields: [{ label: t('dt.byItself'), value: text }] }] : [];
}

function sessionDetail(snap: DetailSource, n: SessionNode): Detail {
  const s = n.s;
  const labels = snap.installation.labels ?? NO_LABELS;
  const project = snap.forest.projectById.get(n.projectKey);
  const parent = n.parent;
  const meta = Object.entries(s.metadata)
    .filter(([k]) => Object.hasOwn(labels.metadata, k))
    .map(([k, v]) => ({ label: labels.metadata[k]!, value: typeof v === 'boolean' ? (v ? t('detail.yes') : t('detail.no')) : String(v) }));
  return {
    id: s.itemId,
    kind: 'session',
    title: s.title,
    sections: [
      {
        heading: t('dt.facts'),
        fields: [
          { label: t('dt.size'), value: formatBytes(s.bytes) },
          { label: t('dt.risk'), value: t('risk.high') },
          { label: t('dt.recoverable'), value: s.recoverable ? t('dt.backupable') : t('detail.no') },
          { label: t('dt.identifier'), value: s.id },
          { label: t('dt.modified'), value: formatDate(s.updatedAt) },
        ],
      },
      {
        heading: t('dt.session'),
        fields: [
          { label: t('dt.project'), value: project?.label ?? '—' },
          { label: t('dt.source'), value: Object.hasOwn(labels.sources, s.source) ? labels.sources[s.source]! : s.source },
          { label: t('dt.status'), value: s.state === 'archived' ? t('dt.archived') : t('dt.notLoaded') },
          { label: t('dt.created'), value: formatDate(s.createdAt) },
          { label: t('dt.updated'), value: formatDate(s.updatedAt) },
          { label: t('dt.parent'), value: parent ? `${parent.s.title} (${parent.s.id})` : '—' },
          { label: t('dt.children'), value: String(n.children.length) },
          { label: t('dt.inTree'), value: String(countDescendants(n)) },
          { label: t('dt.deletedWith'), value: s.deletionDescendantIds.length ? String(s.deletionDescendantIds.length) : t('dt.forksKept') },
          { label: t('dt.cwd'), value: s.cwd ?? t('dt.noCwd') },
          { label: t('dt.projectRoot'), value: project?.roots.join(', ') || '—' },
        ],
      },
      ...(meta.length ? [{ heading: t('dt.metadata'), fields: meta }] : []),
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
    blockedReason: snap.provisional ? t('dt.provisional') : s.blockedReason,
    selectable: s.selectable && !snap.provisional,
  };
}
