// The restore journal: <journalDir>/restore-<id>.json, written (atomically)
// before the first byte is decrypted into staging and before the first write
// into an agent's dirs, replaced at each phase, removed last. It names
// everything the restore may create — its private staging dir, every planned
// file with its manifest hash, every parent dir it may make and the partial
// name pattern of the cross-filesystem copy — so that a restore killed at any
// point can be finished or rolled back by the next cleanerx without guessing.
// Per-file progress is not recorded: it is observed (a committed file shares
// its inode with its staged copy until the staging dir is removed).

import { isAgentKind } from '../engine/core/agents.js';
import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../engine/host/atomic.js';
import { crashPoint } from '../engine/core/faults.js';
import type { AgentKind } from '../engine/core/model.js';
import { parseBoundedJson } from '../engine/core/bounded-json.js';
import { jsonBytes, jsonPieces, type JsonList } from './json-pieces.js';
import type { ManifestTable } from './manifest-table.js';

/** staging: decrypting into staging, nothing written to the agent yet; committing: files going into place; committed: every file in place, staging still to remove; rollingBack: undoing. */
type RestoreStatus = 'staging' | 'committing' | 'committed' | 'rollingBack';

export interface RestoreJournalEntry {
  root: string;
  /** Relative to the root, '/'-separated, checked (no '', '.', '..'). */
  path: string;
  sha256: string;
  sizeBytes: number;
  mode: number;
  /** The backed-up mtime (ns, decimal string), set on the staged copy before it goes into place; absent from format-1 archives. */
  mtimeNs?: string;
  /** The staged copy's name inside the staging dir. */
  staged: string;
  /** Byte-identical at the destination before this restore committed anything: never removed by a rollback. */
  present: boolean;
}

/** The journal's files: an array when read back, a PlannedEntries view while a restore runs. */
type JournalEntries = JsonList<RestoreJournalEntry>;

/**
 * The files a restore plans, packed: the manifest's entries by index, each
 * with its staged name and whether it was already in place, made into a
 * RestoreJournalEntry only when asked for (the journal's text, a commit).
 */
export class PlannedEntries implements JournalEntries {
  /** 1: byte-identical at its destination before this restore committed anything. */
  readonly present: Uint8Array;

  /** `indexes`: the manifest entries restored, in order; `staged`: each manifest entry's staged name (a number). */
  constructor(
    private readonly table: ManifestTable,
    readonly indexes: Uint32Array,
    private readonly staged: Int32Array,
  ) {
    this.present = new Uint8Array(indexes.length);
  }

  get length(): number {
    return this.indexes.length;
  }

  at(i: number): RestoreJournalEntry | undefined {
    if (!(i >= 0 && i < this.indexes.length)) return undefined;
    const k = this.indexes[i]!;
    const e = this.table.entry(k);
    return {
      root: e.root,
      path: e.relativePath,
      sha256: e.sha256,
      sizeBytes: e.sizeBytes,
      mode: e.mode ?? 0o600,
      ...(e.mtimeNs !== undefined ? { mtimeNs: e.mtimeNs } : {}),
      staged: String(this.staged[k]!),
      present: this.present[i] === 1,
    };
  }
}

export interface RestoreJournalDir {
  root: string;
  path: string;
  /** An empty dir of the backup: recreated even with no file in it. */
  empty?: true;
  /** The permission bits it gets once its contents are in place (absent: it stays 0700, as format-1 archives of non-empty dirs had it). */
  mode?: number;
  /** The mtime (ns, decimal string) it gets last, after its contents and its subdirs. */
  mtimeNs?: string;
}

export interface RestoreJournal {
  /** 2: dirs carry `empty`, and mode/mtime for every dir. 1 (still settled): `mode` marked an empty dir. */
  formatVersion: 1 | 2;
  kind: 'cleanerx-restore';
  restoreId: string;
  agent: AgentKind;
  backupId: string | null;
  createdAt: string;
  updatedAt: string;
  status: RestoreStatus;
  /** Absolute path of the private staging dir (restore-<id> in the staging parent). */
  staging: string;
  uid: number;
  /** Root label → absolute dir, as allowlisted when the restore started. */
  roots: Record<string, string>;
  entries: JournalEntries;
  /**
   * Dirs this restore may create, outermost first (root label + relative
   * path): parents of planned files, and the backup's empty dirs, which carry
   * the `mode` they get back. Each was absent at the preflight; a rollback
   * removes them (only while empty), never a dir that was there before.
   */
  dirs: RestoreJournalDir[];
  message?: string;
}

const MAX_JOURNAL_BYTES = 256 * 1024 * 1024;
const NAME = /^restore-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.json$/;

export const restoreJournalPath = (dir: string, restoreId: string): string => join(dir, `restore-${restoreId}.json`);
export const stagingDirName = (restoreId: string): string => `restore-${restoreId}`;
/** The one name a cross-filesystem commit of entry `i` uses beside its destination. */
export const partialName = (restoreId: string, i: number): string => `.cleanerx-restore-${restoreId}-${i}.partial`;

function* journalText(j: RestoreJournal): Generator<string> {
  yield* jsonPieces(j);
  yield '\n';
}

export async function saveRestoreJournal(dir: string, j: RestoreJournal, point: string): Promise<void> {
  j.updatedAt = new Date().toISOString();
  // In pieces (one entry at a time), never as one string: 200,000 entries are tens of MB of text.
  if (jsonBytes(j) + 1 > MAX_JOURNAL_BYTES) throw new Error('The restore journal would exceed 256 MiB; this backup holds too many files to restore at once.');
  await writeFileAtomic(restoreJournalPath(dir, j.restoreId), journalText(j), 0o600, 'restore-journal');
  crashPoint(point);
}

export async function removeRestoreJournal(dir: string, restoreId: string): Promise<void> {
  await fsp.unlink(restoreJournalPath(dir, restoreId)).catch((e: NodeJS.ErrnoException) => {
    if (e.code !== 'ENOENT') throw e;
  });
  // Stryker disable next-line ArrowFunction: undefined is as falsy as null for the test below
  const dh = await fsp.open(dir, 'r').catch(() => null);
  if (dh) await dh.sync().finally(() => dh.close());
}

type RestoreJournalFile = { kind: 'journal'; path: string; journal: RestoreJournal } | { kind: 'unknown'; path: string; reason: string };

/** Every restore journal in `dir` (partials of the atomic write are ignored; anything odd is reported, never followed). */
export async function listRestoreJournals(dir: string): Promise<RestoreJournalFile[]> {
  let names: string[];
  try {
    names = (await fsp.readdir(dir)).sort();
  } catch {
    return [];
  }
  const out: RestoreJournalFile[] = [];
  for (const name of names) {
    const m = NAME.exec(name);
    if (!m) continue;
    const path = join(dir, name);
    try {
      const fh = await fsp.open(path, fsp.constants.O_RDONLY | fsp.constants.O_NOFOLLOW | fsp.constants.O_NONBLOCK);
      let text: string;
      try {
        const st = await fh.stat();
        if (!st.isFile()) throw new Error('not a regular file');
        if (st.size > MAX_JOURNAL_BYTES) throw new Error('larger than 256 MiB');
        text = await fh.readFile('utf8');
      } finally {
        await fh.close();
      }
      const j = checkJournal(parseBoundedJson(text) as unknown, m[1]!);
      out.push(typeof j === 'string' ? { kind: 'unknown', path, reason: j } : { kind: 'journal', path, journal: j });
    } catch (e) {
      out.push({ kind: 'unknown', path, reason: `The restore journal cannot be read (${(e as Error).message}).` });
    }
  }
  return out;
}

const STATUSES: readonly RestoreStatus[] = ['staging', 'committing', 'committed', 'rollingBack'];
const HEX64 = /^[0-9a-f]{64}$/;
const NS = /^-?[0-9]{1,19}$/;

export function safeRelative(p: unknown): p is string {
  if (typeof p !== 'string' || p.length > 4096 || p.includes('\0')) return false;
  // '' splits into one empty component, refused below.
  return p.split('/').every((c) => c !== '' && c !== '.' && c !== '..');
}

/** The journal, or why it is not one cleanerx wrote (a resume writes only what a well-formed journal names). */
function checkJournal(v: unknown, id: string): RestoreJournal | string {
  const j = v as Partial<RestoreJournal> | null;
  if (!j || (j.formatVersion !== 1 && j.formatVersion !== 2) || j.kind !== 'cleanerx-restore') return 'Unrecognized restore journal format.';
  if (j.restoreId !== id) return 'The restore journal names another restore than its file name.';
  if (!isAgentKind(j.agent)) return 'The restore journal names no known agent.';
  if (!STATUSES.includes(j.status as RestoreStatus)) return 'The restore journal has an unknown status.';
  if (typeof j.staging !== 'string' || !j.staging.endsWith(`/${stagingDirName(id)}`)) return 'The restore journal names an unexpected staging dir.';
  if (typeof j.uid !== 'number' || !j.roots || typeof j.roots !== 'object') return 'The restore journal has no roots.';
  for (const d of Object.values(j.roots)) if (typeof d !== 'string' || !d.startsWith('/')) return 'The restore journal has a root that is not absolute.';
  if (!Array.isArray(j.entries) || !Array.isArray(j.dirs)) return 'The restore journal has no entry list.';
  for (const e of j.entries as RestoreJournalEntry[]) {
    if (!e || !(e.root in j.roots) || !safeRelative(e.path) || !HEX64.test(String(e.sha256))) return 'The restore journal holds a malformed entry.';
    if (typeof e.sizeBytes !== 'number' || typeof e.mode !== 'number' || typeof e.present !== 'boolean' || !/^[0-9]{1,9}$/.test(String(e.staged)))
      return 'The restore journal holds a malformed entry.';
    if (e.mtimeNs !== undefined && !NS.test(String(e.mtimeNs))) return 'The restore journal holds a malformed entry.';
  }
  for (const d of j.dirs) {
    if (!d || !(d.root in j.roots) || !safeRelative(d.path)) return 'The restore journal holds a malformed dir.';
    if (d.mode !== undefined && (!Number.isInteger(d.mode) || d.mode < 0 || d.mode > 0o777)) return 'The restore journal holds a malformed dir.';
    if ((d.empty !== undefined && d.empty !== true) || (d.mtimeNs !== undefined && !NS.test(String(d.mtimeNs))))
      return 'The restore journal holds a malformed dir.';
    // Format 1 marked an empty dir by its mode alone (and gave no other dir a mode).
    if (j.formatVersion === 1 && d.mode !== undefined) d.empty = true;
  }
  return j as RestoreJournal;
}
