// The warnings view lists every warning of a scan (up to its cap), counted
// with the right plural, reasons wrapped at spaces, paths cut in the middle,
// hostile text made inert.

import { describe, expect, it } from 'vitest';
import { displayWidth } from '../../src/engine/core/text.js';
import { MAX_LISTED, warningLines, warningsTitle } from '../../src/screens/warnings.js';
import { makeTheme } from '../../src/widgets/theme.js';

const theme = makeTheme({ NO_COLOR: '1' });
const untag = (l: string): string =>
  l
    .replace(/\{\/?[a-z-]+\}/g, '')
    .replace(/\{open\}/g, '{')
    .replace(/\{close\}/g, '}');

describe('warnings view', () => {
  it('lists every warning, not only the first', () => {
    const ws = Array.from({ length: 7 }, (_, i) => ({ path: `/home/me/.pi/agent/sessions/b/${i}.jsonl`, reason: `Unreadable line ${i}` }));
    const lines = warningLines(ws, theme, 60).map(untag);
    for (let i = 0; i < 7; i++) {
      expect(lines.some((l) => l.includes(`Unreadable line ${i}`))).toBe(true);
      expect(lines.some((l) => l.includes(`/${i}.jsonl`))).toBe(true);
    }
    expect(lines[0]).toContain('7 warnings');
    expect(warningsTitle(7)).toBe('Warnings (7)');
    expect(warningsTitle(1234)).toBe('Warnings (1,234)');
    expect(warningLines([{ path: '/x', reason: 'r' }], theme, 60).map(untag)[0]).toContain('1 warning in');
  });

  it('fits the width: reasons wrap at spaces, long paths are cut in the middle', () => {
    const long = '/home/someone/' + 'deep/'.repeat(30) + 'the-file-name.jsonl';
    const lines = warningLines([{ path: long, reason: 'The session header is not JSON, so the file was skipped and left untouched' }], theme, 40).map(untag);
    for (const l of lines.slice(2)) expect(displayWidth(l)).toBeLessThanOrEqual(40);
    const pathLine = lines.find((l) => l.includes('…'))!;
    expect(pathLine.trim().startsWith('/home/')).toBe(true);
    expect(pathLine.endsWith('the-file-name.jsonl')).toBe(true);
    expect(
      lines
        .slice(2)
        .filter((l) => !l.includes('…'))
        .map((l) => l.slice(3).trim())
        .join(' '),
    ).toBe('The session header is not JSON, so the file was skipped and left untouched');
  });

  it('makes escapes and braces inert', () => {
    const lines = warningLines([{ path: '/tmp/\x1b]0;PWNED\x07x', reason: 'bad {red-fg}name{/red-fg} \x1b[31mred' }], theme, 60);
    const all = lines.join('\n');
    expect(all).not.toMatch(/\x1b|\x07/);
    expect(all).not.toContain('{red-fg}');
    expect(all).toContain('{open}red-fg{close}');
  });

  it('caps a hostile flood and says where the rest are', () => {
    const ws = Array.from({ length: MAX_LISTED + 25 }, (_, i) => ({ path: `/p/${i}`, reason: `r${i}` }));
    const lines = warningLines(ws, theme, 60).map(untag);
    expect(lines.filter((l) => /^\d+\./.test(l)).length).toBe(MAX_LISTED);
    expect(lines[lines.length - 1]).toContain('25 more warnings');
    expect(lines[lines.length - 1]).toContain('scan --json');
  });

  it('says so when there are none', () => {
    expect(warningLines([], theme, 60)).toEqual(['This scan raised no warnings.']);
  });
});
