// What an ssh run says about the host, before its output is read: it did not
// answer, ssh could not reach it, cleanerx is not there, or the command failed.
// Statuses are language-neutral codes (the JSON carries them); reasons are
// one sentence in the user's language, quoting the host's own last stderr line.

import { t } from '../../engine/i18n/index.js';
import { cleanText } from '../../engine/core/text.js';
import type { SshResult } from './ssh-runner.js';

export type HostStatus = 'ok' | 'unreachable' | 'noCleanerx' | 'timeout' | 'incompatible' | 'failed' | 'refused';

export interface HostProblem {
  status: Exclude<HostStatus, 'ok'>;
  reason: string;
}

/** The last non-empty line of a host's stderr, cleaned (it is the remote's text: hostile). */
export function lastLine(stderr: string): string {
  const lines = stderr.split('\n').map((l) => l.trim());
  for (let i = lines.length - 1; i >= 0; i--) if (lines[i]) return cleanText(lines[i]!, 300);
  return '';
}

/** The problem of a run that did not end with exit 0 (or was stopped), or null when it did. */
export function sshProblem(r: SshResult, timeoutSeconds: number): HostProblem | null {
  if (r.spawnError !== undefined) return { status: 'unreachable', reason: t('fleet.reason.noSsh', { reason: cleanText(r.spawnError, 200) }) };
  if (r.timedOut) return { status: 'timeout', reason: t('fleet.reason.timeout', { seconds: String(timeoutSeconds) }) };
  if (r.tooLarge) return { status: 'failed', reason: t('fleet.reason.tooLarge') };
  if (r.code === 0) return null;
  const said = lastLine(r.stderr);
  if (r.code === 255) return { status: 'unreachable', reason: said || t('fleet.reason.unreachable') };
  if (r.code === 127) return { status: 'noCleanerx', reason: t('fleet.reason.noCleanerx') };
  return { status: 'failed', reason: t('fleet.reason.failed', { code: String(r.code ?? 'signal'), said: said || '-' }) };
}
