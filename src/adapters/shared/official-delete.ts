// What every official session route shares (Codex's App Server, OpenCode's
// CLI and servers): the refusal a route throws before it changes anything,
// and the root-by-root delete loop whose result is only what a re-read of
// the store proves. The agents differ in how one root is deleted and how
// the store is re-read; the stop, the proof and the first-failure rule are
// the same, so they live here once.

import type { SessionRoute } from '../../engine/core/adapter.js';

/** Thrown by a route before any mutation: the call changed nothing. */
export class RouteRefused extends Error {}

type DeleteResult = Awaited<ReturnType<SessionRoute['deleteSessions']>>;

interface OfficialDeleteLoop {
  /** The minimal root set, in order. */
  roots: readonly string[];
  /** root → the root and every descendant the agent's delete removes with it. */
  scopes: ReadonlyMap<string, readonly string[]>;
  /** Deletes one root through the agent; the reason when the agent said no, else null. */
  deleteRoot(root: string): Promise<string | null>;
  /** The ids of `scope` the agent's store still holds (read-only re-read). */
  stillPresent(scope: readonly string[]): Set<string> | Promise<Set<string>>;
  /**
   * When the re-read itself fails: the reason to report (the whole scope then
   * counts as present). Without it the failure is thrown.
   */
  unprovable?(e: Error): string;
  /** The reason when the agent answered success but the re-read still finds `left` ids. */
  stillThere(left: number): string;
  shouldStop?: () => boolean;
  onProgress?: (done: number, total: number, currentId: string) => void;
}

/**
 * Deletes the roots one by one into `result` (deleted / failed / stopped):
 * every id of a scope the re-read no longer finds is deleted; the first root
 * with an error or a survivor fails its survivors (or itself) and marks every
 * later root not attempted. A stop request is honoured between roots.
 */
export async function runOfficialDeletes(loop: OfficialDeleteLoop, result: DeleteResult): Promise<void> {
  const { roots } = loop;
  for (let i = 0; i < roots.length; i++) {
    const root = roots[i]!;
    if (loop.shouldStop?.()) {
      result.stopped = true;
      for (const r of roots.slice(i)) result.failed.push({ id: r, reason: 'Not attempted: the cleanup was stopped.' });
      break;
    }
    const scope = loop.scopes.get(root)!;
    let error = await loop.deleteRoot(root);
    let left: Set<string>;
    try {
      left = await loop.stillPresent(scope);
    } catch (e) {
      if (!loop.unprovable) throw e;
      // Unprovable: everything of the scope counts as still present.
      left = new Set(scope);
      error ??= loop.unprovable(e as Error);
    }
    for (const id of scope) if (!left.has(id)) result.deleted.push(id);
    if (error || left.size) {
      const why = error ?? loop.stillThere(left.size);
      for (const id of scope) if (left.has(id)) result.failed.push({ id, reason: why });
      if (!left.size) result.failed.push({ id: root, reason: why });
      for (const r of roots.slice(i + 1)) result.failed.push({ id: r, reason: 'Not attempted: an earlier deletion failed.' });
      break;
    }
    loop.onProgress?.(i + 1, roots.length, root);
  }
}
