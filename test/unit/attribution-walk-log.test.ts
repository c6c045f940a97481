// The attribution walk reuses what the adapter's walks saw (Inventory.walkLog)
// instead of asking the disk again, and gives the same figures and rows as a
// walk of its own: on a tree left alone, on one changed between the adapter's
// walk and the attribution's (a file grown, one added to a walked folder, a
// walked folder replaced), and across two scans, where nothing seen by the
// first is used by the second.

import fs, { renameSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ADAPTERS } from '../../src/adapters/registry.js';
import { buildClaudeFixture } from '../../src/adapters/claude/fixture.js';
import { Engine } from '../../src/engine/api/engine.js';
import type { Inventory, Item } from '../../src/engine/core/model.js';
import { attributeInventory } from '../../src/engine/inventory/attribution.js';
import { WalkRecorder, walkOwned } from '../../src/engine/inventory/revision.js';
import { inst, item, put } from '../helpers/attribution-fixtures.js';
import { lstatsDuring } from '../helpers/lstat-spy.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
afterEach(() => {
  vi.restoreAllMocks();
  syncBuiltinESMExports();
  t?.cleanup();
});

/** The store: two walked rows (a folder tree and a file), a folder no row holds. */
function store(): { home: string; rows: () => Item[] } {
  t = makeTempEnv();
  const home = join(t.root, 'store');
  put(home, { 'a/1': 'x'.repeat(5000), 'a/sub/2': 'y', 'a/sub/deeper/3': 'z'.repeat(9000), 'b.txt': 'b', 'junk/1': 'j' });
  return { home, rows: () => [item('A', [join(home, 'a')]), item('B', [join(home, 'b.txt')])] };
}

/** The rows' walks as an adapter does them, recorded. */
function walked(rows: Item[]): WalkRecorder {
  const log = new WalkRecorder();
  for (const r of rows) walkOwned(r.paths, { uid: -1, log });
  return log;
}

const inventory = (items: Item[], walkLog?: WalkRecorder): Inventory => ({ sessions: [], items, projects: [], warnings: [], writers: [], walkLog });

/** Figures and rows of an attribution that walks everything itself. */
async function fresh(home: string, rows: Item[]): Promise<{ a: unknown; items: Item[] }> {
  const inv = inventory(rows);
  const a = await attributeInventory(inst(home), inv);
  return { a, items: inv.items };
}

describe('attribution with the walk log', () => {
  it('gives the figures and rows of its own walk, without a second lstat inside a walked tree, and drops the log', async () => {
    const { home, rows } = store();
    const log = walked(rows());
    const kept = log.mark();
    const inv = inventory(rows(), log);
    const { value: a, paths } = await lstatsDuring(() => attributeInventory(inst(home), inv));
    // The attribution's own stats are not kept: what a huge home costs is its depth, not its size.
    expect(log.mark()).toBe(kept);
    expect(a).toEqual((await fresh(home, rows())).a);
    expect(inv.items).toEqual((await fresh(home, rows())).items);
    expect(a).toMatchObject({ totalFiles: 5, accountedFiles: 4, unrecognizedFiles: 1 });
    // Under the walked folder only its directories are checked against the disk, no file is stat'ed again.
    expect(paths.filter((p) => p.startsWith(join(home, 'a') + '/')).sort()).toEqual([join(home, 'a', 'sub'), join(home, 'a', 'sub', 'deeper')]);
    expect(paths).toContain(join(home, 'a'));
    expect(paths).toContain(join(home, 'junk', '1'));
    expect(inv.walkLog).toBeUndefined();
  });

  it('a file grown, a file added to a walked folder, a walked folder replaced: each counted as the disk has it now', async () => {
    const cases: [string, (home: string) => void][] = [
      ['file grown', (home) => writeFileSync(join(home, 'b.txt'), 'b'.repeat(20_000))],
      ['file added', (home) => writeFileSync(join(home, 'a', 'sub', 'deeper', 'new'), 'n'.repeat(7000))],
      ['file removed', (home) => fs.rmSync(join(home, 'a', 'sub', '2'))],
      [
        'folder replaced',
        (home) => {
          renameSync(join(home, 'a'), join(home, 'junk', 'old-a'));
          put(home, { 'a/other': 'o'.repeat(12_000) });
        },
      ],
    ];
    for (const [name, change] of cases) {
      const { home, rows } = store();
      const log = walked(rows());
      change(home);
      const inv = inventory(rows(), log);
      const a = await attributeInventory(inst(home), inv);
      const own = await fresh(home, rows());
      expect(a, name).toEqual(own.a);
      expect(inv.items, name).toEqual(own.items);
      t.cleanup();
    }
  });

  it('a file that grew inside an unchanged folder counts in its row with the size the row was given', async () => {
    const { home, rows } = store();
    const log = walked(rows());
    const before = await fresh(home, rows());
    writeFileSync(join(home, 'a', 'sub', 'deeper', '3'), 'z'.repeat(90_000));
    const inv = inventory(rows(), log);
    expect(await attributeInventory(inst(home), inv)).toEqual(before.a);
    expect(inv.items).toEqual(before.items);
  });

  it('a rescan sees what changed after the first scan (nothing is reused across scans)', async () => {
    t = makeTempEnv();
    const home = t.env.CLAUDE_CONFIG_DIR!;
    const m = buildClaudeFixture({ configDir: home, cwdRoot: join(t.env.HOME!, 'code'), projects: 2, sessionsPerProject: 3, sidecars: true, memory: true });
    const engine = new Engine(ADAPTERS, t.ctx);
    const first = (await engine.scan('claude')).attribution!;
    // Inside a folder a session owns: a new file, deep down, where no directory of the first scan's walk changed but its own.
    const owned = m.sessions.flatMap((s) => s.ownedPaths).find((p) => fs.lstatSync(p).isDirectory())!;
    put(owned, { 'later/added.bin': 'q'.repeat(40_000) });
    const second = (await engine.scan('claude')).attribution!;
    expect(second.totalFiles).toBe(first.totalFiles + 1);
    expect(second.accountedFiles).toBe(first.accountedFiles + 1);
    expect(second.totalBytes).toBeGreaterThanOrEqual(first.totalBytes + 40_000);
  });
});
