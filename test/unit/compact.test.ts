// Compaction of agent databases with free pages made by real deletes: the
// Codex logs database (its schema as codex 0.171 creates it) and opencode.db
// as the pinned OpenCode creates it. Free pages drop to 0, the file shrinks,
// the content proof and integrity hold, and nothing else in the directory
// changes. Then the refusals (a holder, a running agent, a full disk) and a
// kill at every crash point in a child process, recovered: the original or
// the compacted copy is in place, never a broken file, never neither.

import Database from 'better-sqlite3';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, linkSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { COMPACT_CRASH_POINTS, compactDatabase, CompactRefused, ORIGINAL_NAME, siblingFor, workDirFor } from '../../src/engine/cleanup/compact.js';
import { listCompactions, saveCompaction, type CompactionEntry } from '../../src/engine/cleanup/compact-journal.js';
import { compareWith, contentProof, proofDifference, type ContentProof } from '../../src/engine/cleanup/compact-proof.js';
import { recoverCompaction, recoverCompactions } from '../../src/engine/cleanup/compact-recovery.js';
import { readDbSpace } from '../../src/engine/host/db-space.js';
import { buildOpencodeFixture, copyOpencodeStore } from '../../src/adapters/opencode/fixture.js';
import { makeTemplate, type Template } from '../helpers/opencode.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DIST_COMPACT = join(ROOT, 'dist', 'engine', 'cleanup', 'compact.js');
const BETTER_SQLITE3 = createRequire(import.meta.url).resolve('better-sqlite3');

const envs: TempEnv[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  for (const t of envs.splice(0)) t.cleanup();
});

function home(): { t: TempEnv; dir: string; state: string } {
  const t = makeTempEnv('cleanerx-compact-');
  envs.push(t);
  const dir = join(t.env.CODEX_HOME!);
  mkdirSync(dir, { recursive: true });
  return { t, dir, state: t.env.CLEANERX_STATE_DIR! };
}

/** codex 0.171's logs_2.sqlite (schema, WAL, auto_vacuum=INCREMENTAL), filled, then its old rows deleted as the old-rows route does. */
function codexLogs(path: string, rows = 3000): void {
  const db = new Database(path);
  db.pragma('auto_vacuum = INCREMENTAL');
  db.pragma('journal_mode = WAL');
  db.exec(`CREATE TABLE _sqlx_migrations (version BIGINT PRIMARY KEY, description TEXT NOT NULL, installed_on TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, success BOOLEAN NOT NULL, checksum BLOB NOT NULL, execution_time BIGINT NOT NULL);
CREATE TABLE logs (id INTEGER PRIMARY KEY AUTOINCREMENT, ts INTEGER NOT NULL, ts_nanos INTEGER NOT NULL, level TEXT NOT NULL, target TEXT NOT NULL, feedback_log_body TEXT, module_path TEXT, file TEXT, line INTEGER, thread_id TEXT, process_uuid TEXT, estimated_bytes INTEGER NOT NULL DEFAULT 0);
CREATE INDEX idx_logs_ts ON logs(ts DESC, ts_nanos DESC, id DESC);
CREATE INDEX idx_logs_thread_id ON logs(thread_id);
CREATE INDEX idx_logs_thread_id_ts ON logs(thread_id, ts DESC, ts_nanos DESC, id DESC);
CREATE INDEX idx_logs_process_uuid_threadless_ts ON logs(process_uuid, ts DESC, ts_nanos DESC, id DESC) WHERE thread_id IS NULL;`);
  db.prepare('INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) VALUES (1, ?, 1, ?, 12)').run(
    'logs',
    Buffer.from([0, 1, 2, 255]),
  );
  const ins = db.prepare(
    'INSERT INTO logs (ts, ts_nanos, level, target, feedback_log_body, module_path, file, line, thread_id, process_uuid, estimated_bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  db.transaction(() => {
    for (let i = 0; i < rows; i++) {
      const body = `event ${i} ` + 'ü→'.repeat(200 + (i % 300));
      ins.run(
        1_750_000_000 + i,
        (i * 7919) % 1e9,
        i % 5 ? 'INFO' : 'WARN',
        'codex_core::session',
        body,
        'codex_core',
        'session.rs',
        i % 900,
        i % 3 ? `thr-${i % 17}` : null,
        `proc-${i % 5}`,
        body.length,
      );
    }
  })();
  db.prepare('DELETE FROM logs WHERE ts < ?').run(1_750_000_000 + Math.floor(rows * 0.6));
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

const proofOf = (path: string): ContentProof => {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return contentProof(db);
  } finally {
    db.close();
  }
};

const integrity = (path: string): string => {
  const db = new Database(path, { fileMustExist: true });
  try {
    return String(db.pragma('integrity_check', { simple: true }));
  } finally {
    db.close();
  }
};

/** The proof of a closed WAL database, taken on a copy so the file itself is never opened by the test. */
function proofOfCopy(path: string, scratch: string): ContentProof {
  mkdirSync(scratch, { recursive: true });
  const c = join(scratch, `copy-${Date.now()}-${Math.random()}.db`);
  for (const s of ['', '-wal']) if (existsSync(path + s)) writeFileSync(c + s, readFileSync(path + s));
  return proofOf(c);
}

async function holdOpen(path: string): Promise<ChildProcess> {
  const code = `const D=require(${JSON.stringify(BETTER_SQLITE3)});const d=new D(${JSON.stringify(path)},{readonly:true});d.prepare('SELECT count(*) FROM sqlite_schema').get();process.stdout.write('ready\\n');setInterval(()=>{},1000);`;
  const c = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(c);
  await new Promise<void>((resolve, reject) => {
    c.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
    c.on('exit', (code) => reject(new Error(`holder exited ${code}`)));
  });
  return c;
}

const others = (dir: string, db: string): string[] => [db, `${db}-wal`, `${db}-shm`].map((x) => join(dir, x));

describe('compactDatabase', () => {
  it('compacts the Codex logs database after its old-rows delete: no free pages, smaller, same content, nothing else changed', async () => {
    const { dir, state, t } = home();
    const db = join(dir, 'logs_2.sqlite');
    codexLogs(db);
    writeFileSync(join(dir, 'state_5.sqlite'), 'another database, not touched');
    mkdirSync(join(dir, 'sessions'));
    writeFileSync(join(dir, 'sessions', 'rollout.jsonl'), '{}\n');
    const before = readDbSpace(db);
    expect(before.freePages).toBeGreaterThan(200);
    const proof = proofOfCopy(db, join(t.root, 'scratch'));
    const outside = hashTree(dir, others(dir, 'logs_2.sqlite'));
    const mode = statSync(db).mode;

    const r = await compactDatabase({ stateDir: state, dbPath: db, agentStopped: true });
    expect(r.after.freePages).toBe(0);
    expect(r.after.fileBytes).toBeLessThan(before.fileBytes * 0.6);
    expect(r.freedBytes).toBe(before.fileBytes - r.after.fileBytes);
    const after = readDbSpace(db);
    expect(after).toMatchObject({ state: 'ok', freePages: 0, journalMode: 'wal', autoVacuum: 'incremental' });
    expect(statSync(db).mode).toBe(mode);
    expect(proofDifference(proof, proofOfCopy(db, join(t.root, 'scratch')))).toBeNull();
    expect(proof.tables.map((x) => x.name)).toEqual(['_sqlx_migrations', 'logs', 'sqlite_sequence']);
    expect(integrity(db)).toBe('ok');
    expect(treeDiff(outside, hashTree(dir, others(dir, 'logs_2.sqlite')))).toEqual([]);
    expect(readdirSync(dir).filter((n) => n.includes('cleanerx-compact'))).toEqual([]);
    const [j] = await listCompactions(state);
    expect(j).toMatchObject({ kind: 'entry', entry: { step: 'complete' } });
  });

  describe('opencode.db made by the pinned OpenCode', () => {
    let template: Template;
    beforeAll(async () => {
      template = await makeTemplate();
    }, 120_000);
    afterAll(() => template?.cleanup());

    it('compacts it after sessions were deleted (their messages, parts and events by cascade), WAL frames included', async () => {
      const { t } = home();
      const db = t.env.OPENCODE_DB!;
      copyOpencodeStore(template.db, db);
      const dataDir = join(t.env.XDG_DATA_HOME!, 'opencode');
      const m = buildOpencodeFixture({
        db,
        workRoot: join(t.root, 'work'),
        dataDir,
        projects: 2,
        rootsPerProject: 6,
        messagesPerSession: 6,
        partBytes: 2500,
        events: true,
        seed: 16,
      });
      const w = new Database(db);
      w.pragma('foreign_keys = ON');
      w.pragma('wal_autocheckpoint = 0');
      const gone = m.sessions.filter((s) => s.kind === 'root').slice(0, 8);
      for (const s of gone) w.prepare('DELETE FROM session WHERE id = ?').run(s.id);
      // Closed as OpenCode closes (frames left in the WAL): a second connection keeps the last close from checkpointing.
      const r0 = new Database(db, { readonly: true });
      r0.prepare('SELECT 1').get();
      w.close();
      r0.close();
      const dir = join(db, '..');
      const before = readDbSpace(db);
      expect(before.walBytes).toBeGreaterThan(0);
      const proof = proofOfCopy(db, join(t.root, 'scratch'));
      expect(proof.tables.find((x) => x.name === 'session')!.rows).toBe(m.sessions.length - gone.length);
      const outside = hashTree(dir, others(dir, 'opencode.db'));

      const r = await compactDatabase({ stateDir: t.env.CLEANERX_STATE_DIR!, dbPath: db, agentStopped: true });
      expect(r.after.freePages).toBe(0);
      expect(r.after.fileBytes + r.after.walBytes).toBeLessThan(before.fileBytes + before.walBytes);
      expect(existsSync(db + '-wal')).toBe(false);
      expect(proofDifference(proof, proofOfCopy(db, join(t.root, 'scratch')))).toBeNull();
      expect(integrity(db)).toBe('ok');
      expect(readDbSpace(db).journalMode).toBe('wal');
      expect(treeDiff(outside, hashTree(dir, others(dir, 'opencode.db')))).toEqual([]);
    }, 60_000);
  });

  it('a link planted at the journaled work directory name is never followed: no copy of the database lands at its target, no mode changes (#26)', async () => {
    const { dir, state, t } = home();
    const db = join(dir, 'logs_2.sqlite');
    codexLogs(db, 600);
    const victimDir = join(t.root, 'victim');
    mkdirSync(victimDir);
    const victim = join(victimDir, basename(siblingFor(db, 'x')));
    writeFileSync(victim, '');
    chmodSync(victim, 0o600);
    const operationId = '0b6c3c1e-1111-4222-8333-944455556666';
    symlinkSync(victimDir, workDirFor(db, operationId));
    const before = hashTree(dir);
    const err = await compactDatabase({ stateDir: state, dbPath: db, agentStopped: true, operationId }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect(statSync(victim).size).toBe(0);
    expect(statSync(victim).mode & 0o777).toBe(0o600);
    expect(treeDiff(before, hashTree(dir))).toEqual([]);
    expect(integrity(db)).toBe('ok');
  });

  it('refuses while a process holds the database open, names it, and changes nothing', async () => {
    const { dir, state } = home();
    const db = join(dir, 'logs_2.sqlite');
    codexLogs(db, 600);
    const c = await holdOpen(db);
    const before = hashTree(dir);
    const err = await compactDatabase({ stateDir: state, dbPath: db, agentStopped: true }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(CompactRefused);
    expect((err as Error).message).toContain(`pid ${c.pid}`);
    expect((err as Error).message).toMatch(/quit it, then compact again\.$/);
    expect(treeDiff(before, hashTree(dir))).toEqual([]);
    expect(await listCompactions(state)).toEqual([]);
  });

  it('refuses while the agent runs, and when the database and its WAL would not fit again on the filesystem', async () => {
    const { dir, state } = home();
    const db = join(dir, 'logs_2.sqlite');
    codexLogs(db, 600);
    const before = hashTree(dir);
    await expect(compactDatabase({ stateDir: state, dbPath: db, agentStopped: false })).rejects.toThrow(/^Quit the agent first/);
    const size = statSync(db).size;
    await expect(compactDatabase({ stateDir: state, dbPath: db, agentStopped: true, freeBytes: async () => size })).rejects.toThrow(
      /Not enough free space .* it needs \d+ bytes free/,
    );
    expect(treeDiff(before, hashTree(dir))).toEqual([]);
    expect(await listCompactions(state)).toEqual([]);
  });

  it('keeps the original byte for byte when the copy fails its content proof, and removes the copy', async () => {
    const { dir, state } = home();
    const db = join(dir, 'logs_2.sqlite');
    codexLogs(db, 600);
    const before = hashTree(dir);
    process.env.CLEANERX_FAIL_AT = 'compact:proof-mismatch';
    try {
      await expect(compactDatabase({ stateDir: state, dbPath: db, agentStopped: true })).rejects.toThrow(
        /original is kept: the compacted copy is not the same content/,
      );
    } finally {
      delete process.env.CLEANERX_FAIL_AT;
    }
    expect(treeDiff(before, hashTree(dir))).toEqual([]);
    const [j] = await listCompactions(state);
    expect(j).toMatchObject({ entry: { step: 'rolledBack' } });
  });
});

describe('compareWith (the proof compactDatabase uses; the tests check with the sha256 proof)', () => {
  it('finds a changed value, a changed type, a changed case under NOCASE, a missing row and an extra one', () => {
    const { dir } = home();
    const a = join(dir, 'a.db');
    const make = (p: string, tweak: string): void => {
      const d = new Database(p);
      d.exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT COLLATE NOCASE, n, b BLOB); CREATE TABLE k (x TEXT PRIMARY KEY, y) WITHOUT ROWID;
        INSERT INTO t VALUES (1, 'Alpha', 1, X'00ff'), (2, 'beta', 2.5, NULL), (3, 'gamma', 3, X'');
        INSERT INTO k VALUES ('p', 1), ('q', 2); ${tweak}`);
      d.close();
    };
    make(a, '');
    const cases: [string, RegExp | null][] = [
      ['', null],
      ["UPDATE t SET name = 'alpha' WHERE id = 1", /1 rows of table t differ/],
      ['UPDATE t SET n = 1.0 WHERE id = 1', /1 rows of table t differ/],
      ["UPDATE t SET b = X'00fe' WHERE id = 1", /1 rows of table t differ/],
      ['DELETE FROM t WHERE id = 3', /table t has 2 rows instead of 3/],
      ["UPDATE k SET y = 3 WHERE x = 'q'", /1 rows of table k differ/],
      ["DELETE FROM t WHERE id = 3; INSERT INTO t VALUES (4, 'gamma', 3, X'')", /1 rows of table t differ/],
      ['PRAGMA user_version = 3', /user_version is 3 instead of 0/],
    ];
    cases.forEach(([tweak, want], i) => {
      const b = join(dir, `b${i}.db`);
      make(b, tweak);
      const src = new Database(a, { readonly: true });
      const r = compareWith(src, b);
      src.close();
      if (want) expect(r.difference, tweak).toMatch(want);
      else
        expect(r).toEqual({
          tables: [
            { name: 'k', rows: 2 },
            { name: 't', rows: 3 },
          ],
          difference: null,
        });
    });
  });
});

describe('a kill at every crash point, then recovery', () => {
  beforeAll(() => {
    // The child runs the built module: build it when this checkout's dist/ lacks it.
    if (!existsSync(DIST_COMPACT)) expect(spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' }).status).toBe(0);
  }, 120_000);

  const forward = new Set(['compact:verified', 'compact:swapping', 'compact:swap:renamed', 'compact:swapped']);
  for (const point of COMPACT_CRASH_POINTS) {
    it(`${point}: the original or the verified copy, never a broken file`, async () => {
      const { dir, state, t } = home();
      const db = join(dir, 'logs_2.sqlite');
      codexLogs(db, 800);
      writeFileSync(join(dir, 'config.toml'), 'model = "x"\n');
      const original = readFileSync(db);
      const proof = proofOfCopy(db, join(t.root, 'scratch'));
      const outside = hashTree(dir, others(dir, 'logs_2.sqlite'));
      const code = `import(${JSON.stringify(pathToFileURL(DIST_COMPACT).href)}).then((m) => m.compactDatabase({ stateDir: ${JSON.stringify(state)}, dbPath: ${JSON.stringify(db)}, agentStopped: true })).then(() => process.exit(0), (e) => { console.error(e.message); process.exit(3); });`;
      const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], {
        env: { ...t.env, CLEANERX_CRASH_AT: point },
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(r.signal, r.stderr).toBe('SIGKILL');

      const [res] = await recoverCompactions(state);
      if (point === 'compact:complete') expect(res).toBeUndefined();
      else expect(res!.result.decision).toBe(forward.has(point) ? 'rolledForward' : 'rolledBack');
      expect(integrity(db)).toBe('ok');
      expect(proofDifference(proof, proofOfCopy(db, join(t.root, 'scratch')))).toBeNull();
      if (forward.has(point) || point === 'compact:complete') expect(readDbSpace(db).freePages).toBe(0);
      else expect(readFileSync(db).equals(original)).toBe(true);
      expect(readdirSync(dir).filter((n) => n.includes('cleanerx-compact'))).toEqual([]);
      expect(treeDiff(outside, hashTree(dir, others(dir, 'logs_2.sqlite')))).toEqual([]);
      const wal = join(dir, 'logs_2.sqlite-wal');
      if (existsSync(wal)) expect(statSync(wal).size).toBe(0);
      expect((await listCompactions(state)).every((f) => f.kind === 'entry' && ['complete', 'rolledBack'].includes(f.entry.step))).toBe(true);
    }, 60_000);
  }

  it('a partial copy left by a kill inside VACUUM INTO is removed; the original stays', async () => {
    const { dir, state } = home();
    const db = join(dir, 'logs_2.sqlite');
    codexLogs(db, 400);
    const original = readFileSync(db);
    const entry = pending(db, 'copying', 'a');
    mkdirSync(dirname(entry.siblingPath));
    linkSync(db, join(dirname(entry.siblingPath), ORIGINAL_NAME));
    writeFileSync(entry.siblingPath, original.subarray(0, 8192));
    await saveCompaction(state, entry);
    expect(await recoverCompaction(state, entry)).toMatchObject({ decision: 'rolledBack' });
    expect(readFileSync(db).equals(original)).toBe(true);
    expect(readdirSync(dir).filter((n) => n.includes('cleanerx-compact'))).toEqual([]);
  });

  it('a missing database: a verified copy takes its place; an unverified one is kept and nothing is deleted', async () => {
    const { dir, state, t } = home();
    const db = join(dir, 'logs_2.sqlite');
    codexLogs(db, 400);
    // A verified copy: run the real compaction up to the swap in a child, then remove the database.
    const code = `import(${JSON.stringify(pathToFileURL(DIST_COMPACT).href)}).then((m) => m.compactDatabase({ stateDir: ${JSON.stringify(state)}, dbPath: ${JSON.stringify(db)}, agentStopped: true }));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { env: { ...t.env, CLEANERX_CRASH_AT: 'compact:swapping' }, encoding: 'utf8' });
    expect(r.signal).toBe('SIGKILL');
    const [f] = await listCompactions(state);
    const entry = (f as { entry: CompactionEntry }).entry;
    const proof = proofOfCopy(entry.siblingPath, join(t.root, 'scratch'));
    spawnSync('rm', ['-f', db, `${db}-wal`, `${db}-shm`]);
    expect(await recoverCompaction(state, entry)).toMatchObject({ decision: 'rolledForward' });
    expect(proofDifference(proof, proofOfCopy(db, join(t.root, 'scratch')))).toBeNull();
    expect(readdirSync(dir).sort()).toEqual(['logs_2.sqlite']);

    const e2 = pending(join(dir, 'other.sqlite'), 'copying', 'b');
    mkdirSync(dirname(e2.siblingPath));
    writeFileSync(e2.siblingPath, 'partial');
    await saveCompaction(state, e2);
    expect(await recoverCompaction(state, e2)).toMatchObject({ decision: 'blocked' });
    expect(readFileSync(e2.siblingPath, 'utf8')).toBe('partial');
  });
});

function pending(dbPath: string, step: CompactionEntry['step'], id: string): CompactionEntry {
  const now = new Date().toISOString();
  return { formatVersion: 1, kind: 'compact', operationId: id, dbPath, siblingPath: siblingFor(dbPath, id), createdAt: now, updatedAt: now, step };
}
