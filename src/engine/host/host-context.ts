// Builds the HostContext from an environment: the one place that decides
// which /proc to read (CLEANERX_PROC_ROOT exists for tests only), and where
// the process's own temp dir is read for code outside the engine (the demo).

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
