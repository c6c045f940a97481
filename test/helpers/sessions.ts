// Hand-built inventories for engine tests: no disk, no adapter.

import { Snapshot } from '../../src/engine/inventory/snapshot.js';
import type { Installation, Inventory, Item, ProjectGroup, SessionRecord } from '../../src/engine/core/model.js';

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
