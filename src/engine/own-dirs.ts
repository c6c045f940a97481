// cleanerx's own state directories (XDG, with CLEANERX_* overrides for tests).

import { isAbsolute, join } from 'node:path';

export interface OwnDirs {
  config: string;
  state: string;
  data: string;
}

function xdg(env: Readonly<Record<string, string | undefined>>, name: string, fallback: string): string {
  const v = env[name];
  return v && isAbsolute(v) ? v : join(homeOf(env), fallback);
}

export function homeOf(env: Readonly<Record<string, string | undefined>>): string {
  const h = env.HOME;
  if (!h || !isAbsolute(h)) throw new UsageError('HOME is not set to an absolute path; set HOME and try again.');
  return h;
}

export function ownDirs(env: Readonly<Record<string, string | undefined>>): OwnDirs {
  const pick = (override: string, xdgName: string, fallback: string): string => {
    const o = env[override];
    if (o) {
      if (!isAbsolute(o)) throw new UsageError(`${override} must be an absolute path (got "${o}").`);
      return o;
    }
    return join(xdg(env, xdgName, fallback), 'cleanerx');
  };
  return {
    config: pick('CLEANERX_CONFIG_DIR', 'XDG_CONFIG_HOME', '.config'),
    state: pick('CLEANERX_STATE_DIR', 'XDG_STATE_HOME', '.local/state'),
    data: pick('CLEANERX_DATA_DIR', 'XDG_DATA_HOME', '.local/share'),
  };
}

/** An error the user caused and can fix; the CLI prints it as one line and exits 2. */
export class UsageError extends Error {
  readonly usage = true;
}
