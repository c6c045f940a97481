// compactDatabase's refusals and its failure paths, rule by rule (#26 item
// 5: the mutants of engine/cleanup/compact.ts). A small real SQLite file
// with free pages in a temp dir; holders are made in the fake /proc of the
// temp env (a pid dir with a comm and an fd link to the file), never
// looked for in the real one. Each refusal comes with its own sentence and
// leaves no journal, or a rolled-back one; a failure after the rename is
// left to recovery.

import Database from 'better-sqlite3';
import {
  appendFileSync,
  copyFileSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CompactRefused, compactDatabase, ORIGINAL_NAME, removeSibling, removeWorkDir, siblingFor, workDirFor } from '../../src/engine/cleanup/compact.js';
import { listCompactions, saveCompaction, type CompactionEntry } from '../../src/engine/cleanup/compact-journal.js';
import { atCrashPoints } from '../../src/engine/core/faults.js';
import { openRootDir } from '../../src/engine/host/anchored-fs.js';
import { readDbSpace } from '../../src/engine/host/db-space.js';
import { writeFreePagesDb } from '../helpers/free-pages-db.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
let dir: string;
let state: string;
let db: string;
beforeEach(() => {
  t = makeTempEnv('cleanerx-compact-rules-');
  dir = join(t.root, 'db');
  mkdirSync(dir);
  state = t.env.CLEANERX_STATE_DIR!;
  db = join(dir, 'store.sqlite');
  writeFreePagesDb(db);
});
afterEach(() => {
  atCrashPoints(null);
  t.cleanup();
});

const opts = (extra: object = {}) => ({ stateDir: state, dbPath: db, agentStopped: true, procRoot: t.procRoot, freeBytes: async () => 1e12, ...extra });

/** A process in the fake /proc holding `path` open. */
function holder(pid: number, comm: string, path = db): void {
  mkdirSync(join(t.procRoot, String(pid), 'fd'), { recursive: true });
  writeFileSync(join(t.procRoot, String(pid), 'comm'), `${comm}\n`);
  symlinkSync(path, join(t.procRoot, String(pid), 'fd', '3'));
}

/** Turns the database into WAL mode with frames still in its WAL (a copy of both files taken while the writer had them open). */
function withWalFrames(): void {
  const src = join(t.root, 'src.sqlite');
  const d = new Database(src);
  d.pragma('journal_mode = WAL');
  d.pragma('wal_autocheckpoint = 0');
  d.exec(
    'CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300) INSERT INTO t SELECT i, hex(randomblob(300)) FROM n; DELETE FROM t WHERE id > 40',
  );
  copyFileSync(src, db);
  copyFileSync(`${src}-wal`, `${db}-wal`);
  d.close();
}

async function refusal(extra: object = {}): Promise<Error> {
  const e = await compactDatabase(opts(extra)).catch((x: Error) => x);
  expect(e).toBeInstanceOf(Error);
  return e as Error;
}

function entryFor(step: CompactionEntry['step'], id: string, dbPath = db): CompactionEntry {
  const now = new Date().toISOString();
  return { formatVersion: 1, kind: 'compact', operationId: id, dbPath, siblingPath: siblingFor(dbPath, id), createdAt: now, updatedAt: now, step };
}

describe('preflight refusals, in order, each with its sentence; nothing is written', () => {
  it('the agent running', async () => {
    const e = await refusal({ agentStopped: false });
    expect(e).toBeInstanceOf(CompactRefused);
    expect(e.message).toBe('Quit the agent first: a database is compacted only while its agent is stopped.');
    expect(await listCompactions(state)).toEqual([]);
  });

  it('a database that cannot be read: its reason', async () => {
    const missing = join(dir, 'gone.sqlite');
    const s = readDbSpace(missing);
    expect(s.reason).toBe('The database does not exist.');
    const e = await refusal({ dbPath: missing });
    expect(e).toBeInstanceOf(CompactRefused);
    expect(e.message).toBe(`Cannot compact ${missing}: The database does not exist.`);
  });

  it('an unreadable compaction journal blocks every compaction', async () => {
    mkdirSync(join(state, 'compactions'), { recursive: true });
    const bad = join(state, 'compactions', 'x.json');
    writeFileSync(bad, '{');
    const e = await refusal();
    expect(e).toBeInstanceOf(CompactRefused);
    expect(e.message).toBe(`An unreadable compaction journal (${bad}) blocks compaction; inspect it and move it away.`);
  });

  it('an interrupted compaction of this database blocks it; a settled one, or one of another database, does not', async () => {
    await saveCompaction(state, entryFor('copying', 'other', join(dir, 'other.sqlite')));
    await saveCompaction(state, entryFor('rolledBack', 'old'));
    await saveCompaction(state, entryFor('copied', 'mine'));
    const e = await refusal();
    expect(e).toBeInstanceOf(CompactRefused);
    expect(e.message).toBe(`An interrupted compaction of ${db} must be recovered first.`);
    await saveCompaction(state, { ...entryFor('failed', 'mine') });
    expect((await compactDatabase(opts())).after.freePages).toBe(0);
  });

  it('one holder, named with its pid', async () => {
    holder(101, 'sqlite3');
    const before = readFileSync(db);
    const e = await refusal();
    expect(e).toBeInstanceOf(CompactRefused);
    expect(e.message).toBe(`sqlite3 (pid 101) has ${db} open; quit it, then compact again.`);
    expect(readFileSync(db).equals(before)).toBe(true);
    expect(await listCompactions(state)).toEqual([]);
  });

  it('five holders, of the database and of each side file: three named, the rest counted', async () => {
    for (const s of ['-wal', '-shm', '-journal']) writeFileSync(db + s, '');
    holder(101, 'a');
    holder(102, 'b', `${db}-wal`);
    holder(103, 'c', `${db}-shm`);
    holder(104, 'd', `${db}-journal`);
    holder(105, 'e');
    const e = await refusal();
    expect(e.message).toBe(`a (pid 101), b (pid 102), c (pid 103) and 2 more has ${db} open; quit it, then compact again.`);
  });

  it('three holders: all three named, nothing counted', async () => {
    holder(101, 'a');
    holder(102, 'b');
    holder(103, 'c');
    expect((await refusal()).message).toBe(`a (pid 101), b (pid 102), c (pid 103) has ${db} open; quit it, then compact again.`);
  });

  it('each side file alone is enough to refuse', async () => {
    for (const s of ['-wal', '-shm', '-journal']) {
      const p = db + s;
      writeFileSync(p, '');
      holder(200, 'x', p);
      expect((await refusal()).message, s).toBe(`x (pid 200) has ${db} open; quit it, then compact again.`);
      const { rmSync } = await import('node:fs');
      rmSync(join(t.procRoot, '200'), { recursive: true });
      rmSync(p);
    }
  });

  it('free space: the database, its WAL and 16 MiB, asked of the database directory; one byte short refuses, exactly enough compacts', async () => {
    withWalFrames();
    const s = readDbSpace(db);
    expect(s.walBytes).toBeGreaterThan(0);
    const need = s.fileBytes + s.walBytes + 16 * 1024 * 1024;
    const asked: string[] = [];
    const free = (n: number) => async (d: string) => {
      asked.push(d);
      return n;
    };
    const e = await refusal({ freeBytes: free(need - 1) });
    expect(e).toBeInstanceOf(CompactRefused);
    expect(e.message).toBe(
      `Not enough free space to compact ${db}: it needs ${need} bytes free on its filesystem (the database and its WAL again), ${need - 1} are free.`,
    );
    const r = await compactDatabase(opts({ freeBytes: free(need) }));
    expect(r.after.freePages).toBe(0);
    expect(asked).toEqual([dir, dir]);
  });
});

describe('the result', () => {
  it('the sizes before and after (the WAL counted), the bytes freed, the proof, and the journal complete with its sentence', async () => {
    withWalFrames();
    const before = readDbSpace(db);
    expect(before.walBytes).toBeGreaterThan(0);
    const r = await compactDatabase(opts({ operationId: 'op-r' }));
    const size = statSync(db).size;
    expect(r).toEqual({
      operationId: 'op-r',
      before: { fileBytes: before.fileBytes, walBytes: before.walBytes, freePages: before.freePages, pageSize: before.pageSize },
      after: { fileBytes: size, walBytes: 0, freePages: 0 },
      freedBytes: before.fileBytes + before.walBytes - size,
      proof: [{ name: 't', rows: 40 }],
    });
    expect(r.freedBytes).toBeGreaterThan(0);
    const [f] = await listCompactions(state);
    expect(f).toMatchObject({
      entry: { step: 'complete', message: `Compacted: ${before.fileBytes + before.walBytes} bytes before, ${size} after.`, proof: [{ name: 't', rows: 40 }] },
    });
    expect(readdirSync(dir)).toEqual(['store.sqlite']);
  });
});

describe('after the proof', () => {
  it('a holder that appeared after the copy was verified: refused, the original kept, the copy removed, journaled rolledBack', async () => {
    const before = readFileSync(db);
    const points: string[] = [];
    const hook = (p: string) => {
      points.push(p);
      if (p === 'compact:verified') holder(300, 'late');
    };
    atCrashPoints(hook);
    const e = await refusal({ operationId: 'op-h' });
    expect(points.at(-1)).toBe('compact:rolledBack');
    expect(e).toBeInstanceOf(CompactRefused);
    expect(e.message).toBe(`late (pid 300) opened ${db} during the compaction; the original is kept.`);
    expect(readFileSync(db).equals(before)).toBe(true);
    expect(readdirSync(dir)).toEqual(['store.sqlite']);
    const [f] = await listCompactions(state);
    expect(f).toMatchObject({ entry: { step: 'rolledBack', message: `Not compacted; the original is kept: ${e.message}` } });
  });

  it('the original changed after it was identified: not a refusal, an error naming it; rolled back', async () => {
    atCrashPoints((p) => {
      if (p !== 'compact:verified') return;
      const st = lstatSync(db);
      utimesSync(db, st.atime, new Date(st.mtimeMs + 5000));
    });
    const e = await refusal({ operationId: 'op-c' });
    expect(e).not.toBeInstanceOf(CompactRefused);
    expect(e.message).toBe(`Compaction of ${db} stopped and the original is kept: ${db} changed during the compaction`);
    expect(existsSync(siblingFor(db, 'op-c'))).toBe(false);
    const [f] = await listCompactions(state);
    expect(f).toMatchObject({ entry: { step: 'rolledBack', message: `Not compacted; the original is kept: ${db} changed during the compaction` } });
  });

  it('the original replaced by a copy of itself (same size and time, another inode), or grown with its time put back: changed', async () => {
    const ways: ((st: import('node:fs').Stats) => void)[] = [
      (st) => {
        copyFileSync(db, `${db}.new`);
        utimesSync(`${db}.new`, st.atime, st.mtime);
        renameSync(`${db}.new`, db);
      },
      (st) => {
        appendFileSync(db, Buffer.alloc(4096));
        utimesSync(db, st.atime, st.mtime);
      },
    ];
    for (const [i, way] of ways.entries()) {
      atCrashPoints((p) => {
        if (p === 'compact:verified') way(lstatSync(db));
      });
      const e = await refusal({ operationId: `op-i${i}` });
      expect(e.message, String(i)).toBe(`Compaction of ${db} stopped and the original is kept: ${db} changed during the compaction`);
    }
  });

  for (const point of ['compact:swap:renamed', 'compact:swapped'] as const) {
    it(`a failure at ${point}: nothing undone, the journal left for recovery, the error says so`, async () => {
      atCrashPoints((p) => {
        if (p === point) throw new Error('injected');
      });
      const e = await refusal({ operationId: 'op-s' });
      expect(e.message).toBe(`Compaction of ${db} stopped at the swap (injected); run recovery, which keeps whichever complete copy is in place.`);
      const [f] = await listCompactions(state);
      expect(f).toMatchObject({ entry: { step: point === 'compact:swap:renamed' ? 'swapping' : 'swapped' } });
      expect(existsSync(db)).toBe(true);
    });
  }
});

describe('the copy', () => {
  it('a database in WAL mode is checkpointed, copied, and back in WAL mode after the swap; no side file is left', async () => {
    const d = new Database(db);
    d.pragma('journal_mode = WAL');
    d.exec('DELETE FROM t WHERE id > 20');
    d.close();
    const r = await compactDatabase(opts());
    expect(r.proof).toEqual([{ name: 't', rows: 20 }]);
    expect(readdirSync(dir)).toEqual(['store.sqlite']);
    const after = new Database(db, { readonly: true });
    expect(after.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(after.pragma('freelist_count', { simple: true })).toBe(0);
    after.close();
  });

  it("takes the original's mode", async () => {
    const { chmodSync } = await import('node:fs');
    chmodSync(db, 0o640);
    await compactDatabase(opts());
    expect(statSync(db).mode & 0o7777).toBe(0o640);
  });

  it('another connection that takes a lock after the preflight: refused as busy, the original kept, rolled back', async () => {
    let other: Database.Database | null = null;
    atCrashPoints((p) => {
      if (p !== 'compact:planned') return;
      other = new Database(db);
      other.exec('BEGIN EXCLUSIVE');
    });
    try {
      const e = await refusal();
      expect(e).toBeInstanceOf(CompactRefused);
      expect(e.message).toBe(`Another program is using ${db} (SQLITE_BUSY); quit it, then compact again.`);
    } finally {
      const o = other as Database.Database | null;
      o?.exec('ROLLBACK');
      o?.close();
    }
    const [f] = await listCompactions(state);
    expect(f).toMatchObject({ entry: { step: 'rolledBack' } });
  });

  it('a copy that differs from the original is refused and removed', async () => {
    process.env.CLEANERX_FAIL_AT = 'compact:proof-mismatch';
    try {
      const e = await refusal({ operationId: 'op-m' });
      expect(e.message).toBe(`Compaction of ${db} stopped and the original is kept: the compacted copy is not the same content: injected difference`);
    } finally {
      delete process.env.CLEANERX_FAIL_AT;
    }
    expect(readdirSync(dir)).toEqual(['store.sqlite']);
  });

  it('a side file next to the copy after it was proven: refused, all of it removed', async () => {
    atCrashPoints((p) => {
      if (p === 'compact:copied') writeFileSync(`${siblingFor(db, 'op-j')}-journal`, '');
    });
    const e = await refusal({ operationId: 'op-j' });
    expect(e.message).toBe(`Compaction of ${db} stopped and the original is kept: SQLite left ${siblingFor(db, 'op-j')}-journal behind`);
    expect(readdirSync(dir)).toEqual(['store.sqlite']);
  });

  it('a copy replaced at its name while it was written: refused', async () => {
    const sib = siblingFor(db, 'op-w');
    atCrashPoints((p) => {
      if (p !== 'compact:copy:written') return;
      renameSync(sib, join(t.root, 'moved'));
      writeFileSync(sib, readFileSync(join(t.root, 'moved')));
    });
    const e = await refusal({ operationId: 'op-w' });
    expect(e.message).toBe(`Compaction of ${db} stopped and the original is kept: ${sib} was replaced while the copy was written`);
    expect(readdirSync(dir)).toEqual(['store.sqlite']);
  });
});

describe('removeSibling', () => {
  it('removes the sibling and its side files when they are regular files, and nothing through a link or a directory', async () => {
    // As a journal from before the work directory named it: beside the database.
    const sib = join(dir, '.store.sqlite.cleanerx-compact-op-x');
    const h = openRootDir(dir);
    const removeSib = (): void => removeSibling(h, basename(sib));
    const target = join(t.root, 'target');
    writeFileSync(target, 'keep');
    writeFileSync(sib, 'copy');
    writeFileSync(`${sib}-wal`, 'w');
    symlinkSync(target, `${sib}-shm`);
    mkdirSync(`${sib}-journal`);
    removeSib();
    expect(readdirSync(dirname(sib)).sort()).toEqual(
      [`.store.sqlite.cleanerx-compact-op-x-journal`, `.store.sqlite.cleanerx-compact-op-x-shm`, 'store.sqlite'].sort(),
    );
    expect(readFileSync(target, 'utf8')).toBe('keep');
    writeFileSync(sib, 'copy');
    for (const s of ['-shm', '-journal']) {
      const { rmSync } = await import('node:fs');
      rmSync(sib + s, { recursive: true });
      writeFileSync(sib + s, '');
    }
    removeSib();
    h.close();
    expect(readdirSync(dir)).toEqual(['store.sqlite']);
  });
});

describe('removeWorkDir', () => {
  const fill = (work: string): void => {
    mkdirSync(work, { mode: 0o700 });
    linkSync(db, join(work, ORIGINAL_NAME));
    for (const n of [
      'compacted',
      'compacted-journal',
      'compacted-wal',
      'compacted-shm',
      `${ORIGINAL_NAME}-wal`,
      `${ORIGINAL_NAME}-shm`,
      `${ORIGINAL_NAME}-journal`,
    ])
      writeFileSync(join(work, n), n);
  };

  it("removes the copy, the original's second link and every side file of both, then the folder; the database keeps its bytes", () => {
    const work = workDirFor(db, 'op-w1');
    const original = readFileSync(db);
    fill(work);
    const h = openRootDir(dir);
    removeWorkDir(h, basename(work));
    h.close();
    expect(readdirSync(dir)).toEqual(['store.sqlite']);
    expect(readFileSync(db).equals(original)).toBe(true);
  });

  it('leaves the folder when something not its own is in it, and never follows a link there', () => {
    const work = workDirFor(db, 'op-w2');
    const target = join(t.root, 'target');
    writeFileSync(target, 'keep');
    fill(work);
    rmSync(join(work, 'compacted-shm'));
    symlinkSync(target, join(work, 'compacted-shm'));
    writeFileSync(join(work, 'notes'), 'not ours');
    const h = openRootDir(dir);
    removeWorkDir(h, basename(work));
    expect(readdirSync(work).sort()).toEqual(['compacted-shm', 'notes']);
    expect(readFileSync(target, 'utf8')).toBe('keep');
    rmSync(join(work, 'notes'));
    rmSync(join(work, 'compacted-shm'));
    removeWorkDir(h, basename(work));
    h.close();
    expect(readdirSync(dir)).toEqual(['store.sqlite']);
  });

  it("a link or a file at the work folder's name, or nothing there: nothing is touched", () => {
    const victim = join(t.root, 'victim');
    fill(victim);
    const names = readdirSync(victim).sort();
    const h = openRootDir(dir);
    symlinkSync(victim, workDirFor(db, 'op-w3'));
    removeWorkDir(h, basename(workDirFor(db, 'op-w3')));
    writeFileSync(workDirFor(db, 'op-w4'), 'a file');
    removeWorkDir(h, basename(workDirFor(db, 'op-w4')));
    removeWorkDir(h, basename(workDirFor(db, 'op-w5')));
    h.close();
    expect(readdirSync(victim).sort()).toEqual(names);
    expect(readFileSync(workDirFor(db, 'op-w4'), 'utf8')).toBe('a file');
  });
});
