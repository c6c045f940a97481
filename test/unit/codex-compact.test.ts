// When the Codex Compact item is offered and when it is blocked, on a logs
// database laid out as codex 0.171 makes it: offered with its space figures
// once free pages and WAL hold 1 MiB, or when old rows are about to be
// deleted; blocked while Codex runs or another process (not one of
// cleanerx's own children) holds the file; absent for a hostile file. The
// route refuses a compaction that would leave the old rows listed, before
// anything changes.

import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { applyCodexItems } from '../../src/adapters/codex/item-route.js';
import { COMPACT_ITEM, COMPACT_MIN_BYTES, compactItem, oldLogRows, readOnlyItems } from '../../src/adapters/codex/items.js';
import { RouteRefused } from '../../src/adapters/shared/official-delete.js';
import { installation } from '../helpers/codex.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv | undefined;
const pids: number[] = [];
afterEach(() => {
  for (const p of pids.splice(0)) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      // gone
    }
  }
  t?.cleanup();
  t = undefined;
});

const now = Math.floor(Date.now() / 1000);

function logsDb(path: string, rows: number, oldShare: number, deleteShare = 0): void {
  const db = new Database(path);
  db.pragma('auto_vacuum = INCREMENTAL');
  db.pragma('journal_mode = WAL');
  db.exec(
    'CREATE TABLE logs (id INTEGER PRIMARY KEY AUTOINCREMENT, ts INTEGER NOT NULL, ts_nanos INTEGER NOT NULL, level TEXT NOT NULL, target TEXT NOT NULL, feedback_log_body TEXT, estimated_bytes INTEGER NOT NULL DEFAULT 0); CREATE INDEX idx_logs_ts ON logs(ts DESC, ts_nanos DESC, id DESC);',
  );
  const ins = db.prepare("INSERT INTO logs (ts, ts_nanos, level, target, feedback_log_body, estimated_bytes) VALUES (?, 0, 'INFO', 't', ?, ?)");
  db.transaction(() => {
    for (let i = 0; i < rows; i++) {
      const body = 'x'.repeat(1500);
      ins.run(i < rows * oldShare ? now - 9 * 86400 : now - 60, body, body.length);
    }
  })();
  if (deleteShare) db.prepare('DELETE FROM logs WHERE id <= ?').run(Math.round(rows * deleteShare));
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

function setup(): { home: string; db: string } {
  t = makeTempEnv('cleanerx-codex-compact-unit-');
  const home = t.env.CODEX_HOME!;
  mkdirSync(home, { recursive: true });
  return { home, db: join(home, 'logs_2.sqlite') };
}

/** A process that holds the file open and is not cleanerx's child: started by a shell that exits at once. */
function foreignHolder(path: string): number {
  const code = `require('fs').openSync(${JSON.stringify(path)}, 'r'); setInterval(() => {}, 1000);`;
  const r = spawnSync('sh', ['-c', `${JSON.stringify(process.execPath)} -e ${JSON.stringify(code)} >/dev/null 2>&1 & echo $!`], { encoding: 'utf8' });
  const pid = Number(r.stdout.trim());
  pids.push(pid);
  return pid;
}

const held = async (path: string, pid: number): Promise<void> => {
  for (let i = 0; i < 100; i++) {
    try {
      const fds = spawnSync('ls', ['-l', `/proc/${pid}/fd`], { encoding: 'utf8' }).stdout;
      if (fds.includes(path)) return;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the holder never opened the file');
};

describe('the Codex Compact item', () => {
  it('is offered with the database space once free pages hold 1 MiB; not below, without old rows', async () => {
    const { home, db } = setup();
    logsDb(db, 3000, 0, 0.5);
    const ctx = t!.ctx;
    const item = await compactItem(home, oldLogRows(home, Date.now(), []), [], undefined, ctx);
    expect(item?.id).toBe(COMPACT_ITEM);
    expect(item!.selectable).toBe(true);
    expect(item!.bytes).toBeGreaterThanOrEqual(COMPACT_MIN_BYTES);
    expect(item!.metadata.freePages).toBeGreaterThan(0);
    expect(item!.subtitle).toMatch(/logs_2\.sqlite: [\d.]+ [KMG]i?B on disk, WAL 0 B, [\d,]+ free pages \([\d.]+ [KMG]i?B to give back\)/);
    expect(item!.paths).toEqual([]);
    expect(item!.metadata.dbPath).toBe(db);

    const { db: small, home: h2 } = setup();
    logsDb(small, 200, 0, 0.5);
    expect(await compactItem(h2, oldLogRows(h2, Date.now(), []), [], undefined, t!.ctx)).toBeNull();
  });

  it('is offered with old rows listed (their delete makes the free pages), and says to select them too', async () => {
    const { home, db } = setup();
    logsDb(db, 2000, 0.5);
    const rows = oldLogRows(home, Date.now(), [])!;
    expect(rows.rows).toBe(1000);
    const item = (await compactItem(home, rows, [], undefined, t!.ctx))!;
    expect(item.metadata.afterLogRows).toBe(true);
    expect(item.subtitle).toContain('select them too');
    // Half the rows' pages, less what the rows' item counts.
    expect(item.bytes).toBeGreaterThan(0);
  });

  it('is blocked while Codex runs, and while another process holds the file (named with its pid)', async () => {
    const { home, db } = setup();
    logsDb(db, 3000, 0, 0.5);
    const running = (await compactItem(home, null, [{ pid: 4242, name: 'codex' }], undefined, t!.ctx))!;
    expect(running.selectable).toBe(false);
    expect(running.blockedReason).toBe('Codex is running; quit it before compacting its log database.');

    const pid = foreignHolder(db);
    await held(db, pid);
    const ctx = { ...t!.ctx, procRoot: '/proc' };
    const blocked = (await compactItem(home, null, [], undefined, ctx))!;
    expect(blocked.selectable).toBe(false);
    expect(blocked.blockedReason).toContain(`(pid ${pid}) has the Codex log database open`);
  });

  it('a hostile logs database (a link, not a database) is never offered, and the scan does not fail', async () => {
    const { home, db } = setup();
    writeFileSync(join(home, 'elsewhere.sqlite'), 'not a database at all'.repeat(100_000));
    symlinkSync(join(home, 'elsewhere.sqlite'), db);
    expect(await compactItem(home, null, [], undefined, t!.ctx)).toBeNull();
    const { home: h2, db: db2 } = setup();
    writeFileSync(db2, Buffer.alloc(4 * 1024 * 1024, 0x41));
    expect(await compactItem(h2, null, [], undefined, t!.ctx)).toBeNull();
    const entry = readOnlyItems(h2, h2, []).find((i) => i.id === 'protected:db:logs_2.sqlite')!;
    expect(entry.selectable).toBe(false);
    expect(entry.subtitle).toMatch(/logs_2\.sqlite: 4\.2 MB on disk; free pages not read \(The file is not an SQLite database\.\)$/);
  });

  it('the route refuses Compact without the old rows while they are listed, before anything changes', async () => {
    const { home, db } = setup();
    logsDb(db, 2000, 0.5);
    const bytes = readFileSync(db);
    const inst = installation(t!, null);
    await expect(applyCodexItems(inst, t!.ctx, [COMPACT_ITEM])).rejects.toThrow(RouteRefused);
    await expect(applyCodexItems(inst, t!.ctx, [COMPACT_ITEM])).rejects.toThrow('Select the old Codex log rows too');
    expect(readFileSync(db).equals(bytes)).toBe(true);
    expect(home).toBeTruthy();
  });
});
