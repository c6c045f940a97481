// `cleanerx recovery [list]` and `recovery accept|close|restore <operation id>`
// read without yargs: the crash and race tests run them after every killed
// cleanup (hundreds of processes), and yargs with its help tables costs more
// CPU than listing the journals. Any flag, another word, an id that is not a
// UUID (yargs might read a number-like one differently) or a missing one goes
// to yargs, which says what is wrong in its own words.

import type { RecoveryAction } from './recovery.js';

/** The recovery's action and operation, as yargs hands them to runRecovery. */
export interface RecoveryArgs {
  action: RecoveryAction;
  operation?: string;
}

const OPERATION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ACTS_ON_ONE = new Set<string>(['accept', 'close', 'restore']);

/** The recovery's arguments, or null for anything yargs must read. `argv` is without --lang. */
export function recoveryArgs(argv: readonly string[]): RecoveryArgs | null {
  if (argv[0] !== 'recovery') return null;
  if (argv.length === 1 || (argv.length === 2 && argv[1] === 'list')) return { action: 'list' };
  const [, action, operation] = argv;
  if (argv.length !== 3 || !ACTS_ON_ONE.has(action!) || !OPERATION_ID.test(operation!)) return null;
  return { action: action as RecoveryAction, operation };
}
