// The compaction's writes into an agent's database directory go through one
// handle on that directory (#26 item 1): the copy's creation, the rename of
// the verified copy over the database and every removal of the copy. Each
// race is made exact with a crash-point hook: the directory is moved away
// and a link to a victim directory put at its path, right where the
// compaction (or its recovery) is about to write. The victim holds a
// database of its own and a file at the copy's name, so that a write that
// followed the path would show in it; it must stay byte-identical.

import Database from 'better-sqlite3';
import { lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listCompactions, saveCompaction, type CompactionEntry } from '../../src/engine/cleanup/compact-journal.js';
import { CompactRefused, compactDatabase, identityOf, siblingFor } from '../../src/engine/cleanup/compact.js';
import { recoverCompaction } from '../../src/engine/cleanup/compact-recovery.js';
import { atCrashPoints } from '../../src/engine/core/faults.js';
import { writeFreePagesDb } from '../helpers/free-pages-db.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { treeSnapshot, writeWorkCopy } from '../helpers/compact-work.js';

let t: TempEnv;
let dir: string;
let moved: string;
let victim: string;
let state: string;
let db: string;
const OP = 'op-anchor';

beforeEach(() => {
  t = makeTempEnv('cleanerx-compact-anchored-');
  dir = join(t.root, 'db');
  moved = join(t.root, 'db.moved');
  victim = join(t.root, 'victim');
  mkdirSync(dir);
  mkdirSync(victim);
  state = t.env.CLEANERX_STATE_DIR!;
  db = join(dir, 'store.sqlite');
  for (const p of [db, join(victim, 'store.sqlite')]) {
    writeFreePagesDb(p);
  }
  // What a rename or removal that followed the path would reach.
  writeFileSync(join(victim, `.store.sqlite.cleanerx-compact-${OP}`), 'planted');
});
afterEach(() => {
  atCrashPoints(null);
  t.cleanup();
});

const opts = () => ({ stateDir: state, dbPath: db, agentStopped: true, procRoot: t.procRoot, freeBytes: async () => 1e12, operationId: OP });

const snapshot = treeSnapshot;

/** The database's directory moved away and a link to the victim put at its path. */
function swapDir(): void {
  renameSync(dir, moved);
  symlinkSync(victim, dir);
}

const rows = (p: string): number => {
  const d = new Database(p, { readonly: true });
  try {
    return (d.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n;
  } finally {
    d.close();
  }
};

describe('compaction: the directory swapped for a link to another directory', () => {
  it('just before the rename: refused, the victim byte-identical, the original kept and its copy removed where it was made', async () => {
    const before = snapshot(victim);
    const original = readFileSync(db);
    atCrashPoints((p) => {
      if (p === 'compact:swapping') swapDir();
    });
    const e = await compactDatabase(opts()).catch((x: Error) => x);
    expect(snapshot(victim)).toEqual(before);
    expect(e).toBeInstanceOf(Error);
    expect((e as Error).message).toBe(`Compaction of ${db} stopped and the original is kept: ${dir} was moved or replaced during the compaction`);
    expect(readdirSync(moved)).toEqual(['store.sqlite']);
    expect(readFileSync(join(moved, 'store.sqlite')).equals(original)).toBe(true);
    const [f] = await listCompactions(state);
    expect(f).toMatchObject({ entry: { step: 'rolledBack' } });
  });

  it('while the copy is written: refused, and the removal of the copy never reaches the victim', async () => {
    const before = snapshot(victim);
    atCrashPoints((p) => {
      if (p === 'compact:copy:written') swapDir();
    });
    const e = await compactDatabase(opts()).catch((x: Error) => x);
    expect(e).toBeInstanceOf(Error);
    expect(snapshot(victim)).toEqual(before);
    expect(readdirSync(moved)).toEqual(['store.sqlite']);
    expect(rows(join(moved, 'store.sqlite'))).toBe(40);
  });

  it('a link already there (not one only root could have made): refused before anything is written', async () => {
    swapDir();
    const before = snapshot(victim);
    const e = await compactDatabase(opts()).catch((x: Error) => x);
    expect(snapshot(victim)).toEqual(before);
    expect(e).toBeInstanceOf(CompactRefused);
    expect((e as Error).message).toBe(`Cannot compact ${db}: ${dir} is a symbolic link.`);
    expect(await listCompactions(state)).toEqual([]);
  });
});

/** A database's compacted copy at the sibling name and an entry at `verified` recording both identities. */
function verifiedEntry(): CompactionEntry {
  const d = new Database(db);
  const sib = writeWorkCopy(d, db, OP);
  d.close();
  const now = new Date().toISOString();
  return {
    formatVersion: 1,
    kind: 'compact',
    operationId: OP,
    dbPath: db,
    siblingPath: sib,
    createdAt: now,
    updatedAt: now,
    step: 'verified',
    original: identityOf(lstatSync(db)),
    sibling: identityOf(lstatSync(sib)),
  };
}

describe('recovery: the directory swapped for a link to another directory', () => {
  it('just before the roll forward renames: blocked, the victim byte-identical, the original and its copy kept', async () => {
    const entry = verifiedEntry();
    await saveCompaction(state, entry);
    // Empty side files the roll forward would remove, in the victim too.
    writeFileSync(join(victim, `.store.sqlite.cleanerx-compact-${OP}-wal`), '');
    const before = snapshot(victim);
    const kept = snapshot(dir);
    atCrashPoints((p) => {
      if (p === 'compact:recovery:renaming') swapDir();
    });
    const r = await recoverCompaction(state, entry);
    expect(snapshot(victim)).toEqual(before);
    expect(r).toEqual({
      decision: 'blocked',
      reason: `${dir} was moved or replaced during the recovery; nothing more is touched: inspect it and ${entry.siblingPath}.`,
    });
    expect(snapshot(moved)).toEqual(kept);
  });

  it('a link already there: blocked, nothing followed into the victim', async () => {
    const entry = verifiedEntry();
    await saveCompaction(state, entry);
    swapDir();
    const before = snapshot(victim);
    const r = await recoverCompaction(state, entry);
    expect(snapshot(victim)).toEqual(before);
    expect(r).toEqual({
      decision: 'blocked',
      reason: `Recovery of ${db} is blocked: ${dir} is a symbolic link. Nothing is touched.`,
    });
    expect(readdirSync(moved).sort()).toEqual(['.store.sqlite.cleanerx-compact-op-anchor', 'store.sqlite']);
  });
});

describe('recovery: a journal naming a copy in another folder', () => {
  it('blocked, and neither the file it names nor the database is touched', async () => {
    const entry = verifiedEntry();
    const elsewhere = join(victim, `.store.sqlite.cleanerx-compact-${OP}`);
    const before = [snapshot(victim), snapshot(dir)];
    expect(await recoverCompaction(state, { ...entry, siblingPath: elsewhere })).toEqual({
      decision: 'blocked',
      reason: `The compaction journal names a copy outside the folder of ${db} (${elsewhere}); nothing is touched.`,
    });
    expect([snapshot(victim), snapshot(dir)]).toEqual(before);
  });
});

describe('compaction: the files themselves, looked at through the handle', () => {
  const kept = (why: string) => `Compaction of ${db} stopped and the original is kept: ${why}`;

  for (const point of ['compact:copy:written', 'compact:copied'] as const) {
    it(`the original removed at ${point}: refused as changed, the copy removed`, async () => {
      atCrashPoints((p) => {
        if (p === point) rmSync(db);
      });
      const e = await compactDatabase(opts()).catch((x: Error) => x);
      expect((e as Error).message).toBe(kept(`${db} changed during the compaction`));
      expect(readdirSync(dir)).toEqual([]);
    });
  }

  it('the copy replaced by another file after it was verified: refused before the rename, the database byte-identical', async () => {
    const original = readFileSync(db);
    const sib = siblingFor(db, OP);
    atCrashPoints((p) => {
      if (p !== 'compact:swapping') return;
      writeFileSync(`${sib}.other`, readFileSync(sib));
      renameSync(`${sib}.other`, sib);
    });
    const e = await compactDatabase(opts()).catch((x: Error) => x);
    expect((e as Error).message).toBe(kept(`${sib} changed after it was proven`));
    expect(readFileSync(db).equals(original)).toBe(true);
    expect(readdirSync(dir)).toEqual(['store.sqlite']);
    const [f] = await listCompactions(state);
    expect(f).toMatchObject({ entry: { step: 'rolledBack' } });
  });
});

/** The descriptors this process holds on the database's directory or anything in it. */
function openOnDir(): string[] {
  const out: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    let target = '';
    try {
      target = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      // gone meanwhile (the readdir's own descriptor)
    }
    if (target === dir || target.startsWith(`${dir}/`)) out.push(target);
  }
  return out;
}

describe('recovery closes its handle', () => {
  it('after a roll forward, and after a block, no descriptor on the directory is left', async () => {
    const entry = verifiedEntry();
    await saveCompaction(state, entry);
    expect(await recoverCompaction(state, entry)).toMatchObject({ decision: 'rolledForward' });
    expect(openOnDir()).toEqual([]);
    const other = verifiedEntry();
    rmSync(db);
    expect(await recoverCompaction(state, { ...other, step: 'copied' })).toMatchObject({ decision: 'blocked' });
    expect(openOnDir()).toEqual([]);
  });
});
