// Where a Codex store lives: the home (override → CODEX_HOME → ~/.codex),
// the SQLite home (CODEX_SQLITE_HOME, else the home), the recognized
// desktop application-data roots, the control socket, and the platform
// binary behind the npm launcher.

import { existsSync, lstatSync, readdirSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, sep } from 'node:path';
import type { HostContext } from '../../engine/core/adapter.js';
import { lstatSyncOrNull } from '../../engine/host/fsx.js';
import type { Installation } from '../../engine/core/model.js';
import { homeOf } from '../../engine/host/own-dirs.js';

/** Thread ids Codex accepts: a UUID (Codex makes v7; v4 is accepted too). */
export const THREAD_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `rollout-YYYY-MM-DDThh-mm-ss-<uuid>.jsonl` or `.jsonl.zst`. */
export const ROLLOUT_NAME = /^rollout-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl(\.zst)?$/i;

/** The directory holding the `*_N.sqlite` databases (CODEX_SQLITE_HOME moves all of them). */
export function sqliteHome(inst: Installation, ctx: HostContext): string {
  const v = ctx.env.CODEX_SQLITE_HOME?.trim();
  return v && isAbsolute(v) ? v : inst.home;
}

/**
 * The newest `<stem>_<N>.sqlite` in the SQLite home (or its legacy `sqlite/`
 * subdirectory): the number is the schema generation, the highest wins.
 */
export function newestDb(dir: string, stem: string): string | null {
  let best: { n: number; p: string } | null = null;
  const re = new RegExp(`^${stem}_(\\d{1,6})\\.sqlite$`);
  for (const d of [dir, join(dir, 'sqlite')]) {
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      continue;
    }
    for (const name of names) {
      const m = re.exec(name);
      if (!m) continue;
      const n = Number(m[1]);
      if (!best || n > best.n) best = { n, p: join(d, name) };
    }
  }
  return best?.p ?? null;
}

/** Every `<stem>_<N>.sqlite` (memories_1, memories_v2_1, …) in the SQLite home. */
export function allDbs(dir: string, stemRe: RegExp): string[] {
  const out: string[] = [];
  for (const d of [dir, join(dir, 'sqlite')]) {
    let names: string[];
    try {
      names = readdirSync(d).sort();
    } catch {
      continue;
    }
    for (const name of names) if (stemRe.test(name)) out.push(join(d, name));
  }
  return out;
}

/** Recognized desktop application-data roots (optional, separately allowlisted); the first existing wins. */
export function appSupportRoot(ctx: HostContext): string | null {
  let home: string;
  try {
    home = homeOf(ctx.env);
  } catch {
    return null;
  }
  const candidates: string[] = [];
  if (ctx.platform === 'darwin') {
    const base = join(home, 'Library', 'Application Support');
    candidates.push(join(base, 'com.openai.codex'), join(base, 'Codex'), join(base, 'OpenAI', 'Codex'));
  } else if (ctx.platform === 'linux') {
    const xdg = ctx.env.XDG_DATA_HOME;
    const base = xdg && isAbsolute(xdg) ? xdg : join(home, '.local', 'share');
    candidates.push(join(base, 'Codex'), join(base, 'com.openai.codex'));
  }
  for (const c of candidates) if (lstatSyncOrNull(c)?.isDirectory()) return c;
  return null;
}

/** The control socket a running app-server daemon listens on (a link into TMPDIR). */
export function controlSocket(home: string): string {
  return join(home, 'app-server-control', 'app-server-control.sock');
}

/** Whether `p` lies strictly beneath `root` (lexically). */
export function beneath(p: string, root: string): boolean {
  const r = root.endsWith(sep) ? root : root + sep;
  return p.startsWith(r);
}

/**
 * The native binary to run. The npm package installs a Node launcher
 * (`@openai/codex/bin/codex.js`) that only execs the platform binary; running
 * that binary directly saves a Node start and leaves one process to stop.
 */
export function codexBinary(executable: string): string {
  let real: string;
  try {
    real = realpathSync(executable);
  } catch {
    return executable;
  }
  if (basename(real) !== 'codex.js' || basename(dirname(real)) !== 'bin') return executable;
  const pkg = dirname(dirname(real));
  const triple = platformTriple();
  if (!triple) return executable;
  const arch = process.arch === 'arm64' ? 'arm64' : 'x64';
  const candidates = [
    join(pkg, 'node_modules', '@openai', `codex-${process.platform}-${arch}`, 'vendor', triple, 'bin', 'codex'),
    join(dirname(pkg), `codex-${process.platform}-${arch}`, 'vendor', triple, 'bin', 'codex'),
    join(pkg, 'vendor', triple, 'codex', 'codex'),
    join(pkg, 'vendor', triple, 'bin', 'codex'),
  ];
  for (const c of candidates) {
    try {
      if (existsSync(c) && lstatSync(c).isFile()) return c;
    } catch {
      // next
    }
  }
  return executable;
}

function platformTriple(): string | null {
  if (process.platform === 'linux')
    return process.arch === 'arm64' ? 'aarch64-unknown-linux-musl' : process.arch === 'x64' ? 'x86_64-unknown-linux-musl' : null;
  if (process.platform === 'darwin') return process.arch === 'arm64' ? 'aarch64-apple-darwin' : 'x86_64-apple-darwin';
  return null;
}

/** The environment every Codex process cleanerx starts gets: the store's home, no credentials. */
export function codexEnv(inst: Installation, ctx: HostContext): Record<string, string> {
  const keep = [
    'HOME',
    'PATH',
    'TMPDIR',
    'LANG',
    'LC_ALL',
    'LC_CTYPE',
    'LC_MESSAGES',
    'USER',
    'LOGNAME',
    'TZ',
    'CODEX_SQLITE_HOME',
    'XDG_CONFIG_HOME',
    'XDG_DATA_HOME',
    'XDG_STATE_HOME',
    'XDG_CACHE_HOME',
    'XDG_RUNTIME_DIR',
  ];
  const env: Record<string, string> = {};
  for (const k of keep) {
    const v = ctx.env[k];
    if (typeof v === 'string') env[k] = v;
  }
  env.CODEX_HOME = inst.home;
  env.NO_COLOR = '1';
  env.RUST_LOG = 'error';
  return env;
}
