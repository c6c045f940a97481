// Two kinds of OpenCode leftovers nothing reads any more, carved out of the
// read-only entries that hold them: truncated tool output past the 7 days
// after which OpenCode prunes it itself (tool-output/tool_*), and the
// storage/session_diff/<session id>.json files of sessions the database no
// longer has (OpenCode's own delete leaves them). What is not offered stays
// read-only: the carve-out names those paths, and the entry that held
// everything lists only them.

import { join } from 'node:path';
import type { HostContext } from '../../engine/core/adapter.js';
import type { Item } from '../../engine/core/model.js';
import { fileHolders } from '../../engine/cleanup/compact-holders.js';
import { allocatedBytes, listDirSorted, lstatSyncOrNull } from '../../engine/host/fsx.js';
import { walkOwned } from '../../engine/inventory/revision.js';

/** OpenCode's own retention for truncated tool output. */
const TOOL_OUTPUT_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
const TOOL_FILE = /^tool_[A-Za-z0-9]{1,128}$/;
const DIFF_FILE = /^(ses_[A-Za-z0-9]{1,128})\.json$/;
export const TOOL_OUTPUT_ITEM_ID = 'tool-output:opencode';
export const SESSION_DIFF_ITEM_ID = 'session-diff:opencode';

interface Leftovers {
  items: Item[];
  /** Per top-level entry name ('tool-output', 'storage'): the paths inside it that stay read-only. */
  carved: Map<string, string[]>;
}

const plural = (n: number, one: string): string => `${n} ${one}${n === 1 ? '' : 's'}`;

/** Regular files of ours in `dir` that `pick` accepts, the rest of `dir`'s entries apart. */
function split(dir: string, uid: number, pick: (name: string, mtimeMs: number) => boolean): { picked: string[]; rest: string[] } {
  const picked: string[] = [];
  const rest: string[] = [];
  for (const d of listDirSorted(dir)) {
    const p = join(dir, d.name);
    const st = lstatSyncOrNull(p);
    if (st?.isFile() && st.nlink === 1 && (uid < 0 || st.uid === uid) && pick(d.name, st.mtimeMs)) picked.push(p);
    else rest.push(p);
  }
  return { picked, rest };
}

function plainDir(p: string): boolean {
  const st = lstatSyncOrNull(p);
  return Boolean(st?.isDirectory() && !st.isSymbolicLink());
}

/**
 * `sessionIds`: every session the database holds, or null when that is not
 * known (unread, truncated, skipped rows): then no diff is called orphaned.
 * `block`: why nothing is offered now (OpenCode running, a newer schema).
 */
export async function findLeftovers(home: string, sessionIds: ReadonlySet<string> | null, block: string | undefined, ctx: HostContext): Promise<Leftovers> {
  const items: Item[] = [];
  const carved = new Map<string, string[]>();
  const now = ctx.now();
  const make = async (id: string, label: string, subtitle: string, files: string[], rest: string[], entry: string, dir: string): Promise<void> => {
    const held = new Set((await fileHolders(files, ctx.procRoot)).map((h) => h.path));
    const free = files.filter((f) => !held.has(f));
    if (!free.length) return;
    carved.set(entry, [...rest, ...files.filter((f) => held.has(f))]);
    const tree = walkOwned(free, { uid: ctx.uid });
    const blocked = block ?? tree.unsafe;
    items.push({
      id,
      category: 'temporary',
      label,
      subtitle,
      paths: free,
      bytes: free.reduce((n, f) => n + allocatedBytes(lstatSyncOrNull(f)!), 0),
      modifiedAt: tree.newestMtime || undefined,
      risk: 'safe',
      recoverable: false,
      selectable: !blocked,
      blockedReason: blocked,
      metadata: { requiresAgentExit: true, files: free.length, agentLoses: 'nothing', dir, ...(tree.revision ? { sourceRevision: tree.revision } : {}) },
    });
  };

  const tools = join(home, 'tool-output');
  if (plainDir(tools)) {
    const { picked, rest } = split(tools, ctx.uid, (name, mtime) => TOOL_FILE.test(name) && now - mtime > TOOL_OUTPUT_RETENTION_MS);
    await make(
      TOOL_OUTPUT_ITEM_ID,
      'OpenCode tool output past its 7-day retention',
      `${plural(picked.length, 'file')} of truncated tool output older than the 7 days after which OpenCode prunes it itself; no session shows it any more`,
      picked,
      rest,
      'tool-output',
      tools,
    );
  }

  const storage = join(home, 'storage');
  const diffs = join(storage, 'session_diff');
  if (sessionIds && plainDir(storage) && plainDir(diffs)) {
    const { picked, rest } = split(diffs, ctx.uid, (name) => {
      const m = DIFF_FILE.exec(name);
      return Boolean(m && !sessionIds.has(m[1]!));
    });
    const others = listDirSorted(storage)
      .filter((d) => d.name !== 'session_diff')
      .map((d) => join(storage, d.name));
    await make(
      SESSION_DIFF_ITEM_ID,
      'OpenCode change summaries of deleted sessions',
      `${plural(picked.length, 'file')} in storage/session_diff whose session the database no longer has (OpenCode's own delete leaves them)`,
      picked,
      [...others, ...rest],
      'storage',
      diffs,
    );
  }
  return { items, carved };
}
