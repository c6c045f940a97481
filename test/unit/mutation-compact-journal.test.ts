// The compaction journal (#26 item 5: the mutants of
// engine/cleanup/compact-journal.ts): each save is a whole private file
// (0600, one JSON line) stamped with its time, then its crash point; the
// listing reads every committed journal in name order, skips partials and a
// file gone since the listing, and reports a malformed, oversized or
// unparsable one as unknown with its reason.

import { promises as fsp, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { listCompactions, saveCompaction, type CompactionEntry } from '../../src/engine/cleanup/compact-journal.js';
import { atCrashPoints } from '../../src/engine/core/faults.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
let state: string;
let dir: string;
beforeEach(() => {
  t = makeTempEnv('cleanerx-compact-journal-');
  state = join(t.root, 'state');
  dir = join(state, 'compactions');
  mkdirSync(state, { recursive: true });
});
afterEach(() => {
  atCrashPoints(null);
  vi.restoreAllMocks();
  t.cleanup();
});

function entry(id: string, o: Partial<CompactionEntry> = {}): CompactionEntry {
  return {
    formatVersion: 1,
    kind: 'compact',
    operationId: id,
    dbPath: '/w/opencode.db',
    siblingPath: '/w/.opencode.db.compact',
    createdAt: '2026-12-06T00:00:00.000Z',
    updatedAt: '2026-12-06T00:00:00.000Z',
    step: 'planned',
    ...o,
  };
}

describe('saveCompaction', () => {
  it('writes <id>.json, private, one line, stamped now, then passes its step’s crash point (or the one named)', async () => {
    const points: string[] = [];
    atCrashPoints((p) => points.push(p));
    const e = entry('op-1', { step: 'copying' });
    const before = Date.now();
    await saveCompaction(state, e);
    const path = join(dir, 'op-1.json');
    const text = readFileSync(path, 'utf8');
    expect(text.endsWith('}\n')).toBe(true);
    expect(JSON.parse(text)).toEqual(e);
    expect(Date.parse(e.updatedAt)).toBeGreaterThanOrEqual(before);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    await saveCompaction(state, e, 'compact:copy:written');
    expect(points).toEqual(['compact:copying', 'compact:copy:written']);
  });

  it('a write fault injected for the compaction journal fails the save and leaves the last one', async () => {
    const e = entry('op-2');
    await saveCompaction(state, e);
    process.env.CLEANERX_FAULT = 'compact-journal:ENOSPC';
    try {
      await expect(saveCompaction(state, { ...e, step: 'copying' })).rejects.toMatchObject({ code: 'ENOSPC' });
    } finally {
      delete process.env.CLEANERX_FAULT;
    }
    expect(JSON.parse(readFileSync(join(dir, 'op-2.json'), 'utf8')).step).toBe('planned');
  });
});

describe('listCompactions', () => {
  it('no compactions dir: nothing', async () => {
    expect(await listCompactions(state)).toEqual([]);
  });

  it('every committed journal, in name order; partials, dot files and other names passed over', async () => {
    await saveCompaction(state, entry('b', { step: 'complete' }));
    await saveCompaction(state, entry('a'));
    writeFileSync(join(dir, '.c.json'), JSON.stringify(entry('c')));
    writeFileSync(join(dir, 'd.json.tmp'), JSON.stringify(entry('d')));
    writeFileSync(join(dir, 'e.txt'), JSON.stringify(entry('e')));
    // The listing sorts whatever order the directory gives.
    const readdir = fsp.readdir.bind(fsp) as (p: string) => Promise<string[]>;
    vi.spyOn(fsp, 'readdir').mockImplementation((async (p: string) => (await readdir(p)).sort().reverse()) as never);
    const got = await listCompactions(state);
    expect(got.map((f) => (f.kind === 'entry' ? [f.path, f.entry.operationId, f.entry.step] : f))).toEqual([
      [join(dir, 'a.json'), 'a', 'planned'],
      [join(dir, 'b.json'), 'b', 'complete'],
    ]);
  });

  it('a journal missing any one required field, or of another version or kind, is unknown', async () => {
    mkdirSync(dir);
    const bad: Record<string, unknown> = {
      version: { ...entry('v'), formatVersion: 2 },
      kind: { ...entry('k'), kind: 'cleanup' },
      db: { ...entry('d'), dbPath: 7 },
      sibling: { ...entry('s'), siblingPath: null },
      step: { ...entry('t'), step: 3 },
    };
    for (const [name, v] of Object.entries(bad)) writeFileSync(join(dir, `${name}.json`), JSON.stringify(v));
    const got = await listCompactions(state);
    expect(got).toEqual(
      ['db', 'kind', 'sibling', 'step', 'version'].map((n) => ({ kind: 'unknown', path: join(dir, `${n}.json`), reason: 'Unrecognized compaction journal.' })),
    );
  });

  it('not JSON, too large, or not a regular file: unknown, with why', async () => {
    mkdirSync(dir);
    writeFileSync(join(dir, 'a.json'), '{not json');
    writeFileSync(join(dir, 'b.json'), JSON.stringify({ ...entry('b'), message: 'x'.repeat(1024 * 1024) }));
    mkdirSync(join(dir, 'c.json'));
    const [a, b, c] = await listCompactions(state);
    expect(a).toEqual({ kind: 'unknown', path: join(dir, 'a.json'), reason: 'The compaction journal cannot be read as JSON.' });
    expect(b?.kind === 'unknown' && b.reason).toMatch(/^The compaction journal cannot be read safely: .+/);
    expect(c?.kind === 'unknown' && c.reason).toMatch(/^The compaction journal cannot be read safely: .+/);
    // Just under the bound it is read.
    writeFileSync(join(dir, 'b.json'), JSON.stringify({ ...entry('b'), message: 'x'.repeat(1024 * 1024 - 400) }));
    expect((await listCompactions(state))[1]?.kind).toBe('entry');
  });

  it('a journal removed between the listing and the read is passed over', async () => {
    await saveCompaction(state, entry('a'));
    const readdir = fsp.readdir.bind(fsp) as (p: string) => Promise<string[]>;
    vi.spyOn(fsp, 'readdir').mockImplementation((async (p: string) => [...(await readdir(p)), 'gone.json']) as never);
    expect((await listCompactions(state)).map((f) => f.kind)).toEqual(['entry']);
  });
});
