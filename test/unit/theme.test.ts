// Secondary text must stay readable whatever the terminal reports: the real
// blessed screen draws every theme style under each terminfo we meet (8, 16
// and 256 colours, NO_COLOR) and the bytes it writes are checked for a
// foreground that is black or grey-as-black on the default background.

import blessed from 'blessed';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { makeTheme, type Theme } from '../../src/widgets/theme.js';

/** Foregrounds that vanish on a dark background (black anywhere; bright black and the dark end of the 256 palette on the default background). */
function darkForegrounds(out: string): string[] {
  const bad: string[] = [];
  for (const m of out.matchAll(/\x1b\[([\d;]*)m/g)) {
    const p = m[1]!.split(';').map(Number);
    let fg: number | null = null;
    let bg = false;
    for (let i = 0; i < p.length; i++) {
      const c = p[i]!;
      if (c === 38 && p[i + 1] === 5) (fg = 1000 + p[i + 2]!), (i += 2);
      else if (c === 48 && p[i + 1] === 5) (bg = true), (i += 2);
      else if ((c >= 30 && c <= 37) || (c >= 90 && c <= 97)) fg = c;
      else if ((c >= 40 && c <= 47) || (c >= 100 && c <= 107)) bg = true;
      else if (c === 7) bg = true; // inverse: drawn on the foreground colour
    }
    if (fg === null) continue;
    // Black is refused even on a colour: tmux redraws it as a bare SGR 30, and a pane without that colour shows black on black.
    if (fg === 30 || fg === 1000) bad.push(m[0]);
    else if (!bg && (fg === 90 || fg === 1008 || fg === 1016 || (fg >= 1232 && fg <= 1243))) bad.push(m[0]);
  }
  return bad;
}

function drawWith(terminal: string, theme: Theme): string {
  const output = Object.assign(new PassThrough(), { isTTY: true, columns: 80, rows: 10 });
  const input = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => undefined });
  let written = '';
  output.on('data', (d: Buffer) => (written += d.toString('utf8')));
  const origError = console.error;
  console.error = () => undefined;
  const screen = blessed.screen({ input: input as never, output: output as never, terminal, warnings: false, fullUnicode: true });
  console.error = origError;
  try {
    const styles: (keyof Omit<Theme, 'color'>)[] = ['dim', 'bold', 'accent', 'warn', 'danger', 'ok', 'inverse', 'cursor'];
    const lines = styles.map((k) => `${k}: ${theme[k](`Last scan just now · 12 items · /tmp/home/${k}`)}`);
    blessed.box({ parent: screen, top: 0, left: 0, width: '100%', height: '100%', tags: true, content: lines.join('\n') });
    screen.render();
    (screen.program as unknown as { flush(): void }).flush();
    return written;
  } finally {
    screen.destroy();
  }
}

describe('theme colours', () => {
  const terminals = ['xterm', 'tmux-256color', 'screen-256color', 'xterm-256color', 'linux', 'xterm-16color'];
  for (const terminal of terminals) {
    for (const noColor of [false, true]) {
      it(`draws no black or grey-as-black text under ${terminal}${noColor ? ' with NO_COLOR' : ''}`, () => {
        const theme = makeTheme(noColor ? { NO_COLOR: '1' } : {});
        const out = drawWith(terminal, theme);
        expect(out).toContain('Last scan just now');
        expect(darkForegrounds(out)).toEqual([]);
      });
    }
  }

  it('the checker itself sees grey reduced to black under 8 colours', () => {
    const grey: Theme = { ...makeTheme({}), dim: (s) => `{gray-fg}${s}{/gray-fg}` };
    expect(darkForegrounds(drawWith('xterm', grey)).length).toBeGreaterThan(0);
  });

  it('NO_COLOR sets no colour at all', () => {
    const out = drawWith('xterm-256color', makeTheme({ NO_COLOR: '1' }));
    for (const m of out.matchAll(/\x1b\[([\d;]*)m/g)) expect(m[1]!.split(';').some((c) => /^(3|4|9|10)\d$/.test(c))).toBe(false);
  });

  it('secondary text keeps the default foreground (readable on dark and light backgrounds)', () => {
    const t = makeTheme({});
    expect(t.dim('x')).not.toMatch(/gr[ae]y|black|#/);
  });
});
