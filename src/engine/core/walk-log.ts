// What one scan's own walks saw of the disk, handed from the adapter to the
// attribution walk (engine/inventory/attribution.ts) so that walk need not ask
// the disk for the same entries a second time. engine/inventory/revision.ts
// records it (WalkRecorder); it belongs to one Inventory and dies with it, so
// nothing seen by one scan is ever used by the next.

import type { Stats } from 'node:fs';

/** Entry kinds in a slot: not stat'ed (ask the disk), directory, regular file, anything else (links included). */
export const SEEN_NONE = 0;
export const SEEN_DIR = 1;
export const SEEN_FILE = 2;
export const SEEN_OTHER = 3;

/** A directory listed whole: its names in sorted order, the slot of the first name's entry, the others following. */
export interface SeenListing {
  names: readonly string[];
  first: number;
}

export interface WalkLog {
  /** The slot of a path the scan stat'ed as a walk's root (lstat, or fstat of an O_NOFOLLOW open), or -1. */
  slotOf(path: string): number;
  /** Two slots hold the same entry unchanged: same dev, inode, size, mtime and ctime (for a directory: no entry added, removed or renamed). */
  same(a: number, b: number): boolean;
  /** The listing taken of the directory in this slot, if the scan listed it. */
  listing(slot: number): SeenListing | undefined;
  /** Records a stat taken now; returns its slot. */
  add(st: Stats): number;
  /** The next slot `add` will use; `release(mark)` frees every slot added since (a walk's own stats, once used). */
  mark(): number;
  release(mark: number): void;
  kind(slot: number): number;
  dev(slot: number): number;
  ino(slot: number): number;
  nlink(slot: number): number;
  /** Allocated bytes (512-byte blocks; 0 for a link). */
  bytes(slot: number): number;
}
