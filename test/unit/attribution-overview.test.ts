// The Overview's attribution line: what it says in English and Chinese, the
// tail only when there is something to say, nothing before a walk.

import { afterEach, describe, expect, it } from 'vitest';
import type { Attribution } from '../../src/engine/core/model.js';
import { setLanguage } from '../../src/engine/i18n/index.js';
import { attributionLine, deletedOpenLine } from '../../src/screens/overview-render.js';

const base: Attribution = {
  measure: 'allocated',
  roots: ['/h'],
  totalBytes: 5_492_736,
  totalFiles: 551,
  accountedBytes: 5_468_160,
  accountedFiles: 546,
  unrecognizedBytes: 24_576,
  unrecognizedFiles: 5,
  doubleCountedFiles: 0,
  doubleCounted: [],
  notWalked: [],
};

afterEach(() => setLanguage('en'));

describe('deletedOpenLine', () => {
  it('names the space deleted files still hold, and nothing when none is held', () => {
    expect(deletedOpenLine({ files: 1, bytes: 1_073_741_824 })).toBe(
      '⚠ 1.1 GB held by 1 file deleted but still open in a process: quit it to free the space (Logs & caches)',
    );
    expect(deletedOpenLine(undefined)).toBeNull();
    expect(deletedOpenLine({ files: 0, bytes: 0 })).toBeNull();
  });
});

describe('attributionLine', () => {
  it('says X of Y accounted for, which size, and what is not recognized', () => {
    const [head, tail] = attributionLine(base)!;
    expect(head).toMatch(/^On disk: 5\.\d+ MB of 5\.\d+ MB accounted for \(allocated size, as du\)$/);
    expect(tail).toMatch(/^ · 24\.6 KB in 5 files not recognized \(read-only\)$/);
  });

  it('has no tail when everything is accounted for, and names double counting and unwalked trees', () => {
    expect(attributionLine({ ...base, accountedBytes: base.totalBytes, unrecognizedBytes: 0, unrecognizedFiles: 0 })![1]).toBe('');
    const [, tail] = attributionLine({ ...base, unrecognizedFiles: 0, doubleCountedFiles: 1, notWalked: [{ path: '/h/mnt', reason: 'x' }] })!;
    expect(tail).toBe(' · 1 file counted twice · 1 not walked');
  });

  it('is absent before a walk or for an empty home', () => {
    expect(attributionLine(undefined)).toBeNull();
    expect(attributionLine({ ...base, totalFiles: 0, totalBytes: 0 })).toBeNull();
  });

  it('speaks Chinese', () => {
    setLanguage('zh');
    const [head, tail] = attributionLine(base)!;
    expect(head).toMatch(/^磁盘：.+ 中已归属 .+（实际占用大小，同 du）$/);
    expect(tail).toMatch(/未识别（只读）$/);
  });
});
