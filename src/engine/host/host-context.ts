// Builds the HostContext from an environment: the one place that decides
// which /proc to read (CLEANERX_PROC_ROOT exists for tests only).

import { isAbsolute } from 'node:path';
import { defaultHostContext, type HostContext } from '../core/adapter.js';

export function hostContextFromEnv(env: Record<string, string | undefined>): HostContext {
  const ctx = defaultHostContext(env as NodeJS.ProcessEnv);
  const proc = env.CLEANERX_PROC_ROOT;
  if (proc && isAbsolute(proc)) ctx.procRoot = proc;
  return ctx;
}
