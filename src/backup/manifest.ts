// The manifest an archive starts with: what each file, directory and
// skipped entry records. Types only, shared by the writer (archive.ts) and
// the packed reader (manifest-read.ts, manifest-table.ts).

import type { AgentKind } from '../engine/core/model.js';

export interface ManifestEntry {
  root: string;
  relativePath: string;
  sha256: string;
  sizeBytes: number;
  /** Permission bits (0–0o777) the file had; a restore gives them back (older archives: 0600). */
  mode?: number;
  /** The file had holes (fewer blocks allocated than its size): a restore may write its runs of zeros as holes. The payload holds every byte (zeros included) all the same. */
  sparse?: true;
  /** Modification time in ns since the epoch, a decimal string (beyond a JSON number's precision); format 2 on. */
  mtimeNs?: string;
}

/** A directory under a planned path with no archived file anywhere below it: restore recreates it (the payload has nothing that would). */
export interface ManifestDir {
  root: string;
  relativePath: string;
  mode: number;
}

/**
 * A directory on the way to or under a planned path (format 2 on): a restore
 * that has to create it gives it this mode and mtime once its contents are
 * in place. Below the root only; the root itself is never recorded.
 */
export interface ManifestDirAttrs {
  root: string;
  relativePath: string;
  mode: number;
  mtimeNs: string;
}

export type SkippedKind = 'fifo' | 'socket' | 'device';

/** Something under a planned path that is not a regular file or directory: not archived (it holds no data to keep), named here and reported. */
export interface ManifestSkipped {
  root: string;
  relativePath: string;
  kind: SkippedKind;
}

export interface Manifest {
  formatVersion: 1 | 2;
  id: string;
  agent: AgentKind;
  createdAt: string;
  expiresAt: string;
  operationId: string;
  itemCount: number;
  originalBytes: number;
  archiveBytes: 0;
  entries: ManifestEntry[];
  /** Present when there are any (archives before it: none recorded). */
  emptyDirs?: ManifestDir[];
  skipped?: ManifestSkipped[];
  /** Format 2 on: every directory a restore may create, parents first. */
  dirs?: ManifestDirAttrs[];
}
