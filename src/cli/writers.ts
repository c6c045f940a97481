// Lines that scan and doctor share.

import { joinSafe, safe, safeText, type SafeText } from '../engine/core/text.js';
import type { LoadedSettings } from '../engine/host/settings.js';

/** Writers as "name (pid N)", names cleaned (another user's process names its own comm). */
export function writerList(writers: readonly { pid: number; name: string }[]): SafeText {
  return joinSafe(
    writers.map((w) => safe`${safeText(w.name, 64)} (pid ${w.pid})`),
    safe`, `,
  );
}

/** The settings file was unusable: say so, and that the defaults are in use. */
export function settingsLine(s: LoadedSettings): SafeText {
  return safe`settings    ${safeText(s.warning)}`;
}

export function stateLabel(s: string): string {
  return s === 'installed' ? 'Installed' : s === 'dataOnly' ? 'Local data only' : 'Not detected';
}
