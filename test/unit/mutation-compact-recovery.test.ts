// Recovery of an interrupted compaction, case by case (#26 item 5: the
// mutants of engine/cleanup/compact-recovery.ts). Each case is made by
// hand in a temp dir: a real SQLite database, its compacted copy at the
// sibling name (VACUUM INTO), and a journal entry whose step and recorded
// identities say how far the compaction got. The decision, its sentence,
// what is left on disk and what the journal then says are checked; the
// directory fsync after a rename is observed through a spy on node:fs.

import Database from 'better-sqlite3';
import * as fs from 'node:fs';
import { existsSync, linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { identityOf, ORIGINAL_NAME } from '../../src/engine/cleanup/compact.js';
import { listCompactions, saveCompaction, type CompactionEntry } from '../../src/engine/cleanup/compact-journal.js';
import { recoverCompaction, recoverCompactions } from '../../src/engine/cleanup/compact-recovery.js';
import { atCrashPoints } from '../../src/engine/core/faults.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { writeWorkCopy } from '../helpers/compact-work.js';

vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  return { ...real, fsyncSync: vi.fn(real.fsyncSync), closeSync: vi.fn(real.closeSync), openSync: vi.fn(real.openSync), lstatSync: vi.fn(real.lstatSync) };
});

let t: TempEnv;
let dir: string;
let state: string;
beforeEach(() => {
  t = makeTempEnv('cleanerx-compact-recovery-');
  dir = join(t.root, 'db');
  mkdirSync(dir);
  state = t.env.CLEANERX_STATE_DIR!;
});
afterEach(() => {
  atCrashPoints(null);
  vi.clearAllMocks();
  t.cleanup();
});

type Step = CompactionEntry['step'];

/** A database with rows, its compacted copy at the sibling name, and an entry at `step` recording both identities. */
function setup(step: Step, id = 'op1', name = 'store.sqlite'): { db: string; sib: string; entry: CompactionEntry; copy: Buffer } {
  const db = join(dir, name);
  const d = new Database(db);
  d.exec(
    'CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300) INSERT INTO t SELECT i, hex(randomblob(200)) FROM n; DELETE FROM t WHERE id > 50',
  );
  const sib = writeWorkCopy(d, db, id);
  d.close();
  const now = new Date().toISOString();
  const entry: CompactionEntry = {
    formatVersion: 1,
    kind: 'compact',
    operationId: id,
    dbPath: db,
    siblingPath: sib,
    createdAt: now,
    updatedAt: now,
    step,
    original: identityOf(lstatSync(db)),
    sibling: identityOf(lstatSync(sib)),
  };
  return { db, sib, entry, copy: readFileSync(sib) };
}

async function journaled(id = 'op1'): Promise<CompactionEntry> {
  const f = (await listCompactions(state)).find((x) => x.kind === 'entry' && x.entry.operationId === id);
  return (f as { entry: CompactionEntry }).entry;
}

describe('already settled', () => {
  for (const step of ['complete', 'rolledBack', 'failed'] as const) {
    it(`${step}: nothing to do, nothing touched`, async () => {
      const { db, sib, entry } = setup(step);
      const before = [readFileSync(db), readFileSync(sib)];
      expect(await recoverCompaction(state, entry)).toEqual({ decision: 'nothingToDo', reason: 'The compaction was already settled.' });
      expect([readFileSync(db), readFileSync(sib)]).toEqual(before);
      expect(entry.step).toBe(step);
    });
  }
});

describe('the rename had happened', () => {
  it('the database path is the compacted copy and the sibling is gone: finished, journaled complete', async () => {
    const { db, sib, entry, copy } = setup('swapping');
    renameSync(sib, db);
    await saveCompaction(state, entry);
    const points: string[] = [];
    atCrashPoints((p) => points.push(p));
    expect(await recoverCompaction(state, entry)).toEqual({
      decision: 'rolledForward',
      reason: 'The compacted database is in place; the compaction is finished.',
    });
    expect(readFileSync(db).equals(copy)).toBe(true);
    // The work directory, with the old database's last link, is gone.
    expect(readdirSync(dir)).toEqual(['store.sqlite']);
    expect(await journaled()).toMatchObject({ step: 'complete', message: 'Recovered: the compacted database was already in place.' });
    expect(points).toEqual(['compact:recovered:complete']);
    expect(fs.fsyncSync).toHaveBeenCalledTimes(1);
  });

  it('a file at the database path with the same inode on another device, or another inode: not the copy, so the original is kept', async () => {
    for (const change of [{ dev: 1 }, { ino: 1 }]) {
      const { db, sib, entry } = setup('swapping', `op${change.dev ?? 2}`, `store${change.dev ?? 2}.sqlite`);
      const original = readFileSync(db);
      rmSync(sib);
      const st = lstatSync(db);
      entry.sibling = { ...identityOf(st), ...(change.dev ? { dev: st.dev + 1 } : { ino: st.ino + 1 }) };
      expect(await recoverCompaction(state, entry), JSON.stringify(change)).toMatchObject({ decision: 'rolledBack' });
      expect(readFileSync(db).equals(original)).toBe(true);
    }
  });

  it('no sibling identity recorded (the copy was never made) and no sibling: rolled back', async () => {
    const { db, sib, entry } = setup('copying');
    delete entry.sibling;
    rmSync(sib);
    expect(await recoverCompaction(state, entry)).toEqual({
      decision: 'rolledBack',
      reason: 'The original database is in place; the unfinished compacted copy was removed.',
    });
    expect(existsSync(db)).toBe(true);
  });

  it('the sibling is a second link to the database file, never verified: not a finished rename, the link is removed and the database kept', async () => {
    const { db, sib, entry } = setup('copied');
    rmSync(sib);
    linkSync(db, sib);
    entry.sibling = identityOf(lstatSync(db));
    const original = readFileSync(db);
    expect(await recoverCompaction(state, entry)).toMatchObject({ decision: 'rolledBack' });
    expect(readFileSync(db).equals(original)).toBe(true);
    expect(existsSync(sib)).toBe(false);
  });
});

describe('rolling forward a verified copy', () => {
  for (const step of ['verified', 'swapping', 'swapped'] as const) {
    it(`${step}, the original unchanged: the copy replaces it, its empty side files removed, the directory fsync'd`, async () => {
      const { db, sib, entry, copy } = setup(step);
      writeFileSync(`${sib}-wal`, '');
      writeFileSync(`${sib}-shm`, '');
      await saveCompaction(state, entry);
      const points: string[] = [];
      atCrashPoints((p) => points.push(p));
      vi.clearAllMocks();
      expect(await recoverCompaction(state, entry)).toEqual({
        decision: 'rolledForward',
        reason: 'The verified compacted copy replaced the unchanged original.',
      });
      expect(readFileSync(db).equals(copy)).toBe(true);
      expect(readdirSync(dir)).toEqual(['store.sqlite']);
      expect(await journaled()).toMatchObject({
        step: 'complete',
        message: 'Recovered by finishing the compaction: the verified compacted copy replaced the database.',
      });
      expect(points).toEqual(['compact:recovery:renaming', 'compact:recovered:complete']);
      // The directory holding the rename: the handle recovery opened on it first (a directory, no link followed), fsync'd once and closed.
      const calls = vi.mocked(fs.openSync).mock.calls;
      const first = calls.findIndex(([p]) => String(p).endsWith('/db'));
      expect(calls[first]![1]).toBe(fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW);
      const fd = vi.mocked(fs.openSync).mock.results[first]!.value;
      expect(vi.mocked(fs.fsyncSync).mock.calls).toEqual([[fd]]);
      expect(fs.closeSync).toHaveBeenCalledWith(fd);
    });
  }

  it("the work directory goes after the roll forward, with the old database's last link and the side files in it", async () => {
    const { db, sib, entry, copy } = setup('verified');
    writeFileSync(`${sib}-shm`, 'left by SQLite');
    writeFileSync(join(dirname(sib), `${ORIGINAL_NAME}-wal`), '');
    expect(await recoverCompaction(state, entry)).toMatchObject({ decision: 'rolledForward' });
    expect(readFileSync(db).equals(copy)).toBe(true);
    expect(readdirSync(dir)).toEqual(['store.sqlite']);
  });

  it("something not the compaction's in the work directory keeps it, with that file", async () => {
    const { db, sib, entry, copy } = setup('verified');
    writeFileSync(join(dirname(sib), 'notes.txt'), 'not ours');
    expect(await recoverCompaction(state, entry)).toMatchObject({ decision: 'rolledForward' });
    expect(readFileSync(db).equals(copy)).toBe(true);
    expect(readdirSync(dirname(sib))).toEqual(['notes.txt']);
  });

  it('a journal from before the work directory (the copy beside the database): rolled forward there; a side file with content is kept', async () => {
    const { db, sib, entry, copy } = setup('verified');
    const beside = join(dir, '.store.sqlite.cleanerx-compact-op1.old');
    renameSync(sib, beside);
    rmSync(dirname(sib), { recursive: true });
    writeFileSync(`${beside}-shm`, 'not ours');
    writeFileSync(`${beside}-wal`, '');
    writeFileSync(`${beside}-journal`, '');
    expect(await recoverCompaction(state, { ...entry, siblingPath: beside })).toMatchObject({ decision: 'rolledForward' });
    expect(readFileSync(db).equals(copy)).toBe(true);
    // Only the empty -wal and -shm are SQLite's leftovers there; a -journal is not among them.
    expect(readdirSync(dir).sort()).toEqual(['.store.sqlite.cleanerx-compact-op1.old-journal', '.store.sqlite.cleanerx-compact-op1.old-shm', 'store.sqlite']);
  });

  it('a journal from before the work directory: an empty -shm of the copy beside the database is removed before the rename', async () => {
    const { db, sib, entry, copy } = setup('verified');
    const beside = join(dir, '.store.sqlite.cleanerx-compact-op1.old');
    renameSync(sib, beside);
    rmSync(dirname(sib), { recursive: true });
    writeFileSync(`${beside}-shm`, '');
    expect(await recoverCompaction(state, { ...entry, siblingPath: beside })).toMatchObject({ decision: 'rolledForward' });
    expect(readFileSync(db).equals(copy)).toBe(true);
    expect(readdirSync(dir)).toEqual(['store.sqlite']);
  });

  it('a journal from before the work directory, never verified: the copy beside the database is removed with its side files', async () => {
    const { db, sib, entry } = setup('copied');
    const beside = join(dir, '.store.sqlite.cleanerx-compact-op1.old');
    renameSync(sib, beside);
    rmSync(dirname(sib), { recursive: true });
    writeFileSync(`${beside}-journal`, 'partial');
    const original = readFileSync(db);
    expect(await recoverCompaction(state, { ...entry, siblingPath: beside })).toMatchObject({ decision: 'rolledBack' });
    expect(readFileSync(db).equals(original)).toBe(true);
    expect(readdirSync(dir)).toEqual(['store.sqlite']);
  });

  it('the database missing: the verified copy takes its place', async () => {
    const { db, sib, entry, copy } = setup('verified');
    rmSync(db);
    expect(await recoverCompaction(state, entry)).toEqual({
      decision: 'rolledForward',
      reason: 'The database was missing; the verified compacted copy took its place.',
    });
    expect(readFileSync(db).equals(copy)).toBe(true);
    expect(existsSync(sib)).toBe(false);
  });
});

describe('the integrity check of the copy', () => {
  it('a copy in WAL mode (as the compaction leaves it for a WAL database) is checked and closed: no side file of it is left', async () => {
    const { db, sib, entry } = setup('verified');
    const c = new Database(sib);
    c.pragma('journal_mode = WAL');
    c.close();
    entry.sibling = identityOf(lstatSync(sib));
    const copy = readFileSync(sib);
    expect(await recoverCompaction(state, entry)).toMatchObject({ decision: 'rolledForward' });
    expect(readdirSync(dir)).toEqual(['store.sqlite']);
    expect(readFileSync(db).equals(copy)).toBe(true);
  });

  it('a copy removed between its check and its integrity check is not created afresh and renamed in: the original is kept', async () => {
    const { db, sib, entry } = setup('verified');
    const original = readFileSync(db);
    const real = vi.mocked(fs.lstatSync).getMockImplementation()!;
    // The last look before the integrity check is at the database's WAL (through the directory's handle): the copy goes away right then.
    vi.mocked(fs.lstatSync).mockImplementation(((p: fs.PathLike, ...rest: []) => {
      if (String(p).endsWith('/store.sqlite-wal')) rmSync(sib);
      return real(p, ...rest);
    }) as typeof fs.lstatSync);
    try {
      expect(await recoverCompaction(state, entry)).toMatchObject({ decision: 'rolledBack' });
    } finally {
      vi.mocked(fs.lstatSync).mockImplementation(real);
    }
    expect(readFileSync(db).equals(original)).toBe(true);
    expect(readdirSync(dir)).toEqual(['store.sqlite']);
  });
});

describe('rolling back', () => {
  const cases: [string, Step, (x: ReturnType<typeof setup>) => void][] = [
    ['copied (never verified), the sibling identity recorded', 'copied', () => {}],
    ['verified, but the WAL of the database holds data', 'verified', (x) => writeFileSync(`${x.db}-wal`, 'frames')],
    [
      'verified, but the copy changed since',
      'verified',
      (x) => {
        const old = lstatSync(x.sib).mtime;
        utimesSync(x.sib, old, new Date(old.getTime() + 5000));
      },
    ],
    [
      'verified, the copy unchanged in identity but not a database (integrity_check fails)',
      'verified',
      (x) => {
        const st = lstatSync(x.sib);
        writeFileSync(x.sib, Buffer.alloc(st.size, 7));
        utimesSync(x.sib, st.atime, st.mtime);
        x.entry.sibling = identityOf(lstatSync(x.sib));
      },
    ],
    [
      'verified, but the database changed since (it is complete and newer than the copy)',
      'verified',
      (x) => {
        const old = lstatSync(x.db).mtime;
        utimesSync(x.db, old, new Date(old.getTime() + 5000));
      },
    ],
  ];
  for (const [what, step, tweak] of cases) {
    it(`${what}: the original kept, the copy removed, journaled rolledBack`, async () => {
      const x = setup(step);
      tweak(x);
      await saveCompaction(state, x.entry);
      const original = readFileSync(x.db);
      const points: string[] = [];
      atCrashPoints((p) => points.push(p));
      expect(await recoverCompaction(state, x.entry)).toEqual({
        decision: 'rolledBack',
        reason: 'The original database is in place; the unfinished compacted copy was removed.',
      });
      expect(readFileSync(x.db).equals(original)).toBe(true);
      expect(existsSync(x.sib)).toBe(false);
      expect(await journaled()).toMatchObject({
        step: 'rolledBack',
        message: 'Recovered by rolling back: the original database is kept, the unfinished copy removed.',
      });
      expect(points).toEqual(['compact:recovered:rolledBack']);
    });
  }
});

describe('blocked: nothing is deleted', () => {
  it('the database missing and the copy never verified: the copy is kept', async () => {
    const { db, sib, entry, copy } = setup('copied');
    rmSync(db);
    expect(await recoverCompaction(state, entry)).toEqual({
      decision: 'blocked',
      reason: `${db} is missing and the copy ${sib} was never verified; it is kept: inspect it before anything else. The original database is still there as ${join(dirname(sib), ORIGINAL_NAME)}: move it back to ${db}.`,
    });
    expect(readFileSync(sib).equals(copy)).toBe(true);
  });

  it('both missing', async () => {
    const { db, sib, entry } = setup('swapping');
    rmSync(db);
    rmSync(sib);
    expect(await recoverCompaction(state, entry)).toEqual({
      decision: 'blocked',
      reason: `${db} and its compacted copy are both missing: something else removed them. The original database is still there as ${join(dirname(sib), ORIGINAL_NAME)}: move it back to ${db}.`,
    });
    rmSync(join(dirname(sib), ORIGINAL_NAME));
    expect(await recoverCompaction(state, entry)).toEqual({
      decision: 'blocked',
      reason: `${db} and its compacted copy are both missing: something else removed them.`,
    });
    rmSync(dirname(sib), { recursive: true });
    expect(await recoverCompaction(state, entry)).toEqual({
      decision: 'blocked',
      reason: `${db} and its compacted copy are both missing: something else removed them.`,
    });
  });

  it('the database path is a directory and the copy is gone: not "both missing"', async () => {
    const { db, sib, entry } = setup('copied');
    rmSync(db);
    // Made while the copy still exists, so the directory cannot take the copy's freed inode (it would pass for the renamed copy).
    mkdirSync(db);
    rmSync(sib);
    expect(await recoverCompaction(state, entry)).toEqual({
      decision: 'blocked',
      reason: `${db} is no longer a regular file; nothing is touched: inspect it and ${sib}.`,
    });
  });

  it('the database path is a directory now: both kept', async () => {
    const { db, sib, entry, copy } = setup('copied');
    rmSync(db);
    mkdirSync(db);
    expect(await recoverCompaction(state, entry)).toEqual({
      decision: 'blocked',
      reason: `${db} is no longer a regular file; nothing is touched: inspect it and ${sib}.`,
    });
    expect(readFileSync(sib).equals(copy)).toBe(true);
  });
});

describe('recoverCompactions', () => {
  it('recovers the unfinished entries, reports the unreadable journal, skips the settled ones', async () => {
    const x = setup('copied', 'a1');
    await saveCompaction(state, x.entry);
    await saveCompaction(state, { ...x.entry, operationId: 'a2', step: 'complete' });
    writeFileSync(join(state, 'compactions', 'a3.json'), '{not json');
    const out = await recoverCompactions(state);
    expect(out).toEqual([
      {
        path: join(state, 'compactions', 'a1.json'),
        result: { decision: 'rolledBack', reason: 'The original database is in place; the unfinished compacted copy was removed.' },
      },
      { path: join(state, 'compactions', 'a3.json'), result: { decision: 'blocked', reason: 'The compaction journal cannot be read as JSON.' } },
    ]);
  });
});
