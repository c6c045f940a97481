// The fleet commands' shared flags: which ssh config, how long a host may
// take, how many hosts at once. Read from the parsed command line (yargs)
// and the environment; bad values are usage errors (exit 2).

import { isAbsolute, resolve } from 'node:path';
import { t } from '../../engine/i18n/index.js';
import { UsageError } from '../usage-error.js';
import type { SshSettings } from './ssh-runner.js';

export interface FleetFlags {
  'ssh-config'?: unknown;
  timeout?: unknown;
  parallel?: unknown;
}

/** Connected hosts running a scan each: two cores carry this many without one starving the rest. */
const DEFAULT_PARALLEL = 8;
const DEFAULT_TIMEOUT = 300;

function whole(flag: string, v: unknown, fallback: number, max: number): number {
  if (v === undefined) return fallback;
  const s = String(v);
  if (!/^\d{1,6}$/.test(s) || Number(s) < 1 || Number(s) > max) throw new UsageError(t('fleet.err.whole', { flag, max: String(max), got: s.slice(0, 20) }));
  return Number(s);
}

export function sshSettings(a: FleetFlags, env: Readonly<Record<string, string | undefined>>): SshSettings {
  const raw = a['ssh-config'] ?? env.CLEANERX_SSH_CONFIG;
  const config = raw === undefined || raw === '' ? undefined : String(raw);
  if (config?.startsWith('-')) throw new UsageError(t('fleet.err.sshConfig'));
  const timeoutSeconds = whole('--timeout', a.timeout, DEFAULT_TIMEOUT, 86_400);
  return {
    config: config === undefined || isAbsolute(config) ? config : resolve(config),
    ssh: env.CLEANERX_SSH || 'ssh',
    timeoutSeconds,
    connectSeconds: Math.min(15, timeoutSeconds),
    env,
  };
}

export function parallelism(a: FleetFlags): number {
  return whole('--parallel', a.parallel, DEFAULT_PARALLEL, 64);
}
