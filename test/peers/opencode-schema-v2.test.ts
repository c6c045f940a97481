// Peer test, on paper: OpenCode 2.x (not in the registry here) writes new
// tables (`session_v2`, `session_message`) into the same opencode.db beside
// the frozen 1.x ones. A database built by the real opencode 1.18.33, with a
// `session_v2` table added in a copy, must come back read-only with one
// line: no delete, export or log/cache cleanup offered, the planner and the
// routes (delete, export, import) refuse, and the store is unchanged byte
// for byte (SQLite's -shm index aside, which every reader writes). 1.18.33
// itself already creates `session_message`, so that table alone is no
// marker: the same store without `session_v2` is offered as before (the
// control).

import Database from 'better-sqlite3';
import { mkdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { opencodeAdapter } from '../../src/adapters/opencode/index.js';
import { KNOWN_TABLES, NEWER_SCHEMA_REASON, newerSchemaReason } from '../../src/adapters/opencode/schema.js';
import { ADAPTERS } from '../../src/adapters/registry.js';
import type { HostContext } from '../../src/engine/core/adapter.js';
import { Engine } from '../../src/engine/api/engine.js';
import { sessionItemId } from '../../src/engine/core/ids.js';
import type { Inventory } from '../../src/engine/core/model.js';
import { buildStore, cacheDir, dataDir, installation, makeTemplate, OPENCODE_BIN, opencodeEnv, type Template } from '../helpers/opencode.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';
import { budget } from '../helpers/budget.js';

let template: Template;
beforeAll(async () => {
  template = await makeTemplate();
}, budget(180_000));
afterAll(() => template?.cleanup());

let t: TempEnv;
afterEach(() => t?.cleanup());

/** The tests' host: the temp env, OpenCode's no-network switches, and the real opencode on PATH (so detection finds it). */
const ctx = (): HostContext => ({ ...t.ctx, env: { ...opencodeEnv(t), PATH: `${dirname(OPENCODE_BIN)}:/usr/bin:/bin` } });
const scan = (): Promise<Inventory> => opencodeAdapter.scan(installation(t), ctx(), () => undefined);

function tables(db: string): string[] {
  const d = new Database(db, { readonly: true, fileMustExist: true });
  try {
    return (d.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[]).map(
      (r) => r.name,
    );
  } finally {
    d.close();
  }
}

/** What 2.x adds: its own session table with a row, and rows in the (already existing) session_message. */
function addV2Tables(db: string): void {
  const w = new Database(db, { fileMustExist: true });
  try {
    w.exec(`CREATE TABLE session_v2 (id text PRIMARY KEY, project_id text NOT NULL, title text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL);
      CREATE TABLE IF NOT EXISTS session_message (id text PRIMARY KEY, session_id text NOT NULL, data text NOT NULL);
      INSERT INTO session_v2 VALUES ('ses_v2_0000000000000000000001', 'global', 'a 2.x session', 1796122991013, 1796122991013);`);
    // A reader open while the writer closes leaves -wal/-shm in place, as a quit OpenCode does.
    const reader = new Database(db, { readonly: true, fileMustExist: true });
    reader.prepare('SELECT 1').get();
    w.close();
    reader.close();
  } finally {
    if (w.open) w.close();
  }
}

/**
 * Every file of the store: the data dir (database, WAL, logs), the cache
 * root; the database and its WAL also by size and mtime. The -shm index is
 * SQLite's shared memory, which every reader (OpenCode's too) writes.
 */
function storePicture(): Map<string, string> {
  const out = new Map<string, string>();
  for (const p of [t.env.OPENCODE_DB!, `${t.env.OPENCODE_DB!}-wal`]) {
    const st = statSync(p);
    out.set(`stat:${p}`, `${st.size} ${st.mtimeMs}`);
  }
  for (const [root, tag] of [
    [dataDir(t), 'data'],
    [cacheDir(t), 'cache'],
    [dirname(t.env.OPENCODE_DB!), 'db'],
  ] as const) {
    for (const [k, v] of hashTree(root)) if (!k.endsWith('-shm')) out.set(`${tag}/${k}`, v);
  }
  return out;
}

describe('OpenCode 2.x tables in opencode.db', () => {
  it('1.18.33 creates exactly the known tables, session_message among them', async () => {
    expect(tables(template.db)).toEqual([...KNOWN_TABLES].sort());
    expect(tables(template.db)).toContain('session_message');
  });

  it('the control: the 1.x store as OpenCode built it is offered (sessions, logs, cache)', async () => {
    t = makeTempEnv();
    buildStore(t, template);
    const inv = await scan();
    expect(inv.sessions.filter((s) => s.selectable).length).toBeGreaterThan(0);
    expect(inv.items.find((i) => i.id === 'logs:opencode')?.selectable).toBe(true);
    expect(inv.warnings.some((w) => w.reason.startsWith(NEWER_SCHEMA_REASON))).toBe(false);
  });

  it(
    'with session_v2 beside the 1.x tables: one line, everything read-only, the planner and the routes refuse, the store unchanged',
    async () => {
      t = makeTempEnv();
      const m = buildStore(t, template);
      const db = t.env.OPENCODE_DB!;
      addV2Tables(db);
      const line = newerSchemaReason(['session_v2']);
      expect(line).toBe('This OpenCode database has a newer schema: read-only (tables cleanerx does not know: session_v2).');
      const before = storePicture();

      const inv = await scan();
      // The 1.x sessions are still listed, each read-only with the one line.
      expect(inv.sessions).toHaveLength(m.sessions.length);
      for (const s of inv.sessions) expect({ id: s.id, selectable: s.selectable, why: s.blockedReason }).toEqual({ id: s.id, selectable: false, why: line });
      // One warning for the database, one line.
      const said = inv.warnings.filter((w) => w.reason.startsWith(NEWER_SCHEMA_REASON));
      expect(said).toEqual([{ path: db, reason: line }]);
      expect(line).not.toMatch(/\n/);
      // No file mutation either: what logs and cache mean to a newer OpenCode is not known.
      for (const id of ['logs:opencode', 'cache:opencode'])
        expect(
          inv.items.find((i) => i.id === id),
          id,
        ).toMatchObject({ selectable: false, blockedReason: line });
      expect(inv.items.filter((i) => i.selectable)).toEqual([]);

      // Through the engine with the real opencode installed: the plan has blockers and does not run.
      const engine = new Engine(ADAPTERS, ctx());
      try {
        const summary = await engine.scan('opencode');
        expect(summary.installation.state).toBe('installed');
        const root = m.sessions.find((s) => s.kind === 'root')!.id;
        const plan = await engine.plan(summary.snapshotId, [sessionItemId(root), 'logs:opencode', 'cache:opencode']);
        const blockers = [...plan.blockers, ...plan.operations.flatMap((o) => o.blockers)];
        expect(blockers.length).toBeGreaterThanOrEqual(3);
        for (const b of blockers) expect(b).toContain(line);
        await expect(engine.execute(plan.id)).rejects.toThrow(/The plan has blockers: .*newer schema: read-only/);
      } finally {
        await engine.close();
      }

      // The official routes refuse on their own, too (a stale plan or another caller).
      const route = opencodeAdapter.sessionRoute!;
      const root = m.sessions.find((s) => s.kind === 'root')!.id;
      await expect(route.deleteSessions(installation(t), ctx(), [root])).rejects.toThrow(line);
      const staging = join(t.root, 'staging');
      mkdirSync(staging, { mode: 0o700 });
      await expect(route.exportSessions!(installation(t), ctx(), [root], staging)).rejects.toThrow(line);
      // A restore would import 1.x exports into a 2.x database: refused as well.
      const entry = {
        id: 'ses_' + 'a'.repeat(26),
        file: join(staging, 'x.json'),
        directory: t.root,
        parentId: null,
        title: 'x',
        bytes: 2,
        sha256: '0'.repeat(64),
      };
      await expect(route.importSessions!(installation(t), ctx(), [entry])).rejects.toThrow(line);

      expect(treeDiff(before, storePicture())).toEqual([]);
      expect(tables(db)).toContain('session_v2');
    },
    budget(180_000),
  );
});
