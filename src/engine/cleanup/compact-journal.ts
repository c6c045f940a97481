// The journal of one compaction: $XDG_STATE_HOME/cleanerx/compactions/<id>.json,
// written (atomic replace) before each step and read back by recovery. It
// lives beside operations/, not in it: the cleanup journal reader treats any
// file it does not know there as a reason to block all cleanup. The
// identities recorded here are what recovery compares with what is on disk;
// the step alone never proves anything.

import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../host/atomic.js';
import { BoundedReadError, readRegularTextAsync, unreadableReason } from '../host/bounded-read.js';
import { crashPoint } from '../core/faults.js';
import type { ComparedTable } from './compact-proof.js';
import { parseBoundedJson } from '../core/bounded-json.js';

/**
 * In order. `copying`: VACUUM INTO the sibling runs (a partial sibling may
 * exist). `verified`: the sibling passed integrity_check and the content
 * proof and is fsync'd. `swapping`: the rename of the sibling over the
 * database is about to happen (or happened). `swapped`: it did.
 */
const COMPACT_STEPS = ['planned', 'checkpointed', 'copying', 'copied', 'verified', 'swapping', 'swapped', 'complete'] as const;
type CompactStep = (typeof COMPACT_STEPS)[number] | 'rolledBack' | 'failed';
// Stryker disable next-line ArrayDeclaration,StringLiteral: static, fixed at module load where mutant switching cannot reach it.
export const COMPACT_TERMINAL: readonly CompactStep[] = ['complete', 'rolledBack', 'failed'];

export interface FileIdentity {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  mode: number;
}

export interface CompactionEntry {
  formatVersion: 1;
  kind: 'compact';
  operationId: string;
  dbPath: string;
  siblingPath: string;
  createdAt: string;
  updatedAt: string;
  step: CompactStep;
  /** The database after its WAL was checkpointed: what a roll forward requires still to be there. */
  original?: FileIdentity;
  /** The verified compacted copy. */
  sibling?: FileIdentity;
  /** The tables and row counts proven equal in the original and the copy. */
  proof?: ComparedTable[];
  before?: { fileBytes: number; walBytes: number; pageCount: number; freePages: number; pageSize: number };
  message?: string;
}

// Stryker disable next-line ArithmeticOperator: static, fixed at module load where mutant switching cannot reach it.
const MAX_BYTES = 1024 * 1024;

// Declarations, not const arrows: a mutant of an arrow would be fixed at module load.
function compactionDir(stateDir: string): string {
  return join(stateDir, 'compactions');
}
function compactionPath(stateDir: string, id: string): string {
  return join(compactionDir(stateDir), `${id}.json`);
}

export async function saveCompaction(stateDir: string, e: CompactionEntry, point?: string): Promise<void> {
  e.updatedAt = new Date().toISOString();
  await writeFileAtomic(compactionPath(stateDir, e.operationId), JSON.stringify(e) + '\n', 0o600, 'compact-journal');
  crashPoint(point ?? `compact:${e.step}`);
}

type CompactionFile = { kind: 'entry'; path: string; entry: CompactionEntry } | { kind: 'unknown'; path: string; reason: string };

/** Every committed compaction journal (atomic-write partials are ignored); a malformed one is `unknown`. */
export async function listCompactions(stateDir: string): Promise<CompactionFile[]> {
  let names: string[];
  try {
    names = (await fsp.readdir(compactionDir(stateDir))).sort();
  } catch {
    return [];
  }
  const out: CompactionFile[] = [];
  for (const name of names) {
    if (!name.endsWith('.json') || name.startsWith('.')) continue;
    const path = join(compactionDir(stateDir), name);
    let text: string;
    try {
      text = await readRegularTextAsync(path, MAX_BYTES);
    } catch (e) {
      if (e instanceof BoundedReadError && e.code === 'ENOENT') continue;
      out.push({ kind: 'unknown', path, reason: unreadableReason('The compaction journal', e) });
      continue;
    }
    try {
      const v = parseBoundedJson(text) as Partial<CompactionEntry>;
      if (v.formatVersion !== 1 || v.kind !== 'compact' || typeof v.dbPath !== 'string' || typeof v.siblingPath !== 'string' || typeof v.step !== 'string') {
        out.push({ kind: 'unknown', path, reason: 'Unrecognized compaction journal.' });
      } else out.push({ kind: 'entry', path, entry: v as CompactionEntry });
    } catch {
      out.push({ kind: 'unknown', path, reason: 'The compaction journal cannot be read as JSON.' });
    }
  }
  return out;
}
