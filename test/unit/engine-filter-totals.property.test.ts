// Filtered totals and reverse sort against brute force: random forests
// (projects, forks across projects, unknown projects), random filters. Each
// project row of a filtered tree carries the count and bytes of its matching
// sessions, the page the filtered total; reverse is the exact mirror.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NO_PROJECT_ID, type PageRequest, type SessionFilter, type SessionRecord, type SortKey } from '../../src/engine/core/model.js';
import type { Snapshot } from '../../src/engine/inventory/snapshot.js';
import { DAY, inventory, NOW, project, session, snapshotOf } from '../helpers/sessions.js';

const WORDS = ['parser', 'Fix', 'bench', 'queue', 'DOCS', 'é', '中文'];
const PROJECTS = ['p-a', 'p-b', 'p-c', 'gone', null] as const;

const sessionsArb = fc
  .array(
    fc.record({
      project: fc.constantFrom(...PROJECTS),
      parent: fc.option(fc.nat(40), { nil: null }),
      words: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 3 }),
      ageDays: fc.integer({ min: 0, max: 200 }),
      bytes: fc.integer({ min: 0, max: 1_000_000 }),
      archived: fc.boolean(),
      source: fc.constantFrom('cli', 'vscode'),
    }),
    { minLength: 0, maxLength: 40 },
  )
  .map((specs) =>
    specs.map(
      (x, i): SessionRecord =>
        session(`s${i}`, {
          projectId: x.project,
          parentId: x.parent !== null && x.parent < i ? `s${x.parent}` : null,
          title: x.words.join(' '),
          cwd: x.project ? `/src/${x.project}` : null,
          updatedAt: NOW - x.ageDays * DAY,
          bytes: x.bytes,
          state: x.archived ? 'archived' : 'current',
          source: x.source,
        }),
    ),
  );

const filterArb: fc.Arbitrary<SessionFilter> = fc.record(
  {
    text: fc.constantFrom('parser', 'fix', 'docs', 'é', '中', 'src/p-a', 'nothing-matches', ' '),
    updated: fc.constantFrom('all', 'within7', 'within30', 'older30', 'older90'),
    state: fc.constantFrom('current', 'archived'),
    source: fc.constantFrom('cli', 'vscode'),
  },
  { requiredKeys: [] },
) as fc.Arbitrary<SessionFilter>;

/** The filter's meaning written out plainly, independent of the snapshot's matcher. */
function matches(s: SessionRecord, f: SessionFilter): boolean {
  const text = f.text?.trim().toLowerCase();
  if (text && !`${s.title}\n${s.cwd ?? ''}\n${s.id}`.toLowerCase().includes(text)) return false;
  const age = NOW - (s.updatedAt ?? 0);
  if (f.updated === 'within7' && age > 7 * DAY) return false;
  if (f.updated === 'within30' && age > 30 * DAY) return false;
  if (f.updated === 'older30' && age <= 30 * DAY) return false;
  if (f.updated === 'older90' && age <= 90 * DAY) return false;
  if (f.state && s.state !== f.state) return false;
  if (f.source && s.source !== f.source) return false;
  return true;
}

function build(sessions: SessionRecord[]): Snapshot {
  return snapshotOf(inventory(sessions, [project('p-a', 'alpha'), project('p-b', 'beta'), project('p-c', 'gamma')]));
}

function all(snap: Snapshot, over: Partial<PageRequest>) {
  const base: PageRequest = { snapshotId: snap.id, scope: { view: 'tree' }, filter: {}, sort: 'updated', offset: 0, limit: 100, ...over };
  const first = snap.page(base);
  const rows = [...first.rows];
  for (let off = 100; off < first.total; off += 100) rows.push(...snap.page({ ...base, offset: off }).rows);
  return { ...first, rows };
}

describe('filtered totals (brute force)', () => {
  it('project rows carry their matching sessions and bytes; the page carries the filtered total', () => {
    fc.assert(
      fc.property(sessionsArb, filterArb, fc.constantFrom('default', 'allOpen', 'allClosed'), (sessions, filter, base) => {
        const snap = build(sessions);
        const res = all(snap, { filter, scope: { view: 'tree', expansion: { base: base as 'default', toggled: [] } } });
        const hits = snap.forest.nodes.filter((n) => matches(n.s, filter));
        expect(res.matched).toBe(hits.length);
        expect(res.matchedBytes).toBe(hits.reduce((a, n) => a + n.s.bytes, 0));
        const active = Boolean(filter.text?.trim() || (filter.updated && filter.updated !== 'all') || filter.state || filter.source);
        for (const r of res.rows.filter((x) => x.kind === 'project')) {
          const mine = hits.filter((n) => n.projectKey === r.id);
          if (active) {
            expect(r.matchedSessions).toBe(mine.length);
            expect(r.matchedBytes).toBe(mine.reduce((a, n) => a + n.s.bytes, 0));
            expect(mine.length).toBeGreaterThan(0);
            // "Updated" is the latest of the matches, not of the whole project (#27.6).
            expect(r.updatedAt).toBe(Math.max(0, ...mine.map((n) => n.s.updatedAt ?? 0)) || null);
          } else {
            expect(r.matchedSessions).toBeUndefined();
            expect(r.childCount).toBe(mine.length);
          }
        }
        const flat = all(snap, { filter, scope: { view: 'flat' } });
        expect(flat.matched).toBe(hits.length);
        expect(flat.matchedBytes).toBe(res.matchedBytes);
      }),
      { numRuns: 300 },
    );
  });
});

describe('reverse sort (brute force)', () => {
  it('the flat view reversed is the exact mirror; projects mirror with "No project" still last', () => {
    fc.assert(
      fc.property(sessionsArb, filterArb, fc.constantFrom<SortKey>('updated', 'size', 'title'), (sessions, filter, sort) => {
        const snap = build(sessions);
        const fwd = all(snap, { filter, sort, scope: { view: 'flat' } }).rows.map((r) => r.id);
        const rev = all(snap, { filter, sort, reverse: true, scope: { view: 'flat' } }).rows.map((r) => r.id);
        expect(rev).toEqual([...fwd].reverse());
        const projects = (reverse: boolean) =>
          all(snap, { filter, sort, reverse, scope: { view: 'tree', expansion: { base: 'allClosed', toggled: [] } } }).rows.map((r) => r.id);
        const pf = projects(false).filter((id) => id !== NO_PROJECT_ID);
        const pr = projects(true);
        expect(pr.filter((id) => id !== NO_PROJECT_ID)).toEqual([...pf].reverse());
        if (pr.includes(NO_PROJECT_ID)) expect(pr[pr.length - 1]).toBe(NO_PROJECT_ID);
      }),
      { numRuns: 300 },
    );
  });

  it('oldest first and smallest first on a known forest, children mirrored too', () => {
    const snap = build([
      session('old', { projectId: 'p-a', updatedAt: NOW - 50 * DAY, bytes: 10 }),
      session('new', { projectId: 'p-a', updatedAt: NOW - 1 * DAY, bytes: 30 }),
      session('mid', { projectId: 'p-a', updatedAt: NOW - 9 * DAY, bytes: 20 }),
      session('kid1', { projectId: 'p-a', parentId: 'new', updatedAt: NOW - 2 * DAY, bytes: 5 }),
      session('kid2', { projectId: 'p-a', parentId: 'new', updatedAt: NOW - 3 * DAY, bytes: 6 }),
    ]);
    const open = { view: 'tree' as const, expansion: { base: 'allOpen' as const, toggled: [] } };
    const tree = (sort: SortKey, reverse: boolean) => all(snap, { sort, reverse, scope: open }).rows.map((r) => r.id.replace('session:', ''));
    expect(tree('updated', false)).toEqual(['p-a', 'new', 'kid1', 'kid2', 'mid', 'old']);
    expect(tree('updated', true)).toEqual(['p-a', 'old', 'mid', 'new', 'kid2', 'kid1']);
    expect(tree('size', true)).toEqual(['p-a', 'old', 'mid', 'new', 'kid1', 'kid2']);
  });
});
