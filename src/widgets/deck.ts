// The bottom deck on every screen: the Agent selector at its left, the scan
// state, the marks, then the keys that matter here (or the open text input,
// or a one-line message).

import blessed from 'blessed';
import { displayWidth, fitWidth } from '../engine/text.js';
import { braces, type Theme } from './theme.js';

export interface DeckAgent {
  label: string;
  note?: string;
}

export interface DeckState {
  agents: DeckAgent[];
  current: number;
  selectorFocused: boolean;
  status: string;
  marks: string;
  hints: [string, string][];
  message?: { text: string; kind: 'info' | 'error' };
  inputLine?: string;
}

export class Deck {
  readonly box: blessed.Widgets.BoxElement;

  constructor(parent: blessed.Widgets.Node, private theme: Theme) {
    this.box = blessed.box({ parent, bottom: 0, left: 0, width: '100%', height: 2, tags: true });
  }

  paint(s: DeckState): void {
    const width = Math.max(20, (this.box.width as number) || 80);
    const t = this.theme;
    const cur = s.agents[s.current];
    const name = cur ? `${cur.label}${cur.note ? ` (${cur.note})` : ''}` : 'no agent';
    const sel = s.selectorFocused ? t.inverse(` ◂ ${braces(name)} ▸ `) : t.accent(`[${braces(name)}]`);
    const left = ` Agent ${sel}`;
    const leftWidth = 7 + displayWidth(name) + (s.selectorFocused ? 6 : 2);
    const right = s.marks ? `${s.marks} ` : '';
    const room = Math.max(0, width - leftWidth - displayWidth(right) - 3);
    const status = fitWidth(s.status, room);
    const line1 = `${left}  ${t.dim(braces(status))}{|}${t.bold(braces(right))}`;
    let line2: string;
    if (s.inputLine !== undefined) {
      line2 = ` ${s.inputLine}`;
    } else if (s.message) {
      const m = braces(fitWidth(s.message.text, width - 2));
      line2 = ` ${s.message.kind === 'error' ? t.danger(m) : t.warn(m)}`;
    } else {
      line2 = ` ${this.hints(s.hints, width - 2)}`;
    }
    this.box.setContent(`${line1}\n${line2}`);
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
