// The final pass of the pi scan, once every file is read (scan-sessions.ts):
// a repeated session id keeps the file pi named for it and shows the other
// copy as a read-only row; projects take their roots from every session's
// cwd; parents are resolved against the final set (a gone parent file marks
// an orphan); symbolic links become read-only rows, never followed.

import { createHash } from 'node:crypto';
import { lstatSync, readlinkSync, type Stats } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { canonicalPath } from '../../engine/host/fsx.js';
import { sessionItemId, uuidv5Url } from '../../engine/core/ids.js';
import type { ProjectGroup, ScanWarning, SessionRecord } from '../../engine/core/model.js';
import { cleanText } from '../../engine/core/text.js';
import { ReadIndex } from './read-index.js';
import { NO_DESCENDANTS, type Bucket, type LinkEntry, type SessionReads } from './scan-sessions.js';

export const PI_LINK_REASON = 'A symbolic link: never followed, never removed.';
const PI_DUPLICATE_REASON = 'Another pi session file holds the same session ID: this copy is read-only, never removed.';

type Project = ProjectGroup & { bucketLabel: string };

/** The sessions in their final order, by id, as a Map's values would be (a later record for an id takes its place). */
class SessionsById {
  readonly sessions: SessionRecord[] = [];
  private readonly at = new ReadIndex((i) => this.sessions[i]!.id);

  get(id: string): SessionRecord | undefined {
    const at = this.at.find(id);
    return at < 0 ? undefined : this.sessions[at];
  }

  has(id: string): boolean {
    return this.at.find(id) >= 0;
  }

  set(id: string, rec: SessionRecord): void {
    const at = this.at.find(id);
    if (at >= 0) this.sessions[at] = rec;
    else this.at.set(id, this.sessions.push(rec) - 1);
  }
}

interface Settled {
  byId: SessionsById;
  projects: Map<number, Project>;
  /** A read whose id was held already → its read-only copy. */
  copies: Map<SessionRecord, SessionRecord>;
}

/**
 * Every read in the final order: the reads pi named for their id first, then
 * the others (failures too), each in read order; failures become warnings.
 */
export function settleReads(sr: SessionReads, buckets: readonly Bucket[], warnings: ScanWarning[]): Settled {
  const { reads, unnamed, bucketEnd, projectIds } = sr;
  const byId = new SessionsById();
  const projects = new Map<number, Project>();
  const copies = new Map<SessionRecord, SessionRecord>();
  const cleanRoots = new Map<string, string>();
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
  return { byId, projects, copies };
}

/**
 * parentSession is a file path (possibly relative, possibly stale): it names
 * a parent only when it resolves to a file this scan inventoried.
 */
export function linkParents(home: string, r: SessionReads, { byId, copies }: Settled): void {
  const { parentRefs, bucketKeys, recByPath } = r;
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
}

/** A read-only row per symbolic link; a linked bucket is a project of its own. Returns those projects. */
export function addLinkRows(
  links: readonly LinkEntry[],
  buckets: readonly Bucket[],
  r: SessionReads,
  { byId, projects }: Settled,
  warnings: ScanWarning[],
): ProjectGroup[] {
  const { projectIds } = r;
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
  return linkedProjects;
}

/** A project's label: its first root's name ("Global" for /), else the bucket's. */
export function labelProjects(projects: Map<number, Project>): void {
  for (const p of projects.values()) {
    const first = p.roots[0];
    p.label = first ? (first === '/' ? 'Global' : cleanText(basename(first), 200)) : p.bucketLabel || 'pi project';
  }
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
