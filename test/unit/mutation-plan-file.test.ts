// The plan file, field by field (#26 item 5: the mutants of
// engine/inventory/retention/plan-file.ts). Every check of validatePlanFile
// refuses its own defect with its own words and accepts the edge it allows;
// readPlanFiles refuses what is not a file, not JSON or nested too deep;
// planFileFrom writes what the scan saw; assertPlanUnchanged names the
// field of an edited plan.

import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CleanupPlan, Installation, Inventory, PlanItem, SessionRecord } from '../../src/engine/core/model.js';
import { RequestError } from '../../src/engine/core/validate.js';
import { buildPlan } from '../../src/engine/cleanup/planner.js';
import {
  assertPlanUnchanged,
  type PlanFile,
  PlanRefusedError,
  planFileFrom,
  readPlanFiles,
  selectedIds,
  validatePlanFile,
} from '../../src/engine/inventory/retention/plan-file.js';
import { evaluateRules } from '../../src/engine/inventory/retention/rules.js';
import { Snapshot } from '../../src/engine/inventory/snapshot.js';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 29, 12, 0, 0);
const REV = '0123456789abcdef0123456789abcdef';

function rec(id: string, o: Partial<SessionRecord> = {}): SessionRecord {
  return {
    id,
    itemId: `session:${id}`,
    title: `title ${id}`,
    named: false,
    cwd: '/w/a',
    projectId: 'pa',
    parentId: null,
    deletionDescendantIds: [],
    state: 'current',
    source: 'cli',
    createdAt: null,
    updatedAt: NOW - 90 * DAY,
    bytes: 100,
    paths: [`/w/store/${id}.jsonl`],
    recoverable: true,
    selectable: true,
    metadata: {},
    ...o,
  };
}

function snapshot(sessions: SessionRecord[], home = '/w/store', items: Inventory['items'] = []): Snapshot {
  const inst: Installation = {
    agent: 'codex',
    displayName: 'Codex',
    memoryNotice: '',
    state: 'dataOnly',
    home,
    homeSource: 'env',
    executable: null,
    version: null,
    warnings: [],
  };
  const inv: Inventory = { sessions, items, projects: [{ id: 'pa', label: 'a', roots: ['/w/a'] }], warnings: [], writers: [] };
  return new Snapshot('codex', inst, inv, NOW, 1);
}

function doc(): Record<string, unknown> & { items: Record<string, unknown>[]; snapshot: Record<string, unknown>; totals: Record<string, unknown> } {
  return {
    version: 1,
    agent: 'codex',
    snapshot: { scannedAt: null, home: '/w/store', sessions: 2 },
    rules: { olderThanDays: 30 },
    items: [
      { id: 'session:a', title: 'A', bytes: 10, reason: 'old', revision: REV },
      { id: 'session:b', title: 'B', bytes: 0, reason: 'old', revision: REV, removedWith: 'session:a' },
    ],
    skipped: [{ id: 'session:c', title: 'C', bytes: 5, reason: 'blocked' }],
    notes: ['a note'],
    totals: { items: 2, bytes: 10, skipped: 1 },
  };
}

const refusal = (f: (d: ReturnType<typeof doc>) => void): string => {
  const d = doc();
  f(d);
  try {
    validatePlanFile(d);
  } catch (e) {
    expect(e).toBeInstanceOf(RequestError);
    return (e as Error).message;
  }
  return 'accepted';
};

describe('validatePlanFile', () => {
  it('accepts a whole plan, with and without its optional fields, and returns it as given', () => {
    const d = doc();
    expect(validatePlanFile(d)).toBe(d);
    expect(refusal((d) => delete d.notes)).toBe('accepted');
    expect(refusal((d) => (d.action = 'archive'))).toBe('accepted');
    expect(refusal((d) => (d.action = 'unarchive'))).toBe('accepted');
    expect(refusal((d) => (d.snapshot.scannedAt = '2026-11-29T12:00:00.000Z'))).toBe('accepted');
    expect(refusal((d) => (d.notes = []))).toBe('accepted');
    expect(refusal((d) => (d.skipped = []))).toBe('accepted');
    expect(
      refusal((d) => {
        d.items[0]!.id = 'x'.repeat(512);
        d.items[1]!.removedWith = 'x'.repeat(512);
      }),
    ).toBe('accepted');
    expect(refusal((d) => (d.items[0]!.title = 't'.repeat(4096)))).toBe('accepted');
    expect(refusal((d) => (d.snapshot.home = 'h'.repeat(4096)))).toBe('accepted');
    expect(refusal((d) => (d.snapshot.scannedAt = 's'.repeat(40)))).toBe('accepted');
    expect(refusal((d) => (d.items[0]!.bytes = 0))).toBe('accepted');
  });

  it('refuses each defect with its own words', () => {
    const cases: [string, (d: ReturnType<typeof doc>) => void, string][] = [
      ['action', (d) => (d.action = 'delete'), 'the action is not archive or unarchive'],
      ['version', (d) => (d.version = 2), 'version 2 is not 1'],
      ['version text', (d) => (d.version = 'x'.repeat(50)), `version "${'x'.repeat(19)} is not 1`],
      ['agent', (d) => (d.agent = 'cursor'), 'the agent is unknown'],
      ['no snapshot', (d) => (d.snapshot = [] as never), 'snapshot is not an object'],
      ['snapshot null', (d) => (d.snapshot = null as never), 'snapshot is not an object'],
      ['snapshot key', (d) => delete d.snapshot.home, 'snapshot has no "home"'],
      ['snapshot extra', (d) => (d.snapshot.x = 1), 'snapshot has an unknown field "x"'],
      ['scannedAt', (d) => (d.snapshot.scannedAt = 5), 'snapshot has an invalid field'],
      ['scannedAt long', (d) => (d.snapshot.scannedAt = 's'.repeat(41)), 'snapshot has an invalid field'],
      ['home long', (d) => (d.snapshot.home = 'h'.repeat(4097)), 'snapshot has an invalid field'],
      ['sessions', (d) => (d.snapshot.sessions = -1), 'snapshot has an invalid field'],
      ['sessions inf', (d) => (d.snapshot.sessions = Number.POSITIVE_INFINITY), 'snapshot has an invalid field'],
      ['sessions text', (d) => (d.snapshot.sessions = '2'), 'snapshot has an invalid field'],
      ['rules', (d) => (d.rules = { olderThanDays: '30' }), 'olderThanDays must be a whole number from 0 to 100000'],
      ['items not a list', (d) => (d.items = {} as never), 'it lists no items'],
      ['items empty', (d) => (d.items = []), 'it lists no items'],
      ['item not an object', (d) => (d.items[1] = 7 as never), 'item 2 is not an object'],
      ['item key', (d) => delete d.items[0]!.revision, 'item 1 has no "revision"'],
      ['item extra', (d) => (d.items[0]!['y'.repeat(50)] = 1), `item 1 has an unknown field "${'y'.repeat(40)}"`],
      ['id empty', (d) => (d.items[0]!.id = ''), 'item 1 has no valid id'],
      ['id long', (d) => (d.items[0]!.id = 'x'.repeat(513)), 'item 1 has no valid id'],
      ['id number', (d) => (d.items[0]!.id = 1), 'item 1 has no valid id'],
      ['title', (d) => (d.items[0]!.title = 't'.repeat(4097)), 'item 1 has an invalid title or reason'],
      ['reason', (d) => (d.items[0]!.reason = null), 'item 1 has an invalid title or reason'],
      ['bytes', (d) => (d.items[0]!.bytes = -1), 'item 1 has an invalid size'],
      ['bytes NaN', (d) => (d.items[0]!.bytes = Number.NaN), 'item 1 has an invalid size'],
      ['revision', (d) => (d.items[0]!.revision = 'ABCDEF0123456789ABCDEF0123456789'), 'item 1 has an invalid revision'],
      ['revision short', (d) => (d.items[0]!.revision = REV.slice(1)), 'item 1 has an invalid revision'],
      ['revision long', (d) => (d.items[0]!.revision = `${REV}0`), 'item 1 has an invalid revision'],
      ['revision prefix', (d) => (d.items[0]!.revision = `x${REV}`), 'item 1 has an invalid revision'],
      ['revision number', (d) => (d.items[0]!.revision = 1), 'item 1 has an invalid revision'],
      ['removedWith later', (d) => (d.items = [d.items[1]!, d.items[0]!]), 'item 1 is removed with an item listed nowhere before it'],
      ['removedWith itself', (d) => (d.items[1]!.removedWith = 'session:b'), 'item 2 is removed with an item listed nowhere before it'],
      ['removedWith number', (d) => (d.items[1]!.removedWith = 1), 'item 2 is removed with an item listed nowhere before it'],
      ['repeat', (d) => (d.items[1] = { ...d.items[0]! }), 'item 2 repeats an id'],
      ['skipped not a list', (d) => (d.skipped = {} as never), 'skipped is not a list'],
      ['skipped not an object', (d) => (d.skipped = [null] as never), 'skipped entry 1 is not an object'],
      ['skipped key', (d) => (d.skipped = [{ id: 'a', title: 'b', bytes: 1 }]), 'skipped entry 1 has no "reason"'],
      ['skipped id', (d) => (d.skipped = [{ id: 1, title: 'b', bytes: 1, reason: 'r' }]), 'skipped entry 1 has an invalid field'],
      ['skipped title', (d) => (d.skipped = [{ id: 'a', title: 1, bytes: 1, reason: 'r' }]), 'skipped entry 1 has an invalid field'],
      ['skipped reason', (d) => (d.skipped = [{ id: 'a', title: 'b', bytes: 1, reason: 1 }]), 'skipped entry 1 has an invalid field'],
      ['skipped bytes', (d) => (d.skipped = [{ id: 'a', title: 'b', bytes: -1, reason: 'r' }]), 'skipped entry 1 has an invalid field'],
      ['notes', (d) => (d.notes = 'x' as never), 'notes is not a list of text'],
      ['notes entry', (d) => (d.notes = ['ok', 1]), 'notes is not a list of text'],
      ['notes long', (d) => (d.notes = ['n'.repeat(4097)]), 'notes is not a list of text'],
      ['totals', (d) => (d.totals = 3 as never), 'totals are invalid'],
      ['totals key', (d) => delete d.totals.skipped, 'totals has no "skipped"'],
      ['totals items', (d) => (d.totals.items = -1), 'totals are invalid'],
      ['totals bytes', (d) => (d.totals.bytes = 'x'), 'totals are invalid'],
      ['totals skipped', (d) => (d.totals.skipped = -1), 'totals are invalid'],
      ['totals count', (d) => (d.totals.items = 3), 'totals.items does not count the items'],
      ['plan key', (d) => delete d.rules, 'the plan has no "rules"'],
      ['plan extra', (d) => (d.extra = 1), 'the plan has an unknown field "extra"'],
    ];
    for (const [name, f, words] of cases) expect(refusal(f), name).toBe(`The plan file is not valid: ${words}; make a new one with cleanerx plan --json.`);
    for (const v of [null, 7, 'plan', [doc()]]) expect(() => validatePlanFile(v), String(v)).toThrow('The plan file is not valid: it is not an object;');
  });

  it('caps the lists at 200,000 entries', () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `s:${i}`, title: '', bytes: 0, reason: '', revision: REV }));
    expect(
      refusal((d) => {
        d.items = many(200_001);
        d.totals.items = 200_001;
      }),
    ).toContain('it lists more than 200000 items');
    expect(
      refusal((d) => {
        d.items = many(200_000);
        d.totals.items = 200_000;
      }),
    ).toBe('accepted');
    const skipped = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `s:${i}`, title: '', bytes: 0, reason: '' }));
    expect(refusal((d) => (d.skipped = skipped(200_001)))).toContain('skipped is not a list');
    expect(refusal((d) => (d.skipped = skipped(200_000)))).toBe('accepted');
  });

  it('selectedIds are the items not removed with another', () => {
    expect(selectedIds(validatePlanFile(doc()))).toEqual(['session:a']);
  });
});

describe('readPlanFiles (a single plan file)', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cx-planfile-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads a valid file; refuses a missing file, a directory, a link, non-JSON and JSON nested too deep, each saying how to make one', async () => {
    const ok = join(dir, 'ok.json');
    writeFileSync(ok, JSON.stringify(doc()));
    expect((await readPlanFiles(ok))[0]!.items).toHaveLength(2);
    await expect(readPlanFiles(join(dir, 'missing.json'))).rejects.toThrow(/^Cannot read the plan file: /);
    mkdirSync(join(dir, 'd'));
    await expect(readPlanFiles(join(dir, 'd'))).rejects.toThrow(/^Cannot read the plan file: /);
    symlinkSync(ok, join(dir, 'link.json'));
    await expect(readPlanFiles(join(dir, 'link.json'))).rejects.toThrow(/^Cannot read the plan file: /);
    const notJson = join(dir, 'bad.json');
    writeFileSync(notJson, '{"version": 1,');
    await expect(readPlanFiles(notJson)).rejects.toThrow(`${notJson} is not JSON; make it with cleanerx plan --agent A [rules] --json > FILE.`);
    const deep = join(dir, 'deep.json');
    writeFileSync(deep, '['.repeat(100_000));
    const e = (await readPlanFiles(deep).catch((x: unknown) => x)) as Error;
    expect(e).toBeInstanceOf(RequestError);
    expect(e.message).toMatch(new RegExp(`^${deep.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not a plan file \\(.+\\); make it with cleanerx plan`));
    const invalid = join(dir, 'invalid.json');
    writeFileSync(invalid, JSON.stringify({ ...doc(), version: 3 }));
    await expect(readPlanFiles(invalid)).rejects.toThrow('version 3 is not 1');
  });
});

describe('planFileFrom and assertPlanUnchanged', () => {
  const opts = { readOnly: false, routeAvailable: true, officialSessions: true };
  const sessions = (): SessionRecord[] => [
    rec('r', { bytes: 10, deletionDescendantIds: ['k'] }),
    rec('k', { bytes: 20, parentId: 'r' }),
    rec('solo', { bytes: 40, metadata: { sourceRevision: 'rev-1' } }),
    rec('new', { updatedAt: NOW - DAY }),
  ];
  const made = (): { file: PlanFile; snap: Snapshot; plan: CleanupPlan } => {
    const snap = snapshot(sessions());
    const m = evaluateRules(snap, { olderThanDays: 30 });
    const plan = buildPlan(
      snap,
      m.matched.map((x) => x.id),
      opts,
    );
    return { file: planFileFrom(snap, { olderThanDays: 30 }, m, plan), snap, plan };
  };

  it('writes the agent, the home, the sessions counted, each item with its reason and revision, and the totals', () => {
    const { file } = made();
    expect(file.version).toBe(1);
    expect(file.agent).toBe('codex');
    expect(file.snapshot).toEqual({ scannedAt: new Date(NOW).toISOString(), home: '/w/store', sessions: 4 });
    expect(file.rules).toEqual({ olderThanDays: 30 });
    expect(file.items.map((i) => [i.id, i.title, i.bytes, i.removedWith ?? null])).toEqual([
      ['session:r', 'title r', 10, null],
      ['session:k', 'title k', 20, 'session:r'],
      ['session:solo', 'title solo', 40, null],
    ]);
    expect(file.items[0]!.reason).toBe('tree last used 90 d ago');
    expect(file.items[1]!.reason).toMatch(/removed with title r/);
    for (const i of file.items) expect(i.revision).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(file.items.map((i) => i.revision)).size).toBe(3);
    expect(file.totals).toEqual({ items: 3, bytes: 70, skipped: 0 });
    expect(file.action).toBeUndefined();
    expect('action' in file).toBe(false);
    expect(validatePlanFile(JSON.parse(JSON.stringify(file)))).toEqual(file);
  });

  it('an archive plan says so; a plan of nothing lists nothing', () => {
    const snap = snapshot(sessions());
    const m = evaluateRules(snap, { olderThanDays: 30 });
    const plan = buildPlan(snap, ['session:solo'], opts);
    expect(planFileFrom(snap, {}, m, { ...plan, action: 'archive' }).action).toBe('archive');
    expect(planFileFrom(snap, {}, m, { ...plan, action: 'unarchive' }).action).toBe('unarchive');
    const none = planFileFrom(snap, {}, { matched: [], skipped: [{ id: 'x', title: 'X', bytes: 3, reason: 'busy' }], notes: ['n1'] } as never, null);
    expect(none.items).toEqual([]);
    expect(none.skipped).toEqual([{ id: 'x', title: 'X', bytes: 3, reason: 'busy' }]);
    expect(none.notes).toEqual(['n1']);
    expect(none.totals).toEqual({ items: 0, bytes: 0, skipped: 1 });
  });

  it('a session whose source revision changed, or whose paths changed, is a changed item; an item revision covers size, time and paths', () => {
    const { file } = made();
    const changedSrc = snapshot(sessions().map((s) => (s.id === 'solo' ? { ...s, metadata: { sourceRevision: 'rev-2' } } : s)));
    expect(() => assertPlanUnchanged(file, changedSrc, buildPlan(changedSrc, selectedIds(file), opts))).toThrow(
      'The plan is out of date: title solo (session:solo) changed since the plan was made. Nothing was removed; make a new plan.',
    );
    const moved = snapshot(sessions().map((s) => (s.id === 'solo' ? { ...s, paths: ['/w/store/other.jsonl'] } : s)));
    expect(() => assertPlanUnchanged(file, moved, buildPlan(moved, selectedIds(file), opts))).toThrow(/title solo \(session:solo\) changed/);
    const touched = snapshot(sessions().map((s) => (s.id === 'solo' ? { ...s, updatedAt: NOW - 80 * DAY } : s)));
    expect(() => assertPlanUnchanged(file, touched, buildPlan(touched, selectedIds(file), opts))).toThrow(/title solo \(session:solo\) changed/);
  });

  it('an edited plan is refused naming the field; the unedited one runs', () => {
    const { file, snap, plan } = made();
    expect(() => assertPlanUnchanged(file, snap, plan)).not.toThrow();
    const refused = (f: PlanFile, s: Snapshot = snap, p: CleanupPlan = plan): string => {
      try {
        assertPlanUnchanged(f, s, p);
      } catch (e) {
        expect(e).toBeInstanceOf(PlanRefusedError);
        return (e as Error).message;
      }
      return 'ran';
    };
    expect(refused({ ...file, agent: 'pi' })).toBe('The plan is out of date: it is for another agent. Nothing was removed; make a new plan.');
    expect(refused(file, snap, { ...plan, agent: 'pi' })).toBe('The plan is out of date: it is for another agent. Nothing was removed; make a new plan.');
    expect(refused({ ...file, snapshot: { ...file.snapshot, home: '/elsewhere' } })).toBe(
      'The plan is refused: its snapshot.home names /elsewhere, not the home being cleaned (/w/store). Nothing was removed; make a new plan.',
    );
    expect(refused({ ...file, snapshot: { ...file.snapshot, home: `/${'h'.repeat(100)}` } })).toContain(`names /${'h'.repeat(78)}…, not`);
    expect(refused({ ...file, totals: { ...file.totals, items: 4 } })).toBe(
      'The plan is refused: its totals.items says 4, but it lists 3 items. Nothing was removed; make a new plan.',
    );
    expect(refused({ ...file, totals: { ...file.totals, bytes: 71 } })).toBe(
      'The plan is refused: its totals.bytes says 71, but its items add up to 70. Nothing was removed; make a new plan.',
    );
    expect(refused({ ...file, totals: { ...file.totals, skipped: 2 } })).toBe(
      'The plan is refused: its totals.skipped says 2, but it lists 0. Nothing was removed; make a new plan.',
    );
    const items = (f: (i: PlanFile['items'][number]) => PlanFile['items'][number]): PlanFile => {
      const it = file.items.map((i) => (i.id === 'session:solo' ? f(i) : i));
      return { ...file, items: it, totals: { ...file.totals, bytes: it.reduce((a, i) => a + i.bytes, 0) } };
    };
    expect(refused(items((i) => ({ ...i, bytes: 40_000 })))).toBe(
      'The plan is refused: its bytes of session:solo say 40000, but the scan measures 40. Nothing was removed; make a new plan.',
    );
    expect(refused(items((i) => ({ ...i, title: 'Renamed' })))).toBe(
      'The plan is refused: its title of session:solo is "Renamed", but the scan shows "title solo". Nothing was removed; make a new plan.',
    );
    const longTitle = 'T'.repeat(80);
    expect(refused(items((i) => ({ ...i, title: longTitle })))).toContain(`is "${longTitle}", but`);
    expect(refused(items((i) => ({ ...i, title: `${longTitle}x` })))).toContain(`is "${'T'.repeat(79)}…", but`);
    // What is gone is named before what changed.
    const gone = snapshot(
      sessions()
        .filter((s) => s.id !== 'k')
        .map((s) => (s.id === 'r' ? { ...s, deletionDescendantIds: [], bytes: 11 } : s)),
    );
    expect(refused(file, gone, buildPlan(gone, selectedIds(file), opts))).toBe(
      'The plan is out of date: title k (session:k) is gone or no longer removed with its session. Nothing was removed; make a new plan.',
    );
  });

  it('an item that is not a session has a revision of its own (its time, size and paths)', () => {
    const item = { id: 'item:cache', label: 'Cache', category: 'cache', bytes: 5, paths: ['/w/store/cache'], modifiedAt: NOW - 90 * DAY } as never;
    const snap = snapshot([], '/w/store', [item]);
    const planItem: PlanItem = { id: 'item:cache', label: 'Cache', category: 'cache', bytes: 5, paths: ['/w/store/cache'], recoverable: false, depth: 0 };
    const plan = { agent: 'codex', items: [planItem], routeNotes: [] } as unknown as CleanupPlan;
    const file = planFileFrom(snap, {}, { matched: [{ id: 'item:cache', reason: 'cache' }], skipped: [], notes: [] } as never, plan);
    expect(file.items[0]).toMatchObject({ id: 'item:cache', reason: 'cache' });
    const grown = snapshot([], '/w/store', [{ ...(item as object), bytes: 6 } as never]);
    expect(() => assertPlanUnchanged(file, grown, plan)).toThrow(/Cache \(item:cache\) changed since the plan was made/);
    const same = snapshot([], '/w/store', [item]);
    expect(() => assertPlanUnchanged(file, same, plan)).not.toThrow();
  });
});

describe('the survivors of the first run', () => {
  it('a refusal says it is one (the CLI maps it to exit 1)', () => {
    expect(new PlanRefusedError('x').refused).toBe(true);
  });

  it('a revision that is not text is refused even when its text form would pass', () => {
    expect(refusal((d) => (d.items[0]!.revision = [REV] as never))).toContain('item 1 has an invalid revision');
  });

  it('an unknown field is refused in the snapshot, a skipped entry and the totals, whatever its name', () => {
    for (const name of ['x', 'Stryker was here']) {
      expect(refusal((d) => (d.snapshot[name] = 1))).toContain(`snapshot has an unknown field "${name}"`);
      expect(refusal((d) => (d.totals[name] = 1))).toContain(`totals has an unknown field "${name}"`);
      expect(refusal((d) => (d.skipped = [{ id: 'a', title: 'b', bytes: 1, reason: 'r', [name]: 1 }]))).toContain(
        `skipped entry 1 has an unknown field "${name}"`,
      );
    }
  });

  it('an item that is not a session changes its revision with its time and its paths; a source revision that is not text is not one', () => {
    const base = { id: 'item:cache', label: 'Cache', category: 'cache', bytes: 5, paths: ['/w/store/cache'], modifiedAt: NOW - 90 * DAY };
    const planItem: PlanItem = { id: 'item:cache', label: 'Cache', category: 'cache', bytes: 5, paths: ['/w/store/cache'], recoverable: false, depth: 0 };
    const plan = { agent: 'codex', items: [planItem], routeNotes: [] } as unknown as CleanupPlan;
    const match = { matched: [], skipped: [], notes: [] } as never;
    const rev = (o: object): string => planFileFrom(snapshot([], '/w/store', [{ ...base, ...o } as never]), {}, match, plan).items[0]!.revision;
    expect(rev({})).not.toBe(rev({ modifiedAt: NOW - 80 * DAY }));
    expect(rev({})).not.toBe(rev({ paths: ['/w/store/cache2'] }));
    expect(rev({ metadata: { sourceRevision: 1 } })).toBe(rev({ metadata: { sourceRevision: 2 } }));
    expect(rev({ metadata: { sourceRevision: 'a' } })).not.toBe(rev({ metadata: { sourceRevision: 'b' } }));
    // Neither matched nor included by another: the reason says it goes with a selected session.
    expect(planFileFrom(snapshot([], '/w/store', [base as never]), {}, match, plan).items[0]!.reason).toBe('removed with a selected session');
  });
});
