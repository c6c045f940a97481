// The tests' temp homes (test/helpers/scratch.ts): where CLEANERX_TEST_TMPDIR
// says, else the system's temp dir; the disk's temp dir always at hand, and a
// second filesystem for the tests that cross one.

import { statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { diskTmp, otherFilesystem } from '../helpers/scratch.js';

describe('scratch', () => {
  it('puts the temp homes where CLEANERX_TEST_TMPDIR says, else in the system temp dir', () => {
    const chosen = process.env.CLEANERX_TEST_TMPDIR;
    expect(tmpdir()).toBe(chosen ?? diskTmp());
    expect(process.env.CLEANERX_DISK_TMPDIR, 'the setup records the disk temp dir').toBeTruthy();
  });

  it('otherFilesystem names a dir on another device than the one asked about', () => {
    for (const of of [tmpdir(), diskTmp()]) expect(statSync(otherFilesystem(of)).dev).not.toBe(statSync(of).dev);
  });
});
