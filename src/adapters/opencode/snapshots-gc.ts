// `git gc --prune=1.hour.ago` on one OpenCode snapshot repository, through
// the system git (the hour spares a fresh temporary pack a running git may
// be writing, as the leaked-files item does). No ref names OpenCode's snapshot trees (they live in the
// sessions' parts), so a bare gc --prune=now would drop every snapshot but
// the one in the index: undo would be lost. The trees the database still
// refers to are therefore pinned by temporary refs (refs/cleanerx-keep/*)
// for the gc and unpinned after it; OpenCode's own hourly gc --prune=7.days
// then treats them as it always did. git runs with a clean environment,
// no system or global config, hooks and fsmonitor off, cwd = GIT_DIR = the
// repository: never inside a project's worktree.

import { constants, accessSync, realpathSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { HostContext } from '../../engine/core/adapter.js';
import { describeWriters, type Installation } from '../../engine/core/model.js';
import { lstatSyncOrNull } from '../../engine/host/fsx.js';
import { openReadOnly } from './db-open.js';
import { chooseDatabase } from './paths.js';
import { looksLikeGitDir, parseGcItemId, SNAPSHOT_DIR } from './snapshots.js';
import { findOpencodeWriters } from './writers.js';
import { spawnTracked } from '../../engine/host/own-children.js';

export const KEEP_PREFIX = 'refs/cleanerx-keep/';
const HASH = /^[0-9a-f]{40}$|^[0-9a-f]{64}$/;
const DEFAULT_TIMEOUT_MS = 30 * 60 * 1000;

/** The system git: the first executable `git` in an absolute PATH entry. */
export function findSystemGit(env: Readonly<Record<string, string | undefined>>): string | null {
  for (const dir of (env.PATH ?? '/usr/bin:/bin').split(':')) {
    if (!isAbsolute(dir)) continue;
    const p = join(dir, 'git');
    const st = lstatSyncOrNull(p);
    if (!st || !(st.isFile() || st.isSymbolicLink())) continue;
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // not executable
    }
  }
  return null;
}

interface GitRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runGit(git: string, repo: string, args: string[], input: string, timeoutMs: number): Promise<GitRun> {
  const env = {
    PATH: '/usr/bin:/bin',
    LC_ALL: 'C',
    GIT_DIR: repo,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_PAGER: 'cat',
  };
  const pre = ['-c', 'core.fsmonitor=false', '-c', 'core.hooksPath=/dev/null', '-c', 'gc.auto=0', '-c', 'maintenance.auto=false'];
  return new Promise((resolve) => {
    const child = spawnTracked(git, [...pre, ...args], { cwd: repo, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      if (stdout.length < 64 * 1024 * 1024) stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      if (stderr.length < 64 * 1024) stderr += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      resolve({ code: null, stdout, stderr: e.message });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
  });
}

const firstLine = (s: string): string =>
  s
    .split('\n')
    .map((l) => l.trim())
    .find(Boolean)
    ?.slice(0, 300) ?? '';

/** The repository of a gc item, re-checked on disk: plain directories all the way, no link, ours. */
export function resolveRepo(home: string, id: string, uid: number): { repo: string; projectId: string } | { reason: string } {
  const parsed = parseGcItemId(id);
  if (!parsed) return { reason: `${id} is not an OpenCode snapshot item.` };
  const parts = [join(home, SNAPSHOT_DIR), join(home, SNAPSHOT_DIR, parsed.projectId), join(home, SNAPSHOT_DIR, parsed.projectId, parsed.hash)];
  for (const p of parts) {
    const st = lstatSyncOrNull(p);
    if (!st || st.isSymbolicLink() || !st.isDirectory()) return { reason: `${p} is no longer a plain directory; rescan and review again.` };
    if (uid >= 0 && st.uid !== uid) return { reason: `${p} belongs to another user; cleanerx leaves it alone.` };
  }
  const repo = parts[2]!;
  let real: string;
  try {
    real = join(realpathSync(home), SNAPSHOT_DIR, parsed.projectId, parsed.hash);
  } catch {
    return { reason: `${home} cannot be resolved; rescan and review again.` };
  }
  if (realpathSync(repo) !== real) return { reason: `${repo} is reached through a link; cleanerx does not follow it.` };
  if (!looksLikeGitDir(repo)) return { reason: `${repo} is not a git repository OpenCode made.` };
  return { repo, projectId: parsed.projectId };
}

/** The snapshot hashes the database's sessions of this project refer to (step snapshots, patches, reverts). */
export function referencedSnapshots(db: string | null, projectId: string): Set<string> {
  const out = new Set<string>();
  if (!db) return out;
  const opened = openReadOnly(db);
  if (!opened.ok) throw new Error(`${opened.reason} The snapshots the sessions use cannot be told apart, so nothing was compacted.`);
  try {
    const take = (text: unknown): void => {
      if (typeof text !== 'string') return;
      for (const m of text.matchAll(/"(?:snapshot|hash)"\s*:\s*"([0-9a-f]{40}|[0-9a-f]{64})"/g)) out.add(m[1]!);
    };
    const parts = opened.db.prepare(
      `SELECT p.data AS d FROM part p JOIN session s ON s.id = p.session_id WHERE s.project_id = ? AND (p.data LIKE '%"snapshot"%' OR p.data LIKE '%"hash"%')`,
    );
    for (const r of parts.iterate(projectId) as Iterable<{ d: unknown }>) take(r.d);
    const cols = (opened.db.prepare(`SELECT name FROM pragma_table_info('session')`).all() as { name: string }[]).map((c) => c.name);
    if (cols.includes('revert')) {
      for (const r of opened.db.prepare('SELECT revert AS d FROM session WHERE project_id = ? AND revert IS NOT NULL').iterate(projectId) as Iterable<{
        d: unknown;
      }>)
        take(r.d);
    }
  } finally {
    opened.close();
  }
  return out;
}

export interface GcOutcome {
  id: string;
  ok: boolean;
  reason?: string;
  kept?: number;
}

/** Loose objects and git temporaries younger than this stay (the leaked-files item's own age rule). */
export const GC_PRUNE_EXPIRY = '1.hour.ago';

/** One gc item: writers re-checked, referenced snapshots pinned, gc --prune=1.hour.ago, pins removed, pins proven present. */
export async function gcSnapshotRepo(inst: Installation, ctx: HostContext, id: string, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<GcOutcome> {
  const where = resolveRepo(inst.home, id, ctx.uid);
  if ('reason' in where) return { id, ok: false, reason: where.reason };
  const git = findSystemGit(ctx.env);
  if (!git) return { id, ok: false, reason: 'The system git was not found on PATH; install git to compact snapshot repositories.' };
  const writers = await findOpencodeWriters(ctx, chooseDatabase(inst, ctx).db, inst.home);
  if (writers.length) return { id, ok: false, reason: `Quit OpenCode before compacting its snapshots (running: ${describeWriters(writers)}).` };
  const { repo, projectId } = where;
  let wanted: string[];
  try {
    wanted = [...referencedSnapshots(chooseDatabase(inst, ctx).db, projectId)].filter((h) => HASH.test(h));
  } catch (e) {
    return { id, ok: false, reason: (e as Error).message };
  }
  const check = await runGit(git, repo, ['cat-file', '--batch-check'], wanted.map((h) => `${h}\n`).join(''), timeoutMs);
  if (check.code !== 0)
    return { id, ok: false, reason: `git could not read ${repo} (${firstLine(check.stderr) || `exit ${check.code}`}); nothing was changed.` };
  const present = check.stdout
    .split('\n')
    .map((l) => l.split(' '))
    .filter((f) => f.length === 3 && HASH.test(f[0]!) && f[1] !== 'missing')
    .map((f) => f[0]!);
  const pin = await runGit(git, repo, ['update-ref', '--stdin'], present.map((h) => `update ${KEEP_PREFIX}${h} ${h}\n`).join(''), timeoutMs);
  if (pin.code !== 0)
    return { id, ok: false, reason: `git could not pin the snapshots in use (${firstLine(pin.stderr) || `exit ${pin.code}`}); nothing was compacted.` };
  // The expiry spares what the plan spares: the leaked-files item leaves a tmp_pack_* younger than an hour (a running git may be
  // writing it), and git's prune removes tmp_ files by the same expiry it gives loose objects.
  const gc = await runGit(git, repo, ['gc', `--prune=${GC_PRUNE_EXPIRY}`, '--quiet'], '', timeoutMs);
  const unpin = await unpinAll(git, repo, timeoutMs);
  if (gc.code !== 0)
    return {
      id,
      ok: false,
      reason: `git gc failed on ${repo} (${firstLine(gc.stderr) || `exit ${gc.code ?? 'killed'}`}); every snapshot in use was pinned, so none is lost.`,
    };
  const again = await runGit(git, repo, ['cat-file', '--batch-check'], present.map((h) => `${h}\n`).join(''), timeoutMs);
  const lost = again.stdout.split('\n').filter((l) => l.endsWith(' missing'));
  if (again.code !== 0 || lost.length)
    return { id, ok: false, reason: `After git gc, ${lost.length || 'some'} snapshot(s) in use could not be read in ${repo}.` };
  if (unpin) return { id, ok: false, reason: unpin };
  return { id, ok: true, kept: present.length };
}

/** Removes every keep ref (this run's and any a killed run left behind). Returns a reason on failure. */
async function unpinAll(git: string, repo: string, timeoutMs: number): Promise<string | undefined> {
  const list = await runGit(git, repo, ['for-each-ref', '--format=%(refname)', KEEP_PREFIX], '', timeoutMs);
  if (list.code !== 0) return `git could not list its temporary refs in ${repo} (${firstLine(list.stderr)}).`;
  const refs = list.stdout.split('\n').filter((r) => r.startsWith(KEEP_PREFIX));
  if (!refs.length) return undefined;
  const del = await runGit(git, repo, ['update-ref', '--stdin'], refs.map((r) => `delete ${r}\n`).join(''), timeoutMs);
  return del.code === 0 ? undefined : `git could not remove its temporary refs in ${repo} (${firstLine(del.stderr)}); they only keep snapshots.`;
}
