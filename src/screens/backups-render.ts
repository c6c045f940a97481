// The Backups tab drawn as pure functions: the head (the key, how to read an
// archive without cleanerx or the catalog's error, the column heads) and one
// archive's row. Lines are blessed tag strings, never wider than the width.

import { agentName } from '../engine/core/agents.js';
import { fitPath, formatBytes, formatDate } from '../engine/core/format.js';
import { t as tr } from '../engine/i18n/index.js';
import type { BackupSummary, KeyInfo } from '../engine/core/model.js';
import { cleanText, displayWidth, fitWidth, padWidth } from '../engine/core/text.js';
import { braces, cell, type Theme } from '../widgets/theme.js';
import { wrapTagged } from '../widgets/wrap.js';

interface BackupsHead {
  /** The backup key's state (null until read). */
  key: Pick<KeyInfo, 'exists' | 'path' | 'problem'> | null;
  /** Why the catalog could not be read ('' when it was). */
  error: string;
}

/** The head's lines at W columns (W: the screen's width less 1); the list starts under them. */
export function backupsHead(h: BackupsHead, W: number, t: Theme): string[] {
  const keyLabel = tr('backups.key');
  const room = W - 2 - displayWidth(keyLabel);
  const problem = h.key?.problem ? ` — ${h.key.problem}` : '';
  const key = !h.key
    ? '…'
    : h.key.exists
      ? fitWidth(fitPath(h.key.path, Math.max(12, room - displayWidth(problem))) + problem, room)
      : fitWidth(tr('backups.keyNotCreated'), room);
  // The catalog's error can quote a path or a file's bytes: no control character reaches the terminal.
  const second = h.error ? wrapTagged(` ${t.danger(braces(cleanText(h.error, 2000)))}`, W - 1).slice(0, 4) : readable(W - 1, t);
  return [
    ` ${t.dim(keyLabel)} ${braces(key)}`,
    ...second,
    t.dim(
      `    ${padWidth(tr('backups.col.created'), 17)}${padWidth(tr('backups.col.agent'), 12)}${padWidth(tr('backups.col.items'), 7, 'right')}` +
        `${padWidth(tr('backups.col.original'), 11, 'right')}${padWidth(tr('backups.col.archive'), 11, 'right')}  ${tr('backups.col.id')}`,
    ),
  ];
}

/** How to read an archive without cleanerx: the command a user copies is always whole on one line of its own. */
function readable(width: number, t: Theme): string[] {
  const label = tr('backups.readable');
  const command = tr('backups.readableCommand');
  if (displayWidth(label) + 1 + displayWidth(command) + 1 <= width) return [` ${t.dim(braces(label))} ${braces(command)}`];
  return [` ${t.dim(braces(label))}`, `   ${braces(command)}`];
}

export function backupRow(b: BackupSummary, width: number, selected: boolean, t: Theme): string {
  const text =
    '    ' +
    padWidth(formatDate(Date.parse(b.createdAt)), 17) +
    padWidth(agentName(b.agent), 12) +
    padWidth(String(b.itemCount), 7, 'right') +
    padWidth(b.onDiskBytes === null ? '—' : formatBytes(b.onDiskBytes), 11, 'right') +
    padWidth(formatBytes(b.archiveBytes), 11, 'right') +
    '  ' +
    cell(b.id, Math.max(8, width - 64));
  return selected ? t.cursor(text) : text;
}
