// compact-1g: compacting a ~1 GB Codex-logs-shaped database with about half
// of its pages free, through cleanerx's real path (dist/engine/cleanup/
// compact.js compactDatabase in a child process: holder and free-space
// checks, WAL checkpoint, integrity_check before and after, VACUUM INTO a
// sibling, the per-table content proof of both files, fsyncs, journal,
// rename) against `sqlite3 <copy> VACUUM` (the Debian CLI, in place) on an
// identical copy in the same run. Each side gets a fresh copy of the stored
// database right before it runs; the order alternates. Median of 3.
// The base database is built once into bench/.stores/compact-1g (marker).

import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureBenchTools } from './lib/system-tools.mjs';
import { fmtBytes, median, ROOT, STORES } from './lib/util.mjs';

export const name = 'compact-1g';
export const target = 1.2;
const RUNS = 3;
const PARAMS = { version: 1, targetBytes: 1024 * 1024 * 1024, deleteShare: 0.5, seed: 16 };
const COMPACT = join(ROOT, 'dist', 'engine', 'cleanup', 'compact.js');

const SCHEMA = `CREATE TABLE logs (id INTEGER PRIMARY KEY AUTOINCREMENT, ts INTEGER NOT NULL, ts_nanos INTEGER NOT NULL, level TEXT NOT NULL, target TEXT NOT NULL, feedback_log_body TEXT, module_path TEXT, file TEXT, line INTEGER, thread_id TEXT, process_uuid TEXT, estimated_bytes INTEGER NOT NULL DEFAULT 0);
CREATE INDEX idx_logs_ts ON logs(ts DESC, ts_nanos DESC, id DESC);
CREATE INDEX idx_logs_thread_id ON logs(thread_id);
CREATE INDEX idx_logs_thread_id_ts ON logs(thread_id, ts DESC, ts_nanos DESC, id DESC);
CREATE INDEX idx_logs_process_uuid_threadless_ts ON logs(process_uuid, ts DESC, ts_nanos DESC, id DESC) WHERE thread_id IS NULL;`;

/** codex 0.171's logs schema (WAL, auto_vacuum=INCREMENTAL), filled to ~1 GB, then the older half deleted as the old-rows route does. */
function ensureStore(log) {
  const root = join(STORES, 'compact-1g');
  const base = join(root, 'logs_2.sqlite');
  const marker = join(root, '.complete');
  if (existsSync(marker) && existsSync(base)) {
    try {
      const m = JSON.parse(readFileSync(marker, 'utf8'));
      if (JSON.stringify(m.params) === JSON.stringify(PARAMS)) return { root, base, ...m, reused: true };
    } catch {
      /* rebuild */
    }
  }
  log(`  building the ~1 GB logs database in ${root} (once)…`);
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  const Database = createRequire(join(ROOT, 'package.json'))('better-sqlite3');
  const db = new Database(base);
  db.pragma('auto_vacuum = INCREMENTAL');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  db.exec(SCHEMA);
  const ins = db.prepare(
    'INSERT INTO logs (ts, ts_nanos, level, target, feedback_log_body, module_path, file, line, thread_id, process_uuid, estimated_bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  let s = PARAMS.seed;
  const r = () => (s = (s * 1103515245 + 12345) & 0x7fffffff);
  const chars = 'abcdefghijklmnopqrstuvwxyz0123456789 {}":,';
  const pool = Array.from({ length: 256 }, () => Array.from({ length: 1500 }, () => chars[r() % chars.length]).join(''));
  let rows = 0;
  while (statSync(base).size < PARAMS.targetBytes) {
    db.transaction(() => {
      for (let k = 0; k < 20_000; k++, rows++) {
        const body = pool[r() % 256].slice(r() % 500) + rows;
        ins.run(
          1_700_000_000 + rows,
          r() % 1e9,
          rows % 5 ? 'INFO' : 'WARN',
          'codex_core::session',
          body,
          'codex_core',
          'session.rs',
          rows % 900,
          rows % 3 ? `thr-${rows % 50}` : null,
          `proc-${rows % 7}`,
          body.length,
        );
      }
    })();
    db.pragma('wal_checkpoint(TRUNCATE)');
  }
  db.prepare('DELETE FROM logs WHERE ts < ?').run(1_700_000_000 + Math.floor(rows * PARAMS.deleteShare));
  db.pragma('wal_checkpoint(TRUNCATE)');
  const pages = db.pragma('page_count', { simple: true });
  const free = db.pragma('freelist_count', { simple: true });
  db.close();
  const m = { params: PARAMS, rows, pages, free, bytes: statSync(base).size };
  writeFileSync(marker, JSON.stringify(m) + '\n');
  return { root, base, ...m, reused: false };
}

function timeProcess(cmd, args, env) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const c = spawn(cmd, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    c.stderr.on('data', (d) => (err += d));
    c.on('error', reject);
    c.on('close', (code, signal) => {
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (code !== 0) reject(new Error(`${cmd} exited ${code ?? signal}: ${err.trim().slice(0, 400)}`));
      else resolve(ms);
    });
  });
}

const fresh = (base, to) => {
  for (const s of ['', '-wal', '-shm', '-journal']) rmSync(to + s, { force: true });
  copyFileSync(base, to);
};

export async function run({ log }) {
  if (!existsSync(COMPACT)) throw new Error('dist/engine/cleanup/compact.js is missing: run `npm run build` first.');
  const { sqlite3 } = ensureBenchTools([['sqlite3', 'sqlite3']]);
  const store = ensureStore(log);
  const work = join(store.root, 'work');
  mkdirSync(work, { recursive: true });
  const state = join(work, 'state');
  const ours = [];
  const reference = [];
  let sizes = null;
  const env = { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8', HOME: work };
  const script = (db) =>
    `import(${JSON.stringify(pathToFileURL(COMPACT).href)}).then((m) => m.compactDatabase({ stateDir: ${JSON.stringify(state)}, dbPath: ${JSON.stringify(db)}, agentStopped: true })).then((r) => { process.stderr.write(JSON.stringify({ after: r.after, freed: r.freedBytes })); }, (e) => { console.error(e.message); process.exit(3); });`;
  for (let i = 0; i < RUNS; i++) {
    const a = join(work, 'ours.sqlite');
    const b = join(work, 'reference.sqlite');
    const sides = [
      async () => {
        fresh(store.base, a);
        rmSync(state, { recursive: true, force: true });
        ours.push(await timeProcess(process.execPath, ['--input-type=module', '-e', script(a)], env));
        sizes = { ours: statSync(a).size };
      },
      async () => {
        fresh(store.base, b);
        reference.push(await timeProcess(sqlite3, [b, 'VACUUM'], env));
      },
    ];
    if (i % 2) sides.reverse();
    for (const s of sides) await s();
    sizes.reference = statSync(b).size;
  }
  rmSync(work, { recursive: true, force: true });
  const o = median(ours);
  const r = median(reference);
  return {
    name,
    ours: o,
    reference: r,
    ratio: o / r,
    target,
    runs: { ours, reference },
    extra: {
      lines: [
        `database ${fmtBytes(store.bytes)} (${store.pages} pages, ${store.free} free), ${store.rows} rows written, half deleted; after: ours ${fmtBytes(sizes.ours)}, sqlite3 VACUUM ${fmtBytes(sizes.reference)}`,
      ],
      storeReused: store.reused,
    },
  };
}

// Standalone: `node bench/compact-1g.mjs` (the lead registers it in bench/run.mjs).
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const res = await run({ log: (s) => process.stdout.write(`${s}\n`) });
  process.stdout.write(`${JSON.stringify(res, null, 2)}\n`);
}
