// OpenCode's snapshot git dirs, read without git and without following a
// link. OpenCode 1.18 keeps one per project and worktree at
// <data>/snapshot/<project id>/<sha1(worktree)>/ (git init with GIT_DIR =
// that dir, GIT_WORK_TREE = the worktree), and records the tree hashes of its
// file snapshots in the sessions' parts: those trees are what undo needs, and
// no ref names them. Three kinds of item come out of it per repository:
// leaked temporary files of an interrupted git (safe), the whole repository
// (undo lost for the sessions it serves), and a git gc (official route).

import { createHash } from 'node:crypto';
import type { Stats } from 'node:fs';
import { join } from 'node:path';
import type { HostContext } from '../../engine/core/adapter.js';
import { uuidv5Url } from '../../engine/core/ids.js';
import type { Inventory, Item, ScanWarning } from '../../engine/core/model.js';
import { cleanText } from '../../engine/core/text.js';
import { allocatedBytes, canonicalPath, listDirSorted, lstatSyncOrNull } from '../../engine/host/fsx.js';
import { fileHolders, type Holder } from '../../engine/cleanup/compact-holders.js';
import { walkOwned } from '../../engine/inventory/revision.js';

export const SNAPSHOT_DIR = 'snapshot';
/** A leaked temporary file or lock younger than this may still belong to a git that runs. */
export const STALE_MS = 60 * 60 * 1000;
const SAFE_NAME = /^[A-Za-z0-9._-]{1,128}$/;
const LEAKED_PACK = /^(tmp_pack_|tmp_idx_|tmp_rev_|\.tmp-)/;
const LOOSE_DIR = /^[0-9a-f]{2}$/;
const MAX_LOCK_DEPTH = 12;

export const SNAPSHOTS_RUNNING_REASON = 'OpenCode is running; quit it before cleaning its snapshot repositories.';

interface LeakedFile {
  path: string;
  bytes: number;
  /** Set when a process holds the file open. */
  heldBy?: Holder;
}

export interface SnapshotRepo {
  /** The directory name under snapshot/: OpenCode's project id. */
  projectId: string;
  hash: string;
  path: string;
  bytes: number;
  files: number;
  revision: string | null;
  newestMtime: number;
  unsafe?: string;
  /** Stale leaked temporary files and locks (held ones included, with their holder). */
  leaked: LeakedFile[];
  looseObjects: number;
  looseBytes: number;
  packs: number;
}

/** The item ids, one scheme for the scan and the routes: `<kind>:opencode:<project id>/<hash>`. */
export const repoItemId = (r: Pick<SnapshotRepo, 'projectId' | 'hash'>): string => `snapshot:opencode:${r.projectId}/${r.hash}`;
export const leakedItemId = (r: Pick<SnapshotRepo, 'projectId' | 'hash'>): string => `snapshot-tmp:opencode:${r.projectId}/${r.hash}`;
export const heldItemId = (r: Pick<SnapshotRepo, 'projectId' | 'hash'>): string => `snapshot-held:opencode:${r.projectId}/${r.hash}`;
export const gcItemId = (r: Pick<SnapshotRepo, 'projectId' | 'hash'>): string => `snapshot-gc:opencode:${r.projectId}/${r.hash}`;

/** `<project id>/<hash>` of a gc item id, or null when the id is not one. */
export function parseGcItemId(id: string): { projectId: string; hash: string } | null {
  const m = /^snapshot-gc:opencode:([^/]+)\/([^/]+)$/.exec(id);
  if (!m || !SAFE_NAME.test(m[1]!) || !SAFE_NAME.test(m[2]!) || m[1] === '.' || m[1] === '..' || m[2] === '.' || m[2] === '..') return null;
  return { projectId: m[1]!, hash: m[2]! };
}

/** The hash OpenCode names a worktree's snapshot dir by. */
export const worktreeHash = (worktree: string): string => createHash('sha1').update(worktree).digest('hex');

/** A plain git dir as `git init` lays it out: HEAD a file, objects/ and refs/ directories, none a link. */
export function looksLikeGitDir(dir: string): boolean {
  const head = lstatSyncOrNull(join(dir, 'HEAD'));
  const objects = lstatSyncOrNull(join(dir, 'objects'));
  const refs = lstatSyncOrNull(join(dir, 'refs'));
  return Boolean(head?.isFile() && objects?.isDirectory() && refs?.isDirectory());
}

function isStale(st: Stats, now: number): boolean {
  return now - st.mtimeMs > STALE_MS;
}

/** Stale `*.lock` files anywhere outside the loose-object fan-out, and leaked pack temporaries. */
function findLeaked(repo: string, now: number): LeakedFile[] {
  const out: LeakedFile[] = [];
  const visit = (dir: string, depth: number, inPack: boolean): void => {
    for (const d of listDirSorted(dir)) {
      const p = join(dir, d.name);
      const st = lstatSyncOrNull(p);
      if (!st || st.isSymbolicLink()) continue;
      if (st.isDirectory()) {
        if (depth >= MAX_LOCK_DEPTH || (dir === join(repo, 'objects') && LOOSE_DIR.test(d.name))) continue;
        visit(p, depth + 1, p === join(repo, 'objects', 'pack'));
        continue;
      }
      if (!st.isFile() || !isStale(st, now)) continue;
      if (d.name.endsWith('.lock') || (inPack && LEAKED_PACK.test(d.name))) out.push({ path: p, bytes: allocatedBytes(st) });
    }
  };
  visit(repo, 0, false);
  return out;
}

function countObjects(repo: string): { looseObjects: number; looseBytes: number; packs: number } {
  let looseObjects = 0;
  let looseBytes = 0;
  const objects = join(repo, 'objects');
  for (const d of listDirSorted(objects)) {
    if (!LOOSE_DIR.test(d.name) || !d.isDirectory()) continue;
    for (const f of listDirSorted(join(objects, d.name))) {
      const st = lstatSyncOrNull(join(objects, d.name, f.name));
      if (!st?.isFile() || !/^[0-9a-f]{38,62}$/.test(f.name)) continue;
      looseObjects++;
      looseBytes += allocatedBytes(st);
    }
  }
  const packs = listDirSorted(join(objects, 'pack')).filter((d) => d.isFile() && /^pack-[0-9a-f]+\.pack$/.test(d.name)).length;
  return { looseObjects, looseBytes, packs };
}

interface SnapshotScan {
  repos: SnapshotRepo[];
  /** Entries of snapshot/ that are not a recognized repository: listed read-only. */
  strays: { path: string; reason: string }[];
}

/** Every snapshot repository under `<home>/snapshot`, with its leaked files and their holders. */
export async function scanSnapshotRepos(home: string, ctx: HostContext, warnings: ScanWarning[]): Promise<SnapshotScan | null> {
  const root = join(home, SNAPSHOT_DIR);
  const st = lstatSyncOrNull(root);
  if (!st) return null;
  if (st.isSymbolicLink() || !st.isDirectory()) {
    warnings.push({ path: root, reason: 'OpenCode snapshot/ is not a plain directory (a symbolic link or a file); it is not offered for cleanup.' });
    return { repos: [], strays: [{ path: root, reason: 'Not a plain directory: read-only.' }] };
  }
  const now = ctx.now();
  const out: SnapshotScan = { repos: [], strays: [] };
  for (const p of listDirSorted(root)) {
    const pdir = join(root, p.name);
    const pst = lstatSyncOrNull(pdir);
    if (!pst?.isDirectory() || pst.isSymbolicLink() || !SAFE_NAME.test(p.name)) {
      out.strays.push({ path: pdir, reason: 'Not an OpenCode project snapshot directory: read-only.' });
      continue;
    }
    for (const h of listDirSorted(pdir)) {
      const repo = join(pdir, h.name);
      const rst = lstatSyncOrNull(repo);
      if (!rst?.isDirectory() || rst.isSymbolicLink() || !SAFE_NAME.test(h.name) || !looksLikeGitDir(repo)) {
        out.strays.push({ path: repo, reason: 'Not a snapshot git repository OpenCode made: read-only.' });
        continue;
      }
      const tree = walkOwned([repo], { uid: ctx.uid });
      out.repos.push({
        projectId: p.name,
        hash: h.name,
        path: repo,
        bytes: tree.bytes,
        files: tree.files,
        revision: tree.revision,
        newestMtime: tree.newestMtime,
        unsafe: tree.unsafe,
        leaked: tree.unsafe ? [] : findLeaked(repo, now),
        ...countObjects(repo),
      });
    }
  }
  const leaked = out.repos.flatMap((r) => r.leaked);
  if (leaked.length) {
    const holders = await fileHolders(
      leaked.map((l) => l.path),
      ctx.procRoot,
    );
    const byPath = new Map(holders.map((h) => [h.path, h]));
    for (const l of leaked) l.heldBy = byPath.get(l.path);
  }
  return out;
}

interface ProjectInfo {
  label: string;
  key: string;
  sessions: number;
  worktrees: string[];
}

/** Sessions per raw OpenCode project id, and each project's label, from the scan's rows. */
function projectsOf(inv: Inventory): Map<string, ProjectInfo> {
  const out = new Map<string, ProjectInfo>();
  const groups = new Map(inv.projects.map((g) => [g.id, g]));
  for (const s of inv.sessions) {
    const raw = s.metadata.opencodeProjectId;
    if (typeof raw !== 'string') continue;
    let p = out.get(raw);
    if (!p) {
      const key = uuidv5Url(`opencode-project:${raw}`);
      const g = groups.get(key);
      p = { label: g?.label ?? `OpenCode project ${cleanText(raw, 64).slice(0, 8)}`, key, sessions: 0, worktrees: g?.roots ?? [] };
      out.set(raw, p);
    }
    p.sessions++;
  }
  return out;
}

function within(child: string, parent: string): boolean {
  return child === parent || child.startsWith(parent.endsWith('/') ? parent : `${parent}/`);
}

const plural = (n: number, one: string): string => `${n} ${one}${n === 1 ? '' : 's'}`;

/**
 * The items of one scan. `block`: why nothing is offered now (OpenCode
 * running, a read-only home, a newer schema); worktrees: every project
 * worktree the database names (no repository inside one is ever offered).
 */
export function snapshotItems(scan: SnapshotScan, inv: Inventory, block: string | undefined, gitAvailable: boolean, worktrees: string[]): Item[] {
  const projects = projectsOf(inv);
  const items: Item[] = [];
  const trees = worktrees.filter((w) => w && w !== '/').map((w) => canonicalPath(w));
  for (const r of scan.repos) {
    const p = projects.get(r.projectId);
    const label = p?.label ?? (r.projectId === 'global' ? 'Global' : `OpenCode project ${r.projectId.slice(0, 8)}`);
    const sessions = p?.sessions ?? 0;
    // A database that could not be read says nothing about which sessions are left.
    const unknown = inv.sessionsUnread;
    const canon = canonicalPath(r.path);
    const inside = trees.find((w) => within(canon, w));
    const worktree = p?.worktrees.find((w) => worktreeHash(w) === r.hash);
    const repoBlock =
      block ??
      (unknown ? `Which OpenCode sessions use these snapshots is unknown: ${unknown}` : undefined) ??
      r.unsafe ??
      (inside ? `This repository lies inside the project worktree ${cleanText(inside, 512)}; cleanerx never touches a project's worktree.` : undefined);
    const common = { projectId: p?.key, modifiedAt: r.newestMtime || undefined };
    const meta = {
      requiresAgentExit: true,
      opencodeProjectId: cleanText(r.projectId, 128),
      snapshotSessions: sessions,
      ...(worktree ? { worktree: cleanText(worktree, 4096) } : {}),
    };
    items.push({
      id: repoItemId(r),
      category: 'cache',
      // The review lists labels: the cost is named there, not only in the detail.
      label: unknown
        ? `OpenCode snapshots · ${label} — sessions unknown`
        : sessions
          ? `OpenCode snapshots · ${label} — undo lost for ${plural(sessions, 'session')}`
          : `OpenCode snapshots · ${label} — no session left`,
      subtitle: unknown
        ? `The OpenCode database could not be read, so the sessions these file snapshots serve are unknown`
        : sessions
          ? `Removing it loses OpenCode's undo of file changes for the ${plural(sessions, 'session')} of ${label}; a git gc keeps it`
          : `No OpenCode session of ${label} is left; nothing uses these file snapshots`,
      paths: [r.path],
      bytes: r.bytes,
      risk: sessions || unknown ? 'high' : 'review',
      recoverable: false,
      selectable: !repoBlock,
      blockedReason: repoBlock,
      ...common,
      metadata: {
        ...meta,
        files: r.files,
        agentLoses: unknown
          ? 'unknown (the database could not be read)'
          : sessions
            ? `undo of file changes for ${plural(sessions, 'session')}`
            : 'nothing (no session left)',
        ...(r.revision ? { sourceRevision: r.revision } : {}),
      },
    });
    const free = r.leaked.filter((l) => !l.heldBy);
    const held = r.leaked.filter((l) => l.heldBy);
    if (free.length) {
      const tree = walkOwned(
        free.map((l) => l.path),
        { uid: -1 },
      );
      items.push({
        id: leakedItemId(r),
        category: 'temporary',
        label: `Leaked git temporary files · ${label}`,
        subtitle: `${plural(free.length, 'file')} an interrupted git left (tmp_pack_*, tmp_idx_*, stale *.lock, older than an hour); nothing refers to them`,
        paths: free.map((l) => l.path),
        bytes: free.reduce((a, l) => a + l.bytes, 0),
        risk: 'safe',
        recoverable: false,
        selectable: !(block ?? repoBlock),
        blockedReason: block ?? repoBlock,
        ...common,
        metadata: { ...meta, files: free.length, agentLoses: 'nothing', ...(tree.revision ? { sourceRevision: tree.revision } : {}) },
      });
    }
    if (held.length) {
      const h = held[0]!.heldBy!;
      items.push({
        id: heldItemId(r),
        category: 'temporary',
        label: `Git temporary files in use · ${label}`,
        subtitle: `${plural(held.length, 'file')} held open by a running process`,
        paths: held.map((l) => l.path),
        bytes: held.reduce((a, l) => a + l.bytes, 0),
        risk: 'review',
        recoverable: false,
        selectable: false,
        blockedReason: `${cleanText(h.name, 64)} (pid ${h.pid}) holds ${cleanText(h.path.slice(r.path.length + 1), 256)} open; it is left alone while a process uses it.`,
        ...common,
        metadata: { ...meta, files: held.length },
      });
    }
    if (r.looseObjects > 0 || r.packs > 1) items.push(gcItem(r, label, repoBlock, gitAvailable, common, meta));
  }
  return items;
}

/** The git gc item of one repository: what gc would free, an alternative to removing the repository. */
function gcItem(
  r: SnapshotScan['repos'][number],
  label: string,
  repoBlock: string | undefined,
  gitAvailable: boolean,
  common: Pick<Item, 'projectId' | 'modifiedAt'>,
  meta: Record<string, unknown>,
): Item {
  const gcBlock = repoBlock ?? (gitAvailable ? undefined : 'The system git was not found on PATH; install git to compact snapshot repositories.');
  return {
    id: gcItemId(r),
    category: 'cache',
    label: `Compact OpenCode snapshots (git gc) · ${label}`,
    subtitle: `git gc --prune=1.hour.ago: ${plural(r.looseObjects, 'loose object')} and ${plural(r.packs, 'pack')} become one pack; every snapshot a session still refers to is kept, so undo keeps working`,
    paths: [],
    bytes: r.looseBytes,
    risk: 'safe',
    recoverable: false,
    selectable: !gcBlock,
    blockedReason: gcBlock,
    ...common,
    // alternativeTo: removing the repository frees all this gc would (engine/inventory/retention/item-kinds.ts counts the bytes once).
    metadata: {
      ...meta,
      route: 'official',
      officialKind: 'gc',
      looseObjects: r.looseObjects,
      packs: r.packs,
      agentLoses: 'nothing it still refers to',
      alternativeTo: repoItemId(r),
    },
  };
}
