// Claude Code's plugin cache, plugins/cache/<marketplace>/<plugin>/<version>/:
// every version ever installed stays there, and Claude never prunes a
// superseded one (reports of 4.77 GB in 11 copies); folders of interrupted
// installs (temp_git_*) and folders Claude itself marked .orphaned_at are
// not reaped either. plugins/installed_plugins.json names what is installed
// (version 2: {"plugins": {"<plugin>@<marketplace>": [{"installPath": …}]}}):
// any version folder it does not name is regenerable — Claude downloads a
// version again to install it. The installed ones, and everything else under
// plugins/, stay protected. An unreadable or unknown installed_plugins.json
// offers nothing: a failed read is never evidence that a version is unused.

import { join, resolve } from 'node:path';
import type { HostContext } from '../../engine/core/adapter.js';
import { parseBoundedJson } from '../../engine/core/bounded-json.js';
import type { Item } from '../../engine/core/model.js';
import { listDirSorted, lstatSyncOrNull } from '../../engine/host/fsx.js';
import { walkOwned } from '../../engine/inventory/revision.js';
import { readRegularText } from '../../engine/host/bounded-read.js';

export const PLUGIN_VERSIONS_ITEM = 'claude-plugin-versions';
export const PLUGIN_TEMP_ITEM = 'claude-plugin-temp';
/** A temp_git_* folder younger than this may be an install that runs now. */
const FRESH_MS = 60 * 60 * 1000;
const MAX_INDEX_BYTES = 4 * 1024 * 1024;

/** Every installPath installed_plugins.json names, resolved; null when it cannot be read or is not a format known here. */
function installedPaths(home: string): Set<string> | null {
  const file = join(home, 'plugins', 'installed_plugins.json');
  let v: unknown;
  try {
    v = parseBoundedJson(readRegularText(file, MAX_INDEX_BYTES));
  } catch {
    return null;
  }
  const doc = v as { version?: unknown; plugins?: unknown };
  if (doc?.version !== 2 || typeof doc.plugins !== 'object' || doc.plugins === null) return null;
  const out = new Set<string>();
  for (const entries of Object.values(doc.plugins as Record<string, unknown>)) {
    if (!Array.isArray(entries)) return null;
    for (const e of entries as { installPath?: unknown }[]) {
      if (typeof e?.installPath !== 'string') return null;
      out.add(resolve(e.installPath));
    }
  }
  return out;
}

const plainDir = (p: string): boolean => {
  const st = lstatSyncOrNull(p);
  return Boolean(st?.isDirectory() && !st.isSymbolicLink());
};

/**
 * The pinned Claude Code keeps one marker per running process that loaded a
 * version in its `.in_use/` folder (removed when that process exits): such a
 * version is in use even though installed_plugins.json names a newer one. A
 * folder that cannot be read counts as in use.
 */
function inUse(vdir: string): boolean {
  const dir = join(vdir, '.in_use');
  const st = lstatSyncOrNull(dir);
  if (!st) return false;
  if (!st.isDirectory() || st.isSymbolicLink()) return true;
  let unreadable = false;
  return listDirSorted(dir, () => (unreadable = true)).length > 0 || unreadable;
}

interface PluginCacheScan {
  items: Item[];
  /** The offered paths (the caller keeps the rest of plugins/ protected). */
  offered: string[];
}

export function pluginCacheItems(home: string, ctx: HostContext, block: string | undefined): PluginCacheScan {
  const cache = join(home, 'plugins', 'cache');
  const installed = plainDir(cache) ? installedPaths(home) : null;
  if (!installed) return { items: [], offered: [] };
  const versions: string[] = [];
  const temp: string[] = [];
  const now = ctx.now();
  // Interrupted installs leave temp_git_* beside the marketplaces, or in plugins/ itself.
  for (const dir of [join(home, 'plugins'), cache])
    for (const e of listDirSorted(dir)) {
      const st = e.name.startsWith('temp_git_') ? lstatSyncOrNull(join(dir, e.name)) : null;
      if (st && !st.isSymbolicLink() && now - st.mtimeMs > FRESH_MS) temp.push(join(dir, e.name));
    }
  for (const m of listDirSorted(cache)) {
    const mdir = join(cache, m.name);
    if (m.name.startsWith('temp_git_') || !plainDir(mdir)) continue;
    for (const p of listDirSorted(mdir)) {
      const pdir = join(mdir, p.name);
      if (!plainDir(pdir)) continue;
      for (const v of listDirSorted(pdir)) {
        const vdir = join(pdir, v.name);
        if (!plainDir(vdir) || installed.has(resolve(vdir)) || inUse(vdir)) continue;
        // Claude's own mark, or simply a version nothing installs: both are regenerable.
        versions.push(vdir);
      }
    }
  }
  const items: Item[] = [];
  const make = (id: string, label: string, subtitle: string, paths: string[]): void => {
    if (!paths.length) return;
    const tree = walkOwned(paths, { uid: ctx.uid });
    const blocked = block ?? tree.unsafe;
    items.push({
      id,
      category: 'cache',
      label,
      subtitle,
      paths,
      bytes: tree.bytes,
      modifiedAt: tree.newestMtime || undefined,
      risk: 'safe',
      recoverable: false,
      selectable: !blocked,
      blockedReason: blocked,
      metadata: {
        requiresAgentExit: true,
        regenerable: true,
        files: tree.files,
        agentLoses: 'nothing: Claude Code downloads a version again to install it',
        ...(tree.revision ? { sourceRevision: tree.revision } : {}),
      },
    });
  };
  make(
    PLUGIN_VERSIONS_ITEM,
    'Claude plugin versions not installed',
    `${versions.length} version folder${versions.length === 1 ? '' : 's'} in plugins/cache that installed_plugins.json no longer names (superseded or marked .orphaned_at); the installed versions stay`,
    versions,
  );
  make(
    PLUGIN_TEMP_ITEM,
    'Claude plugin install leftovers',
    `${temp.length} temp_git_* folder${temp.length === 1 ? '' : 's'} of interrupted plugin installs, older than an hour`,
    temp,
  );
  return { items, offered: [...versions, ...temp] };
}
