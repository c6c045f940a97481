// The opencode.db Compact item's route on a store the pinned opencode made:
// refused (nothing changed) while an OpenCode process has the database, and
// when the database is gone; applied otherwise, free pages 0 after.

import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { applyOpencodeItems } from '../../src/adapters/opencode/compact-item-route.js';
import { COMPACT_ITEM_ID, compactItem } from '../../src/adapters/opencode/compact-item.js';
import { readDbSpace } from '../../src/engine/host/db-space.js';
import { buildStore, installation, makeTemplate, sessionRows, type Template } from '../helpers/opencode.js';
import { fakeProcess, makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';

let template: Template;
beforeAll(async () => {
  template = await makeTemplate();
}, 180_000);
afterAll(() => template?.cleanup());

let t: TempEnv;
afterEach(() => t?.cleanup());

/** Sessions deleted with OpenCode's foreign keys (cascade), the WAL left as OpenCode leaves it. */
function withFreePages(): string[] {
  t = makeTempEnv();
  const m = buildStore(t, template, { messagesPerSession: 6 });
  const gone = m.sessions.filter((s) => s.projectId === m.projects[0]!.id).map((s) => s.id);
  const d = new Database(t.env.OPENCODE_DB!);
  d.pragma('foreign_keys = ON');
  for (const id of gone) d.prepare('DELETE FROM session WHERE id = ?').run(id);
  d.pragma('wal_checkpoint(TRUNCATE)');
  const reader = new Database(t.env.OPENCODE_DB!, { readonly: true });
  reader.prepare('SELECT 1').get();
  d.close();
  reader.close();
  return gone;
}

describe('Compact the OpenCode database', () => {
  it('shows file, WAL and free pages; is not offered without free pages', () => {
    withFreePages();
    const db = t.env.OPENCODE_DB!;
    const s = readDbSpace(db);
    const { item } = compactItem(db, t.ctx, undefined);
    expect(item!.metadata).toMatchObject({
      fileBytes: s.fileBytes,
      walBytes: s.walBytes,
      freePages: s.freePages,
      pageSize: s.pageSize,
      route: 'official',
      requiresAgentExit: true,
    });
    expect(item!.subtitle).toMatch(/free pages .* file .* WAL /);
    expect(compactItem(null, t.ctx, undefined).item).toBeNull();
  }, 120_000);

  it('refuses while an OpenCode process runs, and when the database is gone, changing nothing', async () => {
    withFreePages();
    fakeProcess(t.procRoot, 6161, 'opencode', ['opencode', 'serve']);
    const before = hashTree(t.root);
    const r = await applyOpencodeItems(installation(t), t.ctx, [COMPACT_ITEM_ID]);
    expect(r.applied).toEqual([]);
    expect(r.failed[0]!.reason).toMatch(/^Quit OpenCode before compacting its database \(running: opencode pid 6161 \(/);
    expect(treeDiff(before, hashTree(t.root))).toEqual([]);
    rmSync(t.env.OPENCODE_DB!);
    rmSync(`${t.env.OPENCODE_DB!}-wal`, { force: true });
    rmSync(`${t.env.OPENCODE_DB!}-shm`, { force: true });
    const r2 = await applyOpencodeItems(installation(t), t.ctx, [COMPACT_ITEM_ID]);
    expect(r2.failed[0]!.reason).toMatch(/database is gone/);
  }, 120_000);

  it('compacts: free pages 0, the file smaller, every row unchanged', async () => {
    withFreePages();
    const db = t.env.OPENCODE_DB!;
    const before = readDbSpace(db);
    expect(before.freePages).toBeGreaterThan(0);
    const rows = sessionRows(t);
    const r = await applyOpencodeItems(installation(t), t.ctx, [COMPACT_ITEM_ID]);
    expect(r).toEqual({ applied: [COMPACT_ITEM_ID], failed: [] });
    const after = readDbSpace(db);
    expect(after.freePages).toBe(0);
    expect(after.fileBytes).toBeLessThan(before.fileBytes);
    expect(sessionRows(t)).toEqual(rows);
    expect(compactItem(db, t.ctx, undefined).item).toBeNull();
  }, 120_000);
});
