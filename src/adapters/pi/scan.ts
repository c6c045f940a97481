// Inventory of a pi agent directory: sessions/--<cwd>--/*.jsonl, the model
// catalog cache, and the protected configuration listed by name only.
//
// Every file pi's own lister shows is a row. What cleanerx must not touch
// stays visible as a read-only row with its reason: a symbolic link (a bucket
// or a session file; pi 1.x follows both, 0.73 only file links) is described
// from lstat and readlink alone, never followed, never removed; a second file
// with an id already held is shown from its own contents, never removed.
// The session files are read in scan-sessions.ts (first pass: heads and
// tails into records, rows as they come) and settled in scan-settle.ts
// (repeated ids, projects, parents, link rows).

import { join } from 'node:path';
import type { HostContext } from '../../engine/core/adapter.js';
import { allocatedBytes, canonicalPath, listDirSorted, lstatOrNull, lstatSyncOrNull } from '../../engine/host/fsx.js';
import { WalkRecorder, walkOwned } from '../../engine/inventory/revision.js';
import type { Installation, Inventory, Item, ScanProgress, ScanWarning } from '../../engine/core/model.js';
import { cleanText } from '../../engine/core/text.js';
import { checkHome } from '../shared/home.js';
import { scanPiWriters } from './writers.js';
import { attachCheckpoints } from './forward-layouts.js';
import { readSessionFiles, type Bucket, type LinkEntry } from './scan-sessions.js';
import { addLinkRows, labelProjects, linkParents, settleReads } from './scan-settle.js';

// The descriptor's preview of a link row loads it from here (the scan's module).
export { PI_LINK_REASON } from './scan-settle.js';

export const PI_PROTECTED = [
  'auth.json',
  'settings.json',
  'models.json',
  'trust.json',
  'mcp.json',
  'keybindings.json',
  'managed-install.json',
  'oauth.json.migrated',
  'AGENTS.md',
  'AGENTS.override.md',
  'CLAUDE.md',
  'SYSTEM.md',
  'APPEND_SYSTEM.md',
  'prompts',
  'skills',
  'extensions',
  'themes',
  'git',
  'npm',
];

export async function scanPi(inst: Installation, ctx: HostContext, onProgress: (p: ScanProgress) => void): Promise<Inventory> {
  const home = inst.home;
  const warnings: ScanWarning[] = [];
  const inv: Inventory = { sessions: [], items: [], projects: [], warnings, writers: [] };
  const check = checkHome(home, 'The pi agent directory', warnings);
  if (!check.ok) return inv;
  const homeReadOnly = check.readOnly;

  const seen = await scanPiWriters(ctx, home);
  inv.writers = seen.writers;
  const running = seen.reason;
  const blockAll = homeReadOnly ?? running;

  // What this scan stat'ed and listed, handed to the attribution walk: it need not lstat every session file again.
  const log = new WalkRecorder();
  inv.walkLog = log;
  const links: LinkEntry[] = [];
  const buckets = listBuckets(home, links, warnings);
  // Records are built as files are read (the partial inventory shows them while
  // the scan runs); the duplicate and parent rules need every file, so they run
  // after the first pass, over its reads, in the same order as before.
  const reads = await readSessionFiles({ ctx, buckets, links, warnings, log, blockAll, writers: inv.writers, onProgress });
  const settled = settleReads(reads, buckets, warnings);
  linkParents(home, reads, settled);
  const linkedProjects = addLinkRows(links, buckets, reads, settled, warnings);
  labelProjects(settled.projects);
  const sessions = settled.byId.sessions;
  inv.sessions = sessions;
  inv.projects = [...[...settled.projects.values()].map(({ id, label, roots }) => ({ id, label, roots })), ...linkedProjects];
  inv.items = await otherItems(home, blockAll, warnings);
  inv.items.push(...attachCheckpoints(home, sessions, ctx.uid));
  inv.items.push(...(await pathItems(home, blockAll)), ...straySessionFiles(home));
  return inv;
}

/** Logs, crash reports and regenerable binaries pi writes by itself: removable while pi is stopped. */
const PI_PATH_ITEMS = [
  {
    id: 'log:pi',
    category: 'log',
    label: 'pi debug and crash logs',
    subtitle: '/debug output (pi-debug.log) and the last crashes (crashes.json)',
    names: ['pi-debug.log', 'crashes.json'],
  },
  { id: 'cache:pi-bin', category: 'cache', label: 'pi managed binaries', subtitle: 'fd and rg, fetched again when pi needs them (bin/)', names: ['bin'] },
  { id: 'temporary:pi', category: 'temporary', label: 'pi temporary files', subtitle: 'Extension temp files (tmp/)', names: ['tmp'] },
] as const;

async function pathItems(home: string, blockAll: string | undefined): Promise<Item[]> {
  const items: Item[] = [];
  for (const d of PI_PATH_ITEMS) {
    const paths: string[] = [];
    for (const n of d.names) {
      const st = await lstatOrNull(join(home, n));
      // A link is left to the not-recognized rows (never followed, never removed).
      if (st && !st.isSymbolicLink() && (st.isFile() || st.isDirectory())) paths.push(join(home, n));
    }
    if (!paths.length) continue;
    // No revision recorded here: the engine walks the item with the user's uid, and one not theirs is made read-only.
    const tree = walkOwned(paths, { uid: -1 });
    const blocked = blockAll;
    items.push({
      id: d.id,
      category: d.category,
      label: d.label,
      subtitle: d.subtitle,
      paths,
      bytes: tree.bytes,
      modifiedAt: tree.newestMtime || undefined,
      risk: 'safe',
      recoverable: false,
      selectable: !blocked,
      blockedReason: blocked,
      metadata: { requiresAgentExit: true, regenerable: true },
    });
  }
  // Legacy: fd/rg moved to bin/, custom tools became extensions; what is left may be the user's own.
  const tools = await lstatOrNull(join(home, 'tools'));
  if (tools?.isDirectory()) {
    const p = join(home, 'tools');
    items.push({
      id: 'legacy:pi:tools',
      category: 'protected',
      label: 'tools',
      subtitle: 'Legacy pi tools folder; may hold your own tools, reported only',
      paths: [p],
      bytes: walkOwned([p], { uid: -1, maxEntries: 200_000 }).bytes,
      modifiedAt: tools.mtimeMs,
      risk: 'protected',
      recoverable: false,
      selectable: false,
      blockedReason: 'Reported only: a legacy folder that may hold your own tools.',
      metadata: { protected: false },
    });
  }
  return items;
}

/**
 * Session files pi does not list where they are: legacy files in the agent
 * folder (pi before 0.30; pi moves them into their bucket on its next start)
 * and files directly in sessions/ (pi ignores them). Shown read-only, sized by
 * lstat, never opened.
 */
function straySessionFiles(home: string): Item[] {
  const items: Item[] = [];
  const add = (dir: string, reason: string): void => {
    for (const e of listDirSorted(dir)) {
      if (!e.name.endsWith('.jsonl') || !e.isFile()) continue;
      const p = join(dir, e.name);
      const st = lstatSyncOrNull(p);
      if (!st) continue;
      // The row says why (as a link's row does): no warning besides.
      items.push({
        id: `stray:pi:${p}`,
        category: 'session',
        label: `${cleanText(e.name, 200)} (not listed by pi)`,
        subtitle: reason,
        paths: [p],
        bytes: allocatedBytes(st),
        modifiedAt: st.mtimeMs,
        risk: 'protected',
        recoverable: false,
        selectable: false,
        blockedReason: `Read-only: ${reason}`,
        metadata: {},
      });
    }
  };
  add(home, 'a session file from pi before 0.30 in the agent folder; pi moves it into its project bucket on its next start.');
  add(join(home, 'sessions'), 'a session file directly in sessions/, outside any project bucket; pi does not list it.');
  return items;
}

function listBuckets(home: string, links: LinkEntry[], warnings: ScanWarning[]): Bucket[] {
  const root = join(home, 'sessions');
  const out: Bucket[] = [];
  const unreadable = (code: string): void =>
    void warnings.push({ path: root, reason: `Could not read pi's sessions directory (${code}): no session is listed; check its permissions.` });
  for (const b of listDirSorted(root, unreadable)) {
    const dir = join(root, b.name);
    if (b.isSymbolicLink()) {
      links.push({ path: dir, bucket: -1 });
      continue;
    }
    if (!b.isDirectory()) continue; // pi itself ignores files directly in sessions/
    out.push({ dir, key: canonicalPath(dir) });
  }
  return out;
}

async function otherItems(home: string, blockAll: string | undefined, warnings: ScanWarning[]): Promise<Item[]> {
  const items: Item[] = [];
  const cachePath = join(home, 'models-store.json');
  const cache = await lstatOrNull(cachePath);
  if (cache?.isSymbolicLink()) {
    warnings.push({ path: cachePath, reason: 'Skipped pi model catalog cache that is a symbolic link.' });
  } else if (cache?.isFile()) {
    items.push({
      id: 'cache:pi-models-store',
      category: 'cache',
      label: 'pi model catalog cache',
      subtitle: 'Regenerable remote provider catalogs cached for offline use',
      paths: [cachePath],
      bytes: allocatedBytes(cache),
      modifiedAt: cache.mtimeMs,
      risk: 'safe',
      recoverable: false,
      selectable: !blockAll,
      blockedReason: blockAll,
      metadata: { requiresAgentExit: true },
    });
  }
  for (const name of PI_PROTECTED) {
    const p = join(home, name);
    const st = await lstatOrNull(p);
    if (!st) continue;
    const link = st.isSymbolicLink();
    if (link) warnings.push({ path: p, reason: 'Protected pi entry is a symbolic link; not followed.' });
    const size = link ? 0 : st.isDirectory() ? walkOwned([p], { uid: -1, maxEntries: 200_000 }).bytes : allocatedBytes(st);
    items.push({
      id: `protected:pi:${name}`,
      category: 'protected',
      label: name,
      subtitle: 'Protected pi configuration; never opened or removed',
      paths: [p],
      bytes: size,
      modifiedAt: st.mtimeMs,
      risk: 'protected',
      recoverable: false,
      selectable: false,
      blockedReason: 'Protected: credentials, configuration and rules are never cleaned.',
      metadata: { protected: true },
    });
  }
  return items;
}
