// Journal v2: $XDG_STATE_HOME/cleanerx/operations/<uuid>.json. Created before
// any mutation; every transition is an atomic replace; a save that would
// change an immutable field is refused. Progress recorded here never proves
// success by itself: recovery always rescans.

import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../host/atomic.js';
import { BoundedReadError, readRegularTextAsync, unreadableReason } from '../host/bounded-read.js';
import { crashPoint } from '../core/faults.js';
import type { AgentKind, Category, CleanupPlan } from '../core/model.js';
import { parseBoundedJson } from '../core/bounded-json.js';

type OperationStatus = 'planned' | 'backupWritten' | 'deleting' | 'verifying' | 'verified' | 'complete' | 'failed' | 'recovered' | 'terminated';
type BackupStatus = 'notRequested' | 'pending' | 'writing' | 'archiveCommitted' | 'verifying' | 'verified' | 'catalogWriting' | 'committed';
export type MutationStatus = 'pending' | 'running' | 'applied';

export const TERMINAL: readonly OperationStatus[] = ['complete', 'recovered', 'terminated'];
const MAX_JOURNAL_BYTES = 8 * 1024 * 1024;

interface MutationRecord {
  index: number;
  kind: string;
  itemIds: string[];
  sessionIds: string[];
  status: MutationStatus;
  startedAt?: string;
  appliedAt?: string;
  /** Identities captured at execution start (pre-state). */
  pre?: readonly { path: string; dev: number; ino: number; size: number; revision: string }[];
}

export interface Journal {
  formatVersion: 2;
  operationId: string;
  agent: AgentKind;
  snapshotId: string;
  createdAt: string;
  updatedAt: string;
  createBackup: boolean;
  plan: CleanupPlan;
  itemCategories: Record<string, Category>;
  status: OperationStatus;
  backupStatus: BackupStatus;
  backupCandidateId?: string;
  backupId?: string;
  mutations: MutationRecord[];
  message?: string;
}

/**
 * A mutation's own marks (running, applied) reach the disk at most this often
 * while one mutation follows another: with a 1,000-session plan, one atomic
 * rewrite (and fsync) of the whole journal per mark was most of a cleanup's
 * time. Safe because recovery never trusts the marks alone: it rescans, and
 * needs only to know a removal had started, which the first mark of a run of
 * mutations always writes. Every other transition writes at once, carrying
 * the marks held back.
 */
export const MUTATION_MARK_INTERVAL_MS = 200;
const MUTATION_POINT = /^mutation:\d+:(running|applied)$/;

const IMMUTABLE: (keyof Journal)[] = ['formatVersion', 'operationId', 'agent', 'snapshotId', 'createdAt', 'createBackup', 'plan', 'itemCategories'];

export function journalDir(stateDir: string): string {
  return join(stateDir, 'operations');
}

export function journalPath(stateDir: string, operationId: string): string {
  return join(journalDir(stateDir), `${operationId}.json`);
}

export class JournalStore {
  /** The immutable fields as created, deep-frozen: changing them in place throws, replacing them is refused. */
  private immutable = new Map<string, unknown[]>();
  /** When each journal was last written, and whether that write was a mutation mark. */
  private lastWrite = new Map<string, { at: number; mark: boolean }>();

  constructor(private readonly stateDir: string) {}

  async create(j: Journal): Promise<void> {
    for (const k of IMMUTABLE) deepFreeze(j[k]);
    this.immutable.set(
      j.operationId,
      IMMUTABLE.map((k) => j[k]),
    );
    await this.write(j);
    crashPoint('journal:created');
  }

  /** Applies a change and writes it atomically; refuses to touch an immutable field. */
  async transition(j: Journal, change: (j: Journal) => void, point: string): Promise<void> {
    let before = this.immutable.get(j.operationId);
    if (!before) {
      // A journal read back for recovery: freeze it now.
      for (const k of IMMUTABLE) deepFreeze(j[k]);
      before = IMMUTABLE.map((k) => j[k]);
      this.immutable.set(j.operationId, before);
    }
    change(j);
    if (IMMUTABLE.some((k, i) => j[k] !== before[i])) throw new Error('Blocked: a journal save may not change the immutable plan.');
    // Identities, once captured, never change: frozen, their text is made once (a missing one freezes nothing).
    for (const m of j.mutations) deepFreeze(m.pre);
    j.updatedAt = new Date().toISOString();
    const mark = MUTATION_POINT.test(point);
    const last = this.lastWrite.get(j.operationId);
    // A crash point promises the state it names is on disk: a test that kills there reads it back.
    const hold = mark && last?.mark === true && Date.now() - last.at < MUTATION_MARK_INTERVAL_MS && process.env.CLEANERX_CRASH_AT !== point;
    if (!hold) await this.write(j, mark);
    crashPoint(point);
  }

  private async write(j: Journal, mark = false): Promise<void> {
    // Compact: a large plan is rewritten at every transition.
    const bytes = journalBytes(j);
    if (bytes.length > MAX_JOURNAL_BYTES) throw new Error('The cleanup journal would exceed 8 MiB; select fewer items.');
    await writeFileAtomic(journalPath(this.stateDir, j.operationId), bytes, 0o600, 'journal');
    this.lastWrite.set(j.operationId, { at: Date.now(), mark });
  }
}

/** Objects deepFreeze froze all the way down: their JSON can never change. */
const deepFrozen = new WeakSet<object>();
/** The encoded JSON of such objects, made once: the plan and the captured identities are most of a large journal. */
const frozenJson = new WeakMap<object, Buffer>();

type Part = string | Buffer;

/**
 * Exactly `JSON.stringify(j) + '\n'`, encoded, with the text of every deep-frozen
 * field reused from an earlier write: a 1,000-session journal is ~1.3 MB, and
 * all but its statuses stays the same from one transition to the next.
 */
export function journalBytes(j: Journal): Buffer {
  const parts: Part[] = [];
  // A top-level array (a journal has one, `mutations`) is written record by record, so that each record's frozen identities are reused.
  appendObject(j, parts, (v) => {
    if (!Array.isArray(v)) return false;
    parts.push('[');
    v.forEach((m, i) => {
      if (i) parts.push(',');
      // A record is a plain object; anything else is written as JSON.stringify would (null for undefined).
      if (m !== null && typeof m === 'object' && !Array.isArray(m)) appendObject(m as object, parts);
      else parts.push(JSON.stringify(m) ?? 'null');
    });
    parts.push(']');
    return true;
  });
  parts.push('\n');
  // Stryker disable next-line ConditionalExpression: Buffer.from of a Buffer is a copy of the same bytes.
  return Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)));
}

/** A plain object's own fields as JSON.stringify writes them (fields without a JSON form left out); `nested` may write a field itself. */
function appendObject(o: object, parts: Part[], nested?: (v: unknown) => boolean): void {
  parts.push('{');
  let first = true;
  for (const k of Object.keys(o)) {
    const v = (o as Record<string, unknown>)[k];
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    parts.push(`${first ? '' : ','}${JSON.stringify(k)}:`);
    first = false;
    if (nested?.(v)) continue;
    // A WeakSet holds no primitive, so this is false for them.
    if (deepFrozen.has(v as object)) {
      let b = frozenJson.get(v as object);
      if (!b) {
        b = Buffer.from(JSON.stringify(v));
        frozenJson.set(v as object, b);
      }
      parts.push(b);
    } else parts.push(JSON.stringify(v));
  }
  parts.push('}');
}

/** Freezes `v` and everything in it; true when all of it is now frozen by this function (then its JSON text may be kept). */
function deepFreeze(v: unknown): boolean {
  if (v === null || typeof v !== 'object') return true;
  if (Object.isFrozen(v)) return deepFrozen.has(v);
  Object.freeze(v);
  let deep = true;
  // An array's values are its elements.
  for (const x of Object.values(v)) if (!deepFreeze(x)) deep = false;
  if (deep) deepFrozen.add(v);
  return deep;
}

type JournalEntry = { kind: 'journal'; path: string; journal: Journal } | { kind: 'unknown'; path: string; reason: string };

/**
 * Reads every committed journal. Sibling partials are ignored (creation of
 * the committed file precedes every mutation); links and unreadable or
 * foreign-format files are reported as unknown, which blocks all cleanup.
 */
export async function listJournals(stateDir: string): Promise<JournalEntry[]> {
  const dir = journalDir(stateDir);
  let names: string[];
  try {
    names = (await fsp.readdir(dir)).sort();
  } catch {
    return [];
  }
  const out: JournalEntry[] = [];
  for (const name of names) {
    if (!name.endsWith('.json') || name.startsWith('.')) continue;
    const path = join(dir, name);
    try {
      const st = await fsp.lstat(path);
      if (st.isSymbolicLink() || !st.isFile()) {
        out.push({ kind: 'unknown', path, reason: 'The journal is a link or not a regular file.' });
        continue;
      }
      if (st.size > MAX_JOURNAL_BYTES) {
        out.push({ kind: 'unknown', path, reason: 'The journal is larger than 8 MiB.' });
        continue;
      }
      // Opened again without following a link or waiting on a FIFO swapped in since the lstat.
      let text: string;
      try {
        text = await readRegularTextAsync(path, MAX_JOURNAL_BYTES);
      } catch (e) {
        if (e instanceof BoundedReadError && e.code === 'ENOENT') continue;
        // A refusal (link, FIFO, too large) or a raw I/O error (EIO): either way not JSON that could be judged.
        out.push({ kind: 'unknown', path, reason: unreadableReason('The journal', e) });
        continue;
      }
      const parsed = parseBoundedJson(text);
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
        out.push({ kind: 'unknown', path, reason: 'Unrecognized journal format (not a JSON object).' });
        continue;
      }
      const v = parsed as Partial<Journal> & Record<string, unknown>;
      if (isObsolete(v)) {
        await fsp.unlink(path);
        continue;
      }
      if (v.formatVersion !== 2 || typeof v.operationId !== 'string' || typeof v.agent !== 'string' || !v.plan || !Array.isArray(v.mutations)) {
        out.push({ kind: 'unknown', path, reason: `Unrecognized journal format (formatVersion ${String(v.formatVersion)}).` });
        continue;
      }
      out.push({ kind: 'journal', path, journal: v as Journal });
    } catch {
      out.push({ kind: 'unknown', path, reason: 'The journal cannot be read as JSON.' });
    }
  }
  return out;
}

/** Strictly recognized pre-v2 status-only journals: `{operationId, status}` and nothing else. */
function isObsolete(o: Record<string, unknown>): boolean {
  // Two keys, two of which are a string operationId and a known status: exactly those two.
  return (
    Object.keys(o).length === 2 && typeof o.operationId === 'string' && ['planned', 'deleting', 'complete', 'failed', 'terminated'].includes(String(o.status))
  );
}
