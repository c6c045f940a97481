// Hand-built inventories for engine tests: no disk, no adapter.

import { Snapshot } from '../../src/engine/inventory/snapshot.js';
import type { Installation, Inventory, Item, ProjectGroup, Row, SessionRecord } from '../../src/engine/core/model.js';

export const NOW = Date.UTC(2026, 10, 29, 12, 0, 0);
export const DAY = 86_400_000;

export function session(id: string, over: Partial<SessionRecord> = {}): SessionRecord {
  return {
    id,
    itemId: `session:${id}`,
    title: `Session ${id}`,
    named: false,
    cwd: null,
    projectId: null,
    parentId: null,
    deletionDescendantIds: [],
    state: 'current',
    source: 'cli',
    createdAt: NOW - DAY,
    updatedAt: NOW - DAY,
    bytes: 1000,
    paths: [`/fake/${id}.jsonl`],
    recoverable: true,
    selectable: true,
    metadata: {},
    ...over,
  };
}

export function project(id: string, label: string, roots: string[] = [`/src/${label}`]): ProjectGroup {
  return { id, label, roots };
}

export function inventory(sessions: SessionRecord[], projects: ProjectGroup[] = [], items: Item[] = []): Inventory {
  return { sessions, items, projects, warnings: [], writers: [] };
}

export function installation(): Installation {
  return {
    agent: 'pi',
    displayName: 'pi',
    memoryNotice: '',
    state: 'dataOnly',
    home: '/fake/home',
    homeSource: 'override',
    executable: null,
    version: null,
    warnings: [],
  };
}

export function snapshotOf(inv: Inventory, scannedAt = NOW): Snapshot {
  return new Snapshot('pi', installation(), inv, scannedAt, 1);
}

/** A row of an engine page, as the Sessions screen gets it: a markable session unless told otherwise. */
export function viewRow(over: Partial<Row> = {}): Row {
  return {
    kind: 'session',
    id: 'session:a',
    depth: 0,
    title: 'Session a',
    projectLabel: '',
    source: 'cli',
    state: '',
    updatedAt: 0,
    bytes: 1024,
    childCount: 0,
    expandable: false,
    expanded: false,
    context: false,
    selectable: true,
    named: true,
    ...over,
  };
}
