// Off Linux there is no directory handle to anchor the compaction's writes
// to (#26 item 1): the compaction refuses with assertAnchoredSupported's
// sentence before it journals anything, and recovery is blocked with it.
// The platform is faked before anything in this file asks whether handles
// are supported (the answer is kept for the process), so this file holds
// nothing else.
// vitest: own process

import Database from 'better-sqlite3';
import { lstatSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listCompactions, type CompactionEntry } from '../../src/engine/cleanup/compact-journal.js';
import { CompactRefused, compactDatabase, identityOf } from '../../src/engine/cleanup/compact.js';
import { recoverCompaction } from '../../src/engine/cleanup/compact-recovery.js';
import { anchoredSupported } from '../../src/engine/host/anchored-fs.js';
import { writeFreePagesDb } from '../helpers/free-pages-db.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { treeSnapshot, writeWorkCopy } from '../helpers/compact-work.js';

let t: TempEnv;
let dir: string;
let state: string;
let db: string;
beforeEach(() => {
  t = makeTempEnv('cleanerx-compact-off-linux-');
  dir = join(t.root, 'db');
  mkdirSync(dir);
  state = t.env.CLEANERX_STATE_DIR!;
  db = join(dir, 'store.sqlite');
  writeFreePagesDb(db);
});
afterEach(() => t.cleanup());

const snapshot = treeSnapshot;

describe('off Linux (no directory handles)', () => {
  it('the compaction refuses with the plain sentence and writes nothing; recovery is blocked with it', async () => {
    const platform = Object.getOwnPropertyDescriptor(process, 'platform')!;
    Object.defineProperty(process, 'platform', { ...platform, value: 'darwin' });
    try {
      expect(anchoredSupported()).toBe(false);
    } finally {
      Object.defineProperty(process, 'platform', platform);
    }
    const d = new Database(db);
    const sib = writeWorkCopy(d, db, 'op-off');
    d.close();
    const now = new Date().toISOString();
    const entry: CompactionEntry = {
      formatVersion: 1,
      kind: 'compact',
      operationId: 'op-off',
      dbPath: db,
      siblingPath: sib,
      createdAt: now,
      updatedAt: now,
      step: 'verified',
      original: identityOf(lstatSync(db)),
      sibling: identityOf(lstatSync(sib)),
    };
    const before = snapshot(dir);
    const sentence =
      'This system offers no way to remove or restore files without following a swapped folder (cleanerx needs Linux with /proc); nothing was changed.';
    const e = await compactDatabase({ stateDir: state, dbPath: db, agentStopped: true, procRoot: t.procRoot, freeBytes: async () => 1e12 }).catch(
      (x: Error) => x,
    );
    expect(e).toBeInstanceOf(CompactRefused);
    expect((e as Error).message).toBe(sentence);
    expect(await listCompactions(state)).toEqual([]);
    expect(await recoverCompaction(state, entry)).toEqual({ decision: 'blocked', reason: sentence });
    expect(snapshot(dir)).toEqual(before);
  });
});
