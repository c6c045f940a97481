// The bare app's command line (`cleanerx`, `--demo [--keep]`, `--read-only`,
// `--no-color`, `--agent A`) read without yargs, which costs ~90 ms of start-up.

import { agentKinds, isAgentKind } from '../engine/core/agents.js';
import type { AgentKind } from '../engine/core/model.js';
import { t } from '../engine/i18n/index.js';
import { UsageError } from './usage-error.js';

/** What the command line asks of the app; the composition root hands it over as the app's flags. */
export interface AppRequest {
  demo: boolean;
  keep: boolean;
  readOnly: boolean;
  /** `--no-color`: as NO_COLOR does (https://no-color.org). */
  noColor: boolean;
  initialAgent?: AgentKind;
}

/** Opens the app; its exit code. */
export type StartApp = (request: AppRequest) => Promise<number>;

const FAST_FLAGS = new Set(['--demo', '--keep', '--read-only', '--no-color']);

export function parseAgent(value: unknown): AgentKind {
  if (isAgentKind(value)) return value;
  const agents = agentKinds().join(', ');
  if (typeof value === 'string' && value) throw new UsageError(t('cli.err.agentGot', { agents, got: value.replace(/[^\x20-\x7e]/g, '?').slice(0, 40) }));
  throw new UsageError(t('cli.err.agent', { agents }));
}

/** The bare app's request, or null for anything yargs must read. */
export function appArgs(argv: readonly string[]): AppRequest | null {
  const flags: AppRequest = { demo: false, keep: false, readOnly: false, noColor: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (FAST_FLAGS.has(a)) {
      if (a === '--demo') flags.demo = true;
      else if (a === '--keep') flags.keep = true;
      else if (a === '--no-color') flags.noColor = true;
      else flags.readOnly = true;
    } else if (a === '--agent') flags.initialAgent = parseAgent(argv[++i]);
    else if (a.startsWith('--agent=')) flags.initialAgent = parseAgent(a.slice('--agent='.length));
    else return null;
  }
  return flags;
}
