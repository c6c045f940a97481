// OpenCode's reclaim items beside the sessions: the snapshot repositories
// (removal, leaked temporaries, git gc) and the database compaction. The
// inventory half adds them to a finished scan; the route half applies the
// two official ones (git gc, compaction). Repository and leaked-file
// removal go through the engine's path transaction like logs and cache.

import type { HostContext } from '../../engine/core/adapter.js';
import { runningReason, type Installation, type Inventory, type Item } from '../../engine/core/model.js';
import { UNSAFE_REASON } from '../../engine/inventory/revision.js';
import { ReadOnlyItems } from '../shared/read-only-entry.js';
import { applyCompact, COMPACT_ITEM_ID, COMPACT_RUNNING_REASON, compactItem } from './compact-item.js';
import { chooseDatabase } from './paths.js';
import { findSystemGit, gcPromise, gcSnapshotRepo } from './snapshots-gc.js';
import { parseGcItemId, SNAPSHOT_DIR, SNAPSHOTS_RUNNING_REASON, type SnapshotRepo, scanSnapshotRepos, snapshotItems } from './snapshots.js';

const KNOWN_SNAPSHOT_ID = 'protected:opencode:snapshot';

/** Adds the snapshot and compaction items to a scan of `inst` (read-only: nothing is written). */
export async function addReclaimItems(inst: Installation, ctx: HostContext, inv: Inventory): Promise<Inventory> {
  const running = inv.writers.length > 0;
  // The scan's own block of its logs (read-only home, a newer schema) holds for these too.
  const logBlock = inv.items.find((i) => i.id === 'logs:opencode')?.blockedReason;
  const homeBlock = running || !logBlock || logBlock.startsWith(UNSAFE_REASON) ? undefined : logBlock;
  const snaps = await scanSnapshotRepos(inst.home, ctx, inv.warnings);
  // Nothing recognized (no repository OpenCode made): snapshot/ stays the one read-only entry the scan lists.
  if (snaps?.repos.length) {
    const worktrees = inv.projects.flatMap((g) => g.roots);
    const items = snapshotItems(
      snaps,
      inv,
      running ? runningReason(SNAPSHOTS_RUNNING_REASON, inv.writers) : homeBlock,
      findSystemGit(ctx.env) !== null,
      worktrees,
    );
    const strays = new ReadOnlyItems('OpenCode', inv.warnings);
    for (const s of snaps.strays) {
      strays.add({
        id: `protected:opencode:snapshot:${s.path.slice(inst.home.length + SNAPSHOT_DIR.length + 2)}`,
        label: s.path.slice(inst.home.length + 1),
        path: s.path,
        subtitle: 'In OpenCode snapshot/ but not a repository cleanerx recognizes',
        blockedReason: s.reason,
        metadata: { protected: false },
      });
    }
    await promiseGcBytes(inst, ctx, items, snaps.repos);
    inv.items = [...inv.items.filter((i) => i.id !== KNOWN_SNAPSHOT_ID), ...items, ...strays.items];
  }
  const db = chooseDatabase(inst, ctx).db;
  const c = compactItem(db, ctx, running ? runningReason(COMPACT_RUNNING_REASON, inv.writers) : homeBlock);
  if (c.item) inv.items.push(c.item);
  else if (c.warning && db) inv.warnings.push({ path: db, reason: `Database space not read: ${c.warning}` });
  return inv;
}

/**
 * A gc item promises what gc frees, not the loose objects it packs: object
 * storage less what refs, the index and the pinned snapshots keep (read-only
 * git, gcPromise). The repository is measured before and after the run
 * (metadata.measureTree), so the result compares like with like.
 */
async function promiseGcBytes(inst: Installation, ctx: HostContext, items: Item[], repos: readonly SnapshotRepo[]): Promise<void> {
  for (const item of items) {
    const where = parseGcItemId(item.id);
    const repo = where && repos.find((r) => r.projectId === where.projectId && r.hash === where.hash);
    if (!repo) continue;
    item.metadata = { ...item.metadata, measureTree: repo.path };
    if (!item.selectable) continue;
    const p = await gcPromise(inst, ctx, repo.path, repo.projectId);
    if (!p) continue;
    item.bytes = p.bytes;
    item.metadata = { ...item.metadata, gcObjectBytes: p.objectBytes, gcKeptBytes: p.keptBytes };
  }
}

/** The item route: git gc per snapshot item, then the database compaction. */
export async function applyOpencodeItems(
  inst: Installation,
  ctx: HostContext,
  itemIds: readonly string[],
  opts: { timeoutMs?: number; onProgress?: (itemId: string, written: number) => void } = {},
): Promise<{ applied: string[]; failed: { id: string; reason: string }[] }> {
  const applied: string[] = [];
  const failed: { id: string; reason: string }[] = [];
  for (const id of itemIds) {
    if (id !== COMPACT_ITEM_ID && !parseGcItemId(id)) throw new Error(`${id} is not an OpenCode item cleanerx applies itself; rescan and review again.`);
  }
  for (const id of itemIds.filter((i) => i !== COMPACT_ITEM_ID)) {
    const r = await gcSnapshotRepo(inst, ctx, id, opts.timeoutMs, opts.onProgress && ((n) => opts.onProgress!(id, n)));
    if (r.ok) applied.push(id);
    else {
      failed.push({ id, reason: r.reason ?? 'git gc did not finish.' });
      return { applied, failed };
    }
  }
  if (itemIds.includes(COMPACT_ITEM_ID)) {
    const reason = await applyCompact(inst, ctx);
    if (reason) failed.push({ id: COMPACT_ITEM_ID, reason });
    else applied.push(COMPACT_ITEM_ID);
  }
  return { applied, failed };
}
