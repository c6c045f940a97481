// A restore of any size prints a bounded plan: the first paths, then one
// line for the rest. 200,000 paths once overflowed the stack (every path
// spread into one print call) after a verified backup had been taken.

import { describe, expect, it } from 'vitest';
import { RESTORE_LIST_MAX, restoreListLines } from '../../src/cli/backups.js';

describe('restoreListLines', () => {
  it('200,000 paths: the first 200 and "… and 199,800 more", no stack overflow', () => {
    const paths = Array.from({ length: 200_000 }, (_, i) => `/home/u/.pi/agent/sessions/--x--/s${i}.jsonl`);
    const lines = restoreListLines({ paths, emptyDirs: [] }).map(String);
    expect(lines).toHaveLength(RESTORE_LIST_MAX + 1);
    expect(lines[0]).toBe('  /home/u/.pi/agent/sessions/--x--/s0.jsonl');
    expect(lines[RESTORE_LIST_MAX]).toBe('  … and 199,800 more');
  });

  it('a small plan lists every path and folder, with no "more" line', () => {
    const lines = restoreListLines({ paths: ['/a/f'], emptyDirs: ['/a/d'] }).map(String);
    expect(lines).toEqual(['  /a/f', '  /a/d/']);
  });

  it('empty folders count toward the bound and the rest', () => {
    const lines = restoreListLines({ paths: ['/a', '/b'], emptyDirs: ['/c', '/d', '/e'] }, 3).map(String);
    expect(lines).toEqual(['  /a', '  /b', '  /c/', '  … and 2 more']);
  });
});
