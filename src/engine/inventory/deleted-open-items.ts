// Deleted-but-open files of an agent's store as read-only rows (the
// engine's own, for every agent alike): what holds the space, and the one
// thing that frees it — the holding process ending.

import { formatBytes } from '../core/format.js';
import { t } from '../i18n/index.js';
import type { Inventory, Item } from '../core/model.js';
import { deletedOpenFiles, deletedOpenLabel } from '../host/deleted-open.js';

/** Adds one row per deleted-but-open file under `roots`; returns the count and bytes for the summary. */
export async function addDeletedOpen(inventory: Inventory, roots: readonly string[], procRoot: string): Promise<{ files: number; bytes: number }> {
  const found = await deletedOpenFiles(roots, procRoot);
  for (const f of found) {
    const first = f.holders[0]!;
    const holders = f.holders.map((h) => t('deleted.holder', { pid: String(h.pid), name: h.name, user: h.user })).join(', ');
    const item: Item = {
      id: `held-deleted:${f.dev}:${f.ino}`,
      category: 'temporary',
      label: deletedOpenLabel(f),
      subtitle: t('deleted.subtitle', { pid: String(first.pid), name: first.name, bytes: formatBytes(f.bytes) }),
      paths: [],
      bytes: f.bytes,
      risk: 'review',
      recoverable: false,
      selectable: false,
      blockedReason: t('deleted.reason', { holders, bytes: formatBytes(f.bytes) }),
      metadata: { deletedPath: f.path, heldBy: f.holders.map((h) => h.pid).join(' '), holderCommand: first.command, agentLoses: 'nothing' },
    };
    inventory.items.push(item);
  }
  return { files: found.length, bytes: found.reduce((n, f) => n + f.bytes, 0) };
}
