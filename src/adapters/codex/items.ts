// Codex's non-session items: global memory (memory/reset, official), old
// diagnostic log rows (the one permitted SQLite write, official), caches and
// temporary entries (allowlisted path removal), orphan media (inspect-only),
// and protected or unrecognized entries listed by name only.

import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { HostContext } from '../../engine/core/adapter.js';
import { fileHolders, type Holder } from '../../engine/cleanup/compact-holders.js';
import { formatBytes } from '../../engine/core/format.js';
import { t } from '../../engine/i18n/index.js';
import { parseDbHeader, readDbSpace, type DbSpace } from '../../engine/host/db-space.js';
import { listDirSorted, lstatSyncOrNull, readAtSync } from '../../engine/host/fsx.js';
import type { Item, ScanWarning, Writer } from '../../engine/core/model.js';
import { walkOwned } from '../../engine/inventory/revision.js';
import { cleanText } from '../../engine/core/text.js';
import { ReadOnlyItems } from '../shared/read-only-entry.js';
import { allDbs, newestDb, THREAD_ID } from './paths.js';
import { columnsOf, openSnapshot } from './sqlite-read.js';

const LOG_RETENTION_DAYS = 7;
const TEMP_HOURS = 24;
/** Log rows this much younger than the retention go too, so the verifying rescan finds none at the edge. */
const LOG_MARGIN_S = 300;
/** Largest log database read from a private copy (above: read-only in place, its -wal/-shm present). */
const LOG_COPY_LIMIT = 64 * 1024 * 1024;

export const MEMORY_ITEM = 'memory:global';
export const LOGS_ITEM = 'logs:database';
/** The Compact item of the logs database: after the old-rows delete, as the original CleanerX (WAL checkpoint, then VACUUM). */
export const COMPACT_ITEM = 'compact:logs';
/** Less than this to give back is not worth rewriting the file: no Compact item (unless old rows are about to be deleted). */
export const COMPACT_MIN_BYTES = 1024 * 1024;
export const MEMORY_DIRS = ['memories', 'memories_v2'];
const MEDIA_DIRS = ['attachments', 'generated_images', 'visualizations'] as const;
/** Per-thread entries a thread owns besides its rollout (removed after its official delete). */
export const OWNED_DIRS = [...MEDIA_DIRS, 'shell_snapshots'] as const;

export const RUNNING_REASON = 'Codex is running; quit it before removing its caches or temporary files.';
export const MEMORY_RUNNING_REASON = 'Quit Codex before resetting global memory.';
const ORPHAN_REASON = "Orphaned media is inspect-only; cleanerx removes session-owned media only after the owning session's deletion succeeds.";

const PROTECTED: Record<string, string> = {
  'auth.json': 'Credentials',
  'config.toml': 'Configuration and the project registry',
  'managed_config.toml': 'Managed configuration',
  'requirements.toml': 'Managed requirements',
  rules: 'Rules',
  'AGENTS.md': 'Global instructions',
  'AGENTS.override.md': 'Global instructions',
  skills: 'Skills',
  prompts: 'Custom prompts',
  plugins: 'Plugins',
  state: 'Codex state',
  installation_id: 'Installation id',
  'session_index.jsonl': 'Thread names (updated by Codex itself on delete)',
  'history.jsonl': 'Prompt history',
  '.codex-global-state.json': 'Desktop app state',
  'thread-writer-locks': "Codex's writer locks",
  'app-server-control': "Codex's control socket",
  'app-server-daemon': "Codex's daemon state",
  packages: 'Managed Codex installs',
  log: 'Codex logs (TUI)',
};

/**
 * Protected files cleanerx reads, and what for: read-only and bounded
 * (engine/bounded-read.ts), only the named keys taken, the rest dropped with
 * the parse. Every other protected entry is never opened (a directory is at
 * most listed for its size). The databases (CODEX_DB_FILE) are read too:
 * header checked read-only, then copied read-only and queried in the copy.
 */
const READ_FOR: Record<string, string> = {
  'config.toml': 'read-only for its [projects."<path>"] table names only',
  'session_index.jsonl': 'read-only for the thread_name of listed threads only',
};
export const CODEX_PROTECTED_READ = Object.keys(READ_FOR);
export const CODEX_PROTECTED_NEVER_OPENED = Object.keys(PROTECTED).filter((n) => !READ_FOR[n]);
/** Codex's SQLite files: `<name>_<version>.sqlite` and its side files. */
export const CODEX_DB_FILE = /_\d{1,6}\.sqlite(-wal|-shm|-journal)?$/;

const COVERED = new Set(['sessions', 'archived_sessions', ...MEMORY_DIRS, ...OWNED_DIRS, 'cache', 'models_cache.json']);

const APP_CACHES = ['Cache', 'Code Cache', 'GPUCache', 'DawnGraphiteCache', 'DawnWebGPUCache', 'GraphiteDawnCache', 'Crashpad/completed', 'Crashpad/pending'];

function isTempName(name: string): boolean {
  return name === 'tmp' || name.includes('.tmp-') || name.endsWith('.tmp') || name.endsWith('.partial');
}

function isDbFile(name: string): boolean {
  return CODEX_DB_FILE.test(name);
}

/** Global memory: present only when memory files or stage-1 rows exist. */
export function memoryItem(home: string, dbHome: string, ctx: HostContext, block: string | undefined, warnings: ScanWarning[]): Item | null {
  const dirs = MEMORY_DIRS.map((d) => join(home, d)).filter((d) => lstatSyncOrNull(d) !== null);
  let files = 0;
  let bytes = 0;
  let newest = 0;
  let unsafe: string | undefined;
  for (const d of dirs) {
    const st = lstatSyncOrNull(d)!;
    if (st.isSymbolicLink() || !st.isDirectory()) {
      unsafe ??= `${d} is not a plain directory; Codex memory is listed read-only.`;
      continue;
    }
    for (const e of listDirSorted(d)) {
      const t = walkOwned([join(d, e.name)], { uid: ctx.uid });
      files += Math.max(1, t.files);
      bytes += t.bytes;
      newest = Math.max(newest, t.newestMtime);
      unsafe ??= t.unsafe;
    }
  }
  let rows = 0;
  for (const db of allDbs(dbHome, /^memories(_v\d+)?_\d{1,6}\.sqlite$/)) {
    const o = openSnapshot(db, `The Codex memory database ${db}`);
    if (!o.ok) {
      warnings.push({ path: db, reason: o.reason });
      continue;
    }
    try {
      if (columnsOf(o.db, 'stage1_outputs').has('thread_id')) rows += (o.db.prepare('SELECT count(*) AS n FROM stage1_outputs').get() as { n: number }).n;
    } catch {
      warnings.push({ path: db, reason: 'The Codex memory database could not be counted.' });
    } finally {
      o.close();
    }
  }
  if (files === 0 && rows === 0) return null;
  const blocked = block ?? unsafe;
  return {
    id: MEMORY_ITEM,
    category: 'memory',
    label: 'Global Codex memory',
    subtitle: 'Merged memory cannot be reliably separated by project; reset through Codex (irreversible)',
    paths: dirs,
    bytes,
    modifiedAt: newest || undefined,
    risk: 'high',
    recoverable: false,
    selectable: !blocked,
    blockedReason: blocked,
    metadata: { route: 'official', scope: 'global', files, stage1Rows: rows, requiresAgentExit: true },
  };
}

interface LogRows {
  db: string;
  rows: number;
  bytes: number;
  cutoff: number;
  /** Every row of the logs table (the old rows' share of the pages is what their delete frees). */
  total: number;
}

/** Rows of the recognized logs table older than the retention, counted read-only. */
export function oldLogRows(dbHome: string, nowMs: number, warnings: ScanWarning[]): LogRows | null {
  const db = newestDb(dbHome, 'logs');
  if (!db) return null;
  // The log database can grow to gigabytes: only a small one is copied; a large one is read in place.
  const o = openSnapshot(db, `The Codex log database ${db}`, LOG_COPY_LIMIT);
  if (!o.ok) {
    warnings.push({ path: db, reason: o.reason });
    return null;
  }
  try {
    const cols = columnsOf(o.db, 'logs');
    if (!cols.has('ts') || !cols.has('estimated_bytes')) {
      warnings.push({ path: db, reason: 'The Codex logs table is not recognized (no ts/estimated_bytes); its rows are not offered for cleanup.' });
      return null;
    }
    const cutoff = logCutoff(nowMs);
    const r = o.db.prepare('SELECT count(*) AS n, coalesce(sum(estimated_bytes), 0) AS b FROM logs WHERE ts < ?').get(cutoff) as { n: number; b: number };
    const all = o.db.prepare('SELECT count(*) AS n FROM logs').get() as { n: number };
    return { db, rows: r.n, bytes: r.b, cutoff, total: all.n };
  } catch {
    warnings.push({ path: db, reason: 'The Codex log database could not be counted.' });
    return null;
  } finally {
    o.close();
  }
}

export function logCutoff(nowMs: number): number {
  return Math.floor(nowMs / 1000) - LOG_RETENTION_DAYS * 86400 + LOG_MARGIN_S;
}

export function logsItem(rows: LogRows | null, block: string | undefined): Item | null {
  if (!rows || rows.rows === 0) return null;
  return {
    id: LOGS_ITEM,
    category: 'log',
    label: 'Codex diagnostic logs',
    subtitle: `Only entries older than ${LOG_RETENTION_DAYS} days are removed (${rows.rows} rows); the database file is kept`,
    // No path: the file is a protected entry (never removed as a file) and the rows are judged by the rescan; dbPath names it.
    paths: [],
    bytes: rows.bytes,
    risk: 'safe',
    recoverable: false,
    selectable: !block,
    blockedReason: block,
    metadata: { route: 'official', officialKind: 'rows', retentionDays: LOG_RETENTION_DAYS, rows: rows.rows, requiresAgentExit: false, dbPath: rows.db },
  };
}

/** Cache and temporary entries of the home and the app-support root (path removal). */
export function fileItems(home: string, appRoot: string | null, running: boolean, ctx: HostContext, warnings: ScanWarning[]): Item[] {
  const items: Item[] = [];
  const add = (
    id: string,
    category: 'cache' | 'temporary',
    label: string,
    subtitle: string,
    p: string,
    extra: Record<string, string | number | boolean>,
  ): void => {
    const st = lstatSyncOrNull(p);
    if (!st) return;
    if (st.isSymbolicLink()) {
      warnings.push({ path: p, reason: `${label} is a symbolic link; not offered for cleanup.` });
      return;
    }
    const tree = walkOwned([p], { uid: ctx.uid });
    if (category === 'temporary' && ctx.now() - Math.max(tree.newestMtime, st.mtimeMs) < TEMP_HOURS * 3600_000) return;
    const blocked = running ? RUNNING_REASON : tree.unsafe;
    items.push({
      id,
      category,
      label: cleanText(label, 200),
      subtitle,
      paths: [p],
      bytes: tree.bytes,
      modifiedAt: tree.newestMtime || undefined,
      risk: 'safe',
      recoverable: false,
      selectable: !blocked,
      blockedReason: blocked,
      metadata: { requiresAgentExit: true, files: tree.files, ...extra, ...(tree.revision ? { sourceRevision: tree.revision } : {}) },
    });
  };
  add('cache:cache', 'cache', 'Codex cache', 'Regenerable', join(home, 'cache'), { regenerable: true });
  add('cache:models_cache.json', 'cache', 'Codex model list cache', 'Regenerable', join(home, 'models_cache.json'), { regenerable: true });
  for (const d of listDirSorted(home)) {
    if (isTempName(d.name))
      add(`temporary:${d.name}`, 'temporary', `Codex temporary: ${d.name}`, `Older than ${TEMP_HOURS} h`, join(home, d.name), { olderThanHours: TEMP_HOURS });
  }
  if (appRoot) {
    for (const c of APP_CACHES) add(`cache:app:${c}`, 'cache', `Codex app ${c}`, 'Regenerable (desktop app data)', join(appRoot, c), { regenerable: true });
    for (const d of listDirSorted(appRoot)) {
      if (isTempName(d.name))
        add(`temporary:app:${d.name}`, 'temporary', `Codex app temporary: ${d.name}`, `Older than ${TEMP_HOURS} h`, join(appRoot, d.name), {
          olderThanHours: TEMP_HOURS,
        });
    }
  }
  return items;
}

/** Media entries whose owning thread Codex does not list: shown, never removed. */
export function orphanMedia(home: string, known: Set<string>, warnings: ScanWarning[]): Item[] {
  const items: Item[] = [];
  for (const dir of MEDIA_DIRS) {
    const root = join(home, dir);
    const st = lstatSyncOrNull(root);
    if (!st) continue;
    if (st.isSymbolicLink() || !st.isDirectory()) {
      warnings.push({ path: root, reason: `${dir}/ is not a plain directory; its media are not read.` });
      continue;
    }
    for (const e of listDirSorted(root)) {
      const owner = e.name.slice(0, 36).toLowerCase();
      if (THREAD_ID.test(owner) && known.has(owner)) continue;
      const p = join(root, e.name);
      const est = lstatSyncOrNull(p);
      if (!est || est.isSymbolicLink()) continue;
      const tree = walkOwned([p], { uid: -1 });
      items.push({
        id: `orphan:${dir}:${e.name}`,
        category: dir === 'attachments' ? 'attachment' : 'generatedImage',
        label: cleanText(`${dir}/${e.name}`, 200),
        subtitle: 'No Codex thread owns it',
        paths: [p],
        bytes: tree.bytes,
        modifiedAt: tree.newestMtime || undefined,
        risk: 'review',
        recoverable: false,
        selectable: false,
        blockedReason: ORPHAN_REASON,
        metadata: { association: 'orphaned', entryType: est.isDirectory() ? 'directory' : 'file' },
      });
    }
  }
  return items;
}

/** The row of one of Codex's SQLite databases (not its -wal or -shm side file). */
export const CODEX_DB_ROW = /^protected:db:[^/]+\.sqlite$/;

/** Protected entries, the databases, and every unrecognized top-level entry: read-only. */
export function readOnlyItems(home: string, dbHome: string, warnings: ScanWarning[]): Item[] {
  const out = new ReadOnlyItems('Codex', warnings);
  const add = (id: string, label: string, p: string, kind: 'protected' | 'database' | 'unknown', subtitle: string): void =>
    out.add({
      id,
      label,
      path: p,
      subtitle,
      blockedReason:
        kind === 'protected'
          ? 'Protected data: credentials, configuration, rules, skills and prompts are never cleaned.'
          : kind === 'database'
            ? 'Protected: Codex databases are never edited or deleted as files (threads leave through the App Server).'
            : 'Unrecognized entry: read-only.',
      // A database's row opens its bytes per table (#29.4); every other protected row stays shut.
      metadata: { protection: kind === 'unknown' ? 'unrecognized' : 'always', ...(CODEX_DB_ROW.test(id) ? { structurePreview: true } : {}) },
    });
  for (const [name, what] of Object.entries(PROTECTED))
    add(
      `protected:${name}`,
      name,
      join(home, name),
      'protected',
      `${what}; ${READ_FOR[name] ? `${READ_FOR[name]}, never changed or removed` : 'never opened or removed'}`,
    );
  for (const dir of [...new Set([home, dbHome, join(dbHome, 'sqlite')])]) {
    for (const d of listDirSorted(dir)) {
      if (!isDbFile(d.name)) continue;
      const p = join(dir, d.name);
      // The databases themselves (not their side files) say how much of them is free pages; state databases are never compacted.
      const space = /\.sqlite$/.test(d.name) ? dbSpace(p, process.getuid?.() ?? -1) : null;
      const about = space ? (/^state_\d+\.sqlite$/.test(d.name) ? t('compact.stateDb', { space: spaceText(space) }) : spaceText(space)) : null;
      add(
        `protected:db:${d.name}`,
        d.name,
        p,
        'database',
        `Codex database file; read-only (queried in a private copy), never removed as a file${about ? ` · ${about}` : ''}`,
      );
    }
  }
  for (const d of listDirSorted(home)) {
    if (PROTECTED[d.name] || COVERED.has(d.name) || isTempName(d.name) || isDbFile(d.name)) continue;
    add(`protected:other:${d.name}`, d.name, join(home, d.name), 'unknown', 'Not a recognized Codex path; cleanerx never guesses');
  }
  return out.items;
}

/**
 * readDbSpace, but never through an SQLite connection while the database's
 * -wal and -shm exist (a connection, even a read-only one, opens both for
 * writing, and the databases are files cleanerx only reads): then the
 * 100-byte header, which counts the free pages as of the last checkpoint.
 */
function dbSpace(path: string, uid: number): DbSpace {
  const wal = lstatSyncOrNull(`${path}-wal`);
  const shm = lstatSyncOrNull(`${path}-shm`);
  const st = lstatSyncOrNull(path);
  if (!wal || !shm || !st?.isFile() || !wal.isFile() || !shm.isFile() || (uid >= 0 && (st.uid !== uid || wal.uid !== uid || shm.uid !== uid)))
    return readDbSpace(path, uid);
  const sized = { path, fileBytes: st.size, walBytes: wal.size, shmBytes: shm.size };
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (e) {
    return { ...sized, state: 'unreadable', reason: `The database cannot be opened for reading (${(e as NodeJS.ErrnoException).code ?? 'error'}).` };
  }
  try {
    const fst = fstatSync(fd);
    if (!fst.isFile() || fst.ino !== st.ino) return { ...sized, state: 'changed', reason: 'The database was replaced while cleanerx read it; look again.' };
    const h = Buffer.alloc(100);
    const header = parseDbHeader(h.subarray(0, readAtSync(fd, h, 100, 0)), fst.size);
    if ('bad' in header) return { ...sized, state: header.bad, reason: header.reason };
    return {
      ...sized,
      state: 'ok',
      reason: 'Free pages as of the last checkpoint: frames still in the -wal are not counted.',
      pageSize: header.pageSize,
      pageCount: header.pageCount,
      freePages: header.freePages,
      reclaimableBytes: header.freePages * header.pageSize,
      autoVacuum: header.autoVacuum,
      journalMode: header.wal ? 'wal' : 'rollback',
      readVia: 'header',
    };
  } finally {
    closeSync(fd);
  }
}

/** File size, WAL size and free pages of one database, as the detail pane says them. */
function spaceText(space: DbSpace): string {
  const name = basename(space.path);
  if (space.state !== 'ok' || space.freePages === undefined)
    return t('dbspace.notRead', { name, file: formatBytes(space.fileBytes), reason: space.reason ?? space.state });
  return t('dbspace.line', {
    name,
    file: formatBytes(space.fileBytes),
    wal: formatBytes(space.walBytes),
    free: space.freePages,
    reclaimable: formatBytes(space.reclaimableBytes ?? 0),
  });
}

/** The numbers behind spaceText, for `scan --json` readers of the item's metadata. */
function spaceMetadata(space: DbSpace): Record<string, string | number> {
  return {
    dbState: space.state,
    fileBytes: space.fileBytes,
    walBytes: space.walBytes,
    ...(space.freePages === undefined ? {} : { freePages: space.freePages, pageSize: space.pageSize ?? 0, reclaimableBytes: space.reclaimableBytes ?? 0 }),
  };
}

const SIDES = ['-wal', '-shm', '-journal'];

/** The parent pid from /proc/<pid>/stat (after the parenthesized comm), or null. */
function parentOf(procRoot: string, pid: number): number | null {
  try {
    const s = readFileSync(`${procRoot}/${pid}/stat`, 'utf8').slice(0, 1024);
    const m = /\)\s+\S+\s+(\d+)/.exec(s.slice(s.lastIndexOf(')')));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/**
 * Processes holding the database or a side file, leaving out cleanerx's own
 * children: the scan's private App Server holds the logs database while the
 * inventory is read, and is stopped before any route runs (the compaction
 * itself counts every holder, its own included).
 */
export async function foreignHolders(db: string, procRoot: string): Promise<Holder[]> {
  const held = await fileHolders([db, ...SIDES.map((x) => db + x)], procRoot);
  return held.filter((h) => {
    let pid: number | null = h.pid;
    for (let i = 0; i < 32 && pid !== null && pid > 1; i++) {
      if (pid === process.pid) return false;
      pid = parentOf(procRoot, pid);
    }
    return true;
  });
}

export const holdersText = (h: Holder[]): string =>
  h
    .slice(0, 3)
    .map((x) => `${x.name} (pid ${x.pid})`)
    .join(', ') + (h.length > 3 ? ` +${h.length - 3}` : '');

/**
 * The Compact item of the newest logs database: offered when its free pages
 * and WAL hold at least COMPACT_MIN_BYTES, or when old rows are listed for
 * deletion (their delete leaves free pages: Codex makes the file
 * auto_vacuum=INCREMENTAL and never runs it). Selectable only while no Codex
 * runs and no other process holds the file.
 */
export async function compactItem(
  dbHome: string,
  rows: LogRows | null,
  writers: readonly Writer[],
  block: string | undefined,
  ctx: HostContext,
): Promise<Item | null> {
  const db = newestDb(dbHome, 'logs');
  if (!db) return null;
  const space = dbSpace(db, ctx.uid);
  if (space.state !== 'ok' || space.freePages === undefined) return null;
  const gain = (space.reclaimableBytes ?? 0) + space.walBytes;
  const withRows = Boolean(rows && rows.rows > 0);
  if (gain < COMPACT_MIN_BYTES && !withRows) return null;
  // The pages the old rows' delete frees, estimated by their share of the rows; the rows' item already counts
  // their own estimate, so this item counts the rest: together the two promise what the disk gets back.
  const used = ((space.pageCount ?? 0) - (space.freePages ?? 0)) * (space.pageSize ?? 0);
  const rowPages = rows && withRows && rows.total > 0 ? Math.round((used * rows.rows) / rows.total) : 0;
  const promise = gain + Math.max(0, rowPages - (withRows ? rows!.bytes : 0));
  const held = writers.length ? [] : await foreignHolders(db, ctx.procRoot);
  const blocked = block ?? (writers.length ? t('compact.running') : held.length ? t('compact.held', { holders: holdersText(held) }) : undefined);
  return {
    id: COMPACT_ITEM,
    category: 'log',
    label: t('compact.label'),
    subtitle: t(withRows ? 'compact.subtitleRows' : 'compact.subtitle', { space: spaceText(space) }),
    paths: [],
    bytes: promise,
    risk: 'safe',
    recoverable: false,
    selectable: !blocked,
    blockedReason: blocked,
    metadata: { route: 'official', officialKind: 'compact', requiresAgentExit: true, afterLogRows: withRows, dbPath: db, ...spaceMetadata(space) },
  };
}
