// Inventory of a Claude Code home (CLAUDE_CONFIG_DIR or ~/.claude): only the
// documented application-data layout. A transcript's cwd is grouping
// metadata; the source tree behind it is never visited.

import { closeSync, constants, fstatSync, openSync, type Stats } from 'node:fs';
import { canonicalPath, listDirSorted, lstatSyncOrNull, readAtSync } from '../../engine/host/fsx.js';
import { basename, join } from 'node:path';
import type { HostContext } from '../../engine/core/adapter.js';
import { sessionItemId, uuidv5Url } from '../../engine/core/ids.js';
import {
  runningReason,
  type Category,
  type Installation,
  type Inventory,
  type Item,
  type ProjectGroup,
  type Risk,
  type ScanProgress,
  type ScanWarning,
  type SessionRecord,
} from '../../engine/core/model.js';
import { homeOf } from '../../engine/host/own-dirs.js';
import { checkHome } from '../shared/home.js';
import { type OwnedTree, WalkRecorder, walkOwned } from '../../engine/inventory/revision.js';
import { cleanText } from '../../engine/core/text.js';
import { readRegularText } from '../../engine/host/bounded-read.js';
import { parseObject } from '../shared/jsonl.js';
import { CLAUDE_HEAD_BYTES, CLAUDE_TAIL_BYTES, claudeFallbackTitle, readClaudeTranscript } from './transcript-reader.js';
import { finishedTaskOutputs, listClaudeTemp } from './temp-roots.js';
import { pluginCacheItems } from './plugin-cache.js';
import { keptAround } from '../shared/carve.js';
import { fileHolders } from '../../engine/cleanup/compact-holders.js';
import { CLAUDE_RUNNING_REASON, findClaudeWriters } from './writers.js';

/** Claude reads at most 4 KiB of an archive mark. */
const ARCHIVE_MARK_BYTES = 4096;
/** A title sidecar holds one title and a few fields; anything larger is not one. */
const TITLE_SIDECAR_BYTES = 64 * 1024;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Legacy per-session todo lists, `todos/<session id>-agent-<agent id>.json`: part of their session. */
const TODO_FILE = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})-agent-[0-9a-f-]{36}\.json$/i;

/** Per-session roots: `<root>/<sessionId>` (debug also `<sessionId>.txt`). */
export const PER_SESSION_ROOTS = ['tasks', 'file-history', 'image-cache', 'uploads', 'session-env', 'debug'] as const;

export const CLAUDE_PROTECTED = [
  '.credentials.json',
  '.device-keys.json',
  'CLAUDE.md',
  'settings.json',
  'settings.local.json',
  'keybindings.json',
  'plugins',
  'skills',
  'commands',
  'agents',
  'output-styles',
  'rules',
  'hooks',
  'themes',
  'workflows',
  'backups',
  'remote-settings.json',
  'policy-limits.json',
  'agent-memory',
  'agent-memory-local',
  'agent-memory-project',
  '.claude.json',
];

interface Combined {
  id: string;
  label: string;
  subtitle: string;
  category: Category;
  risk: Risk;
  recoverable: boolean;
  names: string[];
}

const COMBINED: Combined[] = [
  {
    id: 'claude-history',
    label: 'Prompt history',
    subtitle: 'Up-arrow recall of past prompts (history.jsonl)',
    category: 'log',
    risk: 'review',
    recoverable: true,
    names: ['history.jsonl'],
  },
  {
    id: 'claude-cache',
    label: 'Claude Code caches',
    subtitle: 'Regenerable caches',
    category: 'cache',
    risk: 'safe',
    recoverable: false,
    names: ['cache', 'paste-cache', 'stats-cache.json', 'usage-data'],
  },
  {
    id: 'claude-temporary',
    label: 'Claude Code temporary data',
    subtitle: 'Plans, shell snapshots, legacy todos and logs',
    category: 'temporary',
    risk: 'safe',
    recoverable: false,
    names: ['plans', 'shell-snapshots', 'todos', 'logs'],
  },
];

/** Top-level names Claude Code itself writes that cleanerx reports but does not clean. */
const KNOWN_OTHER = new Set([
  'projects',
  ...PER_SESSION_ROOTS,
  'sessions',
  'ide',
  'statsig',
  'telemetry',
  'shares',
  'traces',
  'startup-perf',
  'jobs',
  'daemon',
  'teams',
  'state',
  'storage-v2',
  'mcp-discovery-cache',
  'chrome',
  'feedback-bundles',
  'api-dumps',
  'cowork_plugins',
  'downloads',
  'dump-prompts',
  'feedback',
  'file-transfers',
  'local',
  'local-settings',
  'mcp-skill-archives',
  'project-settings',
  'remote',
  'remote-control',
  'scratch',
  'seed-admin',
  'systemd',
  '.last-cleanup',
  'mcp-needs-auth-cache.json',
  '.config.json',
]);

interface Transcript {
  id: string;
  file: string;
  bucket: string;
  bucketKey: string;
  sessionDir: boolean;
}

export async function scanClaude(inst: Installation, ctx: HostContext, onProgress: (p: ScanProgress) => void): Promise<Inventory> {
  const home = inst.home;
  const warnings: ScanWarning[] = [];
  const inv: Inventory = { sessions: [], items: [], projects: [], warnings, writers: [] };
  const check = checkHome(home, 'The Claude Code home', warnings);
  if (!check.ok) return inv;
  const homeReadOnly = check.readOnly;
  const live = await findClaudeWriters(ctx, home, warnings);
  inv.writers = live.writers;
  const blockAll = homeReadOnly ?? (live.writers.length ? runningReason(CLAUDE_RUNNING_REASON, live.writers) : undefined);
  // Every walk below sizes rows; the attribution walk after the scan reuses what they saw.
  const log = new WalkRecorder();
  inv.walkLog = log;

  const perSession = listPerSessionRoots(home, warnings, log);
  const todos = listTodos(home, log);
  for (const [key, paths] of todos.bySession) perSession.set(key, [...(perSession.get(key) ?? []), ...paths]);

  const listed = listProjects(home, warnings, log);
  // Temp folders named by a transcript's id go with its session (lstat only: task output can be terabytes).
  const temp = listClaudeTemp(ctx, new Set(listed.transcripts.map((t) => t.id.toLowerCase())), warnings);
  inv.attributionRoots = temp.roots;
  const projects = new ProjectGroups();
  const pass: TranscriptPass = { ctx, log, warnings, perSession, temp, live, blockAll, projects };
  const owned = await readTranscripts(listed.transcripts, pass, inv, onProgress);
  inv.items.push(...keepNewestOfEachId(inv, warnings));

  projects.labelFromRoots();
  for (const m of listed.memoryDirs) inv.items.push(memoryItem(projects.of(m.bucket, m.bucketKey), m.dir, pass));
  inv.projects = projects.withSessions(inv.sessions);

  // A todo list goes with its session; one whose session is gone is a leftover of that session
  // (the orphan item below, as Claude's own deleteSession leaves it), so todos/ keeps only the rest.
  const overrides = new Map<string, string[]>();
  if (todos.files.length) overrides.set('todos', todos.other);
  inv.items.push(...leftoverItems(home, listed, owned, pass, overrides));
  if (live.writers.length && !homeReadOnly) inv.items.push(...(await finishedTaskItems(inv.sessions, temp.bySession, ctx)));
  const plugins = pluginCacheItems(home, ctx, blockAll);
  inv.items.push(...plugins.items);
  inv.items.push(...readOnlyItems(home, ctx, warnings, log, plugins.offered));
  return inv;
}

/** What one scan's transcript reads share. */
interface TranscriptPass {
  ctx: HostContext;
  log: WalkRecorder;
  warnings: ScanWarning[];
  /** Per-session paths (tasks, file-history, todos, …) by lower-case session id. */
  perSession: Map<string, string[]>;
  temp: ReturnType<typeof listClaudeTemp>;
  live: Awaited<ReturnType<typeof findClaudeWriters>>;
  blockAll: string | undefined;
  projects: ProjectGroups;
}

type ClaudeProject = ProjectGroup & { bucketLabel: string };

/** The project rows, one per project bucket, labelled by the first cwd a transcript names. */
class ProjectGroups {
  private readonly byBucket = new Map<string, ClaudeProject>();

  of(bucket: string, bucketKey: string): ClaudeProject {
    let p = this.byBucket.get(bucketKey);
    if (!p) {
      p = { id: uuidv5Url(bucketKey), label: '', roots: [], bucketLabel: cleanText(basename(bucket), 200) };
      this.byBucket.set(bucketKey, p);
    }
    return p;
  }

  labelFromRoots(): void {
    for (const p of this.byBucket.values()) {
      const first = p.roots[0];
      p.label = first ? (first === '/' ? 'Global' : cleanText(basename(first), 200)) : p.bucketLabel || 'Claude project';
    }
  }

  /** Memory-only buckets still name a project, but only sessions make a project row. */
  withSessions(sessions: readonly SessionRecord[]): ProjectGroup[] {
    for (const p of this.byBucket.values()) if (!p.label) p.label = p.bucketLabel || 'Claude project';
    return [...this.byBucket.values()].filter((p) => sessions.some((s) => s.projectId === p.id)).map(({ id, label, roots }) => ({ id, label, roots }));
  }
}

/** One listing per per-session root, instead of a probe per session and root. */
function listPerSessionRoots(home: string, warnings: ScanWarning[], log: WalkRecorder): Map<string, string[]> {
  const perSession = new Map<string, string[]>();
  for (const root of PER_SESSION_ROOTS) {
    const dir = join(home, root);
    const st = lstatSyncOrNull(dir);
    if (!st) continue;
    if (st.isSymbolicLink()) {
      warnings.push({ path: dir, reason: `Skipped symlinked Claude Code ${root}/ directory.` });
      continue;
    }
    if (!st.isDirectory()) continue;
    const names = listDirSorted(dir).map((d) => d.name);
    if (names.length) log.listedDir(dir, st, names);
    for (const name of names) {
      const id = root === 'debug' && name.endsWith('.txt') ? name.slice(0, -4) : name;
      if (!UUID.test(id)) continue;
      const key = id.toLowerCase();
      const list = perSession.get(key) ?? [];
      list.push(`${dir}/${name}`);
      perSession.set(key, list);
    }
  }
  return perSession;
}

/** Every transcript read into a session row (or a warning); returns the lower-case ids of the sessions found. */
async function readTranscripts(
  transcripts: readonly Transcript[],
  pass: TranscriptPass,
  inv: Inventory,
  onProgress: (p: ScanProgress) => void,
): Promise<Set<string>> {
  const head = Buffer.allocUnsafe(CLAUDE_HEAD_BYTES);
  const tail = Buffer.allocUnsafe(CLAUDE_TAIL_BYTES);
  const owned = new Set<string>();
  let files = 0;
  let bytes = 0;
  onProgress({ agent: 'claude', phase: 'Reading transcripts', files, bytes });
  for (const t of transcripts) {
    if (files % 256 === 255) await new Promise((r) => setImmediate(r));
    const read = readTranscript(t, pass, head, tail);
    if (!read) continue;
    files++;
    bytes += read.st.size;
    if (files % 500 === 0) onProgress({ agent: 'claude', phase: 'Reading transcripts', files, bytes });
    owned.add(t.id.toLowerCase());
    inv.sessions.push(sessionRow(t, read, pass));
  }
  onProgress({ agent: 'claude', phase: 'Reading transcripts', files, bytes });
  return owned;
}

interface TranscriptRead {
  st: Stats;
  meta: Extract<ReturnType<typeof readClaudeTranscript>, { ok: true }>['meta'];
  archived: boolean;
  /** The session's paths beside its transcript: its folder, per-session roots, temp folders. */
  extra: string[];
  tree: OwnedTree;
}

/** One transcript's head and tail, its owned tree and its sidecars; null (with a warning) when it is skipped. */
function readTranscript(t: Transcript, pass: TranscriptPass, head: Buffer, tail: Buffer): TranscriptRead | null {
  const { ctx, log, warnings } = pass;
  try {
    const r = readHeadTail(t.file, head, tail);
    const st = r.stat;
    if (ctx.uid >= 0 && st.uid !== ctx.uid) {
      warnings.push({ path: t.file, reason: 'Skipped Claude transcript owned by another user.' });
      return null;
    }
    const sessionDir = t.sessionDir ? `${t.bucket}/${t.id}` : null;
    const key = t.id.toLowerCase();
    const extra = [...(sessionDir ? [sessionDir] : []), ...(pass.perSession.get(key) ?? []), ...(pass.temp.bySession.get(key) ?? [])];
    // The transcript's own stat is the fstat of the file just read (no second lstat per transcript). The
    // walk comes before the sidecars: its listing of the session folder says which of them exist at all.
    const tree = walkOwned([t.file, ...extra], { uid: ctx.uid, firstStat: st, log });
    const inDir = sessionDir ? log.listing(log.slotOf(sessionDir))?.names : undefined;
    const headBuf = head.subarray(0, r.headLength);
    const tailBuf = r.tailLength ? tail.subarray(0, r.tailLength) : null;
    const res = readClaudeTranscript(
      headBuf,
      r.headTruncated,
      tailBuf,
      t.id,
      sessionDir && mayHold(inDir, 'custom-title.json') ? sidecarTitle(sessionDir) : undefined,
    );
    if (!res.ok) {
      warnings.push({ path: t.file, reason: SKIPPED_TRANSCRIPT[res.reason] ?? SKIPPED_TRANSCRIPT.unrecognized! });
      return null;
    }
    const archived = sessionDir !== null && mayHold(inDir, 'archived.json') && archivedMark(sessionDir, headBuf, tailBuf);
    return { st, meta: res.meta, archived, extra, tree };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    warnings.push({
      path: t.file,
      reason:
        code === 'ENOENT'
          ? 'Skipped Claude transcript that vanished during the scan.'
          : code === 'ELOOP'
            ? 'Skipped unrecognized or linked Claude transcript.'
            : `Skipped unreadable Claude transcript (${code ?? 'error'}).`,
    });
    return null;
  }
}

/** Why a transcript that was read is not a session, by readClaudeTranscript's reason. */
const SKIPPED_TRANSCRIPT: Record<string, string> = {
  empty: 'Skipped empty Claude transcript.',
  notJson: 'Skipped Claude transcript with no readable JSON rows.',
  sidechain: 'Skipped subagent transcript outside its session folder (Claude does not list it either).',
  unrecognized: 'Skipped Claude transcript with unrecognized session metadata.',
};

function sessionRow(t: Transcript, read: TranscriptRead, pass: TranscriptPass): SessionRecord {
  const { st, meta, archived, extra, tree } = read;
  const g = pass.projects.of(t.bucket, t.bucketKey);
  if (meta.cwd && !g.roots.includes(meta.cwd)) g.roots.push(meta.cwd);
  const activePid = pass.live.activeSessions.get(t.id);
  const blocked = pass.blockAll ?? (activePid ? `Claude Code session is active (pid ${activePid}); quit it first.` : tree.unsafe);
  const s: SessionRecord = {
    id: t.id,
    itemId: sessionItemId(t.id),
    title: meta.title ?? claudeFallbackTitle(t.id),
    named: meta.titleSource === 'custom',
    cwd: meta.cwd,
    projectId: g.id,
    parentId: null,
    deletionDescendantIds: [],
    state: archived ? 'archived' : 'current',
    source: meta.entrypoint ?? 'cli',
    createdAt: meta.createdAt,
    updatedAt: st.mtimeMs,
    bytes: tree.bytes,
    paths: [t.file, ...extra],
    recoverable: true,
    selectable: !blocked,
    blockedReason: blocked,
    metadata: {
      pinned: false,
      requiresAgentExit: true,
      source: meta.entrypoint ?? 'cli',
      ...(tree.revision ? { sourceRevision: tree.revision } : {}),
      // Only a known answer is recorded: retention's --empty must not match a transcript it could not read whole.
      ...(meta.hasUserMessage === null ? {} : { hasUserMessage: meta.hasUserMessage }),
    },
  };
  if (activePid) s.metadata.status = 'active';
  return s;
}

function memoryItem(g: ClaudeProject, dir: string, pass: TranscriptPass): Item {
  const tree = walkOwned([dir], { uid: pass.ctx.uid, log: pass.log });
  const blocked = pass.blockAll ?? tree.unsafe;
  return {
    id: `memory:${g.id}`,
    category: 'memory',
    label: g.label ? `${g.label} memory` : 'Unlinked Claude project memory',
    subtitle: 'Claude Code project auto memory',
    paths: [dir],
    bytes: tree.bytes,
    modifiedAt: tree.newestMtime || undefined,
    risk: 'high',
    recoverable: true,
    selectable: !blocked,
    blockedReason: blocked,
    projectId: g.id,
    metadata: { scope: 'project', requiresAgentExit: true, ...(tree.revision ? { sourceRevision: tree.revision } : {}) },
  };
}

/** What sessions left behind: orphaned per-session paths, the combined roots, unknown entries, temp of gone sessions. */
function leftoverItems(
  home: string,
  listed: ReturnType<typeof listProjects>,
  owned: ReadonlySet<string>,
  pass: TranscriptPass,
  overrides: Map<string, string[]>,
): Item[] {
  const { ctx, log, warnings, blockAll, temp } = pass;
  const items: Item[] = [];
  // A failed read is never evidence of absence (#25): an entry whose transcript is there but could not be read, or any
  // entry at all when the listing itself is incomplete, is unknown, not orphaned: read-only.
  const onDisk = new Set([...listed.transcripts.map((x) => x.id.toLowerCase()), ...listed.linkedIds.map((x) => x.toLowerCase())]);
  const gone = (id: string): boolean => !listed.incomplete && !owned.has(id) && !onDisk.has(id);
  const unknown: string[] = [];
  const orphanable = new Map<string, string[]>();
  for (const [id, paths] of pass.perSession) {
    if (owned.has(id)) continue;
    if (gone(id)) orphanable.set(id, paths);
    else unknown.push(...paths);
  }
  items.push(...orphanItems(orphanable, owned, listed.orphanDirs, blockAll, ctx, log));
  items.push(...combinedItems(home, blockAll, ctx, warnings, overrides, log));
  for (const [id, paths] of temp.bySession) {
    if (owned.has(id)) continue;
    if (gone(id)) temp.rest.push(...paths);
    else unknown.push(...paths);
  }
  if (unknown.length) items.push(unknownSessionItem(unknown, listed.incomplete));
  const tempItem = claudeTempItem(temp.rest, blockAll, ctx, log);
  if (tempItem) items.push(tempItem);
  return items;
}

/**
 * The same session id in two project dirs (a copied or moved transcript):
 * Claude lists only the newest file, so that one is the session and owns the
 * per-session dirs; each older copy is a read-only item, shown, never removed.
 */
function keepNewestOfEachId(inv: Inventory, warnings: ScanWarning[]): Item[] {
  const newest = new Map<string, SessionRecord>();
  for (const s of inv.sessions) {
    const k = newest.get(s.id);
    if (!k || Math.trunc(s.updatedAt ?? 0) > Math.trunc(k.updatedAt ?? 0)) newest.set(s.id, s);
  }
  if (newest.size === inv.sessions.length) return [];
  const items: Item[] = [];
  const kept = new Set(newest.values());
  for (const s of inv.sessions) {
    if (kept.has(s)) continue;
    // The older copy is only what lies in its own project dir; the shared per-session dirs stay with the newest.
    const bucket = s.paths[0]!.slice(0, s.paths[0]!.lastIndexOf('/'));
    const paths = s.paths.filter((p) => p === s.paths[0] || p === join(bucket, s.id));
    const reason = 'Read-only: an older copy of a session whose newer transcript is in another project folder (Claude lists only the newer one).';
    warnings.push({ path: s.paths[0]!, reason });
    items.push({
      id: `duplicate:claude:${s.paths[0]}`,
      category: 'session',
      label: `${s.title} (older copy)`,
      subtitle: 'Another transcript of this session id is newer',
      paths,
      bytes: s.bytes,
      modifiedAt: s.updatedAt ?? undefined,
      risk: 'protected',
      recoverable: false,
      selectable: false,
      blockedReason: reason,
      projectId: s.projectId ?? undefined,
      metadata: {},
    });
  }
  inv.sessions = inv.sessions.filter((s) => kept.has(s));
  return items;
}

function listProjects(
  home: string,
  warnings: ScanWarning[],
  log: WalkRecorder,
): {
  transcripts: Transcript[];
  memoryDirs: { dir: string; bucket: string; bucketKey: string }[];
  orphanDirs: string[];
  /** Why the listing may miss transcripts (a directory that could not be read): then no session is called gone. */
  incomplete?: string;
  /** Session ids of transcripts in linked project directories (not listed, not followed; their names only). */
  linkedIds: string[];
} {
  // Joined once; below, a name from a listing (no separator, never . or ..) is simply appended, as join would.
  const root = join(home, 'projects');
  const transcripts: Transcript[] = [];
  const memoryDirs: { dir: string; bucket: string; bucketKey: string }[] = [];
  /** `projects/<bucket>/<id>/` session dirs (subagents, tool results) with no `<id>.jsonl` beside them. */
  const orphanDirs: string[] = [];
  let incomplete: string | undefined;
  const linkedIds: string[] = [];
  const rootUnreadable = (code: string): void => {
    incomplete ??= `Claude's projects directory could not be read (${code})`;
    warnings.push({ path: root, reason: `Could not read Claude's projects directory (${code}): no session is listed; check its permissions.` });
  };
  // Each listing is kept for the attribution walk (an lstat before it, to know it is still current then); the
  // transcripts' fstats and the walks of session folders fill its entries.
  const rootStat = lstatSyncOrNull(root);
  const buckets = listDirSorted(root, rootUnreadable);
  if (rootStat?.isDirectory() && buckets.length)
    log.listedDir(
      root,
      rootStat,
      buckets.map((b) => b.name),
    );
  for (const b of buckets) {
    const bucket = `${root}/${b.name}`;
    if (b.isSymbolicLink()) {
      warnings.push({ path: bucket, reason: 'Skipped symlinked Claude project directory.' });
      // Its sessions are not listed, but their ids are still known (names only): their data is not called orphaned.
      const linked = listDirSorted(bucket, (code) => {
        incomplete ??= `the linked Claude project directory ${cleanText(b.name, 200)} could not be read (${code})`;
      });
      for (const e of linked) if (e.name.endsWith('.jsonl') && UUID.test(e.name.slice(0, -6))) linkedIds.push(e.name.slice(0, -6));
      continue;
    }
    if (!b.isDirectory()) continue;
    const bucketKey = canonicalPath(bucket);
    const bucketStat = lstatSyncOrNull(bucket);
    const entries = listDirSorted(bucket, (code) => {
      incomplete ??= `the Claude project directory ${cleanText(b.name, 200)} could not be read (${code})`;
      warnings.push({
        path: bucket,
        reason: `Could not read this Claude project directory (${code}): its sessions are not listed; check its permissions.`,
      });
    });
    if (bucketStat?.isDirectory() && entries.length)
      log.listedDir(
        bucket,
        bucketStat,
        entries.map((e) => e.name),
      );
    const dirs = new Set(entries.filter((e) => e.isDirectory()).map((e) => e.name));
    const names = new Set(entries.map((e) => e.name));
    for (const e of entries) {
      const p = `${bucket}/${e.name}`;
      if (e.isDirectory() && UUID.test(e.name) && !names.has(`${e.name}.jsonl`)) {
        orphanDirs.push(p);
        continue;
      }
      if (e.name === 'memory') {
        if (e.isSymbolicLink()) warnings.push({ path: p, reason: 'Skipped symlinked Claude project memory.' });
        else if (e.isDirectory()) memoryDirs.push({ dir: p, bucket, bucketKey });
        continue;
      }
      if (!e.name.endsWith('.jsonl')) continue;
      const stem = e.name.slice(0, -6);
      if (!UUID.test(stem) || e.isSymbolicLink() || !e.isFile()) {
        warnings.push({ path: p, reason: 'Skipped unrecognized or linked Claude transcript.' });
        continue;
      }
      transcripts.push({ id: stem, file: p, bucket, bucketKey, sessionDir: dirs.has(stem) });
    }
  }
  return { transcripts, memoryDirs, orphanDirs, incomplete, linkedIds };
}

/** Per-session entries whose transcript is gone (Claude's own sweep leaves such debris too). */
function orphanItems(
  perSession: Map<string, string[]>,
  owned: ReadonlySet<string>,
  orphanDirs: string[],
  blockAll: string | undefined,
  ctx: HostContext,
  log: WalkRecorder,
): Item[] {
  const byRoot = new Map<string, string[]>();
  if (orphanDirs.length) byRoot.set('projects', orphanDirs);
  for (const [id, paths] of perSession) {
    if (owned.has(id)) continue;
    for (const p of paths) {
      const root = basename(p.slice(0, p.lastIndexOf('/')));
      const list = byRoot.get(root) ?? [];
      list.push(p);
      byRoot.set(root, list);
    }
  }
  const items: Item[] = [];
  for (const root of [...PER_SESSION_ROOTS, 'todos', 'projects'] as const) {
    const paths = byRoot.get(root);
    if (!paths?.length) continue;
    const tree = walkOwned(paths, { uid: ctx.uid, log });
    const blocked = blockAll ?? tree.unsafe;
    items.push({
      id: `orphan:claude:${root}`,
      category: root === 'debug' ? 'log' : 'temporary',
      label: root === 'projects' ? 'projects/ session folders without a transcript' : `${root}/ entries without a transcript`,
      subtitle:
        root === 'projects'
          ? `${paths.length} subagent and tool-result folders whose session no longer exists`
          : `${paths.length} per-session ${root} entries whose session no longer exists`,
      paths,
      bytes: tree.bytes,
      modifiedAt: tree.newestMtime || undefined,
      risk: 'safe',
      recoverable: false,
      selectable: !blocked,
      blockedReason: blocked,
      metadata: { requiresAgentExit: true, regenerable: true, ...(tree.revision ? { sourceRevision: tree.revision } : {}) },
    });
  }
  return items;
}

/** `overrides`: a name's entries when part of it went with sessions (todos), instead of the whole entry. */
function combinedItems(
  home: string,
  blockAll: string | undefined,
  ctx: HostContext,
  warnings: ScanWarning[],
  overrides: ReadonlyMap<string, string[]>,
  log: WalkRecorder,
): Item[] {
  const items: Item[] = [];
  for (const c of COMBINED) {
    const paths: string[] = [];
    for (const n of c.names) {
      const some = overrides.get(n);
      if (some) {
        paths.push(...some);
        continue;
      }
      const p = join(home, n);
      const st = lstatSyncOrNull(p);
      if (!st) continue;
      if (st.isSymbolicLink()) {
        warnings.push({ path: p, reason: `Skipped symlinked ${n} (${c.label}).` });
        continue;
      }
      paths.push(p);
    }
    if (!paths.length) continue;
    const tree = walkOwned(paths, { uid: ctx.uid, log });
    const blocked = blockAll ?? tree.unsafe;
    items.push({
      id: c.id,
      category: c.category,
      label: c.label,
      subtitle: c.subtitle,
      paths,
      bytes: tree.bytes,
      modifiedAt: tree.newestMtime || undefined,
      risk: c.risk,
      recoverable: c.recoverable,
      selectable: !blocked,
      blockedReason: blocked,
      metadata: { requiresAgentExit: true, regenerable: !c.recoverable, ...(tree.revision ? { sourceRevision: tree.revision } : {}) },
    });
  }
  return items;
}

/** `todos/`: the legacy per-session todo lists by session, and its other entries. */
function listTodos(home: string, log: WalkRecorder): { bySession: Map<string, string[]>; files: string[]; other: string[] } {
  const out = { bySession: new Map<string, string[]>(), files: [] as string[], other: [] as string[] };
  const dir = join(home, 'todos');
  const st = lstatSyncOrNull(dir);
  if (!st?.isDirectory()) return out;
  const entries = listDirSorted(dir);
  if (entries.length)
    log.listedDir(
      dir,
      st,
      entries.map((d) => d.name),
    );
  for (const d of entries) {
    const p = `${dir}/${d.name}`;
    const m = TODO_FILE.exec(d.name);
    if (!m || !d.isFile()) {
      out.other.push(p);
      continue;
    }
    const key = m[1]!.toLowerCase();
    out.files.push(p);
    out.bySession.set(key, [...(out.bySession.get(key) ?? []), p]);
  }
  return out;
}

/**
 * While Claude runs, its sessions are blocked whole; the output of their
 * finished background tasks (older than the session's last activity, held
 * open by no process) is an item of its own, offered while Claude runs. The
 * cost is that the session can no longer read that output back.
 */
async function finishedTaskItems(sessions: readonly SessionRecord[], bySession: ReadonlyMap<string, string[]>, ctx: HostContext): Promise<Item[]> {
  const found: { s: SessionRecord; files: string[] }[] = [];
  for (const s of sessions) {
    const dirs = bySession.get(s.id.toLowerCase());
    const files = dirs && s.updatedAt ? finishedTaskOutputs(dirs, s.updatedAt, ctx.uid) : [];
    if (files.length) found.push({ s, files });
  }
  if (!found.length) return [];
  const held = new Set(
    (
      await fileHolders(
        found.flatMap((f) => f.files),
        ctx.procRoot,
      )
    ).map((h) => h.path),
  );
  const items: Item[] = [];
  for (const { s, files } of found) {
    const free = files.filter((f) => !held.has(f));
    if (!free.length) continue;
    const tree = walkOwned(free, { uid: ctx.uid });
    items.push({
      id: `${FINISHED_TASKS_PREFIX}${s.id}`,
      category: 'temporary',
      label: `Finished task output · ${s.title}`,
      subtitle: `${free.length} background task output file${free.length === 1 ? '' : 's'} of a session in use, written before its last activity and open in no process`,
      paths: free,
      bytes: tree.bytes,
      modifiedAt: tree.newestMtime || undefined,
      risk: 'review',
      recoverable: false,
      selectable: !tree.unsafe,
      blockedReason: tree.unsafe,
      projectId: s.projectId ?? undefined,
      metadata: {
        requiresAgentExit: false,
        sessionId: s.id,
        files: free.length,
        agentLoses: 'the output of finished background tasks: the session can no longer read it back',
        ...(tree.revision ? { sourceRevision: tree.revision } : {}),
      },
    });
  }
  return items;
}

/** The per-session entries of sessions whose existence could not be read: listed, never offered. */
function unknownSessionItem(paths: string[], incomplete: string | undefined): Item {
  const tree = walkOwned(paths, { uid: -1, maxEntries: 200_000 });
  return {
    id: 'protected:claude:session-data-unknown',
    category: 'protected',
    label: 'Session data whose transcript could not be read',
    subtitle: `${paths.length} per-session entries; whether their sessions still exist is unknown`,
    paths,
    bytes: tree.bytes,
    modifiedAt: tree.newestMtime || undefined,
    risk: 'protected',
    recoverable: false,
    selectable: false,
    blockedReason: `${incomplete ? `The session list is incomplete: ${incomplete}` : 'Their transcripts are on disk but could not be read'}; a failed read is never taken for a deleted session.`,
    metadata: { protected: false },
  };
}

/** Item ids of a running session's finished task output: the prefix and the session id. */
export const FINISHED_TASKS_PREFIX = 'claude-task-output:';

/**
 * What of Claude's temp roots no session took: task output of sessions whose
 * folder does not name them, and the daemon's files. Sized by lstat alone.
 */
function claudeTempItem(paths: string[], blockAll: string | undefined, ctx: HostContext, log: WalkRecorder): Item | null {
  if (!paths.length) return null;
  const tree = walkOwned(paths, { uid: ctx.uid, log });
  const blocked = blockAll ?? tree.unsafe;
  return {
    id: 'claude-temp',
    category: 'temporary',
    label: 'Claude Code temp files',
    subtitle: 'Background task output and daemon files in the temp dir (claude-<uid>/, cc-daemon-<uid>/)',
    paths,
    bytes: tree.bytes,
    modifiedAt: tree.newestMtime || undefined,
    risk: 'safe',
    recoverable: false,
    selectable: !blocked,
    blockedReason: blocked,
    metadata: { requiresAgentExit: true, regenerable: false, ...(tree.revision ? { sourceRevision: tree.revision } : {}) },
  };
}

/** Protected configuration and everything not recognized: listed by name, never opened, never selectable. */
function readOnlyItems(home: string, ctx: HostContext, warnings: ScanWarning[], log: WalkRecorder, offered: readonly string[] = []): Item[] {
  const items: Item[] = [];
  const targeted = new Set(COMBINED.flatMap((c) => c.names));
  const add = (name: string, p: string, kind: 'protected' | 'known' | 'unknown'): void => {
    const st = lstatSyncOrNull(p);
    if (!st) return;
    const link = st.isSymbolicLink();
    if (link) warnings.push({ path: p, reason: `Claude Code entry ${name} is a symbolic link; not followed.` });
    // An entry some items were carved out of (the plugin cache) protects the rest of it, not the carved paths.
    const paths = !link && st.isDirectory() && offered.some((o) => o.startsWith(`${p}/`)) ? keptAround(p, offered) : [p];
    // This lstat is the walk's first (the same fields), and a file's is kept for the attribution walk.
    const size = link
      ? 0
      : paths.length !== 1 || paths[0] !== p
        ? walkOwned(paths, { uid: -1, maxEntries: 200_000, log }).bytes
        : st.isDirectory()
          ? walkOwned([p], { uid: -1, maxEntries: 200_000, firstStat: st, log }).bytes
          : st.blocks * 512;
    if (link || !st.isDirectory()) log.root(p, st);
    items.push({
      id: `protected:claude:${name}`,
      category: 'protected',
      label: name,
      subtitle:
        kind === 'protected'
          ? 'Protected Claude Code configuration; never opened or removed'
          : kind === 'known'
            ? 'Claude Code state that cleanerx reports but does not clean'
            : 'Not a recognized Claude Code path; cleanerx never guesses',
      paths,
      bytes: size,
      modifiedAt: st.mtimeMs,
      risk: 'protected',
      recoverable: false,
      selectable: false,
      blockedReason:
        kind === 'protected'
          ? 'Protected: credentials, configuration and rules are never cleaned.'
          : kind === 'known'
            ? 'Reported only.'
            : 'Not recognized — not a Claude Code path cleanerx knows; it never guesses.',
      metadata: { protected: kind === 'protected', ...(kind === 'unknown' ? { unrecognized: true } : {}) },
    });
  };
  for (const name of CLAUDE_PROTECTED) if (name !== '.claude.json') add(name, join(home, name), 'protected');
  // ~/.claude.json sits beside the default home; with CLAUDE_CONFIG_DIR it moves inside it.
  const globalJson = ctx.env.CLAUDE_CONFIG_DIR ? join(home, '.claude.json') : join(homeOf(ctx.env), '.claude.json');
  add('.claude.json', globalJson, 'protected');
  for (const d of listDirSorted(home)) {
    if (CLAUDE_PROTECTED.includes(d.name) || targeted.has(d.name) || d.name.startsWith('.claude.json')) continue;
    if (d.name === 'projects' || (PER_SESSION_ROOTS as readonly string[]).includes(d.name)) continue;
    add(d.name, join(home, d.name), KNOWN_OTHER.has(d.name) ? 'known' : 'unknown');
  }
  return items;
}

/** Whether a folder may hold `name`: its listing has it, or there is no listing to ask (then the open says). */
function mayHold(names: readonly string[] | undefined, name: string): boolean {
  return names === undefined || names.includes(name);
}

function readHeadTail(file: string, head: Buffer, tail: Buffer): { stat: Stats; headLength: number; headTruncated: boolean; tailLength: number } {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw Object.assign(new Error('not a regular file'), { code: 'ENOTFILE' });
    const headLength = readAtSync(fd, head, Math.min(head.length, stat.size), 0);
    let tailLength = 0;
    // Exactly the last CLAUDE_TAIL_BYTES, as Claude reads them: its first line may be cut.
    if (stat.size > head.length) tailLength = readAtSync(fd, tail, tail.length, stat.size - tail.length);
    return { stat, headLength, headTruncated: stat.size > headLength, tailLength };
  } finally {
    closeSync(fd);
  }
}

/**
 * Claude's archive mark (archiveSession writes `<bucket>/<id>/archived.json`):
 * archived unless a prompt was sent after it, as listSessions() decides.
 */
function archivedMark(dir: string, head: Buffer, tail: Buffer | null): boolean {
  let rec: Record<string, unknown> | undefined;
  try {
    rec = parseObject(readRegularText(join(dir, 'archived.json'), ARCHIVE_MARK_BYTES));
  } catch {
    return false;
  }
  if (rec?.archived !== true || typeof rec.at !== 'string') return false;
  const at = Date.parse(rec.at);
  if (Number.isNaN(at)) return false;
  return !promptAfter(head, at) && !(tail && promptAfter(tail, at));
}

/** Claude Code's own title sidecar, `<bucket>/<id>/custom-title.json` ({"customTitle": …}); anything else is no title. */
function sidecarTitle(dir: string): string | undefined {
  let rec: Record<string, unknown> | undefined;
  try {
    rec = parseObject(readRegularText(join(dir, 'custom-title.json'), TITLE_SIDECAR_BYTES));
  } catch {
    return undefined;
  }
  return typeof rec?.customTitle === 'string' ? rec.customTitle.trim() || undefined : undefined;
}

function promptAfter(buf: Buffer, at: number): boolean {
  for (const line of buf.toString('utf8').split('\n')) {
    if (!line.includes('"user"') || line.includes('"tool_result"')) continue;
    const v = parseObject(line);
    if (!v || v.type !== 'user' || v.isMeta === true || v.isCompactSummary === true || typeof v.timestamp !== 'string') continue;
    const origin = v.origin as { kind?: unknown } | undefined;
    if (origin && typeof origin === 'object' && origin.kind !== 'human') continue;
    if (Date.parse(v.timestamp) > at) return true;
  }
  return false;
}
