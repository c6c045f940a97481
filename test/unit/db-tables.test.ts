// Inside-the-database attribution (#29.4): bytes per table from SQLite's
// dbstat, an index counted with its table, the sum equal to the file's
// pages; the OpenCode database's table view through the adapter's preview,
// leaving the database, its -wal and -shm byte for byte as they were.

import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { opencodeAdapter } from '../../src/adapters/opencode/index.js';
import { tableBytes, tableBytesBlock } from '../../src/engine/host/db-tables.js';
import { Engine } from '../../src/engine/api/engine.js';
import { ADAPTERS } from '../../src/adapters/registry.js';
import { buildStore, installation, makeTemplate, type Template } from '../helpers/opencode.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { hashTree } from '../helpers/tree-hash.js';

let template: Template;
beforeAll(async () => {
  template = await makeTemplate();
}, 180_000);
afterAll(() => template?.cleanup());

let t: TempEnv;
afterEach(() => t?.cleanup());

describe('bytes per table', () => {
  it('sums every page, counts an index with its table, largest first', () => {
    t = makeTempEnv();
    const d = new Database(join(t.root, 'x.db'));
    d.exec('CREATE TABLE event (id INTEGER PRIMARY KEY, body TEXT); CREATE INDEX event_body ON event(body); CREATE TABLE small (x)');
    const ins = d.prepare('INSERT INTO event (body) VALUES (?)');
    d.transaction(() => {
      for (let i = 0; i < 3000; i++) ins.run(`row ${i} ${'x'.repeat(300)}`);
    })();
    d.prepare('INSERT INTO small VALUES (1)').run();
    const tables = tableBytes(d)!;
    const total = (d.pragma('page_count', { simple: true }) as number) * (d.pragma('page_size', { simple: true }) as number);
    expect(tables.reduce((n, x) => n + x.bytes, 0)).toBe(total);
    expect(tables[0]!.table).toBe('event');
    expect(tables.map((x) => x.table)).not.toContain('event_body');
    const alone = (d.prepare("SELECT SUM(pgsize) AS n FROM dbstat WHERE name = 'event'").get() as { n: number }).n;
    expect(tables[0]!.bytes).toBeGreaterThan(alone);
    const block = tableBytesBlock(tables, { event: 'no official route to prune' });
    expect(block.kind === 'text' && block.text.split('\n')[0]).toMatch(/^event\s+[\d.]+ [KM]B\s+\d+% — no official route to prune$/);
    d.close();
  });

  it("OpenCode's database by table, through the preview, changing nothing", async () => {
    t = makeTempEnv();
    buildStore(t, template, { messagesPerSession: 6 });
    const inst = installation(t);
    const inv = await opencodeAdapter.scan(inst, t.ctx, () => undefined);
    const dbRow = inv.items.find((i) => i.id === 'protected:opencode:db:opencode.db')!;
    const before = hashTree(join(t.env.OPENCODE_DB!, '..'));
    expect(dbRow.metadata.structurePreview).toBe(true);
    const p = await opencodeAdapter.preview(inst, dbRow.paths, dbRow.id);
    const text = p.blocks.map((b) => ('text' in b ? b.text : '')).join('\n');
    expect(text).toMatch(/^part\s+[\d.]+ [KM]B\s+\d+% — goes with its session/m);
    expect(text).toMatch(/^event\s/m);
    expect(hashTree(join(t.env.OPENCODE_DB!, '..'))).toEqual(before);
    expect(readFileSync(t.env.OPENCODE_DB!).length).toBeGreaterThan(0);
    // Through the engine too: the database row opens its table view; the credentials row stays shut.
    const engine = new Engine(ADAPTERS, t.ctx);
    const sum = await engine.scan('opencode');
    const viaEngine = await engine.preview(sum.snapshotId, dbRow.id);
    expect(viaEngine.blocks[0]).toMatchObject({ kind: 'text', title: 'Bytes per table (indexes included, read only)' });
    expect((await engine.preview(sum.snapshotId, 'protected:opencode:auth.json')).source).toBe('protected');
  }, 120_000);
});
