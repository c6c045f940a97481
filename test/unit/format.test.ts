// Counts agree with their nouns; paths cut in the middle keep both ends.

import { describe, expect, it } from 'vitest';
import { fitPath, plural } from '../../src/engine/core/format.js';
import { displayWidth } from '../../src/engine/core/text.js';

describe('plural', () => {
  it('uses the singular for exactly one', () => {
    expect(plural(1, 'item')).toBe('1 item');
    expect(plural(0, 'item')).toBe('0 items');
    expect(plural(2, 'warning')).toBe('2 warnings');
    expect(plural(12345, 'session')).toBe('12,345 sessions');
    expect(plural(1, 'entry', 'entries')).toBe('1 entry');
    expect(plural(3, 'entry', 'entries')).toBe('3 entries');
  });
});

describe('fitPath', () => {
  const p = '/home/someone/.codex/sessions/2026/11/29/rollout-2026-11-29T12-00-00-abc.jsonl';
  it('keeps a path that fits', () => {
    expect(fitPath('/tmp/x', 10)).toBe('/tmp/x');
  });
  it('cuts in the middle with an ellipsis, keeping the start and the file name', () => {
    for (const w of [8, 12, 20, 40, 60]) {
      const f = fitPath(p, w);
      expect(displayWidth(f)).toBeLessThanOrEqual(w);
      expect(f).toContain('…');
      expect(f.startsWith('/')).toBe(true);
      expect(p.endsWith(f.split('…')[1]!)).toBe(true);
    }
    expect(fitPath(p, 40)).toMatch(/^\/home\/some.*….*abc\.jsonl$/);
  });
  it('shows only the tail below 8 columns, and stays within wide characters', () => {
    expect(fitPath(p, 5)).toBe('…sonl');
    expect(fitPath(p, 1)).toBe('…');
    expect(fitPath(p, 0)).toBe('');
    const wide = '/home/用户/项目/重构数据库迁移脚本/会话.jsonl';
    for (let w = 1; w < 30; w++) expect(displayWidth(fitPath(wide, w))).toBeLessThanOrEqual(w);
  });
});
