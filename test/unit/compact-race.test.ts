// The compaction under a hostile race (#26 "Done means": the flipper races
// run against compaction too): a flipper exchanges the database's directory
// with a link to a victim directory outside it, in a tight
// renameat2(RENAME_EXCHANGE) loop, from the moment the work directory exists
// until the run ends. Every write of cleanerx's goes through one handle on
// the directory, opened without following links, and SQLite is given names
// only inside the private work directory: through the swapped link those
// lead to a work directory the victim does not have, so the victim — its
// own database, and a file at the work directory's name — is never touched;
// the run either compacts the real database or stops with a plain sentence.

import Database from 'better-sqlite3';
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { compactDatabase, workDirFor } from '../../src/engine/cleanup/compact.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

const FLIPPER = fileURLToPath(new URL('../helpers/flipper.py', import.meta.url));
const RUNS = 7;
let t: TempEnv | null = null;
let flipper: ChildProcess | null = null;
afterEach(() => {
  flipper?.kill('SIGKILL');
  t?.cleanup();
});

const sleep = new Int32Array(new SharedArrayBuffer(4));
const snapshot = (d: string): Record<string, string> => Object.fromEntries(readdirSync(d).map((n) => [n, readFileSync(join(d, n)).toString('base64')]));

/**
 * A database with free pages; in WAL mode its last writes are still in the
 * -wal (copied while the writer had it open, as an agent killed mid-run
 * leaves it), so a connection that reached it through the swapped link
 * would checkpoint into the victim's files.
 */
function makeDb(p: string, wal: boolean): void {
  const src = `${p}.src`;
  const d = new Database(src);
  if (wal) d.pragma('journal_mode = WAL');
  d.pragma('wal_autocheckpoint = 0');
  d.exec(
    'CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000) INSERT INTO t SELECT i, hex(randomblob(300)) FROM n; DELETE FROM t WHERE id > 400',
  );
  copyFileSync(src, p);
  if (wal) copyFileSync(`${src}-wal`, `${p}-wal`);
  d.close();
  for (const f of [src, `${src}-wal`, `${src}-shm`]) rmSync(f, { force: true });
}

it(`the database's directory swapped for a link mid-compaction: nothing outside it is written (${RUNS} runs)`, { timeout: 120_000 }, async () => {
  let raced = 0;
  for (let run = 0; run < RUNS; run++) {
    t = makeTempEnv('cleanerx-compact-race-');
    const dir = join(t.root, 'db');
    const victim = join(t.root, 'victim');
    mkdirSync(dir);
    mkdirSync(victim);
    const db = join(dir, 'store.sqlite');
    // Rollback and WAL databases in turn.
    const wal = run % 2 === 1;
    makeDb(db, wal);
    makeDb(join(victim, 'store.sqlite'), wal);
    const op = `op-race-${run}`;
    // What a write, rename or removal that followed the path would reach.
    writeFileSync(join(victim, `.store.sqlite.cleanerx-compact-${op}`), 'planted');
    const before = snapshot(victim);
    const link = join(t.root, 'decoy-link');
    symlinkSync(victim, link);
    const ready = join(t.root, 'flipper-ready');
    // Flipping starts once the work directory exists: the run is past its first checks, and SQLite opens its files from then on.
    flipper = spawn('python3', [FLIPPER, dir, link, ready, `+${workDirFor(db, op)}`], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    flipper.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<void>((r) => flipper!.on('exit', () => r()));
    for (let i = 0; i < 2000 && !existsSync(ready); i++) Atomics.wait(sleep, 0, 0, 5);
    const result = await compactDatabase({
      stateDir: t.env.CLEANERX_STATE_DIR!,
      dbPath: db,
      agentStopped: true,
      procRoot: t.procRoot,
      freeBytes: async () => 1e12,
      operationId: op,
    }).then(
      (r) => `compacted, freed ${r.freedBytes}`,
      (e: Error) => `stopped: ${e.message}`,
    );
    flipper.kill('SIGTERM');
    await exited;
    flipper = null;
    if (Number(out.trim()) > 0) raced++;
    expect(snapshot(victim), `run ${run}: ${result}`).toEqual(before);
    t.cleanup();
    t = null;
  }
  // A loaded machine may finish a run before the flipper is scheduled; most runs must have raced.
  expect(raced, 'runs the flipper raced').toBeGreaterThanOrEqual(RUNS / 2);
});
