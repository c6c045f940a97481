// Inventory of a pi agent directory: sessions/--<cwd>--/*.jsonl, the model
// catalog cache, and the protected configuration listed by name only.
//
// Every file pi's own lister shows is a row. What cleanerx must not touch
// stays visible as a read-only row with its reason: a symbolic link (a bucket
// or a session file; pi 1.x follows both, 0.73 only file links) is described
// from lstat and readlink alone, never followed, never removed; a second file
// with an id already held is shown from its own contents, never removed.

import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, openSync, readlinkSync, type Stats } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { HostContext } from '../../engine/core/adapter.js';
import { allocatedBytes, canonicalPath, listDirSorted, lstatOrNull, lstatSyncOrNull, readAtSync } from '../../engine/host/fsx.js';
import { fileRevision, WalkRecorder, walkOwned } from '../../engine/inventory/revision.js';
import { sessionItemId, uuidv5Url } from '../../engine/core/ids.js';
import type { Installation, Inventory, Item, ProjectGroup, ScanProgress, ScanWarning, SessionRecord } from '../../engine/core/model.js';
import { cleanText } from '../../engine/core/text.js';
import { checkHome } from '../shared/home.js';
import { PI_PREFIX_BYTES, PI_TAIL_BYTES, piTitle, readPiSession } from './session-reader.js';
import { scanPiWriters } from './writers.js';
import { ReadIndex } from './read-index.js';
import { attachCheckpoints } from './forward-layouts.js';

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

/** One bucket directory; its files are listed when the scan reaches it (first rows before the whole listing). */
interface Bucket {
  dir: string;
  key: string;
}

/** A file that could not become a session; reported in the final pass. */
interface Failure {
  file: string;
  reason: string;
}

/** A session that names a parent file; resolved once every file is known. */
interface ParentRef {
  session: SessionRecord;
  ref: string;
  base: string;
}

export const PI_LINK_REASON = 'A symbolic link: never followed, never removed.';
const PI_DUPLICATE_REASON = 'Another pi session file holds the same session ID: this copy is read-only, never removed.';

/** A symbolic link where pi expects a bucket or a session file. */
interface LinkEntry {
  path: string;
  /** The bucket the link is in (a session file link), or -1 (the link is a bucket). */
  bucket: number;
}

/** Shared by every record: nothing in the engine adds to a pi session's deletion set. */
const NO_DESCENDANTS = Object.freeze([]) as unknown as string[];

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
  const bucketKeys = new Map(buckets.map((b) => [b.dir, b.key]));
  // Records are built as files are read (the partial inventory shows them while
  // the scan runs); the duplicate and parent rules need every file, so they run
  // after the loop over these arrays, in the same order as before.
  const reads: (SessionRecord | Failure | null)[] = [];
  // The final pass visits the reads pi named for their id first, then the others (failures too), each in read order:
  // the few others are listed, and each bucket's reads are one run ending at its bucketEnd (no number per read).
  const unnamed: number[] = [];
  const bucketEnd: number[] = [];
  const parentRefs: ParentRef[] = [];
  // A record by its canonical path: `file` itself, or (a bucket whose path holds a link) the key listed here.
  const canonOf = new Map<number, string>();
  const byPath = new ReadIndex((i) => canonOf.get(i) ?? (reads[i] as SessionRecord).paths[0]!);
  const recByPath = (canon: string): SessionRecord | undefined => {
    const at = byPath.find(canon);
    return at < 0 ? undefined : (reads[at] as SessionRecord);
  };
  const projectIds = buckets.map((b) => uuidv5Url(b.key));
  // cwd strings repeat across a project's sessions: one copy each, cleaned once.
  const cwds = new Map<string, string>();
  const cleanRoots = new Map<string, string>();

  // What the partial inventory shows: the reads' records, but a repeated id only at its first read (the final pass
  // decides); the later copies are listed here instead of a second array of every record.
  const liveIds = new ReadIndex((i) => (reads[i] as SessionRecord).id);
  const shadowed = new Set<SessionRecord>();
  let liveCount = 0;
  const liveProjects = new Map<number, ProjectGroup>();
  let pendingRefs: ParentRef[] = [];
  const partial = (): Inventory => {
    // Parents read so far are linked; the rest stay roots until the final pass.
    pendingRefs = pendingRefs.filter((r) => {
      const abs = resolve(r.base, r.ref);
      const key = bucketKeys.get(dirname(abs));
      const parent = key === undefined ? undefined : recByPath(join(key, basename(abs)));
      if (!parent) return true;
      if (parent !== r.session && liveIds.find(parent.id) >= 0) r.session.parentId = parent.id;
      return false;
    });
    const sessions = reads.slice() as SessionRecord[];
    let k = 0;
    for (const r of reads) if (r && 'id' in r && !shadowed.has(r)) sessions[k++] = r;
    sessions.length = k;
    return { sessions, items: [], projects: [...liveProjects.values()], warnings: [], writers: inv.writers };
  };

  let files = 0;
  let bytes = 0;
  let lastProgress = 0;
  const progress = (withPartial: boolean): void => {
    lastProgress = performance.now();
    onProgress({ agent: 'pi', phase: 'Reading sessions', files, bytes, ...(withPartial && liveCount ? { partial } : {}) });
  };
  progress(false);

  const buf = Buffer.allocUnsafe(PI_PREFIX_BYTES);
  const tail = Buffer.allocUnsafe(PI_TAIL_BYTES + 1);
  // Tests only (CLEANERX_TEST_MODE=1): a pause every 50 files makes a small store scan slowly,
  // so a PTY test can see the rows of a scan that is still running.
  const testPauseMs = ctx.env.CLEANERX_TEST_MODE === '1' ? Number(ctx.env.CLEANERX_TEST_SCAN_PAUSE_MS) || 0 : 0;
  let lastYield = performance.now();
  for (let bi = 0; bi < buckets.length; bi++) {
    const b = buckets[bi]!;
    const projectId = projectIds[bi]!;
    const listed = listSessionNames(b.dir, bi, links, warnings, log);
    for (let ni = 0; ni < listed.names.length; ni++) {
      const name = listed.names[ni]!;
      // Let pages, progress and other engine calls through every ~20 ms of work.
      if ((reads.length & 31) === 31 && performance.now() - lastYield > 20) {
        await new Promise((r) => setImmediate(r));
        lastYield = performance.now();
      }
      if (testPauseMs && reads.length % 50 === 49) await new Promise((r) => setTimeout(r, testPauseMs));
      // b.dir is normalized and a listed name has no slash: join's normalization would only cost (11k calls).
      const file = `${b.dir}/${name}`;
      try {
        const prefix = readHeadTail(file, buf, tail);
        if (ctx.uid >= 0 && prefix.stat.uid !== ctx.uid) {
          warnings.push({ path: file, reason: 'Skipped pi session file owned by another user.' });
          unnamed.push(reads.length);
          reads.push(null);
          continue;
        }
        files++;
        bytes += prefix.stat.size;
        if (listed.first >= 0) {
          // The fstat of the file opened without following a link: what the attribution walk's lstat would see.
          log.put(listed.first + listed.at[ni]!, prefix.stat);
          // The listing's name as a slice of the record's own path (which `file` is): the log then holds no second
          // copy of every name until the attribution walk drops it (~10 MiB at 100k sessions).
          listed.all[listed.at[ni]!] = file.slice(b.dir.length + 1);
        }
        const result = readPiSession(buf.subarray(0, prefix.length), prefix.truncated, prefix.tailLength ? tail.subarray(0, prefix.tailLength) : null);
        if (!result.ok) {
          unnamed.push(reads.length);
          reads.push({ file, reason: result.reason === 'empty' ? 'Skipped empty pi session file.' : 'Skipped pi session file with an unrecognized header.' });
        } else {
          const h = result.header;
          let cwd = h.cwd;
          if (cwd !== null) {
            const known = cwds.get(cwd);
            if (known === undefined) cwds.set(cwd, cwd);
            else cwd = known;
          }
          // One flat `session:<id>` and the id as a slice of it: 96 bytes a record, not 152 (the parsed id, plus
          // the item id's cons string and the flat copy the first comparison would make of it).
          const itemId = ['session:', h.id].join('');
          const s: SessionRecord = {
            id: itemId.slice(8),
            itemId,
            title: piTitle(result),
            named: result.name !== null,
            cwd,
            projectId,
            parentId: null,
            deletionDescendantIds: NO_DESCENDANTS,
            state: 'current',
            source: 'cli',
            createdAt: h.timestamp,
            // pi's `modified`: the last message's time, else the header's, else the file's mtime.
            updatedAt: result.lastActivity ?? h.timestamp ?? prefix.stat.mtimeMs,
            bytes: allocatedBytes(prefix.stat),
            paths: [file],
            recoverable: true,
            selectable: !blockAll,
            blockedReason: blockAll,
            // The revision walkOwned([file]) would compute, from the fstat of the open file (O_NOFOLLOW,
            // owner checked above): the engine need not walk 100k files again after the scan.
            metadata: blockAll
              ? { pinned: false, requiresAgentExit: true, source: 'cli' }
              : { pinned: false, requiresAgentExit: true, source: 'cli', sourceRevision: fileRevision(file, prefix.stat) },
          };
          // Only a known answer is recorded: retention's --empty rule must not match a session it could not read whole.
          // Assigned, not spread into the literal: no temporary object per record.
          if (result.hasUserMessage !== null) s.metadata.hasUserMessage = result.hasUserMessage;
          // When a copy repeats a session id, the file pi named for that id is the session.
          if (!name.endsWith(`_${h.id}.jsonl`)) unnamed.push(reads.length);
          reads.push(s);
          // The key is the canonical path; without a link in the bucket's path that is `file` itself (no second string).
          const at = reads.length - 1;
          if (b.key === b.dir) byPath.set(file, at);
          else {
            const canon = join(b.key, name);
            canonOf.set(at, canon);
            byPath.set(canon, at);
          }
          if (h.parentSession) {
            const ref = { session: s, ref: h.parentSession, base: h.cwd ?? b.dir };
            parentRefs.push(ref);
            pendingRefs.push(ref);
          }
          if (liveIds.find(s.id) >= 0) shadowed.add(s);
          else {
            liveIds.set(s.id, at);
            liveCount++;
            if (!liveProjects.has(bi)) liveProjects.set(bi, { id: projectId, label: provisionalLabel(cwd, b.dir), roots: [] });
          }
        }
        // The first hundred sessions are offered at once (first rows), then every 500 files or 100 ms.
        if (files % 500 === 0 || liveCount === 100 || (liveCount > 0 && performance.now() - lastProgress > 100)) progress(true);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        unnamed.push(reads.length);
        reads.push(null);
        warnings.push({
          path: file,
          reason:
            code === 'ENOENT'
              ? 'Skipped pi session file that vanished during the scan.'
              : code === 'ELOOP'
                ? 'Skipped pi session file that is a symbolic link.'
                : code === 'ENOTFILE'
                  ? 'Skipped pi session entry that is not a regular file.'
                  : `Skipped unreadable pi session file (${code ?? 'error'}).`,
        });
      }
    }
    bucketEnd.push(reads.length);
  }
  progress(false);
  liveIds.clear();
  shadowed.clear();

  // The sessions in their final order, by id, as a Map's values would be (a later record for an id takes its place).
  const sessions: SessionRecord[] = [];
  const sessionAt = new ReadIndex((i) => sessions[i]!.id);
  const byId = {
    get: (id: string): SessionRecord | undefined => {
      const at = sessionAt.find(id);
      return at < 0 ? undefined : sessions[at];
    },
    has: (id: string): boolean => sessionAt.find(id) >= 0,
    set: (id: string, rec: SessionRecord): void => {
      const at = sessionAt.find(id);
      if (at >= 0) sessions[at] = rec;
      else sessionAt.set(id, sessions.push(rec) - 1);
    },
  };
  const projects = new Map<number, ProjectGroup & { bucketLabel: string }>();
  const copies = new Map<SessionRecord, SessionRecord>();
  const settle = (i: number, bi: number): void => {
    const r = reads[i];
    if (!r) return;
    if (!('id' in r)) {
      warnings.push({ path: r.file, reason: r.reason });
      return;
    }
    let rec = r;
    if (byId.has(r.id)) {
      // pi lists both files; the one pi named for the id is the session, this one a read-only row of its own
      // (a new record: the partial inventory may have shown `r` under the plain id).
      const id = `${r.id}#${shortHash(r.paths[0]!)}`;
      rec = {
        ...r,
        id,
        itemId: sessionItemId(id),
        selectable: false,
        blockedReason: PI_DUPLICATE_REASON,
        recoverable: false,
        metadata: { pinned: false, requiresAgentExit: true, source: 'cli', readOnly: true },
      };
      copies.set(r, rec);
    }
    let project = projects.get(bi);
    if (!project) {
      project = { id: projectIds[bi]!, label: '', roots: [], bucketLabel: cleanText(basename(buckets[bi]!.dir), 200) };
      projects.set(bi, project);
    }
    if (r.cwd) {
      let root = cleanRoots.get(r.cwd);
      if (root === undefined) {
        root = cleanText(r.cwd, 4096);
        cleanRoots.set(r.cwd, root);
      }
      if (root && !project.roots.includes(root)) project.roots.push(root);
    }
    byId.set(rec.id, rec);
  };
  for (let i = 0, u = 0, bi = 0; i < reads.length; i++) {
    if (u < unnamed.length && unnamed[u] === i) {
      u++;
      continue;
    }
    while (bucketEnd[bi]! <= i) bi++;
    settle(i, bi);
  }
  for (let u = 0, bi = 0; u < unnamed.length; u++) {
    const i = unnamed[u]!;
    while (bucketEnd[bi]! <= i) bi++;
    settle(i, bi);
  }

  // parentSession is a file path (possibly relative, possibly stale): it names a
  // parent only when it resolves to a file this scan inventoried.
  const sessionsRoot = canonicalPath(join(home, 'sessions'));
  for (const pr of parentRefs) {
    const { ref, base } = pr;
    const session = copies.get(pr.session) ?? pr.session;
    // A provisional link is decided again here, against the final set.
    session.parentId = null;
    if (byId.get(session.id) !== session) continue;
    const abs = resolve(base, ref);
    // Most references name a file in a bucket this scan listed: map those without a realpath per fork.
    const listed = bucketKeys.get(dirname(abs));
    const canon = listed !== undefined ? join(listed, basename(abs)) : canonicalPath(abs);
    const found = canon.startsWith(sessionsRoot + '/') ? recByPath(canon) : undefined;
    const parent = found && (copies.get(found) ?? found);
    if (parent && byId.get(parent.id) === parent && parent.id !== session.id) session.parentId = parent.id;
    // A fork whose parent file no longer exists is the leftover of a deleted session (retention's --orphans).
    // A parent that exists but is no session here (unreadable, another user's) is not gone.
    else if (!found && parentFileGone(abs)) {
      session.metadata.missingParentId = cleanText(basename(abs), 256) || '?';
      // pi names each session's file <time>_<session id>.jsonl: the gone parent's id, for scan --json's recordedParentId.
      const id = /^[^_/]+_([0-9a-f-]{8,64})\.jsonl$/i.exec(basename(abs))?.[1];
      if (id) session.metadata.missingParentSessionId = id;
    }
  }

  const linkedProjects: ProjectGroup[] = [];
  for (const l of links) {
    const s = linkRecord(l, l.bucket >= 0 ? projectIds[l.bucket]! : uuidv5Url(l.path), warnings);
    if (!s) continue;
    if (l.bucket >= 0 && !projects.has(l.bucket)) {
      projects.set(l.bucket, { id: projectIds[l.bucket]!, label: '', roots: [], bucketLabel: cleanText(basename(buckets[l.bucket]!.dir), 200) });
    }
    // A linked bucket is a project of its own, labelled by its name (its sessions are never read).
    if (l.bucket < 0) linkedProjects.push({ id: s.projectId!, label: cleanText(basename(l.path), 200) || 'pi project', roots: [] });
    byId.set(s.id, s);
  }

  for (const p of projects.values()) {
    const first = p.roots[0];
    p.label = first ? (first === '/' ? 'Global' : cleanText(basename(first), 200)) : p.bucketLabel || 'pi project';
  }
  inv.sessions = sessions;
  inv.projects = [...[...projects.values()].map(({ id, label, roots }) => ({ id, label, roots })), ...linkedProjects];
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

/** A project's label while the scan runs (the final pass recomputes it from every root). */
function provisionalLabel(cwd: string | null, bucketDir: string): string {
  if (cwd) return cwd === '/' ? 'Global' : cleanText(basename(cwd), 200);
  return cleanText(basename(bucketDir), 200) || 'pi project';
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

/** A bucket's session files in name order, each one's index in the whole listing, and the listing's first slot in the walk log (-1: none). */
interface BucketListing {
  names: string[];
  at: number[];
  first: number;
  /** Every name of the listing, as the log holds it. */
  all: string[];
}

/**
 * The session file names of one bucket, sorted; links go to `links`, non-files are warned about and left out.
 * The bucket is lstat'ed before it is listed and both go to `log`: the attribution walk reuses the listing only
 * while the bucket still has that identity (an entry added, removed or renamed since changes its mtime).
 */
function listSessionNames(dir: string, bucket: number, links: LinkEntry[], warnings: ScanWarning[], log: WalkRecorder): BucketListing {
  const out: BucketListing = { names: [], at: [], first: -1, all: [] };
  const unreadable = (code: string): void =>
    void warnings.push({ path: dir, reason: `Could not read this pi session bucket (${code}): its sessions are not listed; check its permissions.` });
  const st = lstatSyncOrNull(dir);
  const entries = listDirSorted(dir, unreadable);
  if (st?.isDirectory() && entries.length) {
    out.first = log.reserve(entries.length);
    out.all = entries.map((e) => e.name);
    log.listed(log.root(dir, st), out.all, out.first);
  }
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    if (!e.name.endsWith('.jsonl')) continue;
    if (e.isFile()) {
      out.names.push(e.name);
      out.at.push(i);
      continue;
    }
    const file = join(dir, e.name);
    if (e.isSymbolicLink()) links.push({ path: file, bucket });
    else warnings.push({ path: file, reason: 'Skipped pi session entry that is not a regular file.' });
  }
  return out;
}

/** A short stable tag that tells two rows of one pi session id apart. */
function shortHash(path: string): string {
  return createHash('sha256').update(path).digest('hex').slice(0, 8);
}

/**
 * A read-only row for a symbolic link, from lstat and readlink only: the link
 * is never followed (its target may be outside the store, a FIFO, another
 * user's file), so the row shows the link's name and target, not pi's title.
 */
function linkRecord(l: LinkEntry, projectId: string, warnings: ScanWarning[]): SessionRecord | null {
  let st: Stats;
  let target: string;
  try {
    st = lstatSync(l.path);
    if (!st.isSymbolicLink()) throw Object.assign(new Error('replaced'), { code: 'ECHANGED' });
    target = readlinkSync(l.path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    warnings.push({
      path: l.path,
      reason:
        code === 'ENOENT'
          ? 'Skipped pi session entry that vanished during the scan.'
          : `Skipped pi session link that changed or could not be read (${code ?? 'error'}).`,
    });
    return null;
  }
  const kind = l.bucket < 0 ? 'Linked pi project folder' : 'Linked pi session';
  const id = `link:${shortHash(l.path)}`;
  return {
    id,
    itemId: sessionItemId(id),
    title: `${kind} ${cleanText(basename(l.path), 120)} → ${cleanText(target, 200)}`,
    named: false,
    cwd: null,
    projectId,
    parentId: null,
    deletionDescendantIds: NO_DESCENDANTS,
    state: 'current',
    source: 'cli',
    createdAt: null,
    updatedAt: st.mtimeMs,
    bytes: 0,
    paths: [l.path],
    recoverable: false,
    selectable: false,
    blockedReason: PI_LINK_REASON,
    metadata: { pinned: false, requiresAgentExit: true, source: 'cli', readOnly: true, symlink: true },
  };
}

/** The head of a session file and, when it is longer, its last PI_TAIL_BYTES (+1: whether the tail's first line is whole). */
function readHeadTail(file: string, head: Buffer, tail: Buffer): { stat: Stats; length: number; truncated: boolean; tailLength: number } {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw Object.assign(new Error('not a regular file'), { code: 'ENOTFILE' });
    const length = readAtSync(fd, head, Math.min(head.length, stat.size), 0);
    let tailLength = 0;
    if (stat.size > length) {
      const want = Math.min(tail.length, stat.size - length + 1);
      tailLength = readAtSync(fd, tail, want, stat.size - want);
    }
    return { stat, length, truncated: stat.size > length, tailLength };
  } finally {
    closeSync(fd);
  }
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

/** Whether a fork's parent file is gone: lstat only (the path is outside data; never opened, never followed). */
function parentFileGone(abs: string): boolean {
  try {
    lstatSync(abs);
    return false;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR';
  }
}
