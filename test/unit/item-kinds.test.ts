// Item rules by kind: the kind comes from the item's own facts, and the
// bytes of what they select are counted once (a repository and its gc are
// alternatives; a path inside another selected path is not counted again).

import { describe, expect, it } from 'vitest';
import type { Item } from '../../src/engine/core/model.js';
import { itemKindOf, matchItemKinds, parseItemKinds, reclaimableBytes, SUGGESTED_KINDS } from '../../src/engine/inventory/retention/item-kinds.js';

const item = (id: string, over: Partial<Item>): Item => ({
  id,
  category: 'cache',
  label: id,
  paths: [],
  bytes: 0,
  risk: 'safe',
  recoverable: false,
  selectable: true,
  metadata: {},
  ...over,
});

// OpenCode's snapshot repository, its gc and its leaked pack, as snapshots.ts lists them.
const repo = item('snapshot:r', { paths: ['/h/snapshot/r'], bytes: 7_000, metadata: { snapshotSessions: 2, agentLoses: 'undo' } });
const gc = item('snapshot-gc:r', { bytes: 5_000, metadata: { route: 'official', officialKind: 'gc', snapshotSessions: 2, alternativeTo: 'snapshot:r' } });
const leaked = item('snapshot-tmp:r', {
  category: 'temporary',
  paths: ['/h/snapshot/r/objects/pack/tmp_pack_1'],
  bytes: 1_000,
  metadata: { agentLoses: 'nothing', snapshotSessions: 2 },
});
const db = item('compact:db', { category: 'temporary', bytes: 3_000, metadata: { route: 'official', officialKind: 'compact' } });
const rows = item('logs:database', { category: 'log', bytes: 400, metadata: { route: 'official', officialKind: 'rows' } });
const cache = item('cache:x', { paths: ['/h/cache'], bytes: 200 });
const inCache = item('cache:x-inner', { paths: ['/h/cache/inner'], bytes: 50 });
const locked = item('temp:held', { category: 'temporary', paths: ['/h/tmp'], bytes: 90, selectable: false, blockedReason: 'held open' });
const guarded = item('protected:auth', { category: 'protected', bytes: 10, selectable: false, metadata: { protected: true } });

describe('item kinds', () => {
  it('reads the kind from the facts every adapter records', () => {
    expect([repo, gc, leaked, db, rows, cache, locked, guarded].map(itemKindOf)).toEqual([
      'snapshots',
      'gc',
      'leaked',
      'compaction',
      'old-logs',
      'cache',
      'temp',
      null,
    ]);
    expect(parseItemKinds('temp, gc')).toEqual(['temp', 'gc']);
    expect(parseItemKinds('temp,bogus')).toBeNull();
    expect(parseItemKinds('gc,gc')).toBeNull();
    expect(parseItemKinds('')).toBeNull();
  });

  it('the suggested kinds take the gc and the leaked pack, never the repository (its sessions lose undo)', () => {
    const m = matchItemKinds([repo, gc, leaked, db, rows, cache, locked, guarded], SUGGESTED_KINDS);
    expect(m.matched.map((x) => x.id).sort()).toEqual(['cache:x', 'compact:db', 'logs:database', 'snapshot-gc:r', 'snapshot-tmp:r']);
    expect(m.bytes).toBe(5_000 + 1_000 + 3_000 + 400 + 200);
    expect(m.skipped.map((x) => [x.id, x.reason])).toEqual([['temp:held', 'held open']]);
  });

  it('counts a repository and its gc once, and a path inside another selected path not again', () => {
    const all = [repo, gc, leaked, db, rows, cache, inCache];
    const m = matchItemKinds(all, ['snapshots', 'gc', 'leaked', 'cache']);
    // The repository goes whole: its gc is an alternative, its leaked pack lies inside it, the inner cache inside the cache.
    expect(m.matched.map((x) => x.id).sort()).toEqual(['cache:x', 'snapshot:r']);
    expect(m.bytes).toBe(7_000 + 200);
    expect(reclaimableBytes(all)).toBe(7_000 + 3_000 + 400 + 200);
    // Not the audit's sum of alternatives (repository + gc + leaked).
    expect(reclaimableBytes(all)).toBeLessThan(7_000 + 5_000 + 1_000 + 3_000 + 400 + 200);
  });
});
