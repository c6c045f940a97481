// Running OpenCode processes that write this store, found in /proc. A process
// counts when its name or arguments say OpenCode and something ties it to this
// store (writer-evidence.ts): a file of it open, its cwd, or its environment
// pointing at this database (OPENCODE_DB, else XDG_DATA_HOME or HOME). A remote `attach` client does
// not own a database. The only endpoint taken from a process is an explicit
// non-zero `--port` on a loopback `--hostname`: ports are never guessed.

import { basename, dirname, isAbsolute, join } from 'node:path';
import type { HostContext } from '../../engine/core/adapter.js';
import { canonicalPath } from '../../engine/host/fsx.js';
import type { Writer } from '../../engine/core/model.js';
import { VERSION_PROBE_ENV } from '../../engine/host/detect.js';
import { listProcesses, readProcessEnviron, type ProcessInfo } from '../../engine/host/processes.js';
import { envPair, judgeWriter, type StoreTarget } from '../../engine/host/writer-evidence.js';
import { opencodeCacheRoot } from './paths.js';

export interface Endpoint {
  /** Always a loopback address: 127.0.0.1 or ::1. */
  host: '127.0.0.1' | '::1';
  port: number;
}

export interface OpencodeWriter extends Writer {
  /** The explicit loopback server this process exposes, or null (TUI transport, dynamic or remote port). */
  endpoint: Endpoint | null;
  /** Why there is no endpoint, for the blocked reason. */
  noEndpoint?: string;
}

const OPENCODE_NAME = /^(opencode2?|opencode-cli|opencode2?-[a-z0-9._-]+)$/;

function baseName(v: string | null | undefined): string {
  return v
    ? basename(v)
        .toLowerCase()
        .replace(/\.(exe|cmd|bat)$/, '')
    : '';
}

export function isOpencodeProcess(p: ProcessInfo): boolean {
  if (p.argv.some((a) => a === 'attach' || a === '--attach' || a.startsWith('--attach='))) return false;
  const names = [p.comm, p.exe, p.argv[0], p.argv[1]].map(baseName);
  if (names.some((n) => OPENCODE_NAME.test(n))) return true;
  if (['node', 'bun'].includes(baseName(p.argv[0])) || ['node', 'bun'].includes(baseName(p.exe))) {
    return p.argv.slice(1).some((a) => a.includes('node_modules/opencode-ai') || a.includes('/opencode/bin/opencode'));
  }
  return false;
}

/** `--port N`/`--port=N` and `--hostname H`/`--hostname=H` (default 127.0.0.1). */
export function parseEndpoint(argv: string[]): { endpoint: Endpoint | null; reason?: string } {
  let port: string | undefined;
  let host: string | undefined;
  let mdns = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') break;
    if (a === '--port') port = argv[++i];
    else if (a.startsWith('--port=')) port = a.slice(7);
    else if (a === '--hostname') host = argv[++i];
    else if (a.startsWith('--hostname=')) host = a.slice(11);
    else if (a === '--mdns' || a === '--mdns=true') mdns = true;
  }
  if (port === undefined) return { endpoint: null, reason: 'it has no explicit --port (in-process transport or a dynamic port)' };
  if (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535) {
    return { endpoint: null, reason: Number(port) === 0 ? 'its --port 0 is dynamic' : `its --port ${JSON.stringify(port.slice(0, 16))} is not a port` };
  }
  const h = (host ?? (mdns ? '0.0.0.0' : '127.0.0.1')).toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (h === '127.0.0.1' || h === 'localhost' || h === '0.0.0.0') return { endpoint: { host: '127.0.0.1', port: Number(port) } };
  if (h === '::1' || h === '::') return { endpoint: { host: '::1', port: Number(port) } };
  return { endpoint: null, reason: `its --hostname ${JSON.stringify(h.slice(0, 64))} is not loopback` };
}

/**
 * Whether a process with this environment opens `db`. Mirrors OpenCode's own
 * choice: OPENCODE_DB (":memory:" = none; relative = under the data dir), else
 * the data dir from XDG_DATA_HOME or HOME. A channel database in the same
 * data dir counts as the same store (conservative).
 */
export function targetsDatabase(env: Map<string, string> | null, db: string): boolean {
  if (!env) return true;
  const home = env.get('HOME');
  const xdg = env.get('XDG_DATA_HOME');
  const dataRoot = xdg && isAbsolute(xdg) ? xdg : home && isAbsolute(home) ? join(home, '.local', 'share') : null;
  const dataDir = dataRoot ? join(dataRoot, 'opencode') : null;
  const wanted = canonicalPath(db);
  const override = env.get('OPENCODE_DB');
  if (override) {
    if (override === ':memory:') return false;
    if (isAbsolute(override)) return canonicalPath(override) === wanted;
    if (!dataDir) return true;
    return canonicalPath(join(dataDir, override)) === wanted;
  }
  if (!dataDir) return true;
  return canonicalPath(dataDir) === canonicalPath(dirname(db));
}

/** What ties an OpenCode process to this store: its database, data dir and cache root (see writer-evidence.ts). */
function opencodeTarget(ctx: HostContext, db: string | null, home: string): StoreTarget {
  const roots = [home, ...(db ? [dirname(db), db] : []), opencodeCacheRoot(ctx)];
  return {
    roots,
    envEvidence: (env) => {
      if (db ? !targetsDatabase(env, db) : !targetsDatabase(env, join(home, 'opencode.db'))) return null;
      for (const name of ['OPENCODE_DB', 'XDG_DATA_HOME', 'HOME']) {
        const v = env.get(name);
        if (v) return envPair(name, v);
      }
      return 'no HOME in its environment';
    },
  };
}

/**
 * The OpenCode processes that write this store (database `db` when one was
 * chosen, data dir `home`), each named with its evidence. Another user's
 * OpenCode, or one under another HOME or data dir, is not one.
 */
export async function findOpencodeWriters(ctx: HostContext, db: string | null, home: string): Promise<OpencodeWriter[]> {
  if (ctx.platform !== 'linux') return [];
  const procs = await listProcesses(ctx.procRoot);
  const target = opencodeTarget(ctx, db, home);
  const out: OpencodeWriter[] = [];
  for (const p of procs) {
    if (!isOpencodeProcess(p)) continue;
    const env = await readProcessEnviron(ctx.procRoot, p.pid);
    // A probe cleanerx started that is no longer our descendant (its
    // launcher exited) still carries the marker: no writer.
    if (env?.get(VERSION_PROBE_ENV) === '1') continue;
    const verdict = await judgeWriter(ctx, p, target);
    if (!('writer' in verdict)) continue;
    const { endpoint, reason } = parseEndpoint(p.argv);
    out.push({ ...verdict.writer, endpoint, ...(reason ? { noEndpoint: reason } : {}) });
  }
  return out;
}
