// A running cleanup in the one busy state (busy.ts): its phase in words, and
// the counts and bytes that move in it — the items removed, or while the
// backup is written and read back its bytes; the key's unlock and the checks
// say what runs (nothing to count). freedLines: the result's disk-space lines
// (promised, measured, why).

import { formatBytes } from '../engine/core/format.js';
import { type MessageKey, t } from '../engine/i18n/index.js';
import type { ExecuteProgress, FreedBytes, ItemResidue } from '../engine/core/model.js';
import { residueSentences } from '../engine/core/residue-text.js';
import { wrapWords } from '../widgets/detail-pane.js';
import { braces } from '../widgets/theme.js';
import type { BusyState } from '../screens/screen.js';

const PHASES: Record<ExecuteProgress['phase'], MessageKey> = {
  key: 'pg.phase.key',
  preflight: 'pg.phase.preflight',
  backup: 'pg.phase.backup',
  deleting: 'pg.phase.deleting',
  verifying: 'pg.phase.verifying',
  done: 'pg.phase.done',
};

/** Before the engine's first report: the checks. */
export const CLEANUP_START: ExecuteProgress = { phase: 'preflight', done: 0, total: 0, bytesDone: 0, bytesTotal: 0 };

/** What the busy box shows of a cleanup's progress. */
export function cleanupState(p: ExecuteProgress): BusyState {
  const phase = t(PHASES[p.phase]);
  // Nothing is counted while the key unlocks or the targets are checked: the phase says what runs.
  if (p.phase === 'key' || p.phase === 'preflight') return { phase };
  // The backup moves in bytes (written, then read back and hash-checked); the items wait for the delete.
  if (p.phase === 'backup') return { phase, bytesDone: p.bytesDone, bytesTotal: p.bytesTotal, current: withEta(p.current, p.etaMs) };
  // An official item that runs long (git gc) reports what its tool has written: the line moves while the counts cannot.
  const current = withEta(p.written === undefined ? p.current : t('pg.written', { current: p.current ?? '', bytes: formatBytes(p.written) }), p.etaMs);
  return { phase, done: p.done, total: p.total, bytesDone: p.bytesDone, bytesTotal: p.bytesTotal, current };
}

/** The current line with the estimate of what is left (whole seconds, whole minutes from two on). */
function withEta(current: string | undefined, etaMs: number | undefined): string | undefined {
  if (etaMs === undefined) return current;
  const s = Math.ceil(etaMs / 1000);
  return s >= 120 ? t('pg.eta.min', { current: current ?? '', n: Math.round(s / 60) }) : t('pg.eta.s', { current: current ?? '', n: s });
}

/**
 * The result's disk-space lines: what the plan promised, what the disks
 * gave back (measured), per filesystem when there are several, and one
 * sentence per reason when the two differ by more than 5%. Tag-safe.
 */
export function freedLines(f: FreedBytes | undefined): string[] {
  if (!f) return [];
  const out = [
    t('freed.heading'),
    t('freed.total', { promised: formatBytes(f.promisedBytes), freed: formatBytes(Math.max(0, f.freedBytes)), allocated: formatBytes(f.allocatedBytes) }),
  ];
  if (f.filesystems.length > 1) {
    for (const fs of f.filesystems)
      out.push(
        `  ${braces(t('freed.filesystem', { path: fs.path, freed: formatBytes(Math.max(0, fs.freedBytes)), allocated: formatBytes(fs.allocatedBytes) }))}`,
      );
  }
  for (const why of f.explanations) out.push(`  ${t(`freed.why.${why}`)}`);
  return out;
}

/** Width the result's residue lines wrap at: the dialog's text at 80 columns. */
const RESIDUE_WIDTH = 72;

/** COMPLETE / PARTIAL per item, wrapped for the result dialog (a blank line first); tag-safe. */
export function residueLines(r: readonly ItemResidue[] | undefined): string[] {
  const [summary, ...partial] = residueSentences(r);
  if (!summary) return [];
  const out = ['', ...wrapWords(summary, RESIDUE_WIDTH).map(braces)];
  for (const p of partial) out.push(...wrapWords(p, RESIDUE_WIDTH - 4).map((w, k) => braces(`${k ? '    ' : '  '}${w}`)));
  return out;
}
