// Lines that scan and doctor share.

import { t } from '../engine/i18n/index.js';
import { joinSafe, safe, safeText, type SafeText } from '../engine/core/text.js';
import type { Writer } from '../engine/core/model.js';
import type { LoadedSettings } from '../engine/host/settings.js';
import { label, say } from './say.js';

/** Writers as "name (pid N; user: command; evidence)", every field cleaned (another user's process names its own comm and argv). */
export function writerList(writers: readonly Writer[]): SafeText {
  return joinSafe(
    writers.map((w) =>
      w.command || w.evidence
        ? say('cli.writerDetail', {
            name: safeText(w.name, 64),
            pid: String(w.pid),
            user: safeText(w.user ?? '?', 32),
            command: safeText(w.command ?? w.name, 200),
            evidence: safeText(w.evidence ?? '', 240),
          })
        : say('cli.writer', { name: safeText(w.name, 64), pid: String(w.pid) }),
    ),
    safe`, `,
  );
}

/** The settings file was unusable: say so, and that the defaults are in use. */
export function settingsLine(s: LoadedSettings): SafeText {
  return safe`${label('cli.settings', 12)}${safeText(s.warning)}`;
}

export function stateLabel(s: string): string {
  return t(s === 'installed' ? 'agentState.installed' : s === 'dataOnly' ? 'agentState.dataOnly' : 'agentState.notFound');
}
