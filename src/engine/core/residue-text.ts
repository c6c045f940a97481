// The residue verdicts in sentences, for the result dialog and `clean`'s
// human output alike: one summary, then one line per PARTIAL item naming
// each surviving surface and whether a follow-up item now offers it.

import { t } from '../i18n/index.js';
import type { ItemResidue, ResidueSurface } from './model.js';

/** Surfaces with a name of their own; per-table row surfaces (`messageRows`) name their table. */
const NAMED = new Set([
  'list',
  'file',
  'probe',
  'rollout',
  'stateRow',
  'logRows',
  'memory',
  'indexLine',
  'transcript',
  'otherProjectCopy',
  'archivedMark',
  'sidecar',
  'fileHistory',
  'todos',
  'tempRoot',
  'sessionDiff',
  'sessionFile',
  'checkpoints',
]);

function surfaceName(s: ResidueSurface): string {
  if (NAMED.has(s.surface)) return t(`res.surface.${s.surface}` as 'res.surface.list');
  if (s.surface.endsWith('Rows')) return t('res.surface.rows', { table: s.surface.slice(0, -4) });
  return s.surface;
}

/** Empty when there is nothing to say (no verdicts). */
export function residueSentences(residue: readonly ItemResidue[] | undefined): string[] {
  if (!residue?.length) return [];
  const partial = residue.filter((r) => r.verdict === 'partial');
  const out = [t('res.summary', { complete: String(residue.length - partial.length), partial: String(partial.length) })];
  for (const r of partial) {
    const surfaces = r.surfaces.map((s) => t(`res.why.${s.why}`, { surface: surfaceName(s) })).join('; ');
    out.push(t('res.partialItem', { label: r.label, surfaces }));
  }
  return out;
}
