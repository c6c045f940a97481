// The harness reads whole frames of an app that has finished what it was
// doing. A stand-in app in a real PTY (a headless xterm) replays the two
// moments that failed under load: a first page answered after the tab's
// count (a short quiet spell showed "Nothing matches", which the redraw
// check took for stale cells), and a frame the terminal had taken only in
// part (the review's prompt over the old footer, the box without its bottom
// border). Each fails on a harness that reads too early. And a notice that
// faded between a frame and its redraw: a change the app said it made by
// itself (`changed <k>`), not a stale cell; unsaid, the same change is one.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openApp } from '../helpers/app-screen.js';
import { budget } from '../helpers/budget.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cleanerx-harness-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

// The stand-in: draws whole frames (cursor-addressed rows, like blessed), redraws on Ctrl-L,
// appends `settled <n>` to CLEANERX_SETTLED_FILE when idle, q quits. Its scenario comes in argv[2].
const STAND_IN = String.raw`
const { appendFileSync } = require('node:fs');
const rows = process.stdout.rows, cols = process.stdout.columns;
const scenario = process.argv[2];
let frame = [];
let settled = 0;
const settle = () => appendFileSync(process.env.CLEANERX_SETTLED_FILE, 'settled ' + ++settled + '\n');
const row = (i, text) => '\x1b[' + (i + 1) + ';1H' + text.slice(0, cols) + '\x1b[K';
const draw = (f, from = 0, to = rows) => { frame = f; let out = ''; for (let i = from; i < to; i++) out += row(i, f[i] ?? ''); process.stdout.write(out); };
const screen = (middle, footer) => {
  const f = Array(rows).fill('');
  f[0] = ' 1 Overview  2 Sessions (3)  3 Memory';
  middle.forEach((l, i) => (f[2 + i] = l));
  f[rows - 2] = ' Agent [pi]  Last scan just now';
  f[rows - 1] = footer;
  return f;
};
const box = (title, lines, w) => ['┌─ ' + title + ' ' + '─'.repeat(w - title.length - 5) + '┐', ...lines.map((l) => '│ ' + l.padEnd(w - 4) + ' │'), '└' + '─'.repeat(w - 2) + '┘'];
process.stdin.setRawMode(true);
process.stdout.write('\x1b[2J');
const LIST = ['Tree · newest first', '  ▾ alpha   3 sessions   12 KB', '    one', '    two', '    three'];
let landed = false;
const land = () => {
  if (landed) return;
  landed = true;
  draw(screen(LIST, ' Sessions › Enter expand'));
  setTimeout(settle, 100);
};
process.stdin.on('data', (d) => {
  const k = d.toString();
  if (k === 'q') process.exit(0);
  if (k === '\x0c') {
    // The redraw of the state as it is; a page on its way lands meanwhile (as it may in the app).
    // A notice whose time ran out just before the key: the redraw shows the state without it ('fade' says so, 'fade-unsaid' does not).
    if (scenario.startsWith('fade') && frame[rows - 1].includes('Marked')) {
      if (scenario === 'fade') appendFileSync(process.env.CLEANERX_SETTLED_FILE, 'changed 1\n');
      frame = screen(LIST, ' Sessions › Enter expand');
    }
    draw(frame);
    if (scenario === 'late-page') land();
    else setTimeout(settle, 100);
  }
  if (k === 'x' && scenario === 'half-frame') {
    const review = screen(box('Confirm', ['Delete 1 session · 12 KB', 'Ready to confirm', '', '', '', ''], 50), ' Confirm › Enter confirm');
    // The frame's top half, then nothing but no-op bytes while the terminal takes the rest (output not quiet).
    draw(review, 0, 5);
    let n = 0;
    const t = setInterval(() => {
      process.stdout.write('\x1b[' + rows + ';1H');
      if (++n < 60) return;
      clearInterval(t);
      draw(review, 5, rows);
      setTimeout(settle, 100);
    }, 5);
  }
});
if (scenario === 'late-page') {
  draw(screen(['Tree · newest first', '  Nothing matches this filter'], ' Sessions › Enter expand'));
  // The first page: late (after the count was on screen and a short quiet spell).
  setTimeout(land, 1500);
} else if (scenario.startsWith('fade')) {
  draw(screen(LIST, ' Marked 3 sessions in all sessions (12 KB selectable).'));
  setTimeout(settle, 100);
} else {
  draw(screen([...box('Preparing the review', ['Preparing the review…'], 30)], ' Preparing the review › Esc cancel'));
  setTimeout(settle, 100);
}
`;

function standIn(scenario: string, source = STAND_IN) {
  const program = join(dir, 'stand-in.cjs');
  writeFileSync(program, source);
  return openApp({ program, args: [scenario], env: { HOME: dir }, cols: 80, rows: 24 });
}

it('compares with a redraw only once the app is idle: a first page after the count is a change, not a stale cell', { timeout: budget(30_000) }, async () => {
  const s = standIn('late-page');
  // The count is on screen while the list still says "Nothing matches": the step must wait for the page.
  const text = await s.waitFor('Sessions (3)');
  expect(text).toContain('three');
  expect(text).not.toContain('Nothing matches');
  s.press('q');
  expect(await s.waitExit()).toBe(0);
});

it('checks the screen only once the output is quiet: a frame the terminal has taken in part is not a broken screen', { timeout: budget(30_000) }, async () => {
  const s = standIn('half-frame');
  await s.waitSettled();
  s.press('x');
  // The prompt is there with the old footer below it until the rest of the frame arrives.
  const text = await s.waitFor('Ready to confirm');
  expect(text).toMatch(/└─+┘/);
  expect(text).toContain(' Confirm › ');
  s.press('q');
  expect(await s.waitExit()).toBe(0);
});

it('still fails a screen that stays broken once the output is quiet', { timeout: budget(30_000) }, async () => {
  // The same stand-in with the rest of the review's frame never sent: the box stays without its bottom border.
  const s = standIn('half-frame', STAND_IN.replace('draw(review, 5, rows);', ''));
  await s.waitSettled();
  s.press('x');
  await expect(s.waitFor('Ready to confirm')).rejects.toThrow(/no bottom border/);
});

it('a notice that faded between the frame and its redraw is a change the app said it made, not a stale cell', { timeout: budget(30_000) }, async () => {
  const s = standIn('fade');
  const text = await s.waitFor('Agent [pi]');
  expect(s.selfChanges()).toBe(1);
  expect(text).not.toContain('Marked 3');
  s.press('q');
  expect(await s.waitExit()).toBe(0);
});

it('the same change, unsaid, is a stale cell', { timeout: budget(30_000) }, async () => {
  const s = standIn('fade-unsaid');
  await expect(s.waitFor('Agent [pi]')).rejects.toThrow(/stale cells\n  line 24: drawn  \| Marked 3 sessions/);
});
