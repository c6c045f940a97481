// The Compact item for opencode.db: OpenCode's own session delete frees
// pages inside the file (auto_vacuum=NONE) and never gives them back to the
// disk. Offered once there are free pages, only while no OpenCode process
// (cleanerx's private server included) has the database open; applied by
// compactDatabase (VACUUM INTO a sibling, proven equal, renamed in).

import type { HostContext } from '../../engine/core/adapter.js';
import { formatBytes, formatCount } from '../../engine/core/format.js';
import { describeWriters, type Installation, type Item } from '../../engine/core/model.js';
import { readDbSpace } from '../../engine/host/db-space.js';
import { ownDirs } from '../../engine/host/own-dirs.js';
import { chooseDatabase } from './paths.js';
import { findOpencodeWriters } from './writers.js';

export const COMPACT_ITEM_ID = 'compact:opencode-db';
export const COMPACT_RUNNING_REASON = 'OpenCode is running; quit it before compacting its database.';
/** How long the route waits for an OpenCode it just stopped (the delete route's private server) to let go of the file. */
const SETTLE_MS = 5000;

/** The item, or null when the database has no free pages (or cannot be read: readDbSpace says why in the warning). */
export function compactItem(db: string | null, ctx: HostContext, block: string | undefined): { item: Item | null; warning?: string } {
  if (!db) return { item: null };
  const space = readDbSpace(db, ctx.uid);
  if (space.state !== 'ok') return { item: null, warning: space.reason };
  const free = space.freePages ?? 0;
  if (free <= 0 || !space.pageSize) return { item: null };
  const reclaimable = space.reclaimableBytes ?? free * space.pageSize;
  return {
    item: {
      id: COMPACT_ITEM_ID,
      category: 'temporary',
      label: 'Compact the OpenCode database',
      subtitle: `${formatCount(free)} free pages (${formatBytes(reclaimable)}) that deleted sessions left inside opencode.db · file ${formatBytes(space.fileBytes)}, WAL ${formatBytes(space.walBytes)}; copied, proven equal, then swapped in: nothing is lost`,
      paths: [],
      bytes: reclaimable + space.walBytes,
      risk: 'safe',
      recoverable: false,
      selectable: !block,
      blockedReason: block,
      metadata: {
        route: 'official',
        officialKind: 'compact',
        requiresAgentExit: true,
        databasePath: db,
        fileBytes: space.fileBytes,
        walBytes: space.walBytes,
        freePages: free,
        pageSize: space.pageSize,
        reclaimableBytes: reclaimable,
        ...(space.autoVacuum ? { autoVacuum: space.autoVacuum } : {}),
        agentLoses: 'nothing',
      },
    },
  };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Compacts the database the scan chose. Returns a reason when it did not (nothing changed then). */
export async function applyCompact(inst: Installation, ctx: HostContext): Promise<string | undefined> {
  const db = chooseDatabase(inst, ctx).db;
  if (!db) return 'The OpenCode database is gone or no longer unambiguous; rescan and review again.';
  // The delete route stops its private server before it returns; give that process time to exit.
  let writers = await findOpencodeWriters(ctx, db, inst.home);
  for (const until = Date.now() + SETTLE_MS; writers.length && Date.now() < until; ) {
    await sleep(200);
    writers = await findOpencodeWriters(ctx, db, inst.home);
  }
  if (writers.length) return `Quit OpenCode before compacting its database (running: ${describeWriters(writers)}).`;
  // The compaction (its journal, proof and worker: ~40 ms of module loading) loads only here, never for a scan.
  const { CompactRefused, compactDatabase } = await import('../../engine/cleanup/compact.js');
  try {
    await compactDatabase({ stateDir: ownDirs(ctx.env).state, dbPath: db, agentStopped: true, procRoot: ctx.procRoot });
    return undefined;
  } catch (e) {
    if (e instanceof CompactRefused) return e.message;
    return `${(e as Error).message}`;
  }
}
