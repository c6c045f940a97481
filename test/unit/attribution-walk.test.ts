// The attribution walk on hand-made trees: a file two rows hold is reported,
// a folder no row touches becomes one "not recognized" row with the reason a
// warning gave, a hard-linked inode counts once, a link counts nothing and is
// never followed, and a nested root is walked once.

import { linkSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Inventory } from '../../src/engine/core/model.js';
import { attributeInventory, UNRECOGNIZED_DEFAULT_WHY } from '../../src/engine/inventory/attribution.js';
import { inst, item, put } from '../helpers/attribution-fixtures.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
afterEach(() => t?.cleanup());

describe('attributeInventory', () => {
  it('counts, folds gaps, reports double counting, hard links once, links never', async () => {
    t = makeTempEnv();
    const home = join(t.root, 'store');
    put(home, { 'a/1': 'x'.repeat(5000), 'a/2': 'y', 'b/1': 'z', 'junk/deep/1': 'j', 'junk/2': 'j', 'loose.txt': 'l', 'skipped.jsonl': '' });
    linkSync(join(home, 'a', '1'), join(home, 'a', 'hard'));
    symlinkSync('/etc', join(home, 'etc-link'));
    const inv: Inventory = {
      sessions: [],
      items: [item('A', [join(home, 'a')]), item('A1', [join(home, 'a', '2')]), item('B', [join(home, 'b')])],
      projects: [],
      warnings: [{ path: join(home, 'skipped.jsonl'), reason: 'Skipped empty session file.' }],
      writers: [],
    };
    const a = await attributeInventory(inst(home), inv);
    // a/1 (+ its second link, not counted), a/2, b/1, junk/deep/1, junk/2, loose.txt, skipped.jsonl (empty: 0 blocks)
    expect(a.totalFiles).toBe(7);
    expect(a.doubleCountedFiles).toBe(1);
    expect(a.doubleCounted).toEqual([{ path: join(home, 'a', '2'), rows: ['A', 'A1'] }]);
    expect(a.accountedFiles).toBe(3);
    expect(a.unrecognizedFiles).toBe(4);
    expect(a.accountedBytes + a.unrecognizedBytes).toBe(a.totalBytes);
    const gaps = inv.items.filter((i) => i.metadata.unrecognized === true);
    expect(gaps.map((g) => g.paths)).toEqual([[join(home, 'junk')], [join(home, 'loose.txt')], [join(home, 'skipped.jsonl')]]);
    expect(gaps[0]).toMatchObject({ label: 'junk/', selectable: false, category: 'protected', metadata: { files: 2 } });
    expect(gaps[0]!.blockedReason).toBe(`Not recognized — ${UNRECOGNIZED_DEFAULT_WHY}`);
    expect(gaps[2]!.blockedReason).toBe('Not recognized — Skipped empty session file.');
    expect(inv.attribution).toBe(a);
  });

  it('walks a root nested in another once, and an unreadable or missing root counts nothing', async () => {
    t = makeTempEnv();
    const home = join(t.root, 'store');
    put(home, { 'x/1': 'a', 'x/2': 'b' });
    const inv: Inventory = {
      sessions: [],
      items: [item('X', [join(home, 'x')])],
      projects: [],
      warnings: [],
      writers: [],
      attributionRoots: [join(home, 'x'), join(t.root, 'missing')],
    };
    const a = await attributeInventory(inst(home), inv);
    expect(a.roots).toEqual([home, join(t.root, 'missing')]);
    expect(a).toMatchObject({ totalFiles: 2, accountedFiles: 2, doubleCountedFiles: 0, unrecognizedFiles: 0 });
  });

  it('folds more gaps than a list can show into one row', async () => {
    t = makeTempEnv();
    const home = join(t.root, 'store');
    const files: Record<string, string> = { 'kept/1': 'k' };
    for (let i = 0; i < 450; i++) files[`g${i}.bin`] = 'g';
    put(home, files);
    const inv: Inventory = { sessions: [], items: [item('K', [join(home, 'kept')])], projects: [], warnings: [], writers: [] };
    const a = await attributeInventory(inst(home), inv);
    const gaps = inv.items.filter((i) => i.metadata.unrecognized === true);
    expect(gaps.length).toBe(400);
    const others = gaps.find((g) => g.id === 'unrecognized:others')!;
    expect(others.paths.length).toBe(51);
    expect(a.unrecognizedFiles).toBe(450);
  });
});
