// Marks → a reviewed plan bound to one snapshot: the expanded items (with
// every descendant the agent's own route also removes), the minimal root set
// that the route is called for, per-operation blockers, and the totals.

import { agentName } from '../core/agents.js';
import { randomUUID } from 'node:crypto';
import type { ArchiveSupport, CleanupPlan, ItemCost, OperationKind, PlanAction, PlanItem, PlanOperation } from '../core/model.js';
import type { Snapshot } from '../inventory/snapshot.js';
import { itemCost } from '../core/item-cost.js';
import { RequestError } from '../core/validate.js';
import { type Language, t } from '../i18n/index.js';
import { asBackupOnly } from './backup-only.js';

const MAX_SELECTION = 200_000;
const OP_BATCH = 64;

export interface PlanOptions {
  readOnly: boolean;
  /** False when the agent has no mutation route in this version. */
  routeAvailable: boolean;
  /** Why backups cannot be offered at all (undefined when they can). */
  backupUnavailable?: string;
  /** Sessions leave through the agent's own delete route, not the path transaction. */
  officialSessions?: boolean;
  /** delete (the default), archive or unarchive. */
  action?: PlanAction;
  /** What the agent's archive route offers (absent: none). */
  archive?: ArchiveSupport;
  /** The language of the plan's sentences (default: the process's); a plan file's notes are English, like its reasons. */
  lang?: Language;
}

const ARCHIVE_COST: ItemCost = { recoverable: 'reversible', regenerable: false, needsAgentStopped: false, agentLoses: '' };

export function buildPlan(snap: Snapshot, selected: readonly string[], opts: PlanOptions): CleanupPlan {
  if (opts.action === 'archive' || opts.action === 'unarchive') return buildArchivePlan(snap, selected, opts, opts.action);
  if (opts.action === 'backupOnly') return asBackupOnly(buildPlan(snap, selected, { ...opts, action: 'delete' }), opts.lang);
  const ids = checkedSelection(snap, selected);
  const lang = opts.lang;
  const skipped = new Set([...descendantsOfSelected(snap, ids), ...coveredItems(snap, ids)]);
  const { items, expanded, lists } = expandSelection(snap, ids, skipped, opts);
  // Sessions first: media a session leaves behind is removed only after its official delete.
  const operations = [...lists.official, ...lists.byPath, ...lists.officialItems];
  operations.forEach((op, i) => (op.index = i));
  const agent = agentName(snap.agent);
  const blockers: string[] = [];
  if (opts.readOnly) blockers.push(t('plan.readOnly', undefined, lang));
  if (!opts.routeAvailable) blockers.push(t('plan.noRoute', { agent }, lang));
  const backup = backupCoverage(items, opts, agent);
  return {
    id: randomUUID(),
    snapshotId: snap.id,
    agent: snap.agent,
    createdAt: new Date().toISOString(),
    selectedItemIds: ids,
    expandedSessionIds: [...expanded],
    items,
    operations,
    estimatedBytes: items.reduce((a, i) => a + i.bytes, 0),
    estimatedBackupBytes: backup.whyNot ? 0 : backup.covered.reduce((a, i) => a + i.bytes, 0),
    backupEligible: !backup.whyNot,
    backupWhyNot: backup.whyNot,
    ...(backup.notCovered ? { backupNotCovered: backup.notCovered, backupUncoveredIds: backup.uncovered.map((i) => i.id) } : {}),
    irreversible: true,
    routeNotes: routeNotes(snap, lists, agent, lang),
    blockers,
  };
}

/** The selection without repeats, refused whole when it is empty, too large, or names a protected or unknown item. */
function checkedSelection(snap: Snapshot, selected: readonly string[]): string[] {
  if (!Array.isArray(selected) || selected.length === 0) throw new RequestError('Nothing is selected.');
  if (selected.length > MAX_SELECTION) throw new RequestError(`At most ${MAX_SELECTION} items can be planned at once.`);
  const ids = [...new Set(selected)];
  for (const id of ids) {
    if (typeof id !== 'string') throw new RequestError('Item ids must be strings.');
    const item = snap.item(id);
    if (item?.category === 'protected') throw new RequestError('Blocked: protected item cannot be selected.');
    if (!item && !snap.session(id)) throw new RequestError(`Unknown item id "${id}" in this snapshot; rescan and mark again.`);
  }
  return ids;
}

/** A selected descendant of a selected session is removed by its ancestor's route: it is no root of its own. */
function descendantsOfSelected(snap: Snapshot, ids: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const id of ids) {
    const n = snap.session(id);
    if (n) for (const d of n.s.deletionDescendantIds) out.add(`session:${d}`);
  }
  return out;
}

/**
 * A selected item whose every path lies inside another selected item's path goes with that
 * item (OpenCode's leaked pack files inside a whole snapshot repository): planning both would
 * remove the files twice, the second removal failing after the first had changed the disk, and
 * count their bytes twice.
 */
function coveredItems(snap: Snapshot, ids: readonly string[]): Set<string> {
  const covered = new Set<string>();
  const fileItems = ids
    .map((id) => ({ id, it: snap.session(id) ? undefined : snap.item(id) }))
    .filter((x) => x.it && x.it.metadata?.route !== 'official' && x.it.paths.length);
  for (const a of fileItems) {
    const inside = (p: string): boolean =>
      fileItems.some((b) => b.id !== a.id && !covered.has(b.id) && b.it!.paths.some((q) => p.startsWith(q.endsWith('/') ? q : `${q}/`)));
    if (a.it!.paths.every(inside)) covered.add(a.id);
  }
  return covered;
}

interface OperationLists {
  official: PlanOperation[];
  byPath: PlanOperation[];
  officialItems: PlanOperation[];
}

/**
 * File-route items are removed in batches: one journal transition per batch, not per file,
 * keeps a 10,000-item plan from rewriting its journal 20,000 times. An official route gets
 * every root in one call (OpenCode's bulk path starts one private server for all of them).
 */
function operationFor(lists: OperationLists, kind: OperationKind): PlanOperation {
  const list = kind === 'officialDelete' ? lists.official : kind === 'officialItems' ? lists.officialItems : lists.byPath;
  let op = list[list.length - 1];
  if (!op || (kind === 'removePaths' && op.itemIds.length >= OP_BATCH)) {
    op = { index: -1, kind, itemIds: [], sessionIds: [], paths: [], bytes: 0, backupEligible: true, requiresAgentExit: false, blockers: [] };
    if (kind === 'officialDelete') op.rootSessionIds = [];
    list.push(op);
  }
  return op;
}

/** One plan item with what decides its operation's blockers and whether it waits for the agent. */
interface Candidate {
  item: PlanItem;
  selectable: boolean;
  blocked: string | undefined;
  requiresExit: boolean;
}

/** Every root's plan items (a session with each descendant its route removes) in the operations their routes take. */
function expandSelection(snap: Snapshot, ids: readonly string[], skipped: ReadonlySet<string>, opts: PlanOptions) {
  const lang = opts.lang;
  const items: PlanItem[] = [];
  const expanded = new Set<string>();
  const inPlan = new Set<string>();
  const lists: OperationLists = { official: [], byPath: [], officialItems: [] };
  const losses = snap.installation.labels?.losses ?? {};
  for (const id of ids) {
    if (skipped.has(id)) continue;
    const n = snap.session(id);
    const it = n ? undefined : snap.item(id)!;
    const cur = operationFor(
      lists,
      n ? (opts.officialSessions ? 'officialDelete' : 'removePaths') : it!.metadata.route === 'official' ? 'officialItems' : 'removePaths',
    );
    cur.itemIds.push(id);
    const add = ({ item: pi, selectable, blocked, requiresExit }: Candidate): void => {
      if (inPlan.has(pi.id)) return;
      inPlan.add(pi.id);
      pi.cost = itemCost(pi.category, pi.recoverable, requiresExit, losses[pi.category]);
      items.push(pi);
      cur.paths.push(...pi.paths);
      cur.bytes += pi.bytes;
      cur.backupEligible &&= pi.recoverable;
      cur.requiresAgentExit ||= requiresExit;
      if (!selectable) cur.blockers.push(t('plan.itemBlocked', { label: pi.label, reason: blocked ?? t('plan.cannotClean', undefined, lang) }, lang));
    };
    if (!n) {
      add({
        item: { id, label: it!.label, category: it!.category, bytes: it!.bytes, paths: it!.paths, recoverable: it!.recoverable, depth: 0 },
        selectable: it!.selectable,
        blocked: it!.blockedReason,
        requiresExit: it!.metadata.requiresAgentExit === true,
      });
      continue;
    }
    cur.sessionIds.push(n.s.id);
    cur.rootSessionIds?.push(n.s.id);
    expanded.add(n.s.id);
    add(rootCandidate(id, n.s));
    for (const { id: d, node: dn } of descendantNodes(snap, n.s)) {
      cur.sessionIds.push(d);
      cur.itemIds.push(dn.s.itemId);
      expanded.add(d);
      add(descendantCandidate(snap, n.s, dn.s));
    }
  }
  return { items, expanded, lists };
}

type SessionOf = NonNullable<ReturnType<Snapshot['session']>>['s'];

function rootCandidate(id: string, s: SessionOf): Candidate {
  return {
    item: {
      id,
      label: s.title,
      category: s.state === 'archived' ? 'archivedSession' : 'session',
      bytes: s.bytes,
      paths: s.paths,
      recoverable: s.recoverable,
      depth: 0,
      sessionId: s.id,
      updatedAt: s.updatedAt,
    },
    selectable: s.selectable,
    blocked: s.blockedReason,
    requiresExit: s.metadata.requiresAgentExit === true,
  };
}

/** The descendants the root's route removes that this snapshot still knows. */
function descendantNodes(snap: Snapshot, root: SessionOf) {
  return root.deletionDescendantIds.flatMap((d) => {
    const dn = snap.forest.nodeById.get(d);
    return dn ? [{ id: d, node: dn }] : [];
  });
}

function descendantCandidate(snap: Snapshot, root: SessionOf, d: SessionOf): Candidate {
  return {
    item: {
      id: d.itemId,
      label: d.title,
      category: 'session',
      bytes: d.bytes,
      paths: d.paths,
      recoverable: d.recoverable,
      depth: 1,
      includedBecause: `removed with ${root.title} by ${agentName(snap.agent)}`,
      sessionId: d.id,
      updatedAt: d.updatedAt,
    },
    selectable: d.selectable,
    blocked: d.blockedReason,
    requiresExit: d.metadata.requiresAgentExit === true,
  };
}

/** What the agents' own routes do, said once: official sessions, official items by kind, what an agent does as its route starts. */
function routeNotes(snap: Snapshot, lists: OperationLists, agent: string, lang: Language | undefined): string[] {
  const notes: string[] = [];
  if (lists.official.length) {
    const n = lists.official[0]!.rootSessionIds!.length;
    notes.push(t('plan.officialSessions', { agent, count: n, n: String(n) }, lang));
  }
  // What each official item's call does, by its kind (metadata.officialKind): a compaction or a git gc loses nothing; the rest cannot be undone.
  const byKind = { call: 0, rows: 0, compact: 0, gc: 0 };
  for (const op of lists.officialItems)
    for (const id of op.itemIds) {
      const kind = snap.item(id)?.metadata.officialKind;
      byKind[kind === 'rows' || kind === 'compact' || kind === 'gc' ? kind : 'call']++;
    }
  if (byKind.call) notes.push(t('plan.officialItems', { agent, count: byKind.call }, lang));
  if (byKind.rows) notes.push(t('plan.officialRows', undefined, lang));
  if (byKind.compact) notes.push(t('plan.officialCompact', { count: byKind.compact }, lang));
  if (byKind.gc) notes.push(t('plan.officialGc', { count: byKind.gc }, lang));
  // What the agent itself does when its route starts (the adapter's words): Codex's App Server prunes and rewrites as it starts.
  const starts = new Set<string>();
  for (const op of [...lists.official, ...lists.officialItems])
    for (const id of op.itemIds) {
      const note = snap.session(id)?.s.metadata.routeStart ?? snap.item(id)?.metadata.routeStart;
      if (typeof note === 'string') starts.add(note);
    }
  notes.push(...starts);
  return notes;
}

/** A mixed plan backs up what can be restored; the rest is named as not covered, never a reason to back up nothing. */
function backupCoverage(items: readonly PlanItem[], opts: PlanOptions, agent: string) {
  const lang = opts.lang;
  const covered = items.filter((i) => i.recoverable);
  const uncovered = items.filter((i) => !i.recoverable);
  const sessionsIrreversible = uncovered.some((i) => i.category === 'session' || i.category === 'archivedSession');
  const whyNot =
    opts.backupUnavailable ??
    (covered.length
      ? undefined
      : sessionsIrreversible && items.every((i) => i.category === 'session' || i.category === 'archivedSession')
        ? t('plan.noImport', { agent }, lang)
        : t('plan.someUnrestorable', undefined, lang));
  const notCovered =
    whyNot || !uncovered.length ? undefined : t(sessionsIrreversible ? 'plan.notCoveredSessions' : 'plan.notCovered', { count: uncovered.length, agent }, lang);
  return { covered, uncovered, whyNot, notCovered };
}

/**
 * An archive (or unarchive) plan: the marked sessions only — the agent's
 * archive acts on one session, not its subtree — one operation through the
 * agent's own route, no byte freed, nothing to back up (the action is its own
 * undo). Sessions already in the wanted state are left out; blocked and
 * protected rows never archive.
 */
function buildArchivePlan(snap: Snapshot, selected: readonly string[], opts: PlanOptions, action: 'archive' | 'unarchive'): CleanupPlan {
  if (!Array.isArray(selected) || selected.length === 0) throw new RequestError('Nothing is selected.');
  if (selected.length > MAX_SELECTION) throw new RequestError(`At most ${MAX_SELECTION} items can be planned at once.`);
  const agent = agentName(snap.agent);
  const lang = opts.lang;
  const want = action === 'archive' ? 'archived' : 'current';
  const op: PlanOperation = {
    index: 0,
    kind: action,
    itemIds: [],
    sessionIds: [],
    paths: [],
    bytes: 0,
    backupEligible: false,
    requiresAgentExit: false,
    blockers: [],
  };
  const items: PlanItem[] = [];
  let already = 0;
  for (const id of new Set(selected)) {
    if (typeof id !== 'string') throw new RequestError('Item ids must be strings.');
    const n = snap.session(id);
    if (!n) {
      if (snap.item(id)) throw new RequestError('Only sessions can be archived; unmark the other items.');
      throw new RequestError(`Unknown item id "${id}" in this snapshot; rescan and mark again.`);
    }
    const s = n.s;
    if (s.state === want) {
      already++;
      continue;
    }
    op.itemIds.push(id);
    op.sessionIds.push(s.id);
    items.push({
      id,
      label: s.title,
      category: s.state === 'archived' ? 'archivedSession' : 'session',
      bytes: 0,
      paths: [],
      recoverable: true,
      depth: 0,
      sessionId: s.id,
      updatedAt: s.updatedAt,
      cost: ARCHIVE_COST,
    });
    if (!s.selectable) op.blockers.push(t('plan.itemBlocked', { label: s.title, reason: s.blockedReason ?? t('plan.cannotChange', undefined, lang) }, lang));
  }
  if (!items.length) throw new RequestError(action === 'archive' ? 'Every marked session is already archived.' : 'No marked session is archived.');
  const blockers: string[] = [];
  if (opts.readOnly) blockers.push(t('plan.readOnly', undefined, lang));
  const support = opts.archive;
  const routed = Boolean(support?.[action]);
  if (!routed) blockers.push(support?.why ?? t(`plan.noActionRoute.${action}`, { agent }, lang));
  // What the agent's route does, in its own terms — said only of a route that exists; one without a way back says so.
  const oneWay = action === 'archive' && !support?.unarchive;
  const routeNotes: string[] = [];
  if (routed) {
    routeNotes.push(t(action === 'unarchive' ? 'plan.unarchiveNote' : oneWay ? 'plan.archiveNoteOneWay' : 'plan.archiveNote', { agent }, lang));
    if (support?.spawned) {
      const planned = new Set(op.sessionIds);
      const spawned = new Set<string>();
      for (const id of op.sessionIds)
        for (const d of snap.forest.nodeById.get(id)?.s.deletionDescendantIds ?? []) {
          const dn = snap.forest.nodeById.get(d);
          if (dn && !planned.has(d) && dn.s.state !== want) spawned.add(d);
        }
      if (spawned.size) routeNotes.push(t(`plan.spawned.${action}`, { agent, count: spawned.size }, lang));
    }
    if (action === 'unarchive' && support?.unarchiveTouches) routeNotes.push(t('plan.unarchiveTouches', { agent }, lang));
  }
  if (already) routeNotes.push(t(`plan.already.${want}`, { count: already }, lang));
  return {
    id: randomUUID(),
    snapshotId: snap.id,
    agent: snap.agent,
    createdAt: new Date().toISOString(),
    selectedItemIds: op.itemIds,
    expandedSessionIds: [...op.sessionIds],
    items,
    operations: [op],
    estimatedBytes: 0,
    estimatedBackupBytes: 0,
    backupEligible: false,
    backupWhyNot: t(`plan.noBackup.${action}`, undefined, lang),
    // An archive the agent cannot take back (OpenCode 1.18) is one-way, though nothing is removed.
    irreversible: oneWay && routed,
    routeNotes,
    blockers,
    action,
  };
}

export function planBlockers(plan: CleanupPlan): string[] {
  return [...plan.blockers, ...plan.operations.flatMap((o) => o.blockers)];
}
