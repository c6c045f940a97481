// The Select-by-rules form drawn as a pure function of its state and the
// terminal's size: the box's place and size, and its lines (each rule with
// its choice, what the rules match, the keys), cut to the box on a short
// terminal so the counts and the keys always show.

import { formatBytes } from '../engine/core/format.js';
import { t as tr } from '../engine/i18n/index.js';
import { cleanText, fitWidth, padWidth } from '../engine/core/text.js';
import { fitTagged } from '../widgets/tagged.js';
import { braces, type Theme } from '../widgets/theme.js';

interface SelectMenuState {
  fields: readonly { label: string; choices: readonly string[] }[];
  /** Each field's choice (0: the rule is off). */
  values: readonly number[];
  cursor: number;
  /** What the rules match, once the engine answered. */
  result: { ids: readonly string[]; bytes: number; skipped: number; notes: readonly string[] } | null;
  error: string | null;
  /** The engine is counting. */
  busy: boolean;
}

/** The box at sw×sh and the lines inside its border. */
export function selectMenuFrame(st: SelectMenuState, sw: number, sh: number, t: Theme): { width: number; height: number; top: number; lines: string[] } {
  const width = Math.max(30, Math.min(64, sw - 2));
  const inner = width - 2;
  const labelW = Math.min(24, Math.max(10, inner - 22));
  const lines: string[] = [t.dim(tr('select.intro')), ''];
  st.fields.forEach((f, k) => {
    const v = st.values[k]!;
    const text = `${k === st.cursor ? '›' : ' '} ${padWidth(fitWidth(f.label, labelW), labelW)} ${v === 0 ? f.choices[0] : `◂ ${f.choices[v]} ▸`}`;
    const line = braces(padWidth(fitWidth(text, inner), inner));
    lines.push(k === st.cursor ? t.cursor(line) : v === 0 ? t.dim(line) : line);
  });
  lines.push('');
  lines.push(...summaryLines(st, t));
  lines.push(t.dim(tr('select.keysLine')));
  const height = Math.min(lines.length + 2, sh - 3);
  const room = height - 2;
  // On a short terminal the fields near the cursor stay; the counts and keys always show.
  const tail = lines.slice(-3);
  const head = lines.slice(0, Math.max(0, room - tail.length));
  return {
    width,
    height,
    top: Math.max(1, Math.floor((sh - 2 - height) / 2)),
    lines: [...head, ...tail].slice(0, room).map((l) => fitTagged(l, inner)),
  };
}

function summaryLines(st: SelectMenuState, t: Theme): string[] {
  if (st.error) return [t.danger(braces(cleanText(st.error, 300)))];
  if (!st.values.some((v) => v !== 0)) return [t.dim(tr('select.chooseToSee'))];
  if (st.busy || !st.result) return [t.dim(tr('select.counting'))];
  const r = st.result;
  const head = tr('select.matches', { count: r.ids.length, size: formatBytes(r.bytes) }) + (r.skipped ? tr('select.skipped', { count: r.skipped }) : '');
  const note = r.notes[0] ? t.dim(braces(cleanText(r.notes[0], 300))) : '';
  return note ? [t.bold(braces(head)), note] : [t.bold(braces(head))];
}
