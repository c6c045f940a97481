// `cleanerx clean --agent A --id X… [--yes] [--json] [--backup] [--read-only]`
// (or `--plan FILE`) read without yargs: for 1,000 ids yargs parses 2,000
// words and builds its help text, ~50 ms of CPU before the first file is read.
// A mutating command, so the grammar is narrow: any other flag, a repeated
// one, a value yargs might read differently (empty, starting with "-", a
// second word after an id) or a bad agent sends the whole argv to yargs.
// Only the model is imported: src/cli.ts reads every argv with this, the app's too.

import { isAgentKind } from '../engine/core/agents.js';
import type { AgentKind } from '../engine/core/model.js';

/** What the command line said, before the usage rules of `clean` (cleanTarget) are applied. */
export interface CleanArgs {
  agent?: AgentKind;
  ids: string[];
  plan?: string;
  yes: boolean;
  json: boolean;
  backup: boolean;
  readOnly: boolean;
}

/** A value both parsers read as the same one string. */
const plainValue = (v: string | undefined): v is string => v !== undefined && v !== '' && !v.startsWith('-');

/** The clean's arguments, or null for anything yargs must read. `argv` is without --lang. */
export function cleanArgs(argv: readonly string[]): CleanArgs | null {
  if (argv[0] !== 'clean') return null;
  const out: CleanArgs = { ids: [], yes: false, json: false, backup: false, readOnly: false };
  const seen = new Set<string>();
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!;
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    const name = eq < 0 ? a : a.slice(0, eq);
    if (name === '--yes' || name === '--json' || name === '--backup' || name === '--read-only') {
      if (eq >= 0 || seen.has(name)) return null;
      seen.add(name);
      if (name === '--read-only') out.readOnly = true;
      else out[name.slice(2) as 'yes' | 'json' | 'backup'] = true;
      continue;
    }
    if (name !== '--id' && name !== '--agent' && name !== '--plan') return null;
    if (name !== '--id' && seen.has(name)) return null;
    seen.add(name);
    const v = eq < 0 ? argv[++i] : a.slice(eq + 1);
    if (!plainValue(v)) return null;
    if (name === '--id') out.ids.push(v);
    else if (name === '--plan') out.plan = v;
    else if (isAgentKind(v)) out.agent = v;
    else return null;
  }
  return out;
}
