// The wrap and drop helpers (issue #27 item 3): a sentence is wrapped whole,
// never cut with "…"; every line fits its width (CJK counted as two columns);
// tags are closed at a break and opened again; a status line loses whole
// fields, the least important first, never half a number.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { taggedWidth } from '../../src/widgets/tagged.js';
import { dropFields, wrapTagged } from '../../src/widgets/wrap.js';

const TAG = /\{(?:\/?[a-z0-9-]*|open|close|\|)\}/g;
const plain = (lines: string[]): string => lines.map((l) => l.replace(TAG, '')).join('\n');
const words = (s: string): string[] => s.replace(TAG, '').split(/\s+/).filter(Boolean);

describe('wrapTagged', () => {
  it('keeps every word of a sentence, each line within the width, no ellipsis', () => {
    const s = ' Backup: not offered — Codex has no import route, so its deleted sessions cannot be brought back from an archive';
    const lines = wrapTagged(s, 40);
    expect(lines.length).toBeGreaterThan(2);
    for (const l of lines) expect(taggedWidth(l)).toBeLessThanOrEqual(40);
    expect(words(plain(lines))).toEqual(words(s));
    expect(plain(lines)).not.toContain('…');
  });

  it('breaks a command only at its spaces when each word fits', () => {
    const cmd = 'Readable without cleanerx: age -d -i <exported key> <id>.cxb | zstd -d | tar -t';
    const lines = wrapTagged(cmd, 30);
    expect(lines.join(' ').replace(/ +/g, ' ')).toBe(cmd);
    expect(lines.some((l) => l.includes('<id>.cxb'))).toBe(true);
  });

  it('hangs continuation lines under the given column', () => {
    const lines = wrapTagged('  x       toggles the mark on every session of the project under the cursor', 30, 10);
    expect(lines.length).toBeGreaterThan(1);
    for (const l of lines.slice(1)) expect(l.startsWith('          ') && l[10] !== ' ').toBe(true);
  });

  it('wraps Chinese between characters by display width, never before a closing mark', () => {
    const s = '备份：不提供 — Codex 没有导入途径，所以删除的会话无法从归档中恢复。pi 将失去：历史记录';
    const lines = wrapTagged(s, 20);
    for (const l of lines) expect(taggedWidth(l)).toBeLessThanOrEqual(20);
    expect(plain(lines).replace(/[\n ]/g, '')).toBe(s.replace(/ /g, ''));
    for (const l of lines) expect(/^[，。、；：？！）]/.test(l)).toBe(false);
  });

  it('closes open tags at a break and opens them again', () => {
    const lines = wrapTagged('{yellow-fg}one two three four five six{/yellow-fg} seven', 12);
    expect(lines[0]!.endsWith('{/}')).toBe(true);
    expect(lines[1]!.startsWith('{yellow-fg}')).toBe(true);
    expect(lines[lines.length - 1]).toContain('seven');
  });

  it('fits any text, tags and wide characters included', () => {
    const piece = fc.constantFrom('a', 'word', ' ', '中', '文字', '{bold}', '{/bold}', '{open}', '。', 'x'.repeat(12));
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), fc.integer({ min: 6, max: 50 }), (parts, width) => {
        const s = parts.join('');
        for (const l of wrapTagged(s, width)) expect(taggedWidth(l)).toBeLessThanOrEqual(width);
        expect(plain(wrapTagged(s, width)).replace(/[\s\n]/g, '')).toBe(s.replace(TAG, '').replace(/\s/g, ''));
      }),
    );
  });
});

describe('dropFields', () => {
  const fields = [
    { text: 'Last scan 2 min ago', rank: 3 },
    { text: '1,204 items', rank: 2 },
    { text: '6.2 MB', rank: 1 },
    { text: '3 warnings', rank: 0 },
  ];

  it('keeps everything when it fits', () => {
    expect(dropFields(fields, 80, ' · ')).toBe('Last scan 2 min ago · 1,204 items · 6.2 MB · 3 warnings');
  });

  it('drops whole fields, the highest rank first, keeping the order', () => {
    expect(dropFields(fields, 40, ' · ')).toBe('1,204 items · 6.2 MB · 3 warnings');
    expect(dropFields(fields, 20, ' · ')).toBe('6.2 MB · 3 warnings');
    expect(dropFields(fields, 12, ' · ')).toBe('3 warnings');
    expect(dropFields(fields, 5, ' · ')).toBe('');
  });

  it('never shows part of a field, for any width', () => {
    for (let w = 0; w < 70; w++) {
      const out = dropFields(fields, w, ' · ');
      expect(out.length).toBeLessThanOrEqual(w);
      for (const part of out ? out.split(' · ') : []) expect(fields.map((f) => f.text)).toContain(part);
    }
  });
});
