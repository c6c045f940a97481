// The tests' temp homes (test/helpers/scratch.ts): on a roomy tmpfs when the
// machine has one, where CLEANERX_TEST_TMPDIR says when it is set, the disk's
// temp dir still at hand, and a second filesystem for the tests that cross one.

import { statfsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { diskTmp, otherFilesystem } from '../helpers/scratch.js';

const TMPFS = 0x01021994;
const roomyShm = ((): boolean => {
  try {
    const s = statfsSync('/dev/shm');
    return s.type === TMPFS && s.bavail * s.bsize >= 8 * 1024 ** 3;
  } catch {
    return false;
  }
})();

describe('scratch', () => {
  it('puts the temp homes in CLEANERX_TEST_TMPDIR, else on the tmpfs when /dev/shm has room, else on the disk', () => {
    const chosen = process.env.CLEANERX_TEST_TMPDIR;
    if (chosen) expect(tmpdir()).toBe(chosen);
    else if (roomyShm) {
      // Short: a socket's path in a temp home must stay under 108 bytes.
      expect(tmpdir()).toMatch(/^\/dev\/shm\/cxt-\d+$/);
      expect(statfsSync(tmpdir()).type).toBe(TMPFS);
      expect(statSync(tmpdir()).mode & 0o7777).toBe(0o1777);
    } else expect(tmpdir()).toBe(diskTmp());
    // The disk's temp dir is the system's, never the scratch.
    expect(diskTmp().includes('cxt-')).toBe(false);
  });

  it('otherFilesystem names a dir on another device than the one asked about', () => {
    for (const of of [tmpdir(), diskTmp()]) expect(statSync(otherFilesystem(of)).dev).not.toBe(statSync(of).dev);
  });
});
