// `<agent> --version` costs a process start (OpenCode: ~1–2 s). The answer is
// kept in $XDG_STATE_HOME/cleanerx/versions.json, keyed by the executable's
// resolved path and identity (size, mtime, inode), so an upgrade — which
// rewrites the file — asks again. A missing, foreign or malformed cache is
// simply ignored.

import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from './atomic.js';
import { parseBoundedJson } from '../core/bounded-json.js';

const MAX_CACHE_BYTES = 64 * 1024;
const MAX_ENTRIES = 32;

type Cache = Record<string, { identity: string; version: string }>;

async function identityOf(exe: string): Promise<{ key: string; identity: string } | null> {
  try {
    const real = await fsp.realpath(exe);
    const st = await fsp.stat(real);
    return { key: real, identity: `${st.size}:${st.mtimeMs}:${st.ino}:${st.dev}` };
  } catch {
    return null;
  }
}

async function load(file: string): Promise<Cache> {
  try {
    const st = await fsp.lstat(file);
    if (!st.isFile() || st.size > MAX_CACHE_BYTES) return {};
    const v = parseBoundedJson(await fsp.readFile(file, 'utf8')) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Cache) : {};
  } catch {
    return {};
  }
}

/**
 * The cached version of `exe`, else `read()`'s answer (remembered when it is one and `remember` is set:
 * a read-only run uses what earlier runs learned but writes nothing).
 */
export async function cachedVersion(
  stateDir: string | undefined,
  kind: string,
  exe: string,
  read: () => Promise<string | null>,
  remember = true,
): Promise<string | null> {
  if (!stateDir) return read();
  const id = await identityOf(exe);
  if (!id) return read();
  const file = join(stateDir, 'versions.json');
  const cache = await load(file);
  const key = `${kind}\u0000${id.key}`;
  const hit = cache[key];
  if (hit && hit.identity === id.identity && typeof hit.version === 'string') return hit.version;
  const version = await read();
  if (version === null || !remember) return version;
  const next: Cache = Object.fromEntries(
    Object.entries(cache)
      .filter(([k]) => k !== key)
      .slice(-(MAX_ENTRIES - 1)),
  );
  next[key] = { identity: id.identity, version };
  // A cache that cannot be written costs only the next process start.
  await writeFileAtomic(file, JSON.stringify(next) + '\n', 0o600).catch(() => undefined);
  return version;
}
