// The journal store and the journal reader, rule by rule (#26 item 5: the
// mutants of engine/cleanup/journal.ts). Real files in a temp state dir:
// what listJournals reports for every kind of entry it may find, what a
// transition refuses, when a mutation mark is held back (the clock is
// faked, only Date: the files are real), and that the bytes written are
// always JSON.stringify of the journal at that moment.

import fs, { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { atCrashPoints } from '../../src/engine/core/faults.js';
import {
  type Journal,
  journalBytes,
  journalDir,
  journalPath,
  JournalStore,
  listJournals,
  MUTATION_MARK_INTERVAL_MS,
} from '../../src/engine/cleanup/journal.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { JOURNAL_ID, minimalJournal } from '../helpers/journal-fixture.js';

const MAX = 8 * 1024 * 1024;
let t: TempEnv;
let state: string;
beforeEach(() => {
  t = makeTempEnv('cleanerx-journal-rules-');
  state = t.env.CLEANERX_STATE_DIR!;
});
afterEach(() => {
  vi.restoreAllMocks();
  atCrashPoints(null);
  vi.useRealTimers();
  delete process.env.CLEANERX_CRASH_AT;
  delete process.env.CLEANERX_FAULT;
  t.cleanup();
});

function journal(id = JOURNAL_ID, mutations = 3): Journal {
  return minimalJournal({ id, mutations, at: '2026-01-01T00:00:00.000Z' });
}

const put = (name: string, body: string): string => {
  mkdirSync(journalDir(state), { recursive: true });
  const p = join(journalDir(state), name);
  writeFileSync(p, body);
  return p;
};
const v2 = (over: Record<string, unknown> = {}): string => JSON.stringify({ ...journal(), ...over });
const reasons = async (): Promise<[string, string][]> =>
  (await listJournals(state)).map((e) => [e.path.slice(e.path.lastIndexOf('/') + 1), e.kind === 'unknown' ? e.reason : `journal ${e.journal.operationId}`]);

describe('listJournals', () => {
  it('no journal folder: nothing', async () => {
    expect(await listJournals(state)).toEqual([]);
  });

  it('in name order; partials (dot names) and other files are not journals', async () => {
    for (const n of ['c', 'a', 'b']) put(`${n}.json`, v2({ operationId: n }));
    put('.a.json.1234.partial', '{');
    put('.hidden.json', '{');
    put('notes.txt', '{');
    put('d.json.partial', '{');
    expect(await reasons()).toEqual([
      ['a.json', 'journal a'],
      ['b.json', 'journal b'],
      ['c.json', 'journal c'],
    ]);
    const [a] = await listJournals(state);
    expect(a).toMatchObject({ kind: 'journal', path: join(journalDir(state), 'a.json') });
  });

  it('a link, a folder and a FIFO are unknown, never followed or read', async () => {
    const target = put('real.txt', v2());
    symlinkSync(target, join(journalDir(state), 'link.json'));
    mkdirSync(join(journalDir(state), 'dir.json'));
    execFileSync('mkfifo', [join(journalDir(state), 'fifo.json')]);
    const why = 'The journal is a link or not a regular file.';
    expect(await reasons()).toEqual([
      ['dir.json', why],
      ['fifo.json', why],
      ['link.json', why],
    ]);
  });

  it('larger than 8 MiB is unknown unread; exactly 8 MiB is read', async () => {
    const pad = (n: number): string => {
      const head = '{"formatVersion":1,"x":"';
      return `${head}${'a'.repeat(n - head.length - 2)}"}`;
    };
    put('at.json', pad(MAX));
    put('over.json', pad(MAX + 1));
    expect(statSync(join(journalDir(state), 'at.json')).size).toBe(MAX);
    expect(await reasons()).toEqual([
      ['at.json', 'Unrecognized journal format (formatVersion 1).'],
      ['over.json', 'The journal is larger than 8 MiB.'],
    ]);
  });

  it('not JSON: cannot be read as JSON; JSON that is not an object (null, a number, a text, a list): not a JSON object', async () => {
    put('a.json', '{not json');
    put('b.json', 'null');
    put('c.json', '42');
    put('d.json', '"text"');
    put('e.json', '[]');
    const notObject = 'Unrecognized journal format (not a JSON object).';
    expect(await reasons()).toEqual([
      ['a.json', 'The journal cannot be read as JSON.'],
      ['b.json', notObject],
      ['c.json', notObject],
      ['d.json', notObject],
      ['e.json', notObject],
    ]);
  });

  it('a v2 journal missing any field it needs is unknown, naming its version', async () => {
    put('a.json', v2({ formatVersion: 3 }));
    put('b.json', v2({ operationId: 7 }));
    put('c.json', v2({ agent: null }));
    put('d.json', v2({ plan: null }));
    put('e.json', v2({ mutations: {} }));
    put('f.json', '{}');
    put('g.json', v2({ formatVersion: '2' }));
    const v = (n: string): string => `Unrecognized journal format (formatVersion ${n}).`;
    expect(await reasons()).toEqual([
      ['a.json', v('3')],
      ['b.json', v('2')],
      ['c.json', v('2')],
      ['d.json', v('2')],
      ['e.json', v('2')],
      ['f.json', v('undefined')],
      ['g.json', v('2')],
    ]);
  });

  it('a strictly obsolete status-only journal is removed, whatever its known status; anything more is kept and blocks', async () => {
    for (const s of ['planned', 'deleting', 'complete', 'failed', 'terminated']) put(`old-${s}.json`, JSON.stringify({ status: s, operationId: s }));
    put('k1.json', JSON.stringify({ operationId: 'x', status: 'verified' }));
    put('k2.json', JSON.stringify({ operationId: 1, status: 'complete' }));
    put('k3.json', JSON.stringify({ operationId: 'x', status: 'complete', more: 1 }));
    put('k4.json', JSON.stringify({ id: 'x', status: 'complete' }));
    put('k5.json', JSON.stringify({ operationId: 'x', state: 'complete' }));
    put('k6.json', JSON.stringify({ operationId: 'x' }));
    const v = 'Unrecognized journal format (formatVersion undefined).';
    expect(await reasons()).toEqual(['k1', 'k2', 'k3', 'k4', 'k5', 'k6'].map((n) => [`${n}.json`, v]));
    expect(readdirSync(journalDir(state)).sort()).toEqual(['k1.json', 'k2.json', 'k3.json', 'k4.json', 'k5.json', 'k6.json']);
  });
});

describe('the store', () => {
  it('create writes the journal (0600) and passes its crash point; a full disk fails the write', async () => {
    const seen: string[] = [];
    atCrashPoints((p) => seen.push(p));
    const j = journal();
    await new JournalStore(state).create(j);
    expect(readFileSync(journalPath(state, j.operationId), 'utf8')).toBe(`${JSON.stringify(j)}\n`);
    expect(statSync(journalPath(state, j.operationId)).mode & 0o777).toBe(0o600);
    expect(seen).toEqual(['journal:created']);
    process.env.CLEANERX_FAULT = 'journal:ENOSPC';
    await expect(new JournalStore(state).create(journal('other'))).rejects.toThrow('ENOSPC: injected fault on journal write');
    expect(readdirSync(journalDir(state))).toEqual([`${j.operationId}.json`]);
  });

  it('every immutable field is refused, in a created journal and in one read back', async () => {
    const changes: [string, (x: Journal) => void][] = [
      ['formatVersion', (x) => ((x as { formatVersion: number }).formatVersion = 3)],
      ['operationId', (x) => (x.operationId = 'other')],
      ['agent', (x) => (x.agent = 'codex')],
      ['snapshotId', (x) => (x.snapshotId = 's2')],
      ['createdAt', (x) => (x.createdAt = 'later')],
      ['createBackup', (x) => (x.createBackup = true)],
      ['plan', (x) => (x.plan = { ...x.plan })],
      ['itemCategories', (x) => (x.itemCategories = {})],
    ];
    for (const [field, change] of changes) {
      const store = new JournalStore(state);
      const j = journal(`op-${field}`);
      await store.create(j);
      await expect(store.transition(j, change, 'journal:deleting'), field).rejects.toThrow('Blocked: a journal save may not change the immutable plan.');
      const back = (await listJournals(state)).find((e) => e.kind === 'journal' && e.journal.operationId === `op-${field}`);
      if (back?.kind !== 'journal') throw new Error('not read back');
      const fresh = new JournalStore(state);
      await expect(fresh.transition(back.journal, change, 'journal:deleting'), `${field} read back`).rejects.toThrow(/immutable plan/);
      expect(JSON.parse(readFileSync(journalPath(state, `op-${field}`), 'utf8')).status).toBe('planned');
    }
  });

  it('a journal read back is frozen at its first transition; the status and message still change', async () => {
    await new JournalStore(state).create(journal());
    const [e] = await listJournals(state);
    if (e?.kind !== 'journal') throw new Error('not read back');
    const store = new JournalStore(state);
    await store.transition(e.journal, (x) => (x.status = 'terminated'), 'journal:closed');
    expect(() => {
      (e.journal.plan as { id: string }).id = 'changed';
    }).toThrow(TypeError);
    expect(JSON.parse(readFileSync(e.path, 'utf8')).status).toBe('terminated');
  });

  it('a transition stamps updatedAt and passes its own crash point', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-05-05T10:00:00.000Z'));
    const seen: string[] = [];
    const store = new JournalStore(state);
    const j = journal();
    await store.create(j);
    atCrashPoints((p) => seen.push(p));
    vi.setSystemTime(new Date('2026-05-05T10:00:07.000Z'));
    await store.transition(j, (x) => (x.status = 'deleting'), 'journal:deleting');
    expect(j.updatedAt).toBe('2026-05-05T10:00:07.000Z');
    expect(JSON.parse(readFileSync(journalPath(state, j.operationId), 'utf8')).updatedAt).toBe('2026-05-05T10:00:07.000Z');
    expect(seen).toEqual(['journal:deleting']);
  });

  it('more than 8 MiB is refused before anything is written; exactly 8 MiB is written', async () => {
    const store = new JournalStore(state);
    const j = journal();
    await store.create(j);
    const base = journalBytes({ ...j, message: '' }).length;
    await store.transition(j, (x) => (x.message = 'm'.repeat(MAX - base)), 'journal:failed');
    expect(statSync(journalPath(state, j.operationId)).size).toBe(MAX);
    await expect(store.transition(j, (x) => (x.message = 'm'.repeat(MAX - base + 1)), 'journal:failed')).rejects.toThrow(
      'The cleanup journal would exceed 8 MiB; select fewer items.',
    );
    expect(statSync(journalPath(state, j.operationId)).size).toBe(MAX);
  });
});

describe('mutation marks', () => {
  const onDisk = (j: Journal): string[] => (JSON.parse(readFileSync(journalPath(state, j.operationId), 'utf8')) as Journal).mutations.map((m) => m.status);

  async function started(): Promise<{ store: JournalStore; j: Journal }> {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-05-05T10:00:00.000Z'));
    const store = new JournalStore(state);
    const j = journal('op', 13);
    await store.create(j);
    await store.transition(j, (x) => (x.status = 'deleting'), 'journal:deleting');
    return { store, j };
  }
  const mark = (store: JournalStore, j: Journal, i: number, s: 'running' | 'applied', point = `mutation:${i}:${s}`): Promise<void> =>
    store.transition(j, (x) => (x.mutations[i]!.status = s), point);

  it('the first mark after another transition is written; the next within the interval is held; at the interval it is written', async () => {
    const { store, j } = await started();
    await mark(store, j, 0, 'running');
    expect(onDisk(j)[0]).toBe('running');
    vi.advanceTimersByTime(MUTATION_MARK_INTERVAL_MS - 1);
    await mark(store, j, 0, 'applied');
    expect(onDisk(j)[0]).toBe('running');
    vi.advanceTimersByTime(1);
    await mark(store, j, 1, 'running');
    expect(onDisk(j).slice(0, 2)).toEqual(['applied', 'running']);
    vi.advanceTimersByTime(1);
    await mark(store, j, 1, 'applied');
    expect(onDisk(j).slice(0, 2)).toEqual(['applied', 'running']);
    await store.transition(j, (x) => (x.status = 'verifying'), 'journal:verifying');
    expect(onDisk(j).slice(0, 2)).toEqual(['applied', 'applied']);
  });

  it('only mutation:<n>:running|applied is a mark: a many-digit index is, other points are written at once', async () => {
    const { store, j } = await started();
    await mark(store, j, 12, 'running');
    await mark(store, j, 12, 'applied');
    expect(onDisk(j)[12]).toBe('running');
    const points = ['xmutation:12:applied', 'mutation:12:appliedx', 'mutation::applied', 'mutation:12:done'];
    for (const [i, point] of points.entries()) {
      // A mark first, so that a point taken for a mark would be held.
      await mark(store, j, 0, 'applied');
      const s = i % 2 ? 'applied' : 'pending';
      await store.transition(j, (x) => (x.mutations[12]!.status = s), point);
      expect(onDisk(j)[12], point).toBe(s);
    }
  });

  it('the mark a crash point names is always written before it', async () => {
    const { store, j } = await started();
    await mark(store, j, 0, 'running');
    process.env.CLEANERX_CRASH_AT = 'mutation:0:applied';
    let atPoint: string[] = [];
    atCrashPoints((p) => {
      atPoint = onDisk(j);
      // Stands in for the kill: the test reads what a killed run would leave.
      if (p === process.env.CLEANERX_CRASH_AT) throw new Error(`killed at ${p}`);
    });
    await expect(mark(store, j, 0, 'applied')).rejects.toThrow('killed at mutation:0:applied');
    expect(atPoint[0]).toBe('applied');
  });
});

describe('journalBytes', () => {
  it('writes what JSON.stringify writes for odd fields and mutation records', () => {
    const j = journal() as Journal & Record<string, unknown>;
    j.fn = () => 1;
    j.sym = Symbol('s');
    j.nothing = undefined;
    j.nul = null;
    (j as { mutations: unknown[] }).mutations = [null, 3, undefined, [1, 'a'], 'x', { index: 0, f: () => 1, u: undefined, s: 'ok' }];
    expect(journalBytes(j).toString('utf8')).toBe(`${JSON.stringify(j)}\n`);
    const first = { ...journal(), fn: () => 1 } as unknown as Journal;
    expect(journalBytes(first).toString('utf8')).toBe(`${JSON.stringify(first)}\n`);
    const lead = { skip: undefined, ...journal() } as unknown as Journal;
    expect(journalBytes(lead).toString('utf8')).toBe(`${JSON.stringify(lead)}\n`);
    const notList = { ...journal(), mutations: { a: 1 } } as unknown as Journal;
    expect(journalBytes(notList).toString('utf8')).toBe(`${JSON.stringify(notList)}\n`);
  });

  it('a field frozen by someone else, holding a part that can change, is written as it is now', async () => {
    const store = new JournalStore(state);
    const j = journal();
    const note = { text: 'before' };
    (j.plan as { routeNotes: unknown }).routeNotes = Object.freeze([note]);
    await store.create(j);
    note.text = 'after';
    await store.transition(j, (x) => (x.status = 'deleting'), 'journal:deleting');
    const disk = readFileSync(journalPath(state, j.operationId), 'utf8');
    expect(disk).toBe(`${JSON.stringify(j)}\n`);
    expect(disk).toContain('"after"');
  });
});

describe('the store, later additions', () => {
  it('journals live in operations/ of the state dir', () => {
    expect(journalDir(state)).toBe(join(state, 'operations'));
    expect(journalPath(state, 'x')).toBe(join(state, 'operations', 'x.json'));
  });

  it('in name order whatever order the folder lists them in', async () => {
    const names = Array.from({ length: 24 }, (_, i) => `n${String((i * 7) % 24).padStart(2, '0')}`);
    for (const n of names) put(`${n}.json`, v2({ operationId: n }));
    expect((await reasons()).map(([n]) => n)).toEqual([...names].sort().map((n) => `${n}.json`));
    // This machine's folders list in order already: the listing is handed over backwards.
    const readdir = fs.promises.readdir.bind(fs.promises) as (p: string) => Promise<string[]>;
    vi.spyOn(fs.promises, 'readdir').mockImplementation((async (p: string) => (await readdir(p)).sort().reverse()) as unknown as typeof fs.promises.readdir);
    expect((await reasons()).map(([n]) => n)).toEqual([...names].sort().map((n) => `${n}.json`));
  });

  it('an immutable field replaced outside a transition is refused at the next one, created or read back', async () => {
    const store = new JournalStore(state);
    const j = journal('op-created');
    await store.create(j);
    j.plan = { ...j.plan };
    await expect(store.transition(j, (x) => (x.status = 'deleting'), 'journal:deleting')).rejects.toThrow(/immutable plan/);
    await new JournalStore(state).create(journal('op-read'));
    const back = (await listJournals(state)).find((e) => e.kind === 'journal' && e.journal.operationId === 'op-read');
    if (back?.kind !== 'journal') throw new Error('not read back');
    const fresh = new JournalStore(state);
    await fresh.transition(back.journal, (x) => (x.status = 'deleting'), 'journal:deleting');
    back.journal.createdAt = 'later';
    await expect(fresh.transition(back.journal, (x) => (x.status = 'failed'), 'journal:failed')).rejects.toThrow(/immutable plan/);
  });

  it('a mark right after create, or as the first write of a store that read the journal back, is written', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-05-05T10:00:00.000Z'));
    const store = new JournalStore(state);
    const j = journal('op', 2);
    await store.create(j);
    await store.transition(j, (x) => (x.mutations[0]!.status = 'running'), 'mutation:0:running');
    const disk = (): string[] => (JSON.parse(readFileSync(journalPath(state, 'op'), 'utf8')) as Journal).mutations.map((m) => m.status);
    expect(disk()).toEqual(['running', 'pending']);
    const [e] = await listJournals(state);
    if (e?.kind !== 'journal') throw new Error('not read back');
    await new JournalStore(state).transition(e.journal, (x) => (x.mutations[1]!.status = 'running'), 'mutation:1:running');
    expect(disk()).toEqual(['running', 'running']);
  });
});

describe('a journal swapped between its lstat and its open', () => {
  /** Runs `swap(path)` for each journal right after listJournals' lstat of it, as a racing process could. */
  function afterLstat(swap: (path: string) => void): void {
    const lstat = fs.promises.lstat.bind(fs.promises) as (p: string) => Promise<fs.Stats>;
    vi.spyOn(fs.promises, 'lstat').mockImplementation((async (p: string) => {
      const st = await lstat(p);
      swap(String(p));
      return st;
    }) as unknown as typeof fs.promises.lstat);
  }

  it('gone: skipped; a link or a FIFO in its place: cannot be read safely, never followed or waited on', async () => {
    for (const n of ['fifo', 'gone', 'kept', 'link']) put(`${n}.json`, v2({ operationId: n }));
    const target = put('target.txt', v2({ operationId: 'target' }));
    afterLstat((p) => {
      const name = p.slice(p.lastIndexOf('/') + 1);
      if (name === 'gone.json') rmSync(p);
      if (name === 'link.json') {
        rmSync(p);
        symlinkSync(target, p);
      }
      if (name === 'fifo.json') {
        renameSync(p, `${p}.aside`);
        execFileSync('mkfifo', [p]);
      }
    });
    const dir = journalDir(state);
    expect(await reasons()).toEqual([
      ['fifo.json', `The journal cannot be read safely: ${join(dir, 'fifo.json')} is a FIFO (named pipe), not a regular file; remove it or move it away.`],
      ['kept.json', 'journal kept'],
      [
        'link.json',
        `The journal cannot be read safely: ${join(dir, 'link.json')} is a symbolic link; cleanerx does not follow links there, so replace it with the real file.`,
      ],
    ]);
  });
});

describe('a journal the disk cannot read', () => {
  // EIO from a failing disk: the journal (and a compaction journal beside it) is named unreadable with the code,
  // never "cannot be read as JSON", and the other journals are still listed.
  function readFailsWithEio(name: string): void {
    const open = fs.promises.open.bind(fs.promises);
    vi.spyOn(fs.promises, 'open').mockImplementation((async (p: fs.PathLike, ...rest: unknown[]) => {
      const fh = await (open as (...a: unknown[]) => Promise<fs.promises.FileHandle>)(p, ...rest);
      if (String(p).endsWith(`/${name}`))
        fh.read = (async () => {
          throw Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO', errno: -5, syscall: 'read' });
        }) as typeof fh.read;
      return fh;
    }) as unknown as typeof fs.promises.open);
  }

  it('the journal: "cannot be read (EIO)", the others listed', async () => {
    for (const n of ['bad', 'good']) put(`${n}.json`, v2({ operationId: n }));
    readFailsWithEio('bad.json');
    expect(await reasons()).toEqual([
      ['bad.json', 'The journal cannot be read (EIO).'],
      ['good.json', 'journal good'],
    ]);
  });

  it('a compaction journal: "cannot be read (EIO)"; one that is not JSON still "cannot be read as JSON"', async () => {
    const { listCompactions } = await import('../../src/engine/cleanup/compact-journal.js');
    const dir = join(state, 'compactions');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'bad.json'), '{}');
    writeFileSync(join(dir, 'text.json'), 'not json');
    readFailsWithEio('bad.json');
    expect((await listCompactions(state)).map((e) => [e.path.slice(e.path.lastIndexOf('/') + 1), e.kind === 'unknown' ? e.reason : 'entry'])).toEqual([
      ['bad.json', 'The compaction journal cannot be read (EIO).'],
      ['text.json', 'The compaction journal cannot be read as JSON.'],
    ]);
  });
});

describe('the encoding of frozen fields', () => {
  it('the plan, the item categories and each captured identity list are encoded once, however many writes follow', async () => {
    const store = new JournalStore(state);
    const j = journal('op', 2);
    // Every kind of value a plan holds, null among them, is frozen with it.
    (j.plan as unknown as Record<string, unknown>).note = { text: 'n', none: null, list: [1, { deep: true }] };
    j.itemCategories = { 'session:a': 'session' } as Journal['itemCategories'];
    const pre = [{ path: '/p', dev: 1, ino: 2, size: 3, revision: 'r' }];
    const stringify = vi.spyOn(JSON, 'stringify');
    await store.create(j);
    await store.transition(j, (x) => (x.mutations[0]!.pre = pre), 'journal:preflight');
    await store.transition(j, (x) => (x.status = 'deleting'), 'journal:deleting');
    await store.transition(j, (x) => (x.status = 'verifying'), 'journal:verifying');
    const encoded = (v: unknown): number => stringify.mock.calls.filter(([x]) => x === v).length;
    expect([encoded(j.plan), encoded(j.itemCategories), encoded(pre)]).toEqual([1, 1, 1]);
    stringify.mockRestore();
    expect(readFileSync(journalPath(state, 'op'), 'utf8')).toBe(`${JSON.stringify(j)}\n`);
  });
});
