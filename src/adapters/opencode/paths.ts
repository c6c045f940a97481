// Where OpenCode keeps things (observed on opencode-ai 1.18.33):
//   data   override → $XDG_DATA_HOME/opencode → ~/.local/share/opencode
//   cache  $XDG_CACHE_HOME/opencode → ~/.cache/opencode (a separate root)
//   config $XDG_CONFIG_HOME/opencode → ~/.config/opencode (protected)
//   DB     $OPENCODE_DB (":memory:", absolute, or relative to the data dir),
//          else <data>/opencode.db, else the one <data>/opencode-<channel>.db.

import { basename, dirname, isAbsolute, join } from 'node:path';
import type { HomeResolution, HostContext } from '../../engine/core/adapter.js';
import { listDirSorted, lstatSyncOrNull } from '../../engine/host/fsx.js';
import type { Installation } from '../../engine/core/model.js';
import { homeOf } from '../../engine/host/own-dirs.js';

export const DB_NAME = 'opencode.db';
export const CHANNEL_DB = /^opencode-[A-Za-z0-9._-]+\.db$/;

export function resolveOpencodeHome(ctx: HostContext): HomeResolution {
  const x = ctx.env.XDG_DATA_HOME;
  if (x && isAbsolute(x)) return { home: join(x, 'opencode'), source: 'env' };
  return { home: join(homeOf(ctx.env), '.local', 'share', 'opencode'), source: 'default' };
}

function xdgDir(ctx: HostContext, name: string, fallback: string[]): string {
  const v = ctx.env[name];
  return join(v && isAbsolute(v) ? v : join(homeOf(ctx.env), ...fallback), 'opencode');
}

/** The regenerable cache root: its own allow-listed root, never derived from the data dir. */
export function opencodeCacheRoot(ctx: HostContext): string {
  return xdgDir(ctx, 'XDG_CACHE_HOME', ['.cache']);
}

export function opencodeConfigDir(ctx: HostContext): string {
  return xdgDir(ctx, 'XDG_CONFIG_HOME', ['.config']);
}

/** The roots a path-transaction removal (logs, cache) must lie beneath. */
export function opencodeMutationRoots(inst: Installation, ctx: HostContext): string[] {
  return [inst.home, opencodeCacheRoot(ctx)];
}

interface DbChoice {
  /** The database this scan reads and the routes act on; null when none is unambiguous. */
  db: string | null;
  /** Why no database is used (shown as a warning), when db is null and one was expected. */
  reason?: string;
  /** Other OpenCode database files in the data dir (listed as protected, never read). */
  others: string[];
}

/**
 * One unambiguous database. OPENCODE_DB wins when it is set (it is how
 * OpenCode itself chooses): ":memory:" means nothing on disk; a relative name
 * is joined to the data dir. With a settings override the override dir is the
 * user's explicit choice, so an absolute OPENCODE_DB elsewhere is ignored.
 */
export function chooseDatabase(inst: Pick<Installation, 'home' | 'homeSource'>, ctx: HostContext): DbChoice {
  const home = inst.home;
  const names = listDirSorted(home).map((d) => d.name);
  const dbFiles = names.filter((n) => n === DB_NAME || CHANNEL_DB.test(n));
  const others = (picked: string | null): string[] => dbFiles.map((n) => join(home, n)).filter((p) => p !== picked);
  const env = ctx.env.OPENCODE_DB?.trim();
  if (env) {
    if (env === ':memory:') return { db: null, reason: 'OPENCODE_DB is ":memory:": OpenCode keeps no sessions on disk.', others: others(null) };
    const p = isAbsolute(env) ? env : join(home, env);
    if (!isAbsolute(env) || inst.homeSource !== 'override' || dirname(p) === home) {
      return checkPlain(p, others(p));
    }
  }
  if (dbFiles.includes(DB_NAME)) return checkPlain(join(home, DB_NAME), others(join(home, DB_NAME)));
  const channels = dbFiles.filter((n) => CHANNEL_DB.test(n));
  if (channels.length === 1) return checkPlain(join(home, channels[0]!), others(join(home, channels[0]!)));
  if (channels.length > 1) {
    return {
      db: null,
      reason: `Multiple OpenCode channel databases were found (${channels.join(', ')}); select a custom data directory containing one active database.`,
      others: others(null),
    };
  }
  return { db: null, others: [] };
}

function checkPlain(p: string, others: string[]): DbChoice {
  const st = lstatSyncOrNull(p);
  if (!st) return { db: null, reason: `The OpenCode database ${basename(p)} does not exist yet.`, others };
  if (st.isSymbolicLink()) return { db: null, reason: `The OpenCode database ${p} is a symbolic link; cleanerx does not follow it.`, others: [...others, p] };
  if (!st.isFile()) return { db: null, reason: `The OpenCode database ${p} is not a regular file.`, others: [...others, p] };
  return { db: p, others };
}
