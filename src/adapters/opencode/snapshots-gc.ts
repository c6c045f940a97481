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
import { allocatedBytes, listDirSorted, lstatSyncOrNull } from '../../engine/host/fsx.js';
import { openReadOnly } from './db-open.js';
import { chooseDatabase } from './paths.js';
import { looksLikeGitDir, parseGcItemId, SNAPSHOT_DIR, STALE_MS } from './snapshots.js';
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
function resolveRepo(home: string, id: string, uid: number): { repo: string; projectId: string } | { reason: string } {
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
function referencedSnapshots(db: string | null, projectId: string): Set<string> {
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

/** The snapshot trees the database's sessions of this project refer to that the repository holds (what gc must keep). */
async function presentSnapshots(
  git: string,
  repo: string,
  db: string | null,
  projectId: string,
  timeoutMs: number,
): Promise<{ present: string[] } | { reason: string }> {
  let wanted: string[];
  try {
    wanted = [...referencedSnapshots(db, projectId)].filter((h) => HASH.test(h));
  } catch (e) {
    return { reason: (e as Error).message };
  }
  const check = await runGit(git, repo, ['cat-file', '--batch-check'], wanted.map((h) => `${h}\n`).join(''), timeoutMs);
  if (check.code !== 0) return { reason: `git could not read ${repo} (${firstLine(check.stderr) || `exit ${check.code}`}); nothing was changed.` };
  const present = check.stdout
    .split('\n')
    .map((l) => l.split(' '))
    .filter((f) => f.length === 3 && HASH.test(f[0]!) && f[1] !== 'missing')
    .map((f) => f[0]!);
  return { present };
}

interface GcOutcome {
  id: string;
  ok: boolean;
  reason?: string;
  kept?: number;
}

/** Loose objects and git temporaries younger than this stay (the leaked-files item's own age rule). */
const GC_PRUNE_EXPIRY = '1.hour.ago';

/** One gc item: writers re-checked, referenced snapshots pinned, gc --prune=1.hour.ago, pins removed, pins proven present. */
export async function gcSnapshotRepo(
  inst: Installation,
  ctx: HostContext,
  id: string,
  timeoutMs = DEFAULT_TIMEOUT_MS,
  onWritten?: (bytes: number) => void,
): Promise<GcOutcome> {
  const where = resolveRepo(inst.home, id, ctx.uid);
  if ('reason' in where) return { id, ok: false, reason: where.reason };
  const git = findSystemGit(ctx.env);
  if (!git) return { id, ok: false, reason: 'The system git was not found on PATH; install git to compact snapshot repositories.' };
  const writers = await findOpencodeWriters(ctx, chooseDatabase(inst, ctx).db, inst.home);
  if (writers.length) return { id, ok: false, reason: `Quit OpenCode before compacting its snapshots (running: ${describeWriters(writers)}).` };
  const { repo, projectId } = where;
  const pinned = await presentSnapshots(git, repo, chooseDatabase(inst, ctx).db, projectId, timeoutMs);
  if ('reason' in pinned) return { id, ok: false, reason: pinned.reason };
  const present = pinned.present;
  const pin = await runGit(git, repo, ['update-ref', '--stdin'], present.map((h) => `update ${KEEP_PREFIX}${h} ${h}\n`).join(''), timeoutMs);
  if (pin.code !== 0)
    return { id, ok: false, reason: `git could not pin the snapshots in use (${firstLine(pin.stderr) || `exit ${pin.code}`}); nothing was compacted.` };
  // The expiry spares what the plan spares: the leaked-files item leaves a tmp_pack_* younger than an hour (a running git may be
  // writing it), and git's prune removes tmp_ files by the same expiry it gives loose objects.
  const stopWatch = onWritten ? watchNewPacks(repo, onWritten) : () => undefined;
  const gc = await runGit(git, repo, ['gc', `--prune=${GC_PRUNE_EXPIRY}`, '--quiet'], '', timeoutMs).finally(stopWatch);
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

/** How often a running gc's progress is read (the pack it writes grows in objects/pack). */
const GC_PROGRESS_MS = 1000;

/**
 * git gc prints no progress without a terminal, so the progress is read off
 * the disk: the bytes of every file in objects/pack that was not there when
 * it started (the tmp_pack_* being written, then the pack it becomes).
 */
function watchNewPacks(repo: string, onWritten: (bytes: number) => void): () => void {
  const dir = join(repo, 'objects', 'pack');
  const before = new Set(listDirSorted(dir).map((d) => d.name));
  // Every tick reports, changed or not: a count that holds still for seconds still tells the user gc is alive.
  const tick = (): void => {
    let n = 0;
    for (const d of listDirSorted(dir)) if (!before.has(d.name)) n += lstatSyncOrNull(join(dir, d.name))?.size ?? 0;
    onWritten(n);
  };
  onWritten(0);
  const timer = setInterval(tick, GC_PROGRESS_MS);
  return () => {
    clearInterval(timer);
    tick();
  };
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

interface GcPromise {
  /** What the gc is expected to free: object storage now, less what stays (reachable or pinned objects, young loose ones). */
  bytes: number;
  /** Object storage now (loose objects and packs, allocated). */
  objectBytes: number;
  /** Objects that stay, as git measures them on disk. */
  keptBytes: number;
}

const PACK_FILE = /^pack-[0-9a-f]+\.(pack|idx|rev|bitmap|mtimes)$/;

/**
 * Allocated bytes gc can give back: loose objects and their fan-out
 * directories (prune removes a directory it empties), pack files; and the
 * loose objects younger than gc's expiry, which stay with their directory.
 */
function objectStorage(repo: string, now: number): { total: number; young: number; block: number } {
  let total = 0;
  let young = 0;
  const objects = join(repo, 'objects');
  const block = lstatSyncOrNull(objects)?.blksize || 4096;
  for (const d of listDirSorted(objects)) {
    if (!/^[0-9a-f]{2}$/.test(d.name) || !d.isDirectory()) continue;
    const dir = lstatSyncOrNull(join(objects, d.name));
    let stays = false;
    for (const f of listDirSorted(join(objects, d.name))) {
      const st = lstatSyncOrNull(join(objects, d.name, f.name));
      if (!st?.isFile()) continue;
      total += allocatedBytes(st);
      if (now - st.mtimeMs <= STALE_MS) {
        young += allocatedBytes(st);
        stays = true;
      }
    }
    if (dir && !stays) total += allocatedBytes(dir);
  }
  for (const f of listDirSorted(join(objects, 'pack'))) {
    if (!PACK_FILE.test(f.name)) continue;
    const st = lstatSyncOrNull(join(objects, 'pack', f.name));
    if (st?.isFile()) total += allocatedBytes(st);
  }
  return { total, young, block };
}

const roundUp = (n: number, block: number): number => Math.ceil(n / block) * block;
/** The files a gc leaves beside the pack (git pack-refs and update-server-info). */
const GC_WRITES = ['packed-refs', join('objects', 'info', 'packs'), join('info', 'refs')];

/**
 * What `gcSnapshotRepo` will free, before it runs and read-only: the objects
 * gc keeps are the ones refs, reflogs and the index reach plus the pinned
 * snapshots the database refers to (`git rev-list --disk-usage` sums their
 * size on disk); loose objects younger than the expiry stay too. Packing
 * deltas what stays, so the promise errs low, never high. Null when git or
 * the database cannot answer (the caller keeps the loose-object size).
 */
export async function gcPromise(inst: Installation, ctx: HostContext, repo: string, projectId: string, timeoutMs = 60_000): Promise<GcPromise | null> {
  const git = findSystemGit(ctx.env);
  if (!git) return null;
  const pinned = await presentSnapshots(git, repo, chooseDatabase(inst, ctx).db, projectId, timeoutMs);
  if ('reason' in pinned) return null;
  const present = pinned.present;
  const walk = ['rev-list', '--objects', '--all', '--reflog', '--indexed-objects', '--stdin'];
  const pins = present.map((h) => `${h}\n`).join('');
  const kept = await runGit(git, repo, [...walk, '--disk-usage'], pins, timeoutMs);
  const listed = await runGit(git, repo, walk, pins, timeoutMs);
  const keptBytes = Number(kept.stdout.trim());
  if (kept.code !== 0 || listed.code !== 0 || !Number.isSafeInteger(keptBytes)) return null;
  const objects = listed.stdout.split('\n').filter(Boolean).length;
  const storage = objectStorage(repo, ctx.now());
  // What stays: the one pack of the kept objects and its index (28 bytes an object, git's v2 format), and the small files gc writes.
  const after =
    (objects ? roundUp(keptBytes, storage.block) + roundUp(1072 + 28 * objects, storage.block) : 0) +
    GC_WRITES.filter((f) => !lstatSyncOrNull(join(repo, f))).length * storage.block;
  return { bytes: Math.max(0, storage.total - storage.young - after), objectBytes: storage.total, keptBytes };
}
