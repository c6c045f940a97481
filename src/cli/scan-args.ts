// `cleanerx scan [--agent A] [--json] [--read-only]` read without yargs: the
// benches and scripts call it in a loop, and yargs with its help tables costs
// ~30 ms of CPU before the first file is read. Anything else (another
// spelling, a repeated or unknown flag, a bad agent) is left to yargs, which
// says what is wrong in its own words.

import { isAgentKind } from '../engine/core/agents.js';
import type { ScanOptions } from './scan.js';

/** The scan's options, or null for anything yargs must read. `argv` is without --lang. */
export function scanArgs(argv: readonly string[]): ScanOptions | null {
  if (argv[0] !== 'scan') return null;
  const opts: ScanOptions = { json: false, readOnly: false };
  const seen = new Set<string>();
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!;
    const name = a.startsWith('--agent=') ? '--agent' : a;
    if (seen.has(name)) return null;
    seen.add(name);
    if (a === '--json') opts.json = true;
    else if (a === '--read-only') opts.readOnly = true;
    else if (a === '--agent' || a.startsWith('--agent=')) {
      const v = a === '--agent' ? argv[++i] : a.slice('--agent='.length);
      if (!isAgentKind(v)) return null;
      opts.agent = v;
    } else return null;
  }
  return opts;
}
