// Retention rules between the command line and the engine: `plan`'s flags
// to RetentionRules, and rules back to the flags that give them.

import { UsageError } from './usage-error.js';
import { t } from '../engine/i18n/index.js';
import { ITEM_KINDS, parseItemKinds, SUGGESTED_KINDS } from '../engine/inventory/retention/item-kinds.js';
import { parseDuration, parseSize, rulesEmpty, type RetentionRules } from '../engine/inventory/retention/rules.js';

export interface RuleArgs {
  'older-than'?: string;
  'larger-than'?: string;
  'keep-latest'?: string;
  empty?: boolean;
  orphans?: boolean;
  project?: string;
  source?: string;
  state?: string;
  /** Item kinds, comma-separated (item-kinds.ts). */
  items?: string;
  /** The suggested plan's kinds (SUGGESTED_KINDS). */
  suggested?: boolean;
}

/** The command line's rules, or a UsageError (exit 2) naming the bad value. */
export function rulesFromArgs(a: RuleArgs): RetentionRules {
  const r: RetentionRules = {};
  const shown = (v: string): string => v.replace(/[^\x20-\x7e]/g, '?').slice(0, 40);
  if (a['older-than'] !== undefined) {
    const d = parseDuration(String(a['older-than']));
    if (d === null) throw new UsageError(t('cli.err.olderThan', { got: shown(String(a['older-than'])) }));
    r.olderThanDays = d;
  }
  if (a['larger-than'] !== undefined) {
    const b = parseSize(String(a['larger-than']));
    if (b === null) throw new UsageError(t('cli.err.largerThan', { got: shown(String(a['larger-than'])) }));
    r.largerThanBytes = b;
  }
  if (a['keep-latest'] !== undefined) {
    const s = String(a['keep-latest']);
    if (!/^\d{1,7}$/.test(s)) throw new UsageError(t('cli.err.keepLatest', { got: shown(s) }));
    r.keepLatest = Number(s);
  }
  if (a.empty) r.empty = true;
  if (a.orphans) r.orphans = true;
  if (a.project !== undefined) r.project = String(a.project);
  if (a.source !== undefined) r.source = String(a.source);
  if (a.state !== undefined) r.state = a.state as 'current' | 'archived';
  if (a.items !== undefined) {
    const kinds = parseItemKinds(String(a.items));
    if (!kinds) throw new UsageError(t('cli.err.items', { kinds: ITEM_KINDS.join(', '), got: shown(String(a.items)) }));
    r.items = kinds;
  }
  if (a.suggested) r.items = [...new Set([...(r.items ?? []), ...SUGGESTED_KINDS])];
  if (rulesEmpty(r)) throw new UsageError(t('cli.err.noRule'));
  return r;
}

const shellWord = (s: string): string => (/^[\w./:@%+=-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** The command-line flags that give these rules (for the line that says how to run the plan). */
export function ruleFlags(r: RetentionRules): string {
  const f: string[] = [];
  if (r.olderThanDays !== undefined) f.push(`--older-than ${r.olderThanDays}d`);
  if (r.largerThanBytes !== undefined) f.push(`--larger-than ${r.largerThanBytes}`);
  if (r.keepLatest !== undefined) f.push(`--keep-latest ${r.keepLatest}`);
  if (r.empty) f.push('--empty');
  if (r.orphans) f.push('--orphans');
  if (r.project !== undefined) f.push(`--project ${shellWord(r.project)}`);
  if (r.source !== undefined) f.push(`--source ${shellWord(r.source)}`);
  if (r.state !== undefined) f.push(`--state ${r.state}`);
  if (r.items) {
    const suggested = r.items.length === SUGGESTED_KINDS.length && SUGGESTED_KINDS.every((k) => r.items!.includes(k));
    f.push(suggested ? '--suggested' : `--items ${r.items.join(',')}`);
  }
  return f.join(' ');
}
