// The demo's Codex logs database with old rows (#28.6): the database needs
// Codex's own schema, so the pinned codex creates it in a private build home
// (its App Server makes logs_2.sqlite as it starts and stops when its stdin
// ends); the old rows go in, and the file moves into the demo's CODEX_HOME
// whole. Codex drops rows older than 10 days itself when it starts and
// cleanerx offers those older than 7, so the rows are 8–9 days old: the
// suggested plan has old log rows to delete and a database to compact.

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

const DAY_S = 86_400;
/** Old rows: ~3 MB of diagnostic log bodies. */
const OLD_ROWS = 3000;
const NEW_ROWS = 200;

/** Runs `codex app-server` in `codexHome` until it has made logs_2.sqlite (or the timeout), then ends its stdin. */
async function codexMakesLogsDb(env: Record<string, string>, codexHome: string, timeoutMs: number): Promise<string | null> {
  const db = join(codexHome, 'logs_2.sqlite');
  const child = spawn('codex', ['app-server'], {
    env: { ...env, CODEX_HOME: codexHome, HOME: join(codexHome, 'home'), RUST_LOG: 'error' },
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  const exited = new Promise<void>((resolve) => {
    child.on('exit', () => resolve());
    child.on('error', () => resolve());
  });
  const started = Date.now();
  while (!hasLogsTable(db) && Date.now() - started < timeoutMs && child.exitCode === null) await new Promise((r) => setTimeout(r, 100));
  child.stdin.end();
  const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(killer);
  return hasLogsTable(db) ? db : null;
}

function hasLogsTable(db: string): boolean {
  if (!existsSync(db)) return false;
  try {
    const d = new Database(db, { readonly: true, fileMustExist: true });
    try {
      return Boolean(d.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'logs'").get());
    } finally {
      d.close();
    }
  } catch {
    return false;
  }
}

/** How many old rows, of about how many bytes each (the demo's: ~3 MB; the full-disk bench scales them). */
interface LogRowsSize {
  oldRows: number;
  bodyBytes: number;
}

/** Old and recent rows, as Codex writes them; then one file without its WAL. */
function addLogRows(db: string, nowMs: number, size: LogRowsSize | undefined): void {
  const d = new Database(db, { fileMustExist: true });
  try {
    const now = Math.floor(nowMs / 1000);
    const ins = d.prepare(
      "INSERT INTO logs (ts, ts_nanos, level, target, feedback_log_body, module_path, estimated_bytes) VALUES (?, ?, 'INFO', 'codex_core::client', ?, 'codex_core::client', ?)",
    );
    d.transaction(() => {
      const pad = size ? 'x'.repeat(size.bodyBytes) : '';
      for (let i = 0; i < (size?.oldRows ?? OLD_ROWS); i++) {
        const body = size ? `demo request ${i}: ${pad}` : `demo request ${i}: ${'stream event payload '.repeat(40 + (i % 20))}`;
        ins.run(now - 8 * DAY_S - (i % 50_000), i, body, body.length);
      }
      for (let i = 0; i < NEW_ROWS; i++) {
        const body = `demo request (recent) ${i}: ${'ok '.repeat(60)}`;
        ins.run(now - 3600 - i, i, body, body.length);
      }
    })();
    d.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    d.close();
  }
}

/** Builds the logs database beside the demo home and moves it into CODEX_HOME; false when codex could not make it (the demo goes without). */
export async function buildDemoCodexLogs(
  root: string,
  env: Record<string, string | undefined>,
  nowMs: number,
  timeoutMs = 30_000,
  size?: LogRowsSize,
): Promise<boolean> {
  const codexHome = env.CODEX_HOME;
  if (!codexHome || !env.PATH) return false;
  const build = join(root, 'codex-build');
  mkdirSync(join(build, 'home'), { recursive: true });
  try {
    const db = await codexMakesLogsDb({ PATH: env.PATH, LANG: 'C.UTF-8' }, build, timeoutMs);
    if (!db) return false;
    addLogRows(db, nowMs, size);
    // A demo Codex that made its own logs database meanwhile keeps it.
    if (existsSync(join(codexHome, 'logs_2.sqlite'))) return false;
    for (const side of ['-wal', '-shm']) rmSync(db + side, { force: true });
    renameSync(db, join(codexHome, 'logs_2.sqlite'));
    return true;
  } finally {
    rmSync(build, { recursive: true, force: true });
  }
}
