// Every warning of the current scan in one scrollable dialog (the Overview
// and the deck have room for the count and the first one only). Reasons and
// paths come from agent data: cleaned and made inert before they are shown.

import { fitPath } from '../engine/core/format.js';
import { t } from '../engine/i18n/index.js';
import type { ScanWarning } from '../engine/core/model.js';
import { cleanText } from '../engine/core/text.js';
import { wrapWords } from '../widgets/detail-pane.js';
import { braces, type Theme } from '../widgets/theme.js';
import type { AppContext } from './screen.js';

/** A hostile store can warn about every file: the dialog lists this many, the CLI all. */
export const MAX_LISTED = 500;

export function warningsTitle(n: number): string {
  return n === 0 ? t('warnings.title') : t('warnings.titleCount', { count: n });
}

/** The dialog's lines at `width` columns: each reason wrapped at spaces, its path cut in the middle. */
export function warningLines(warnings: readonly ScanWarning[], theme: Theme, width: number): string[] {
  if (warnings.length === 0) return [t('warnings.none')];
  const w = Math.max(20, width);
  const lines: string[] = [theme.dim(braces(t('warnings.intro', { count: warnings.length }))), ''];
  const shown = warnings.slice(0, MAX_LISTED);
  const num = String(shown.length).length + 2;
  shown.forEach((x, i) => {
    const head = `${i + 1}.`.padEnd(num);
    const reason = wrapWords(cleanText(x.reason, 2048), w - num);
    reason.forEach((l, j) => lines.push(braces((j === 0 ? head : ' '.repeat(num)) + l)));
    if (x.path) lines.push(theme.dim(braces(' '.repeat(num) + fitPath(cleanText(x.path, 4096), w - num))));
  });
  if (warnings.length > shown.length) lines.push('', theme.dim(t('warnings.more', { count: warnings.length - shown.length })));
  return lines;
}

/** Opens the warnings dialog for the current scan (the key is `w` on Overview and Sessions). */
export function openWarnings(app: AppContext): void {
  const s = app.summary();
  if (!s) return app.message(t('warnings.noScan'));
  const width = Math.max(20, ((app.screen.width as number) || 80) - 8);
  app.openDialog(warningsTitle(s.warnings.length), warningLines(s.warnings, app.theme, width), t('warnings.footer'));
}
