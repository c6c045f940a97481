// The Sessions screen's view as plain data (tree or list, filters, sort,
// expansion) and the keys' changes to it as pure functions: each returns a
// new view, so a test can walk a key sequence without a terminal.

import type { ExpansionSpec, PageRequest, SessionFilter, SortKey, UpdatedFilter } from '../engine/core/model.js';

const UPDATED_CYCLE: UpdatedFilter[] = ['all', 'within7', 'within30', 'older30', 'older90'];
const SORTS: SortKey[] = ['updated', 'size', 'title'];

/** One agent's view of its sessions (#28.3: each agent keeps its own across a round trip through another). */
export interface SessionsView {
  view: 'tree' | 'flat';
  filter: SessionFilter;
  sort: SortKey;
  reverse: boolean;
  expansion: { base: ExpansionSpec['base']; toggled: ReadonlySet<string> };
}

export function defaultView(): SessionsView {
  return { view: 'tree', filter: {}, sort: 'updated', reverse: false, expansion: { base: 'default', toggled: new Set() } };
}

/** A filter the user set (typed text, an age or a state): the counts say "of", Esc has something to clear. */
export function isFiltered(filter: SessionFilter): boolean {
  return Boolean(filter.text || filter.updated || filter.state);
}

/** f: the next age filter; the agent's own sweep joins the cycle where it has one (Claude: the sessions it deletes at its next start). */
export function nextUpdated(v: SessionsView, hasSweep: boolean): SessionsView {
  const cycle: UpdatedFilter[] = hasSweep ? [...UPDATED_CYCLE, 'agentSweep'] : UPDATED_CYCLE;
  const i = cycle.indexOf(v.filter.updated ?? 'all');
  const next = cycle[(i + 1) % cycle.length]!;
  return { ...v, filter: { ...v.filter, updated: next === 'all' ? undefined : next } };
}

/** v: all → archived only → current only → all. */
export function nextState(v: SessionsView): SessionsView {
  const state = v.filter.state === undefined ? 'archived' : v.filter.state === 'archived' ? 'current' : undefined;
  return { ...v, filter: { ...v.filter, state } };
}

export function nextSort(v: SessionsView): SessionsView {
  return { ...v, sort: SORTS[(SORTS.indexOf(v.sort) + 1) % SORTS.length]! };
}

export function reversed(v: SessionsView): SessionsView {
  return { ...v, reverse: !v.reverse };
}

export function treeOrList(v: SessionsView): SessionsView {
  return { ...v, view: v.view === 'tree' ? 'flat' : 'tree' };
}

/** e: every row open, then every row closed; the rows toggled one by one start over. */
export function expandAll(v: SessionsView): SessionsView {
  return { ...v, expansion: { base: v.expansion.base === 'allOpen' ? 'allClosed' : 'allOpen', toggled: new Set() } };
}

/** One row opened or closed against the base. */
export function toggleRow(v: SessionsView, id: string): SessionsView {
  const toggled = new Set(v.expansion.toggled);
  if (toggled.has(id)) toggled.delete(id);
  else toggled.add(id);
  return { ...v, expansion: { base: v.expansion.base, toggled } };
}

/** One layer per Esc: the typed filter first (the age and state filters stay in the header), then the rest. */
export function clearFilterLayer(v: SessionsView): SessionsView {
  return { ...v, filter: v.filter.text ? { ...v.filter, text: undefined } : {} };
}

export function withText(v: SessionsView, text: string | undefined): SessionsView {
  return { ...v, filter: { ...v.filter, text } };
}

/** What the engine is asked for one page of this view. */
export function pageRequest(v: SessionsView, snapshotId: string, offset: number, limit: number): PageRequest {
  return {
    snapshotId,
    scope: { view: v.view, expansion: { base: v.expansion.base, toggled: [...v.expansion.toggled] } },
    filter: v.filter,
    sort: v.sort,
    reverse: v.reverse,
    offset,
    limit,
  };
}
