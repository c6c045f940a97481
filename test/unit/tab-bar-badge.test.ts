// The tab bar's right-hand badges are whole words or absent, never cut
// mid-word ("read-onl"), whatever the terminal width; and nothing of
// blessed's markup shows when the tabs leave a column or two (a stray "{").

import blessed from 'blessed';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { TabBar } from '../../src/widgets/tab-bar.js';
import { makeTheme } from '../../src/widgets/theme.js';

let screen: blessed.Widgets.Screen | null = null;
afterEach(() => {
  screen?.destroy();
  screen = null;
});

function rendered(width: number, sessions = 'Sessions (431)', badges?: string): string {
  const output = Object.assign(new PassThrough(), { isTTY: true, columns: width, rows: 5 });
  const input = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => undefined });
  screen = blessed.screen({ input: input as never, output: output as never, terminal: 'xterm-256color', warnings: false, fullUnicode: true });
  const theme = makeTheme({});
  const bar = new TabBar(screen, theme);
  const labels = ['Overview', sessions, 'Memory', 'Logs & caches', 'Backups', 'Settings'];
  bar.paint(
    labels.map((label, i) => ({ key: String(i + 1), label, short: label })),
    5,
    badges ?? `${theme.dim('cleanerx')} ${theme.warn('read-only')}`,
  );
  screen.render();
  const line = (screen as unknown as { lines: [number, string][][] }).lines[0]!;
  return line
    .map((c) => c[1])
    .join('')
    .trimEnd();
}

describe('tab bar badges', () => {
  for (const width of [80, 88, 90, 93, 96, 100, 120]) {
    it(`shows whole badges only at ${width} columns`, () => {
      const line = rendered(width);
      expect(line).not.toMatch(/read-onl(?!y)|cleane(?!rx)/);
      if (width >= 100) expect(line).toMatch(/read-only$/);
    });
  }
});

describe('tab bar without badges', () => {
  for (const sessions of ['Sessions (5)', 'Sessions (53)', 'Sessions (96)', 'Sessions (127)', 'Sessions (1,234)'])
    for (const width of [78, 79, 80, 81]) {
      it(`draws no markup with "${sessions}" at ${width} columns`, () => {
        const line = rendered(width, sessions, '');
        expect(line).not.toMatch(/[{}]/);
        expect(line, JSON.stringify(line)).toMatch(/ 6 Se/);
      });
    }
});
