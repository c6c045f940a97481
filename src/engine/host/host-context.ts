// Builds the HostContext from an environment: the one place that decides
// which /proc to read (CLEANERX_PROC_ROOT exists for tests only), and where
// the temp dir is read: the process's own for code outside the engine (the
// demo), an environment's for the adapters (Claude's temp roots).

import { tmpdir } from 'node:os';
import { isAbsolute } from 'node:path';
import { defaultHostContext, type HostContext } from '../core/adapter.js';

export function hostContextFromEnv(env: Record<string, string | undefined>): HostContext {
  const ctx = defaultHostContext(env as NodeJS.ProcessEnv);
  const proc = env.CLEANERX_PROC_ROOT;
  if (proc && isAbsolute(proc)) ctx.procRoot = proc;
  return ctx;
}

/** This process's temp dir (TMPDIR, else the system's): where `--demo` makes and sweeps its homes. */
export function systemTempDir(): string {
  return tmpdir();
}

/**
 * The temp dir an environment names (TMPDIR when absolute, as Node's tmpdir()
 * reads it), else this process's: a test's or the demo's env keeps the
 * adapters out of the real /tmp.
 */
export function tempDirOf(env: Readonly<Record<string, string | undefined>>): string {
  const v = env.TMPDIR;
  if (v && isAbsolute(v)) return v.length > 1 && v.endsWith('/') ? v.slice(0, -1) : v;
  return tmpdir();
}
