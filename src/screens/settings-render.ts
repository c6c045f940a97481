// The Settings tab drawn as a pure function of what it shows: each agent as
// detected (state, home and where it came from, override, executable,
// warnings), cleanerx's own config, retention, language and backup key, and
// the unsaved draft's notice. Paths are cut in the middle, prose wraps at
// spaces (blessed's wrap would break a path mid-word).

import { agentKinds, agentName } from '../engine/core/agents.js';
import { fitPath } from '../engine/core/format.js';
import { t as tr } from '../engine/i18n/index.js';
import type { Installation } from '../engine/core/model.js';
import { displayWidth, padWidth } from '../engine/core/text.js';
import type { LoadedSettings, Settings } from '../engine/api/api.js';
import { wrapWords } from '../widgets/detail-pane.js';
import { braces, cell, type Theme } from '../widgets/theme.js';
import { AGENT_STATE } from './overview-render.js';

interface SettingsState {
  /** The agent the cursor is on (registry order). */
  cursor: number;
  /** The unsaved draft, if any; `settings` is the draft or what was loaded. */
  draft: Settings | null;
  settings: Settings | null;
  loaded: Pick<LoadedSettings, 'path' | 'warning'> | null;
  installations: readonly Installation[];
  /** Detect again is running. */
  busy: boolean;
  keyPath: string;
  keyNote: string;
  storeLine: string;
  /** The language setting in words ('auto' names the one in effect). */
  language: string;
}

/** The tab's lines at W columns (W: the screen's width less 2). */
export function settingsLines(st: SettingsState, W: number, t: Theme): string[] {
  const s = st.settings;
  const L: string[] = [` ${t.accent(tr('settings.agents'))} ${t.dim(st.busy ? tr('settings.detectingNote') : '')}`];
  const room = Math.max(10, W - 17);
  // Labels padded to 12 after 5 columns; a path is cut in the middle (suffix kept), prose wraps at spaces.
  const path = (label: string, value: string, suffix = ''): string =>
    `     ${t.dim(padWidth(label, 12))}${cell(fitPath(value, Math.max(8, room - displayWidth(suffix))) + suffix, room)}`;
  const text = (label: string, value: string): string[] =>
    wrapWords(value, room).map((l, i) => `     ${t.dim(padWidth(i === 0 ? label : '', 12))}${braces(l)}`);
  const warnLines = (w: string): string[] => wrapWords(w, W - 6).map((l) => `     ${t.warn(braces(l))}`);
  agentKinds().forEach((kind, i) => {
    const inst = st.installations.find((x) => x.agent === kind);
    const sel = i === st.cursor;
    const state = st.busy || !inst ? tr('settings.detecting') : tr(AGENT_STATE[inst.state]);
    // Padded before braces() escapes the version: each `{` or `}` would otherwise count as its escape's cells.
    const head = `${sel ? '›' : ' '} ${padWidth(agentName(kind), 12)} ${padWidth(state, 16)} ${inst?.version ?? ''}`;
    L.push(braces(sel ? padWidth(head, W) : head));
    if (sel) L[L.length - 1] = t.cursor(L[L.length - 1]!);
    const override = s?.homeOverrides[kind];
    const source = inst?.homeSource === 'override' ? tr('settings.fromOverride') : inst?.homeSource === 'env' ? tr('settings.fromEnv') : '';
    L.push(path(tr('settings.home'), inst ? inst.home : '…', source));
    if (override !== undefined || st.draft)
      L.push(override === undefined ? text(tr('settings.override'), tr('settings.noOverride'))[0]! : path(tr('settings.override'), override));
    L.push(inst?.executable ? path(tr('settings.executable'), inst.executable) : text(tr('settings.executable'), tr('settings.notFound'))[0]!);
    for (const w of inst?.warnings ?? []) L.push(...warnLines(w));
  });
  L.push('', ` ${t.accent('cleanerx')}`);
  L.push(path(tr('settings.config'), st.loaded?.path ?? '…'));
  if (st.loaded?.warning) L.push(...warnLines(st.loaded.warning));
  if (s)
    L.push(
      ...text(
        tr('settings.retention'),
        tr('settings.retentionValue', {
          backupDays: String(s.retention.backupDays),
          logDays: String(s.retention.logDays),
          tempHours: String(s.retention.tempHours),
        }),
      ),
    );
  if (s) L.push(...text(tr('settings.language'), tr('settings.languageValue', { value: st.language })));
  L.push(path(tr('settings.backupKey'), st.keyPath));
  if (st.keyNote) L.push(...text('', st.keyNote));
  L.push(...text(tr('settings.unlockedBy'), st.storeLine));
  if (st.draft) L.push('', ...warnLines(tr('settings.unsaved')));
  return L;
}
