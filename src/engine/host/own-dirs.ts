// cleanerx's own state directories (XDG, with CLEANERX_* overrides for tests).

import { isAbsolute, join } from 'node:path';
import type { AgentEnvVar } from '../core/adapter.js';
import { ConfigError } from '../core/config-error.js';
import { t } from '../i18n/index.js';
import { cleanText } from '../core/text.js';

interface OwnDirs {
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
  if (!h || !isAbsolute(h)) throw new ConfigError('HOME is not set to an absolute path; set HOME and try again.');
  return h;
}

export function ownDirs(env: Readonly<Record<string, string | undefined>>): OwnDirs {
  const pick = (override: string, xdgName: string, fallback: string): string => {
    const o = env[override];
    if (o) {
      if (!isAbsolute(o)) throw new ConfigError(`${override} must be an absolute path (got "${o}").`);
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

/** XDG base dirs and cleanerx's own overrides: taken literally, no tilde. */
const LITERAL_DIR_VARS = [
  'XDG_DATA_HOME',
  'XDG_CONFIG_HOME',
  'XDG_STATE_HOME',
  'XDG_CACHE_HOME',
  'CLEANERX_CONFIG_DIR',
  'CLEANERX_STATE_DIR',
  'CLEANERX_DATA_DIR',
];

/**
 * A relative directory in the environment would resolve against whatever
 * directory cleanerx happens to start in: refuse it rather than silently use
 * the default home (the user meant some other place). The agents' own
 * variables come with their rules from their descriptors (`envVars`), so a
 * new agent's variable is refused the same way.
 */
export function checkEnvDirs(env: Readonly<Record<string, string | undefined>>, agentVars: readonly AgentEnvVar[]): void {
  homeOf(env);
  for (const rule of agentVars) {
    const v = env[rule.name]?.trim();
    const why = v ? rule.check(v) : null;
    if (why) throw new ConfigError(why);
  }
  for (const name of LITERAL_DIR_VARS) {
    const v = env[name]?.trim();
    if (v && !isAbsolute(v)) throw new ConfigError(t('dirs.relative', { name, value: cleanText(v, 200) }));
  }
}
