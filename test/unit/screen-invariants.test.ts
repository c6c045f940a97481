// The screen invariants the PTY journeys check after every step must be able
// to fail: each broken screen here (as tmux's capture-pane gives it) is
// reported, and a good one is not.

import { describe, expect, it } from 'vitest';
import { parseTmuxCapture, screenProblems } from '../helpers/screen-invariants.js';

const COLS = 80;
const ROWS = 12;

function screen(rows: string[]): string {
  const out = [...rows];
  while (out.length < ROWS - 2) out.push('');
  out.push(' Agent [pi]  Last scan just now', ' Sessions › Enter expand  q quit');
  return out.join('\n') + '\n';
}

const grab = (text: string, joined = text.replace(/\x1b\[[0-9;]*m/g, '')) => parseTmuxCapture(text, joined, COLS, ROWS);

const review = (lines: string[]): string[] => [
  '┌─ Review cleanup ────────────────┐',
  ...lines.map((l) => `│${l.padEnd(32)}│`),
  '└────────────────────────────────┘',
];

describe('screen invariants', () => {
  it('pass a good screen', () => {
    expect(screenProblems(grab(screen([' 1 Overview  2 Sessions', 'Tree · newest first'])))).toEqual([]);
  });

  it('report text drawn black on the default background, in 8 and 256 colours, but not black on a colour', () => {
    expect(screenProblems(grab(screen(['\x1b[30mLast scan\x1b[39m'])))).toEqual([expect.stringMatching(/8 characters drawn black/)]);
    expect(screenProblems(grab(screen(['\x1b[38;5;16mdim\x1b[0m'])))).toEqual([expect.stringMatching(/drawn black/)]);
    expect(screenProblems(grab(screen(['\x1b[30;46mcursor row\x1b[0m', '\x1b[7m\x1b[30minverse\x1b[0m'])))).toEqual([]);
  });

  it('report a line wider than the terminal and a wrapped one', () => {
    const wide = screen(['界'.repeat(41)]);
    expect(screenProblems(grab(wide))).toContain('line 1 is 82 columns wide on a 80-column terminal');
    const joined = screen(['x'.repeat(100)]);
    expect(screenProblems(grab(screen(['x'.repeat(80), 'x'.repeat(20)]), joined))).toContain('line 1 wrapped into the next');
  });

  it('report a dialog cut off at the bottom and a footer that describes another widget', () => {
    const cut = ['┌─ Help ────────┐', '│ ↑ k  move up  │', '│ ↓ j  move down│'];
    const p = screenProblems(grab(screen(cut)));
    expect(p).toContain('the "Help" box has no bottom border on screen (cut off)');
    expect(p).toContain('the footer describes "Sessions" while the "Help" dialog has the keys');
  });

  it('report a review without its warning or confirmation line', () => {
    const p = screenProblems(grab(screen(review([' estimated reclaimed 4 KB', ' Backup: off']))));
    expect(p).toContain('the review does not show its irreversible warning');
    expect(p).toContain('the review does not show its confirmation');
    const whole = review([
      ' estimated reclaimed 4 KB',
      ' Backup: off',
      ' ⚠ Irreversible: without a backup, removed data cannot be brought back.',
      ' Type delete and Enter to clean',
      ' > ',
    ]);
    expect(screenProblems(grab(screen(whole).replace(' Sessions ›', ' Review ›')))).toEqual([]);
    // A warning cut short with … is a warning not shown.
    const cut = review([
      ' estimated reclaimed 4 KB',
      ' Backup: off',
      ' ⚠ Irreversible: without a backup, removed data cannot be brought bac…',
      ' Type delete and Enter to clean',
      ' > ',
    ]);
    expect(screenProblems(grab(screen(cut).replace(' Sessions ›', ' Review ›')))).toContain('the review does not show its irreversible warning');
  });

  it('report a footer that describes another screen than the current tab', () => {
    const top = ' 1 Overview \x1b[7m 2 Sessions (34) \x1b[27m 3 Memory';
    expect(screenProblems(grab(screen([top])))).toEqual([]);
    expect(screenProblems(grab(screen([top]).replace(' Sessions ›', ' Details ›')))).toEqual([]);
    expect(screenProblems(grab(screen([top]).replace(' Sessions ›', ' Backups ›')))).toEqual(['the footer describes "Backups" on the Sessions tab']);
  });

  it('report a deck pushed off its place', () => {
    const text = [...Array(ROWS - 1).fill(''), ' Agent [pi]  Last scan just now'].join('\n');
    expect(screenProblems(grab(text))).toContain('the deck\'s first line ("Agent …") is not on the second-to-last line');
  });
});
