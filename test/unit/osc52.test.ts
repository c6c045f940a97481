// The clipboard request `c` and `y` send: OSC 52 with the text as base64,
// through tmux (plain for `set-clipboard on`, DCS passthrough for
// `allow-passthrough on`) or GNU screen (DCS chunks under its 768-byte
// buffer), capped in size, and never a raw byte of the text.

import { describe, expect, it } from 'vitest';
import { clipboardRoute, OSC52_MAX_BASE64, osc52Sequence } from '../../src/terminal/osc52.js';

const ESC = '\x1b';
const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');
const TEXT = "cd '/home/me/it'\\''s 目录' && codex resume 01a20f63-4955-752e-84ba-e76871a4f1f8";

describe('clipboardRoute', () => {
  it('tmux when $TMUX is set (also inside screen), screen when $STY is, else the terminal itself', () => {
    expect(clipboardRoute({ TMUX: '/tmp/tmux-1000/default,123,0', STY: '1.pts' })).toBe('tmux');
    expect(clipboardRoute({ STY: '1.pts-0.host' })).toBe('screen');
    expect(clipboardRoute({ TMUX: '', STY: '' })).toBe('terminal');
    expect(clipboardRoute({})).toBe('terminal');
  });
});

describe('osc52Sequence', () => {
  it('is ESC ] 52 ; c ; <base64 of the UTF-8 text> BEL for the terminal', () => {
    const seq = osc52Sequence(TEXT, 'terminal')!;
    expect(seq).toBe(`${ESC}]52;c;${b64(TEXT)}\x07`);
    expect(Buffer.from(seq.slice(7, -1), 'base64').toString('utf8')).toBe(TEXT);
  });

  it('through tmux: the plain request, then the same in a DCS passthrough with every ESC doubled', () => {
    const seq = osc52Sequence(TEXT, 'tmux')!;
    const plain = `${ESC}]52;c;${b64(TEXT)}\x07`;
    expect(seq.startsWith(plain)).toBe(true);
    const wrapped = seq.slice(plain.length);
    expect(wrapped.startsWith(`${ESC}Ptmux;`)).toBe(true);
    expect(wrapped.endsWith(`${ESC}\\`)).toBe(true);
    const body = wrapped.slice(`${ESC}Ptmux;`.length, -2);
    // No lone ESC inside: tmux would end the passthrough there.
    expect(body.replaceAll(ESC + ESC, '')).not.toContain(ESC);
    expect(body.replaceAll(ESC + ESC, ESC)).toBe(plain);
  });

  it('through GNU screen: DCS pieces each far under 768 bytes that join into the request', () => {
    const long = `${TEXT} `.repeat(40);
    const seq = osc52Sequence(long, 'screen')!;
    const pieces = seq.split(`${ESC}\\`).filter(Boolean);
    expect(pieces.length).toBeGreaterThan(10);
    for (const p of pieces) {
      expect(p.startsWith(`${ESC}P`)).toBe(true);
      expect(Buffer.byteLength(p)).toBeLessThan(768);
    }
    const joined = pieces.map((p) => p.slice(2)).join('');
    expect(joined).toBe(`${ESC}]52;c;${b64(long)}\x07`);
  });

  it('carries a hostile text as base64 only: no byte of it reaches the terminal raw', () => {
    const hostile = `a\x1b]52;c;ZXZpbA==\x07\x1bP\x1b\\\x9b31m\n`;
    for (const route of ['terminal', 'tmux', 'screen'] as const) {
      const seq = osc52Sequence(hostile, route)!;
      const stripped = seq.replace(/\x1b+(?:\]52;c;|Ptmux;|P|\\)|\x07/g, '');
      expect(stripped, route).toMatch(/^[A-Za-z0-9+/=]*$/);
    }
  });

  it('refuses a text whose request would pass the cap (terminals drop it); the cap itself still goes', () => {
    const atCap = 'a'.repeat((OSC52_MAX_BASE64 / 4) * 3);
    expect(b64(atCap).length).toBe(OSC52_MAX_BASE64);
    expect(osc52Sequence(atCap, 'terminal')).not.toBeNull();
    expect(osc52Sequence(`${atCap}aaa`, 'terminal')).toBeNull();
    expect(osc52Sequence(`${atCap}aaa`, 'tmux')).toBeNull();
  });
});
