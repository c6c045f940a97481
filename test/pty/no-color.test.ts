// NO_COLOR (any non-empty value, https://no-color.org) and --no-color: the
// real binary in a PTY writes no colour SGR at all — no 30–37, 40–47,
// 90–97, 100–107, 38;5/38;2 or 48;… — while bold and inverse (the cursor)
// stay; and what colour would have said is still in the text: a marked row
// reads [x], a row that cannot be marked " - ", a blocked review "Blocked".
// The same journey with colour on shows the detector sees colour at all.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KEYS, openPty, type PtyScreen } from '../helpers/app-screen.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { budget } from '../helpers/budget.js';

let t: TempEnv;

beforeEach(() => {
  t = makeTempEnv();
});

afterEach(() => {
  t.cleanup();
});

/** Every colour parameter in the SGR sequences of `out` (39 and 49, the terminal's own colours, are not colours). */
function colourSgr(out: string): string[] {
  const bad: string[] = [];
  for (const m of out.matchAll(/\x1b\[([\d;:]*)m/g)) {
    const p = m[1]!.split(/[;:]/).map(Number);
    for (let i = 0; i < p.length; i++) {
      const c = p[i]!;
      if (c === 38 || c === 48 || c === 58) {
        bad.push(m[0]);
        break;
      }
      if ((c >= 30 && c <= 37) || (c >= 40 && c <= 47) || (c >= 90 && c <= 97) || (c >= 100 && c <= 107)) {
        bad.push(m[0]);
        break;
      }
    }
  }
  return bad;
}

/** SGR attributes other than colour that the frame used (1 bold, 7 inverse). */
function attributes(out: string): Set<number> {
  const seen = new Set<number>();
  for (const m of out.matchAll(/\x1b\[([\d;]*)m/g)) for (const p of m[1]!.split(';')) seen.add(Number(p));
  return seen;
}

/** The demo through every tab, a mark, help and the review: the frames that use colour when colour is on. */
async function journey(pty: PtyScreen): Promise<{ sessions: string; review: string }> {
  await pty.waitFor(/\d+ sessions · /, 60_000);
  await pty.waitSettled(30_000);
  pty.press('1');
  await pty.waitFor(/By category|Largest sessions/);
  pty.press('2');
  await pty.waitSettled();
  // The demo opens on pi: links and unreadable sessions first (they cannot be marked), then a project's sessions.
  for (let i = 0; i < 6; i++) {
    pty.press('j');
    await pty.waitSettled();
  }
  pty.press(KEYS.space);
  await pty.waitFor(/\[x\] /);
  const sessions = pty.text();
  pty.press('x');
  const review = await pty.waitFor(/Review/, 30_000);
  await pty.waitSettled();
  pty.press(KEYS.esc);
  await pty.waitSettled();
  for (const tab of ['3', '4', '5', '6']) {
    pty.press(tab);
    await pty.waitSettled();
  }
  pty.press('?');
  await pty.waitFor(/Help/);
  pty.press(KEYS.esc);
  await pty.waitSettled();
  pty.press('q');
  expect(await pty.waitExit(20_000)).toBe(0);
  return { sessions, review };
}

describe('no colour', () => {
  for (const [name, env, args] of [
    ['NO_COLOR=1', { NO_COLOR: '1' }, ['--demo']],
    ['--no-color', {}, ['--demo', '--no-color']],
  ] as const) {
    it(
      `${name}: no colour SGR in any frame, bold and inverse kept, marks and states in words`,
      async () => {
        const pty = openPty({ args: [...args], env: { ...t.env, TMPDIR: t.root, ...env }, cols: 100, rows: 30 });
        const { sessions, review } = await journey(pty);
        expect(colourSgr(pty.raw)).toEqual([]);
        const attrs = attributes(pty.raw);
        expect(attrs.has(7), 'inverse for the cursor').toBe(true);
        expect(attrs.has(1), 'bold').toBe(true);
        // A marked row and an unmarked one differ by their box, not by a colour.
        expect(sessions).toMatch(/^\[x\] /m);
        expect(sessions).toMatch(/^\[ \] /m);
        // A row that cannot be marked says so by its dash, and the detail pane says why in words.
        expect(sessions).toMatch(/^ - {3}/m);
        expect(review).toMatch(/Review/);
      },
      budget(180_000),
    );
  }

  it(
    'with colour on, the same journey writes colour (the detector sees it)',
    async () => {
      const pty = openPty({ args: ['--demo'], env: { ...t.env, TMPDIR: t.root }, cols: 100, rows: 30 });
      await journey(pty);
      expect(colourSgr(pty.raw).length).toBeGreaterThan(0);
    },
    budget(180_000),
  );
});
