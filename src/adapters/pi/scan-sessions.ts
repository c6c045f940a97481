// The first pass of the pi scan: every bucket's session files, read by
// their head and tail (O_NOFOLLOW, owner checked) into records as they are
// read, so the partial inventory shows rows while the scan runs. What needs
// every file (a repeated id, a parent's file) is decided afterwards, in
// scan-settle.ts, from the reads kept here in read order.

import { closeSync, constants, fstatSync, openSync, type Stats } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { HostContext } from '../../engine/core/adapter.js';
import { allocatedBytes, listDirSorted, lstatSyncOrNull, readAtSync } from '../../engine/host/fsx.js';
import { fileRevision, type WalkRecorder } from '../../engine/inventory/revision.js';
import { uuidv5Url } from '../../engine/core/ids.js';
import type { Inventory, ProjectGroup, ScanProgress, ScanWarning, SessionRecord, Writer } from '../../engine/core/model.js';
import { cleanText } from '../../engine/core/text.js';
import { PI_PREFIX_BYTES, PI_TAIL_BYTES, piTitle, readPiSession } from './session-reader.js';
import { ReadIndex } from './read-index.js';

/** One bucket directory; its files are listed when the scan reaches it (first rows before the whole listing). */
export interface Bucket {
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

/** A symbolic link where pi expects a bucket or a session file. */
export interface LinkEntry {
  path: string;
  /** The bucket the link is in (a session file link), or -1 (the link is a bucket). */
  bucket: number;
}

/** Shared by every record: nothing in the engine adds to a pi session's deletion set. */
export const NO_DESCENDANTS = Object.freeze([]) as unknown as string[];

/** What the first pass hands the final one. */
export interface SessionReads {
  /** Every listed file in read order: its record, why it is no session, or null (warned about already). */
  reads: (SessionRecord | Failure | null)[];
  /** The reads pi did not name for their id (failures too), ascending: the final pass visits them last. */
  unnamed: number[];
  /** Per bucket, the end of its run of reads. */
  bucketEnd: number[];
  parentRefs: ParentRef[];
  /** A bucket's listed path → its canonical path. */
  bucketKeys: Map<string, string>;
  projectIds: string[];
  /** A record by its canonical path. */
  recByPath(canon: string): SessionRecord | undefined;
}

export interface ReadOptions {
  ctx: HostContext;
  buckets: Bucket[];
  links: LinkEntry[];
  warnings: ScanWarning[];
  log: WalkRecorder;
  blockAll: string | undefined;
  writers: Writer[];
  onProgress: (p: ScanProgress) => void;
}

/** The records as read; a repeated id shown only at its first read (the final pass decides); parents read so far linked. */
class LiveView {
  private readonly liveIds: ReadIndex;
  private readonly shadowed = new Set<SessionRecord>();
  private readonly projects = new Map<number, ProjectGroup>();
  private pendingRefs: ParentRef[] = [];
  count = 0;

  constructor(
    private readonly r: SessionReads,
    private readonly writers: Writer[],
  ) {
    this.liveIds = new ReadIndex((i) => (r.reads[i] as SessionRecord).id);
  }

  add(s: SessionRecord, at: number, bi: number, cwd: string | null, dir: string, ref: ParentRef | null): void {
    if (ref) this.pendingRefs.push(ref);
    if (this.liveIds.find(s.id) >= 0) this.shadowed.add(s);
    else {
      this.liveIds.set(s.id, at);
      this.count++;
      if (!this.projects.has(bi)) this.projects.set(bi, { id: this.r.projectIds[bi]!, label: provisionalLabel(cwd, dir), roots: [] });
    }
  }

  readonly partial = (): Inventory => {
    const { reads, bucketKeys, recByPath } = this.r;
    // Parents read so far are linked; the rest stay roots until the final pass.
    this.pendingRefs = this.pendingRefs.filter((r) => {
      const abs = resolve(r.base, r.ref);
      const key = bucketKeys.get(dirname(abs));
      const parent = key === undefined ? undefined : recByPath(join(key, basename(abs)));
      if (!parent) return true;
      if (parent !== r.session && this.liveIds.find(parent.id) >= 0) r.session.parentId = parent.id;
      return false;
    });
    const sessions = reads.slice() as SessionRecord[];
    let k = 0;
    for (const r of reads) if (r && 'id' in r && !this.shadowed.has(r)) sessions[k++] = r;
    sessions.length = k;
    return { sessions, items: [], projects: [...this.projects.values()], warnings: [], writers: this.writers };
  };

  clear(): void {
    this.liveIds.clear();
    this.shadowed.clear();
  }
}

/** Reads every bucket's session files in order; rows offered to `onProgress` as they come. */
export async function readSessionFiles(o: ReadOptions): Promise<SessionReads> {
  const { ctx, buckets, links, warnings, log, blockAll } = o;
  const reads: (SessionRecord | Failure | null)[] = [];
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
  const out: SessionReads = { reads, unnamed, bucketEnd, parentRefs, bucketKeys: new Map(buckets.map((b) => [b.dir, b.key])), projectIds, recByPath };
  // cwd strings repeat across a project's sessions: one copy each, cleaned once.
  const cwds = new Map<string, string>();
  const live = new LiveView(out, o.writers);

  let files = 0;
  let bytes = 0;
  let lastProgress = 0;
  const progress = (withPartial: boolean): void => {
    lastProgress = performance.now();
    o.onProgress({ agent: 'pi', phase: 'Reading sessions', files, bytes, ...(withPartial && live.count ? { partial: live.partial } : {}) });
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
          const s = sessionRecordOf(result, prefix.stat, file, cwd, projectId, blockAll);
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
          const ref = h.parentSession ? { session: s, ref: h.parentSession, base: h.cwd ?? b.dir } : null;
          if (ref) parentRefs.push(ref);
          live.add(s, at, bi, cwd, b.dir, ref);
        }
        // The first hundred sessions are offered at once (first rows), then every 500 files or 100 ms.
        if (files % 500 === 0 || live.count === 100 || (live.count > 0 && performance.now() - lastProgress > 100)) progress(true);
      } catch (e) {
        unnamed.push(reads.length);
        reads.push(null);
        warnings.push({ path: file, reason: unreadableReason((e as NodeJS.ErrnoException).code) });
      }
    }
    bucketEnd.push(reads.length);
  }
  progress(false);
  live.clear();
  return out;
}

type ReadSession = Extract<ReturnType<typeof readPiSession>, { ok: true }>;

/** A session's record from its header and what its head and tail told. */
function sessionRecordOf(result: ReadSession, stat: Stats, file: string, cwd: string | null, projectId: string, blockAll: string | undefined): SessionRecord {
  const h = result.header;
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
    updatedAt: result.lastActivity ?? h.timestamp ?? stat.mtimeMs,
    bytes: allocatedBytes(stat),
    paths: [file],
    recoverable: true,
    selectable: !blockAll,
    blockedReason: blockAll,
    // The revision walkOwned([file]) would compute, from the fstat of the open file (O_NOFOLLOW,
    // owner checked above): the engine need not walk 100k files again after the scan.
    metadata: blockAll
      ? { pinned: false, requiresAgentExit: true, source: 'cli' }
      : { pinned: false, requiresAgentExit: true, source: 'cli', sourceRevision: fileRevision(file, stat) },
  };
  // Only a known answer is recorded: retention's --empty rule must not match a session it could not read whole.
  // Assigned, not spread into the literal: no temporary object per record.
  if (result.hasUserMessage !== null) s.metadata.hasUserMessage = result.hasUserMessage;
  return s;
}

/** Why a listed session file could not be read, by its error code. */
function unreadableReason(code: string | undefined): string {
  return code === 'ENOENT'
    ? 'Skipped pi session file that vanished during the scan.'
    : code === 'ELOOP'
      ? 'Skipped pi session file that is a symbolic link.'
      : code === 'ENOTFILE'
        ? 'Skipped pi session entry that is not a regular file.'
        : `Skipped unreadable pi session file (${code ?? 'error'}).`;
}

/** A project's label while the scan runs (the final pass recomputes it from every root). */
function provisionalLabel(cwd: string | null, bucketDir: string): string {
  if (cwd) return cwd === '/' ? 'Global' : cleanText(basename(cwd), 200);
  return cleanText(basename(bucketDir), 200) || 'pi project';
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
