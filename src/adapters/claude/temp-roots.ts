// Claude Code's temp roots: `claude-<uid>/` and `cc-daemon-<uid>/` under
// CLAUDE_CODE_TMPDIR or the temp dir. Background tasks stream their output to
// `claude-<uid>/<sanitized cwd>/tasks/<task>.output` (newer builds put it, and
// the scratchpad, under `<sanitized cwd>/<session id>/`), and nothing of
// Claude's removes it: reports run to terabytes. The listing is lstat only
// (an .output is never opened), no link is followed, and only the user's own
// entries are taken: a root or an entry owned by someone else is left out
// with a warning (then shown as not recognized, never removed).

import { lstatSync, readdirSync, type Stats } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { HostContext } from '../../engine/core/adapter.js';
import type { ScanWarning } from '../../engine/core/model.js';
import { tempDirOf } from '../../engine/host/host-context.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface ClaudeTemp {
  /** The roots that exist, are real directories and are the user's. */
  roots: string[];
  /** Lower-case session id → its temp paths (`<project>/<session id>/`). */
  bySession: Map<string, string[]>;
  /** Everything else of the user's under the roots, as the smallest whole entries. */
  rest: string[];
}

/** Where Claude Code puts its temp roots for this environment. */
function claudeTempBase(ctx: HostContext): string {
  const v = ctx.env.CLAUDE_CODE_TMPDIR;
  return v && isAbsolute(v) ? v : tempDirOf(ctx.env);
}

/** The two root paths (existing or not). With no uid (not Unix) there are none. */
export function claudeTempRootPaths(ctx: HostContext): string[] {
  if (ctx.uid < 0) return [];
  const base = claudeTempBase(ctx);
  return [join(base, `claude-${ctx.uid}`), join(base, `cc-daemon-${ctx.uid}`)];
}

/** The roots that exist, are real directories (not links) and are the user's; any other is warned about. */
export function claudeTempRoots(ctx: HostContext, warnings: ScanWarning[]): string[] {
  const roots: string[] = [];
  for (const root of claudeTempRootPaths(ctx)) {
    const st = lstatOrNull(root);
    if (!st) continue;
    if (st.isSymbolicLink() || !st.isDirectory()) {
      warnings.push({ path: root, reason: 'Skipped Claude Code temp root: not a real directory (a link is never followed).' });
      continue;
    }
    if (st.uid !== ctx.uid) {
      warnings.push({ path: root, reason: 'Skipped Claude Code temp root owned by another user.' });
      continue;
    }
    roots.push(root);
  }
  return roots;
}

/**
 * Lists the temp roots. `sessionIds` (lower case) are the sessions the scan
 * found: a `<project>/<id>/` directory goes with its session only when that
 * session exists; any other goes with the rest.
 */
export function listClaudeTemp(ctx: HostContext, sessionIds: ReadonlySet<string>, warnings: ScanWarning[]): ClaudeTemp {
  const out: ClaudeTemp = { roots: claudeTempRoots(ctx, warnings), bySession: new Map(), rest: [] };
  const daemonRoot = claudeTempRootPaths(ctx)[1];
  for (const root of out.roots) {
    if (root === daemonRoot) {
      for (const name of names(root, warnings)) if (ownEntry(join(root, name), ctx, warnings)) out.rest.push(join(root, name));
      continue;
    }
    for (const project of names(root, warnings)) {
      const pdir = join(root, project);
      const pst = ownEntry(pdir, ctx, warnings);
      if (!pst) continue;
      if (!pst.isDirectory()) {
        out.rest.push(pdir);
        continue;
      }
      const children = names(pdir, warnings).map((n) => ({ n, st: ownEntry(join(pdir, n), ctx, warnings) }));
      const isSession = (c: { n: string; st: Stats | null }): boolean => Boolean(c.st?.isDirectory()) && UUID.test(c.n) && sessionIds.has(c.n.toLowerCase());
      // An empty folder is nothing to clean (a removal leaves it, and a rescan must not list it again).
      if (!children.length) continue;
      // No session's folder and nothing foreign inside: the project folder goes whole.
      if (children.every((c) => c.st && !isSession(c))) {
        out.rest.push(pdir);
        continue;
      }
      for (const c of children) {
        if (!c.st) continue;
        const n = c.n;
        const p = join(pdir, n);
        if (isSession(c)) {
          const key = n.toLowerCase();
          const list = out.bySession.get(key) ?? [];
          list.push(p);
          out.bySession.set(key, list);
        } else out.rest.push(p);
      }
    }
  }
  return out;
}

/** The entry's lstat when it is the user's and no link; a foreign entry or a link is left out with a warning. */
function ownEntry(p: string, ctx: HostContext, warnings: ScanWarning[]): Stats | null {
  const st = lstatOrNull(p);
  if (!st) return null;
  // A link is no data of Claude's: left where it is, so it cannot make the whole temp item read-only.
  if (st.isSymbolicLink()) {
    warnings.push({ path: p, reason: 'Skipped a symbolic link in the Claude Code temp dir; not followed.' });
    return null;
  }
  if (st.uid !== ctx.uid) {
    warnings.push({ path: p, reason: 'Skipped a Claude Code temp entry owned by another user.' });
    return null;
  }
  return st;
}

function names(dir: string, warnings: ScanWarning[]): string[] {
  try {
    return readdirSync(dir).sort();
  } catch (e) {
    warnings.push({
      path: dir,
      reason: `Could not read this Claude Code temp directory (${(e as NodeJS.ErrnoException).code ?? 'error'}); its files are not listed.`,
    });
    return [];
  }
}

function lstatOrNull(p: string): Stats | null {
  try {
    return lstatSync(p);
  } catch {
    return null;
  }
}

/**
 * The finished background-task output in a session's temp folders:
 * `<dir>/tasks/*.output` regular files of the user's, last written before
 * `before` (the session's last activity: a task still running writes after
 * it). lstat only; whether a process holds one open is the caller's check.
 */
export function finishedTaskOutputs(dirs: readonly string[], before: number, uid: number): string[] {
  const out: string[] = [];
  for (const dir of dirs) {
    const tasks = join(dir, 'tasks');
    const st = lstatOrNull(tasks);
    if (!st?.isDirectory() || st.isSymbolicLink()) continue;
    let entries: string[];
    try {
      entries = readdirSync(tasks).sort();
    } catch {
      continue;
    }
    for (const n of entries) {
      if (!n.endsWith('.output')) continue;
      const f = lstatOrNull(join(tasks, n));
      if (f?.isFile() && f.nlink === 1 && (uid < 0 || f.uid === uid) && f.mtimeMs < before) out.push(join(tasks, n));
    }
  }
  return out;
}
