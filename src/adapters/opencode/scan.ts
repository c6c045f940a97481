// Inventory of an OpenCode data dir: the sessions of its one recognized
// database (read-only: metadata and row lengths, never transcript bodies),
// its logs, its separate cache root, and protected paths. Sessions are rows:
// they own no paths, and leave only through OpenCode's own delete.

import { basename } from 'node:path';
import type { HostContext } from '../../engine/core/adapter.js';
import { lstatSyncOrNull } from '../../engine/host/fsx.js';
import { walkOwned } from '../../engine/inventory/revision.js';
import { sessionItemId, uuidv5Url } from '../../engine/core/ids.js';
import {
  runningReason,
  type Installation,
  type Inventory,
  type ProjectGroup,
  type ScanProgress,
  type ScanWarning,
  type SessionRecord,
} from '../../engine/core/model.js';
import { cleanText } from '../../engine/core/text.js';
import { checkHome } from '../shared/home.js';
import { describeSqliteError, openReadOnly } from './db-open.js';
import { dbRevision } from './db-revision.js';
import { readProjects, readSessions, readSizesAndUsers, type ProjectRow, type SessionRead } from './db-reader.js';
import { NO_EXECUTABLE } from './delete-route.js';
import { cacheItem, logItem, readOnlyItems, RUNNING_REASON } from './items.js';
import { findLeftovers } from './leftovers.js';
import { buildLineage, descendantsOf, type Lineage } from './lineage.js';
import { chooseDatabase, opencodeCacheRoot, opencodeConfigDir } from './paths.js';
import { readSchema, type SchemaInfo } from './schema.js';
import { probeAccess, type Access } from './server-probe.js';
import { SESSION_ID } from './store.js';
import { findOpencodeWriters } from './writers.js';

const SOURCE = 'official OpenCode SQLite schema';
export const ACTIVE_REASON = 'OpenCode reports this session as busy or retrying; wait for it to become idle and rescan.';
/** A session with more descendants than this is not offered (its review would be unbounded). */
const MAX_DESCENDANTS = 20_000;
const DESCENDANT_BUDGET = 2_000_000;

/** The database each scanned home used, for previews (which get no host context). */
export const scannedDatabase = new Map<string, string>();

export function opencodeFallbackTitle(id: string): string {
  return `OpenCode session ${id.slice(-8)}`;
}

/** OpenCode's own placeholder titles ("New session - <ISO>", "Child session - <ISO>") are not names. */
function isDefaultTitle(title: string): boolean {
  return /^(New|Child) session - \d{4}-\d{2}-\d{2}T/.test(title);
}

interface DbRead {
  schema: SchemaInfo;
  read: SessionRead;
  projects: Map<string, ProjectRow>;
  sizes: Map<string, number>;
  /** Per session, whether it holds a user message (absent: no message rows); null when the database cannot tell. */
  users: Map<string, boolean | null> | null;
  revision: string;
}

export async function scanOpencode(inst: Installation, ctx: HostContext, onProgress: (p: ScanProgress) => void): Promise<Inventory> {
  const home = inst.home;
  const warnings: ScanWarning[] = [];
  const inv: Inventory = { sessions: [], items: [], projects: [], warnings, writers: [] };
  const progress = (phase: string, files = 0): void => onProgress({ agent: 'opencode', phase, files, bytes: 0 });
  progress('Looking for the OpenCode database');

  const check = checkHome(home, 'The OpenCode data directory', warnings);
  const homeIsDir = check.ok;
  let homeBlock = check.ok ? check.readOnly : undefined;
  const choice = homeIsDir ? chooseDatabase(inst, ctx) : { db: null, others: [] as string[], reason: undefined };
  if (choice.reason) warnings.push({ path: choice.db ?? home, reason: choice.reason });
  const db = choice.db;

  const writers = await findOpencodeWriters(ctx, db, home);
  inv.writers = writers.map(({ endpoint: _e, noEndpoint: _n, ...w }) => w);

  let read: DbRead | null = null;
  if (db) {
    progress('Reading the OpenCode database');
    read = readDatabase(db, warnings);
    if (!read) inv.sessionsUnread = warnings[warnings.length - 1]?.reason ?? 'The OpenCode database could not be read.';
  } else if (choice.reason && choice.others.length) inv.sessionsUnread = choice.reason;
  if (read && db) {
    const dbStat = lstatSyncOrNull(db);
    if (ctx.uid >= 0 && dbStat && dbStat.uid !== ctx.uid) homeBlock ??= 'The OpenCode database belongs to another user; cleanerx only reads it.';
    scannedDatabase.set(home, db);
    const lineage = buildLineage(read.read.rows);
    let access: Access = { kind: 'offline' };
    if (writers.length && read.schema.recognized && read.read.rows.length) {
      progress('Checking the running OpenCode');
      const rows = read.read.rows;
      const samples = [rows[0]!, rows[rows.length - 1]!, rows[rows.length >> 1]!].map((r) => ({ id: r.id, directory: r.directory, createdAt: r.createdAt }));
      const dirs = rows.map((r) => r.directory).filter((d): d is string => typeof d === 'string');
      access = await probeAccess(writers, [...new Map(samples.map((s) => [s.id, s])).values()], dirs);
    }
    const globalBlock =
      (read.schema.recognized ? undefined : read.schema.reason) ??
      homeBlock ??
      (inst.executable ? undefined : NO_EXECUTABLE) ??
      (access.kind === 'unavailable' ? access.reason : undefined);
    const projectKey = projectKeyer();
    inv.sessions = sessionRecords(read, lineage, access, globalBlock, db, warnings, projectKey);
    inv.projects = projectGroups(read, projectKey);
    progress('Reading the OpenCode database', inv.sessions.length);
  }

  // A newer OpenCode's schema blocks every mutation, not just sessions: what
  // its logs and cache mean to it is not known either.
  const newer = read?.schema.unknownTables.length ? read.schema.reason : undefined;
  const running = writers.length > 0 ? runningReason(RUNNING_REASON, writers) : undefined;
  if (homeIsDir) {
    const log = logItem(home, newer ?? running ?? homeBlock, ctx, warnings);
    if (log) inv.items.push(log);
  }
  const cache = cacheItem(opencodeCacheRoot(ctx), home, db, newer ?? running, ctx, warnings);
  if (cache) inv.items.push(cache);
  // Which sessions exist is known only from a whole read: a truncated or partly skipped one calls no diff orphaned.
  const allIds = read && !read.read.truncated && !read.read.skipped ? new Set(read.read.rows.map((r) => r.id)) : null;
  const leftovers = homeIsDir ? await findLeftovers(home, allIds, newer ?? running ?? homeBlock, ctx) : { items: [], carved: new Map() };
  inv.items.push(...leftovers.items);
  if (homeIsDir) inv.items.push(...readOnlyItems(home, db, choice.others, opencodeConfigDir(ctx), warnings, leftovers.carved));
  return inv;
}

function readDatabase(db: string, warnings: ScanWarning[]): DbRead | null {
  const before = dbRevision(db);
  const opened = openReadOnly(db);
  if (!opened.ok) {
    warnings.push({ path: db, reason: `${opened.reason} OpenCode sessions are not listed; logs and cache still are.` });
    return null;
  }
  try {
    const schema = readSchema(opened.db);
    if (!schema.recognized) warnings.push({ path: db, reason: schema.reason! });
    if (!schema.sessionColumns.has('id')) return null;
    const read = readSessions(opened.db, schema);
    if (read.truncated) warnings.push({ path: db, reason: `More than ${read.rows.length} OpenCode sessions: only the most recently updated are listed.` });
    if (read.skipped) warnings.push({ path: db, reason: `Skipped ${read.skipped} OpenCode session row(s) with a missing, non-text or over-long id.` });
    const projects = readProjects(opened.db, schema);
    const { sizes, failed, users } = readSizesAndUsers(opened.db, schema);
    if (failed.length) warnings.push({ path: db, reason: `Session sizes leave out unreadable tables: ${failed.join(', ')}.` });
    const after = dbRevision(db);
    if (after !== before) warnings.push({ path: db, reason: 'OpenCode wrote to its database during the scan; rescan before deleting sessions.' });
    return { schema, read, projects, sizes, users, revision: before };
  } catch (e) {
    warnings.push({ path: db, reason: `${describeSqliteError(e)} OpenCode sessions are not listed; logs and cache still are.` });
    return null;
  } finally {
    opened.close();
  }
}

/** Thousands of sessions share a few projects: one SHA-1 per project and scan, not per row. */
function projectKeyer(): (raw: string) => string {
  const keys = new Map<string, string>();
  return (raw) => {
    let k = keys.get(raw);
    if (k === undefined) {
      k = uuidv5Url(`opencode-project:${raw}`);
      keys.set(raw, k);
    }
    return k;
  };
}

function sessionRecords(
  read: DbRead,
  lineage: Lineage,
  access: Access,
  globalBlock: string | undefined,
  db: string,
  warnings: ScanWarning[],
  projectKey: (raw: string) => string,
): SessionRecord[] {
  const out: SessionRecord[] = [];
  // Directories and project ids repeat across a project's sessions: each distinct one is cleaned once.
  const cleanDirs = new Map<string, string>();
  const cleanProjects = new Map<string, string>();
  const cleanOnce = (memo: Map<string, string>, raw: string, max: number): string => {
    let c = memo.get(raw);
    if (c === undefined) {
      c = cleanText(raw, max);
      memo.set(raw, c);
    }
    return c;
  };
  // A session owns no paths: its tree revision is the empty walk's, which the
  // engine would otherwise compute (a SHA-256 each) for every selectable row.
  const emptyTree = walkOwned([], { uid: -1 }).revision!;
  let budget = DESCENDANT_BUDGET;
  let cycles = 0;
  for (const r of read.read.rows) {
    const cleaned = r.title ? cleanText(r.title, 200) : '';
    const title = cleaned || opencodeFallbackTitle(r.id);
    const parentId = lineage.parentOf.get(r.id) ?? null;
    let descendants: string[] = [];
    let tooMany = false;
    if (lineage.children.has(r.id)) {
      const cap = Math.min(MAX_DESCENDANTS, budget);
      const found = descendantsOf(lineage, r.id, cap + 1);
      if (found.length > cap) tooMany = true;
      else {
        descendants = found;
        budget -= found.length;
      }
    }
    const cyclic = lineage.inCycle.has(r.id);
    if (cyclic) cycles++;
    const active = access.kind === 'verified' ? access.active.get(r.id) : undefined;
    const blocked =
      globalBlock ??
      (SESSION_ID.test(r.id) ? undefined : 'This session id is not one OpenCode accepts; it is listed read-only.') ??
      (cyclic ? "OpenCode's parent links of this session form a cycle; OpenCode's recursive delete would not finish." : undefined) ??
      (tooMany ? `This session has more descendant sessions than cleanerx reviews at once (${MAX_DESCENDANTS}); it is listed read-only.` : undefined) ??
      (active ? ACTIVE_REASON : undefined);
    const status = active ? 'active' : access.kind === 'unavailable' ? 'loaded' : 'notLoaded';
    const hasUser = read.users === null ? null : read.users.has(r.id) ? read.users.get(r.id)! : false;
    const metadata: SessionRecord['metadata'] = {
      source: SOURCE,
      databasePath: db,
      routeRevision: read.revision,
      pinned: false,
      // Deletion checks running OpenCode processes itself (verified loopback server).
      requiresAgentExit: false,
      status,
    };
    // Assigned in place of spread literals (five throwaway objects a row); the keys keep their order.
    if (r.projectId) metadata.opencodeProjectId = cleanOnce(cleanProjects, r.projectId, 256);
    if (r.parentId && !parentId) metadata.missingParentId = cleanText(r.parentId, 256);
    if (r.archivedAt !== null) metadata.archivedAt = r.archivedAt;
    if (hasUser !== null) metadata.hasUserMessage = hasUser;
    if (!blocked) metadata.sourceRevision = emptyTree;
    out.push({
      id: r.id,
      itemId: sessionItemId(r.id),
      title,
      named: Boolean(cleaned) && !isDefaultTitle(cleaned),
      cwd: r.directory ? cleanOnce(cleanDirs, r.directory, 4096) : null,
      projectId: r.projectId ? projectKey(r.projectId) : null,
      parentId,
      deletionDescendantIds: descendants,
      state: r.archivedAt !== null ? 'archived' : 'current',
      source: 'cli',
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
      bytes: r.rowBytes + (read.sizes.get(r.id) ?? 0),
      paths: [],
      recoverable: true,
      selectable: !blocked,
      blockedReason: blocked,
      metadata,
    });
  }
  if (cycles) warnings.push({ path: db, reason: `${cycles} OpenCode session(s) have parent links that form a cycle; they are listed read-only.` });
  return out;
}

function projectGroups(read: DbRead, projectKey: (raw: string) => string): ProjectGroup[] {
  const used = new Map<string, string>();
  for (const s of read.read.rows) if (s.projectId) used.set(projectKey(s.projectId), s.projectId);
  const groups: ProjectGroup[] = [];
  for (const [id, raw] of used) {
    const p = read.projects.get(raw);
    const name = p?.name ? cleanText(p.name, 200) : '';
    const worktree = p?.worktree ? cleanText(p.worktree, 4096) : '';
    const label =
      name || (worktree === '/' ? 'Global' : worktree ? cleanText(basename(worktree), 200) : '') || `OpenCode project ${cleanText(raw, 64).slice(0, 8)}`;
    groups.push({ id, label, roots: worktree ? [worktree] : [] });
  }
  return groups;
}
