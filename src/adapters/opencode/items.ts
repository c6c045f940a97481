// OpenCode's non-session items: the log directory, the regenerable cache
// root, and protected or unrecognized entries listed by name only (never
// opened, never selectable).

import { basename, join } from 'node:path';
import type { HostContext } from '../../engine/core/adapter.js';
import { canonicalPath, listDirSorted, lstatSyncOrNull } from '../../engine/host/fsx.js';
import type { Item, ScanWarning } from '../../engine/core/model.js';
import { walkOwned } from '../../engine/inventory/revision.js';
import { ReadOnlyItems } from '../shared/read-only-entry.js';
import { CHANNEL_DB, DB_NAME } from './paths.js';

/** Credentials, configuration and source-managed data in the data dir. */
export const OPENCODE_PROTECTED = [
  'auth.json',
  'mcp-auth.json',
  'opencode.json',
  'opencode.jsonc',
  'config.json',
  'storage',
  'project',
  'worktree',
  'repos',
  'plans',
  'plugin',
  'plugins',
  'skill',
  'skills',
  'command',
  'commands',
  'agent',
  'agents',
  'rules',
];

/** Written by OpenCode, reported with their size, not cleaned by cleanerx. */
const KNOWN_OTHER: Record<string, string> = {
  snapshot: 'File snapshots per project and worktree (not per session); reported only',
  'tool-output': 'Truncated tool output that OpenCode prunes itself after 7 days; reported only',
  bin: 'Programs OpenCode downloaded; reported only',
};

export const RUNNING_REASON = 'OpenCode is running; quit it before removing its logs or cache.';

function isDbFile(name: string): boolean {
  const base = name.replace(/-(wal|shm|journal)$/, '');
  return base === DB_NAME || CHANNEL_DB.test(base);
}

function within(child: string, parent: string): boolean {
  return child === parent || child.startsWith(parent.endsWith('/') ? parent : `${parent}/`);
}

/** `block`: why the logs are not offered now (OpenCode running, a read-only home, a newer schema). */
export function logItem(home: string, block: string | undefined, ctx: HostContext, warnings: ScanWarning[]): Item | null {
  const dir = join(home, 'log');
  const st = lstatSyncOrNull(dir);
  if (!st) return null;
  if (st.isSymbolicLink() || !st.isDirectory()) {
    warnings.push({ path: dir, reason: 'OpenCode log/ is not a plain directory (a symbolic link or a file); it is not offered for cleanup.' });
    return null;
  }
  const tree = walkOwned([dir], { uid: ctx.uid });
  const blocked = block ?? tree.unsafe;
  return {
    id: 'logs:opencode',
    category: 'log',
    label: 'OpenCode logs',
    subtitle: 'log/ — can contain prompts, file paths and tool output',
    paths: [dir],
    bytes: tree.bytes,
    modifiedAt: tree.newestMtime || undefined,
    risk: 'review',
    recoverable: false,
    selectable: !blocked,
    blockedReason: blocked,
    metadata: { requiresAgentExit: true, files: tree.files, ...(tree.revision ? { sourceRevision: tree.revision } : {}) },
  };
}

/** The cache root: its own root; refused when it overlaps the data dir or the database. */
export function cacheItem(
  cacheRoot: string,
  home: string,
  db: string | null,
  block: string | undefined,
  ctx: HostContext,
  warnings: ScanWarning[],
): Item | null {
  const st = lstatSyncOrNull(cacheRoot);
  if (!st) return null;
  if (st.isSymbolicLink() || !st.isDirectory()) {
    warnings.push({ path: cacheRoot, reason: 'The OpenCode cache root is not a plain directory (a symbolic link or a file); it is not offered for cleanup.' });
    return null;
  }
  const c = canonicalPath(cacheRoot);
  const h = canonicalPath(home);
  if (within(c, h) || within(h, c) || (db && within(canonicalPath(db), c))) {
    warnings.push({ path: cacheRoot, reason: 'The OpenCode cache root overlaps its data directory; it is not offered for cleanup.' });
    return null;
  }
  // The root itself is an allowed root, never a target: the item is its entries, and the root stays with its mode.
  const entries = listDirSorted(cacheRoot).map((e) => join(cacheRoot, e.name));
  if (!entries.length) return null;
  const tree = walkOwned(entries, { uid: ctx.uid });
  const blocked = block ?? tree.unsafe;
  return {
    id: 'cache:opencode',
    category: 'cache',
    label: 'OpenCode cache',
    subtitle: 'Regenerable: downloaded tools, provider packages, model lists',
    paths: entries,
    bytes: tree.bytes,
    modifiedAt: tree.newestMtime || undefined,
    risk: 'safe',
    recoverable: false,
    selectable: !blocked,
    blockedReason: blocked,
    metadata: { requiresAgentExit: true, regenerable: true, files: tree.files, ...(tree.revision ? { sourceRevision: tree.revision } : {}) },
  };
}

/** Protected entries, the database files, the config dir, and everything not recognized: read-only. */
export function readOnlyItems(
  home: string,
  db: string | null,
  otherDbs: string[],
  configDir: string,
  warnings: ScanWarning[],
  carved: ReadonlyMap<string, string[]> = new Map(),
): Item[] {
  const out = new ReadOnlyItems('OpenCode', warnings);
  const add = (id: string, label: string, p: string, kind: 'protected' | 'database' | 'known' | 'unknown', subtitle?: string): void => {
    const kept = carved.get(basename(p));
    const entry = {
      id,
      label,
      path: p,
      subtitle:
        subtitle ??
        (kind === 'protected'
          ? 'Protected OpenCode data; never opened or removed'
          : kind === 'database'
            ? 'OpenCode database file; sessions are removed only through OpenCode itself'
            : kind === 'known'
              ? 'OpenCode data that cleanerx reports but does not clean'
              : 'Not a recognized OpenCode path; cleanerx never guesses'),
      blockedReason:
        kind === 'protected'
          ? 'Protected: credentials, configuration and rules are never cleaned.'
          : kind === 'database'
            ? 'Protected: the database is never edited or deleted as a file.'
            : kind === 'known'
              ? 'Reported only.'
              : 'Unrecognized entry: read-only.',
      metadata: { protected: kind === 'protected' || kind === 'database', ...(kind === 'database' && p === db ? { structurePreview: true } : {}) },
    };
    // An entry a leftovers item was carved from lists only what stays in it (leftovers.ts).
    if (kept && p === join(home, basename(p))) out.addKept(entry, kept);
    else out.add(entry);
  };
  for (const name of OPENCODE_PROTECTED) add(`protected:opencode:${name}`, name, join(home, name), 'protected');
  for (const f of [db, ...otherDbs]) {
    if (!f) continue;
    for (const side of ['', '-wal', '-shm']) add(`protected:opencode:db:${basename(f)}${side}`, basename(f) + side, f + side, 'database');
  }
  add('protected:opencode:config', 'OpenCode configuration', configDir, 'protected', 'Configuration, plugins, agents and commands in the config directory');
  for (const d of listDirSorted(home)) {
    if (OPENCODE_PROTECTED.includes(d.name) || d.name === 'log') continue;
    const p = join(home, d.name);
    if (isDbFile(d.name)) add(`protected:opencode:db:${d.name}`, d.name, p, 'database');
    else if (KNOWN_OTHER[d.name]) add(`protected:opencode:${d.name}`, d.name, p, 'known', KNOWN_OTHER[d.name]);
    else add(`protected:opencode:other:${d.name}`, d.name, p, 'unknown');
  }
  return out.items;
}
