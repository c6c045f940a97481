// ItemRoute.applyItems for Codex's official items. `memory:global` goes
// through the App Server's memory/reset (global, irreversible; only while no
// Codex runs). `logs:database` is the one SQLite write cleanerx makes: in the
// recognized logs table, delete the rows older than the retention in one
// IMMEDIATE transaction, then checkpoint the WAL — never VACUUM, never another
// table. `compact:logs` then compacts that database (engine/cleanup/compact.ts:
// WAL checkpoint, VACUUM INTO a sibling, proof, rename), as the original
// CleanerX does after the delete; only while no Codex runs and nothing holds
// the file. Each result is proved by reading the store again.

import Database from 'better-sqlite3';
import { join } from 'node:path';
import type { HostContext, ItemRoute } from '../../engine/core/adapter.js';
import { listDirSorted, lstatSyncOrNull } from '../../engine/host/fsx.js';
import type { Installation } from '../../engine/core/model.js';
import { compactDatabase } from '../../engine/cleanup/compact.js';
import { t } from '../../engine/i18n/index.js';
import { readDbSpace } from '../../engine/host/db-space.js';
import { ownDirs } from '../../engine/host/own-dirs.js';
import { connectCodex } from './connection.js';
import { COMPACT_ITEM, foreignHolders, holdersText, logCutoff, LOGS_ITEM, MEMORY_DIRS, MEMORY_ITEM, MEMORY_RUNNING_REASON, oldLogRows } from './items.js';
import { allDbs, newestDb, sqliteHome } from './paths.js';
import { columnsOf, openSnapshot } from './sqlite-read.js';
import { lastScan } from './scan.js';
import { RouteRefused } from '../shared/official-delete.js';
import { findCodexWriters } from './writers.js';

type ApplyResult = Awaited<ReturnType<ItemRoute['applyItems']>>;

export async function applyCodexItems(
  inst: Installation,
  ctx: HostContext,
  itemIds: readonly string[],
  opts: { timeoutMs?: number } = {},
): Promise<ApplyResult> {
  const ids = [...new Set(itemIds)];
  const unknown = ids.filter((id) => id !== MEMORY_ITEM && id !== LOGS_ITEM && id !== COMPACT_ITEM);
  if (unknown.length) throw new RouteRefused(`Not an official Codex item: ${unknown.slice(0, 3).join(', ')}.`);
  const dbHome = sqliteHome(inst, ctx);
  // Preconditions of every item before anything changes.
  if (ids.includes(MEMORY_ITEM)) {
    if (!inst.executable)
      throw new RouteRefused(
        'The codex executable was not found; memory is reset only through its App Server. Install Codex (npm i -g @openai/codex) and rescan.',
      );
    const w = await findCodexWriters(ctx, inst.home);
    if (w.writers.length) throw new RouteRefused(MEMORY_RUNNING_REASON);
  }
  let logsDb: string | null = null;
  if (ids.includes(LOGS_ITEM) || ids.includes(COMPACT_ITEM)) {
    logsDb = newestDb(dbHome, 'logs');
    if (!logsDb) throw new RouteRefused('The Codex log database is gone; rescan.');
    const seen = lastScan.get(inst.home);
    const st = lstatSyncOrNull(logsDb);
    if (!st?.isFile()) throw new RouteRefused('The Codex log database is not a regular file; nothing was changed.');
    if (seen && (seen.logsDb !== logsDb || (seen.logsIno !== null && seen.logsIno !== st.ino))) {
      throw new RouteRefused('The Codex log database was replaced after the inventory scan; rescan and review again.');
    }
  }
  if (logsDb && ids.includes(COMPACT_ITEM)) {
    // A compaction without the delete that makes its free pages would leave the old rows listed and the item offered again.
    if (!ids.includes(LOGS_ITEM) && (oldLogRows(dbHome, ctx.now(), [])?.rows ?? 0) > 0) throw new RouteRefused(t('compact.withRows'));
    const w = await findCodexWriters(ctx, inst.home);
    if (w.writers.length) throw new RouteRefused(t('compact.running'));
    const held = await foreignHolders(logsDb, ctx.procRoot);
    if (held.length) throw new RouteRefused(t('compact.held', { holders: holdersText(held) }));
  }
  const result: ApplyResult = { applied: [], failed: [] };
  if (logsDb && ids.includes(LOGS_ITEM)) {
    const why = pruneLogs(logsDb, ctx.now());
    if (why) result.failed.push({ id: LOGS_ITEM, reason: why });
    else {
      const left = oldLogRows(dbHome, ctx.now(), []);
      if (left && left.rows > 0) result.failed.push({ id: LOGS_ITEM, reason: `${left.rows} log rows older than the retention are still there.` });
      else result.applied.push(LOGS_ITEM);
    }
  }
  if (logsDb && ids.includes(COMPACT_ITEM)) {
    if (result.failed.length) result.failed.push({ id: COMPACT_ITEM, reason: 'The old log rows were not deleted, so the database was not compacted.' });
    else {
      const why = await compactLogs(logsDb, inst, ctx);
      if (why) result.failed.push({ id: COMPACT_ITEM, reason: why });
      else result.applied.push(COMPACT_ITEM);
    }
  }
  if (ids.includes(MEMORY_ITEM)) {
    const why = await resetMemory(inst, ctx, opts.timeoutMs);
    if (why) result.failed.push({ id: MEMORY_ITEM, reason: why });
    else {
      const left = memoryLeft(inst.home, dbHome);
      if (left) result.failed.push({ id: MEMORY_ITEM, reason: `Codex reported success, but ${left} memory entries remain.` });
      else result.applied.push(MEMORY_ITEM);
    }
  }
  return result;
}

/** The permitted write: old rows out of the recognized logs table, then a WAL checkpoint. */
function pruneLogs(path: string, nowMs: number): string | null {
  let db: Database.Database | null = null;
  try {
    db = new Database(path, { fileMustExist: true, timeout: 5000 });
    const cols = columnsOf(db, 'logs');
    if (!cols.has('ts') || !cols.has('estimated_bytes')) return 'unrecognized logs schema; nothing was changed.';
    const cutoff = logCutoff(nowMs);
    db.exec('BEGIN IMMEDIATE');
    try {
      db.prepare('DELETE FROM logs WHERE ts < ?').run(cutoff);
      db.exec('COMMIT');
    } catch (e) {
      try {
        db.exec('ROLLBACK');
      } catch {
        // already rolled back
      }
      throw e;
    }
    try {
      db.pragma('wal_checkpoint(TRUNCATE)');
    } catch {
      // A busy checkpoint is retried by SQLite later; the rows are gone either way.
    }
    return null;
  } catch (e) {
    return `The Codex log database could not be pruned (${String((e as Error).message).slice(0, 200)}); the transaction was rolled back.`;
  } finally {
    try {
      db?.close();
    } catch {
      // closed
    }
  }
}

/** compactDatabase on the logs database (the agent lock is the executor's); applied means no free page is left. */
async function compactLogs(db: string, inst: Installation, ctx: HostContext): Promise<string | null> {
  const w = await findCodexWriters(ctx, inst.home);
  try {
    await compactDatabase({ stateDir: ownDirs(ctx.env).state, dbPath: db, agentStopped: w.writers.length === 0, procRoot: ctx.procRoot });
  } catch (e) {
    return (e as Error).message;
  }
  const after = readDbSpace(db, ctx.uid);
  if (after.state !== 'ok' || after.freePages !== 0)
    return `The Codex log database still has free pages after the compaction (${after.reason ?? after.freePages}).`;
  return null;
}

async function resetMemory(inst: Installation, ctx: HostContext, timeoutMs?: number): Promise<string | null> {
  let conn;
  try {
    conn = await connectCodex(inst, ctx);
  } catch (e) {
    return `The Codex App Server is unavailable (${(e as Error).message}); memory was not reset.`;
  }
  try {
    if (!conn.caps.memoryReset) return 'This Codex App Server offers no memory/reset; memory was not reset.';
    await conn.client.request('memory/reset', null, timeoutMs ?? 60_000);
    return null;
  } catch (e) {
    return `Codex did not reset memory: ${(e as Error).message}`;
  } finally {
    await conn.close();
  }
}

/** Memory entries left (files in the memory dirs plus stage-1 rows); 0 when empty. */
function memoryLeft(home: string, dbHome: string): number {
  let n = 0;
  for (const d of MEMORY_DIRS) n += listDirSorted(join(home, d)).length;
  for (const db of allDbs(dbHome, /^memories(_v\d+)?_\d{1,6}\.sqlite$/)) {
    const o = openSnapshot(db, db);
    if (!o.ok) continue;
    try {
      if (columnsOf(o.db, 'stage1_outputs').has('thread_id')) n += (o.db.prepare('SELECT count(*) AS n FROM stage1_outputs').get() as { n: number }).n;
    } finally {
      o.close();
    }
  }
  return n;
}
