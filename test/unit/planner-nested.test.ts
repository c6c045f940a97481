// A selected item that lies inside another selected item's path (OpenCode's
// leaked pack files inside a whole snapshot repository) goes with that item:
// planned twice, the second removal would fail after the first had changed
// the disk, and the bytes would be counted twice.

import { describe, expect, it } from 'vitest';
import type { Installation, Inventory, Item } from '../../src/engine/core/model.js';
import { buildPlan } from '../../src/engine/cleanup/planner.js';
import { Snapshot } from '../../src/engine/inventory/snapshot.js';

const NOW = Date.UTC(2026, 10, 29, 12, 0, 0);

function item(id: string, paths: string[], bytes: number): Item {
  return { id, category: 'cache', label: id, paths, bytes, risk: 'safe', recoverable: false, selectable: true, metadata: {} };
}

function snapshot(items: Item[]): Snapshot {
  const inst: Installation = {
    agent: 'opencode',
    displayName: 'OpenCode',
    memoryNotice: '',
    state: 'dataOnly',
    home: '/w/store',
    homeSource: 'env',
    executable: null,
    version: null,
    warnings: [],
  };
  const inv: Inventory = { sessions: [], items, projects: [], warnings: [], writers: [] };
  return new Snapshot('opencode', inst, inv, NOW, 1);
}

const OPTS = { readOnly: false, routeAvailable: true };

describe('nested item paths', () => {
  const repo = item('snapshot:repo', ['/w/store/snapshot/p/h'], 1000);
  const leaked = item('snapshot-tmp:repo', ['/w/store/snapshot/p/h/objects/pack/tmp_pack_1', '/w/store/snapshot/p/h/index.lock'], 300);
  const sibling = item('snapshot:other', ['/w/store/snapshot/p/h2'], 50);
  const halfInside = item('mixed', ['/w/store/snapshot/p/h/x', '/w/store/elsewhere'], 20);

  it('plans the enclosing item once and leaves the enclosed one out, in either selection order', () => {
    for (const ids of [
      [repo.id, leaked.id],
      [leaked.id, repo.id],
    ]) {
      const plan = buildPlan(snapshot([repo, leaked, sibling]), ids, OPTS);
      expect(plan.items.map((i) => i.id)).toEqual([repo.id]);
      expect(plan.operations.flatMap((o) => o.paths)).toEqual(repo.paths);
      expect(plan.estimatedBytes).toBe(1000);
    }
  });

  it('keeps an item of which only some paths lie inside another, and a sibling whose name only starts alike', () => {
    const plan = buildPlan(snapshot([repo, sibling, halfInside]), [repo.id, sibling.id, halfInside.id], OPTS);
    expect(plan.items.map((i) => i.id).sort()).toEqual([halfInside.id, repo.id, sibling.id].sort());
  });

  it('alone, the enclosed item is planned as before', () => {
    const plan = buildPlan(snapshot([repo, leaked]), [leaked.id], OPTS);
    expect(plan.items.map((i) => i.id)).toEqual([leaked.id]);
    expect(plan.estimatedBytes).toBe(300);
  });
});
