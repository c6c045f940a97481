// The bottom deck on every screen: the Agent selector at its left, the scan
// state, the marks, then the focused widget's name and its keys (or the open
// text input, or a one-line message). Neither line ever wraps, so the input
// line stays on screen: the status and the marks drop whole fields when the
// line is short (never "3 war…"), the other parts are cut with an ellipsis.

import blessed from 'blessed';
import { cleanText, displayWidth, fitWidth } from '../engine/core/text.js';
import { t as tr } from '../engine/i18n/index.js';
import { fitTagged } from './tagged.js';
import { braces, type Theme } from './theme.js';
import { dropFields, FIELD_SEP, type Field } from './wrap.js';

export interface DeckAgent {
  label: string;
  note?: string;
}

interface DeckState {
  agents: DeckAgent[];
  current: number;
  selectorFocused: boolean;
  status: Field[];
  marks: Field[];
  /** The focused widget's name; the hints after it are its keys. */
  focus: string;
  hints: [string, string][];
  message?: { text: string; kind: 'info' | 'error' };
  inputLine?: string;
}

export class Deck {
  readonly box: blessed.Widgets.BoxElement;

  constructor(
    parent: blessed.Widgets.Node,
    private theme: Theme,
  ) {
    this.box = blessed.box({ parent, bottom: 0, left: 0, width: '100%', height: 2, tags: true, wrap: false });
  }

  paint(s: DeckState): void {
    const width = Math.max(20, (this.box.width as number) || 80);
    const t = this.theme;
    const cur = s.agents[s.current];
    const name = fitWidth(cur ? `${cur.label}${cur.note ? ` (${cur.note})` : ''}` : tr('deck.noAgent'), Math.max(8, Math.floor(width / 3)));
    const sel = s.selectorFocused ? t.inverse(` ◂ ${braces(name)} ▸ `) : t.accent(`[${braces(name)}]`);
    const agentLabel = ` ${tr('deck.agent')} `;
    const left = `${agentLabel}${sel}`;
    const leftWidth = displayWidth(agentLabel) + displayWidth(name) + (s.selectorFocused ? 6 : 2);
    const marks = dropFields(s.marks, Math.max(0, width - leftWidth - 5), FIELD_SEP);
    const right = marks ? `${marks} ` : '';
    const room = Math.max(0, width - leftWidth - displayWidth(right) - 3);
    const status = dropFields(s.status, room, FIELD_SEP);
    const line1 = `${left}  ${t.dim(braces(status))}${' '.repeat(Math.max(0, room - displayWidth(status)))} ${t.bold(braces(right))}`;
    let line2: string;
    if (s.inputLine !== undefined) {
      line2 = ` ${s.inputLine}`;
    } else if (s.message) {
      const m = braces(fitWidth(cleanText(s.message.text), width - 2));
      line2 = ` ${s.message.kind === 'error' ? t.danger(m) : t.warn(m)}`;
    } else {
      const label = `${fitWidth(s.focus, 24)} ›`;
      line2 = ` ${t.accent(braces(label))} ${this.hints(s.hints, width - 4 - displayWidth(label))}`;
    }
    this.box.setContent(`${fitTagged(line1, width)}\n${fitTagged(line2, width)}`);
  }

  private hints(hints: [string, string][], width: number): string {
    const out: string[] = [];
    let used = 0;
    for (const [k, label] of hints) {
      const w = displayWidth(k) + 1 + displayWidth(label) + 2;
      if (used + w > width) break;
      out.push(`${this.theme.bold(braces(k))} ${braces(label)}`);
      used += w;
    }
    return out.join('  ');
  }
}
