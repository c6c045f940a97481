// Snapshot paging over a hand-built inventory: tree/flat views, expansion,
// sorting, filters with ancestor context, mark-all, validation, stale ids.

import { afterEach, describe, expect, it } from 'vitest';
import type { AgentAdapter } from '../../src/engine/core/adapter.js';
import { Engine } from '../../src/engine/api/engine.js';
import { NO_PROJECT_ID, type Inventory, type PageRequest, type PageResult } from '../../src/engine/core/model.js';
import type { Snapshot } from '../../src/engine/inventory/snapshot.js';
import { RequestError } from '../../src/engine/core/validate.js';
import { DAY, inventory, NOW, project, session, snapshotOf } from '../helpers/sessions.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

const P1 = 'p-alpha';
const P2 = 'p-zulu';

/**
 * alpha:  a1 "Fix parser" ─┬─ a2 "Fork of parser" ── a3 "Deep fork"
 *                          └─ a5 "Alpha fork"
 *         a4 "Zebra cleanup"
 * zulu:   b1 "beta work" (cwd /src/zulu/Sub)
 * No project: n1 "Orphan" (newest, largest), n2 "Ancient" (unknown project, blocked, archived, vscode)
 */
function fixture(): Inventory {
  return inventory(
    [
      session('a1', { projectId: P1, title: 'Fix parser', cwd: '/src/alpha', updatedAt: NOW - 1 * DAY, bytes: 5000 }),
      session('a2', { projectId: P1, parentId: 'a1', title: 'Fork of parser', cwd: '/src/alpha', updatedAt: NOW - 2 * DAY, bytes: 100 }),
      session('a3', { projectId: P1, parentId: 'a2', title: 'Deep fork', cwd: '/src/alpha', updatedAt: NOW - 3 * DAY, bytes: 200 }),
      session('a4', { projectId: P1, title: 'Zebra cleanup', cwd: '/src/alpha', updatedAt: NOW - 40 * DAY, bytes: 300 }),
      session('a5', { projectId: P1, parentId: 'a1', title: 'Alpha fork', cwd: '/src/alpha', updatedAt: NOW - 5 * DAY, bytes: 9000 }),
      session('b1', { projectId: P2, title: 'beta work', cwd: '/src/zulu/Sub', updatedAt: NOW - 10 * DAY, bytes: 20000 }),
      session('n1', { title: 'Orphan', updatedAt: NOW - 1000, bytes: 50000 }),
      session('n2', {
        projectId: 'gone',
        title: 'Ancient',
        updatedAt: NOW - 100 * DAY,
        bytes: 10,
        selectable: false,
        blockedReason: 'Pinned',
        state: 'archived',
        source: 'vscode',
      }),
    ],
    [project(P1, 'alpha'), project(P2, 'zulu')],
  );
}

function req(snap: Snapshot, over: Partial<PageRequest> = {}): PageRequest {
  return { snapshotId: snap.id, scope: { view: 'tree' }, filter: {}, sort: 'updated', offset: 0, limit: 100, ...over };
}

function ids(res: PageResult): string[] {
  return res.rows.map((r) => (r.kind === 'project' ? r.id : r.id.replace(/^session:/, '')));
}

function depths(res: PageResult): number[] {
  return res.rows.map((r) => r.depth);
}

function row(res: PageResult, id: string) {
  const r = res.rows.find((x) => x.id === id || x.id === `session:${id}`);
  if (!r) throw new Error(`no row ${id} in ${ids(res).join(',')}`);
  return r;
}

describe('tree view expansion', () => {
  it('opens projects and keeps sessions with children closed by default', () => {
    const snap = snapshotOf(fixture());
    const res = snap.page(req(snap));
    expect(ids(res)).toEqual([P1, 'a1', 'a4', P2, 'b1', NO_PROJECT_ID, 'n1', 'n2']);
    expect(depths(res)).toEqual([0, 1, 1, 0, 1, 0, 1, 1]);
    expect(res.total).toBe(8);
    expect(res.matched).toBe(8);
    const p = row(res, P1);
    expect(p.kind).toBe('project');
    expect(p.expanded).toBe(true);
    expect(p.selectable).toBe(false);
    expect(p.childCount).toBe(5);
    const a1 = row(res, 'a1');
    expect(a1.expandable).toBe(true);
    expect(a1.expanded).toBe(false);
    expect(a1.childCount).toBe(2);
    expect(a1.selectable).toBe(true);
    expect(a1.context).toBe(false);
    expect(row(res, 'a4').expandable).toBe(false);
  });

  it('flips toggled nodes relative to the default', () => {
    const snap = snapshotOf(fixture());
    let res = snap.page(req(snap, { scope: { view: 'tree', expansion: { base: 'default', toggled: ['session:a1'] } } }));
    expect(ids(res)).toEqual([P1, 'a1', 'a2', 'a5', 'a4', P2, 'b1', NO_PROJECT_ID, 'n1', 'n2']);
    expect(row(res, 'a1').expanded).toBe(true);
    expect(row(res, 'a2').depth).toBe(2);
    expect(row(res, 'a2').expanded).toBe(false);
    expect(row(res, 'a2').expandable).toBe(true);

    res = snap.page(req(snap, { scope: { view: 'tree', expansion: { base: 'default', toggled: ['session:a1', 'session:a2'] } } }));
    expect(ids(res).slice(0, 5)).toEqual([P1, 'a1', 'a2', 'a3', 'a5']);
    expect(row(res, 'a3').depth).toBe(3);

    // Toggling a project closes it.
    res = snap.page(req(snap, { scope: { view: 'tree', expansion: { base: 'default', toggled: [P1] } } }));
    expect(ids(res)).toEqual([P1, P2, 'b1', NO_PROJECT_ID, 'n1', 'n2']);
    expect(row(res, P1).expanded).toBe(false);
  });

  it('allOpen shows every node; toggles close nodes again', () => {
    const snap = snapshotOf(fixture());
    let res = snap.page(req(snap, { scope: { view: 'tree', expansion: { base: 'allOpen', toggled: [] } } }));
    expect(ids(res)).toEqual([P1, 'a1', 'a2', 'a3', 'a5', 'a4', P2, 'b1', NO_PROJECT_ID, 'n1', 'n2']);
    expect(depths(res)).toEqual([0, 1, 2, 3, 2, 1, 0, 1, 0, 1, 1]);
    expect(res.total).toBe(11);
    res = snap.page(req(snap, { scope: { view: 'tree', expansion: { base: 'allOpen', toggled: ['session:a1'] } } }));
    expect(ids(res)).toEqual([P1, 'a1', 'a4', P2, 'b1', NO_PROJECT_ID, 'n1', 'n2']);
  });

  it('allClosed shows the project rows only; toggles open them', () => {
    const snap = snapshotOf(fixture());
    let res = snap.page(req(snap, { scope: { view: 'tree', expansion: { base: 'allClosed', toggled: [] } } }));
    expect(ids(res)).toEqual([P1, P2, NO_PROJECT_ID]);
    expect(res.rows.every((r) => r.kind === 'project' && !r.expanded && r.expandable)).toBe(true);
    res = snap.page(req(snap, { scope: { view: 'tree', expansion: { base: 'allClosed', toggled: [P2] } } }));
    expect(ids(res)).toEqual([P1, P2, 'b1', NO_PROJECT_ID]);
  });

  it('walks a very deep fork chain without recursion and caps the depth', () => {
    const chain = Array.from({ length: 3000 }, (_, i) => session(`c${i}`, { projectId: P1, parentId: i ? `c${i - 1}` : null, updatedAt: NOW - i * 1000 }));
    const snap = snapshotOf(inventory(chain, [project(P1, 'alpha')]));
    const res = snap.page(req(snap, { scope: { view: 'tree', expansion: { base: 'allOpen', toggled: [] } }, offset: 2900, limit: 100 }));
    expect(res.total).toBe(3001);
    expect(res.rows).toHaveLength(100);
    expect(Math.max(...depths(res))).toBe(255);
  });
});

describe('flat view and sorting', () => {
  it('lists every session at depth 0, sorted by updated, size or title', () => {
    const snap = snapshotOf(fixture());
    const flat = (sort: PageRequest['sort']) => snap.page(req(snap, { scope: { view: 'flat' }, sort }));
    const byUpdated = flat('updated');
    expect(ids(byUpdated)).toEqual(['n1', 'a1', 'a2', 'a3', 'a5', 'b1', 'a4', 'n2']);
    expect(byUpdated.rows.every((r) => r.kind === 'session' && r.depth === 0 && !r.expandable && !r.context)).toBe(true);
    expect(ids(flat('size'))).toEqual(['n1', 'b1', 'a5', 'a1', 'a4', 'a3', 'a2', 'n2']);
    expect(ids(flat('title'))).toEqual(['a5', 'n2', 'b1', 'a3', 'a1', 'a2', 'n1', 'a4']);
  });

  it('sorts children and projects by the key, with "No project" always last', () => {
    const snap = snapshotOf(fixture());
    const open = { view: 'tree' as const, expansion: { base: 'allOpen' as const, toggled: [] } };
    // n1 is the newest and No project the largest, yet it stays last.
    expect(ids(snap.page(req(snap, { scope: open, sort: 'updated' }))).filter((x) => x.startsWith('p-') || x === NO_PROJECT_ID)).toEqual([
      P1,
      P2,
      NO_PROJECT_ID,
    ]);
    const bySize = snap.page(req(snap, { scope: open, sort: 'size' }));
    expect(ids(bySize)).toEqual([P2, 'b1', P1, 'a1', 'a5', 'a2', 'a3', 'a4', NO_PROJECT_ID, 'n1', 'n2']);
    // "no project" < "zulu" alphabetically, but the virtual root still sorts last.
    const byTitle = snap.page(req(snap, { scope: open, sort: 'title' }));
    expect(ids(byTitle)).toEqual([P1, 'a1', 'a5', 'a2', 'a3', 'a4', P2, 'b1', NO_PROJECT_ID, 'n2', 'n1']);
  });

  it('the project rows carry the label, size, latest update and session count', () => {
    const snap = snapshotOf(fixture());
    const res = snap.page(req(snap));
    const np = row(res, NO_PROJECT_ID);
    expect(np.title).toBe('No project');
    expect(np.bytes).toBe(50010);
    expect(np.childCount).toBe(2);
    expect(np.updatedAt).toBe(NOW - 1000);
    const alpha = row(res, P1);
    expect(alpha.title).toBe('alpha');
    expect(alpha.bytes).toBe(14600);
    expect(alpha.source).toBe('/src/alpha');
  });
});

describe('filtered totals', () => {
  it('project rows show the count and size of their matches, the page the filtered total', () => {
    const snap = snapshotOf(fixture());
    const res = snap.page(req(snap, { filter: { text: 'fork' } }));
    const alpha = row(res, P1);
    expect(alpha.matchedSessions).toBe(3);
    expect(alpha.matchedBytes).toBe(100 + 200 + 9000);
    expect(alpha.childCount).toBe(5);
    expect(res.matched).toBe(3);
    expect(res.matchedBytes).toBe(9300);
    const plain = snap.page(req(snap));
    expect(row(plain, P1).matchedSessions).toBeUndefined();
    expect(plain.matchedBytes).toBe(5000 + 100 + 200 + 300 + 9000 + 20000 + 50000 + 10);
  });
});

describe('offset/limit paging', () => {
  it('pages through the view with stable totals', () => {
    const snap = snapshotOf(fixture());
    const flat = (offset: number, limit: number) => snap.page(req(snap, { scope: { view: 'flat' }, offset, limit }));
    expect(ids(flat(0, 3))).toEqual(['n1', 'a1', 'a2']);
    expect(ids(flat(3, 3))).toEqual(['a3', 'a5', 'b1']);
    const last = flat(6, 3);
    expect(ids(last)).toEqual(['a4', 'n2']);
    expect(last.total).toBe(8);
    expect(last.offset).toBe(6);
    const end = flat(8, 3);
    expect(end.rows).toEqual([]);
    expect(end.total).toBe(8);
  });

  it('concatenated tree pages equal the whole view', () => {
    const snap = snapshotOf(fixture());
    const scope = { view: 'tree' as const, expansion: { base: 'allOpen' as const, toggled: [] } };
    const whole = ids(snap.page(req(snap, { scope })));
    const parts: string[] = [];
    for (let off = 0; off < whole.length; off += 4) {
      const p = snap.page(req(snap, { scope, offset: off, limit: 4 }));
      expect(p.total).toBe(whole.length);
      parts.push(...ids(p));
    }
    expect(parts).toEqual(whole);
  });
});

describe('filters', () => {
  it('matches title text case-insensitively; matching ancestors open', () => {
    const snap = snapshotOf(fixture());
    const res = snap.page(req(snap, { filter: { text: 'PARSER' } }));
    expect(ids(res)).toEqual([P1, 'a1', 'a2']);
    expect(res.matched).toBe(2);
    expect(row(res, 'a1').context).toBe(false);
    expect(row(res, 'a1').selectable).toBe(true);
    expect(row(res, 'a1').expanded).toBe(true);
    // a2's own child a3 does not match, so a2 has nothing to expand.
    expect(row(res, 'a2').expandable).toBe(false);
  });

  it('matches the working directory', () => {
    const snap = snapshotOf(fixture());
    const res = snap.page(req(snap, { filter: { text: 'zulu/sub' } }));
    expect(ids(res)).toEqual([P2, 'b1']);
    expect(res.matched).toBe(1);
    const none = snap.page(req(snap, { filter: { text: 'no-such-text' } }));
    expect(none.rows).toEqual([]);
    expect(none.total).toBe(0);
    expect(none.matched).toBe(0);
  });

  it('keeps ancestors of a match as non-selectable context rows', () => {
    const snap = snapshotOf(fixture());
    const res = snap.page(req(snap, { filter: { text: 'deep' } }));
    expect(ids(res)).toEqual([P1, 'a1', 'a2', 'a3']);
    expect(res.matched).toBe(1);
    for (const id of ['a1', 'a2']) {
      const r = row(res, id);
      expect(r.context).toBe(true);
      expect(r.selectable).toBe(false);
      expect(r.blockedReason).toBe('Ancestor of a filtered result');
      expect(r.expanded).toBe(true);
    }
    const a3 = row(res, 'a3');
    expect(a3.context).toBe(false);
    expect(a3.selectable).toBe(true);
    expect(a3.depth).toBe(3);
    // Context rows can still be collapsed by a toggle.
    const closed = snap.page(req(snap, { filter: { text: 'deep' }, scope: { view: 'tree', expansion: { base: 'default', toggled: ['session:a1'] } } }));
    expect(ids(closed)).toEqual([P1, 'a1']);
  });

  it('the flat view shows matches only, never context', () => {
    const snap = snapshotOf(fixture());
    const res = snap.page(req(snap, { scope: { view: 'flat' }, filter: { text: 'deep' } }));
    expect(ids(res)).toEqual(['a3']);
    expect(res.rows[0]!.context).toBe(false);
  });

  it('whitespace-only text is no filter', () => {
    const snap = snapshotOf(fixture());
    expect(ids(snap.page(req(snap, { filter: { text: '   ' } })))).toEqual(ids(snap.page(req(snap))));
  });

  it('filters by updated-within windows', () => {
    const snap = snapshotOf(fixture());
    const flat = (updated: 'all' | 'within7' | 'within30' | 'older30' | 'older90') =>
      ids(snap.page(req(snap, { scope: { view: 'flat' }, filter: { updated } }))).sort();
    expect(flat('all')).toEqual(['a1', 'a2', 'a3', 'a4', 'a5', 'b1', 'n1', 'n2']);
    expect(flat('within7')).toEqual(['a1', 'a2', 'a3', 'a5', 'n1']);
    expect(flat('within30')).toEqual(['a1', 'a2', 'a3', 'a5', 'b1', 'n1']);
    expect(flat('older30')).toEqual(['a4', 'n2']);
    expect(flat('older90')).toEqual(['n2']);
    const tree = snap.page(req(snap, { filter: { updated: 'older30' } }));
    expect(ids(tree)).toEqual([P1, 'a4', NO_PROJECT_ID, 'n2']);
  });

  it('filters by state, source and project (including No project)', () => {
    const snap = snapshotOf(fixture());
    expect(ids(snap.page(req(snap, { scope: { view: 'flat' }, filter: { state: 'archived' } })))).toEqual(['n2']);
    expect(ids(snap.page(req(snap, { scope: { view: 'flat' }, filter: { state: 'current' } })))).not.toContain('n2');
    expect(ids(snap.page(req(snap, { scope: { view: 'flat' }, filter: { source: 'vscode' } })))).toEqual(['n2']);
    expect(ids(snap.page(req(snap, { filter: { projectId: P2 } })))).toEqual([P2, 'b1']);
    expect(ids(snap.page(req(snap, { filter: { projectId: NO_PROJECT_ID } })))).toEqual([NO_PROJECT_ID, 'n1', 'n2']);
    expect(ids(snap.page(req(snap, { scope: { view: 'flat' }, filter: { projectId: P1 } })))).toEqual(['a1', 'a2', 'a3', 'a5', 'a4']);
  });
});

describe('mark-all and the selection index', () => {
  it('matchIds returns selectable matches in scope and their bytes', () => {
    const snap = snapshotOf(fixture());
    const all = snap.matchIds({});
    expect(all.ids.sort()).toEqual(['a1', 'a2', 'a3', 'a4', 'a5', 'b1', 'n1'].map((x) => `session:${x}`));
    expect(all.bytes).toBe(5000 + 100 + 200 + 300 + 9000 + 20000 + 50000);
    expect(snap.matchIds({ text: 'Parser' }).ids.sort()).toEqual(['session:a1', 'session:a2']);
    // n2 is in scope but blocked: skipped.
    expect(snap.matchIds({ projectId: NO_PROJECT_ID })).toEqual({ ids: ['session:n1'], bytes: 50000 });
    expect(snap.matchIds({ updated: 'older90' })).toEqual({ ids: [], bytes: 0 });
    expect(snap.matchIds({ projectId: P1, updated: 'within7' }).ids.sort()).toEqual(['session:a1', 'session:a2', 'session:a3', 'session:a5']);
  });

  it('matchIds validates its filter', () => {
    const snap = snapshotOf(fixture());
    expect(() => snap.matchIds({ projectId: 'nope' })).toThrow(RequestError);
    expect(() => snap.matchIds({ text: 'x'.repeat(513) })).toThrow(RequestError);
  });

  it('summary() carries a selection index of selectable sessions with their project', () => {
    const snap = snapshotOf(fixture());
    const sum = snap.summary();
    expect(sum.sessionCount).toBe(8);
    expect(sum.archivedSessionCount).toBe(1);
    const byId = new Map(sum.selection.map((e) => [e.id, e]));
    expect(byId.size).toBe(7);
    expect(byId.has('session:n2')).toBe(false);
    expect(byId.get('session:a3')).toEqual({ id: 'session:a3', projectId: P1, bytes: 200 });
    expect(byId.get('session:n1')).toEqual({ id: 'session:n1', projectId: NO_PROJECT_ID, bytes: 50000 });
    expect(sum.projects.map((p) => p.id)).toEqual([P2, P1, NO_PROJECT_ID]);
    expect(sum.sources).toEqual(['cli', 'vscode']);
    // The summary never carries session titles beyond the largest-sessions list.
    expect(sum.largestSessions[0]).toMatchObject({ id: 'session:n1', bytes: 50000, projectLabel: 'No project' });
  });
});

describe('request validation', () => {
  const bad: [string, (s: Snapshot) => PageRequest][] = [
    ['limit 0', (s) => req(s, { limit: 0 })],
    ['limit 101', (s) => req(s, { limit: 101 })],
    ['fractional limit', (s) => req(s, { limit: 1.5 })],
    ['negative offset', (s) => req(s, { offset: -1 })],
    ['text over 512 chars', (s) => req(s, { filter: { text: 'x'.repeat(513) } })],
    ['source over 128 chars', (s) => req(s, { filter: { source: 's'.repeat(129) } })],
    ['unknown project id', (s) => req(s, { filter: { projectId: 'no-such-project' } })],
    ['offset past the total', (s) => req(s, { offset: 9 })],
    ['unknown sort', (s) => req(s, { sort: 'name' as PageRequest['sort'] })],
    ['non-boolean reverse', (s) => req(s, { reverse: 'yes' as unknown as boolean })],
    ['unknown view', (s) => req(s, { scope: { view: 'grid' as 'tree' } })],
    ['unknown updated filter', (s) => req(s, { filter: { updated: 'within1' as 'within7' } })],
    ['unknown expansion base', (s) => req(s, { scope: { view: 'tree', expansion: { base: 'some' as 'allOpen', toggled: [] } } })],
  ];
  for (const [name, make] of bad) {
    it(`rejects ${name}`, () => {
      const snap = snapshotOf(fixture());
      expect(() => snap.page(make(snap))).toThrow(RequestError);
    });
  }

  it('accepts the limits themselves', () => {
    const snap = snapshotOf(fixture());
    expect(snap.page(req(snap, { limit: 100 })).rows.length).toBe(8);
    expect(snap.page(req(snap, { limit: 1 })).rows.length).toBe(1);
    expect(snap.page(req(snap, { filter: { text: 'x'.repeat(512) } })).total).toBe(0);
    expect(snap.page(req(snap, { filter: { source: 's'.repeat(128) } })).total).toBe(0);
  });

  it('rejects a request for another snapshot', () => {
    const snap = snapshotOf(fixture());
    expect(() => snap.page({ ...req(snap), snapshotId: 'not-this-one' })).toThrow(/stale snapshot/);
  });
});

describe('Engine snapshots', () => {
  let t: TempEnv | undefined;
  afterEach(() => {
    t?.cleanup();
    t = undefined;
  });

  function fakeAdapter(make: () => Inventory): AgentAdapter {
    return {
      kind: 'pi',
      displayName: 'pi',
      memoryNotice: { en: '', zh: '' },
      homeEnvVar: 'PI_CODING_AGENT_DIR',
      envVars: [],
      isolatedEnv: () => ({}),
      labels: { sources: {}, metadata: {} },
      binaryNames: ['cleanerx-test-no-such-binary'],
      extraBinDirs: () => [],
      resumeCommand: () => null,
      resolveHome: () => ({ home: '/nonexistent/pi-home', source: 'default' }),
      hasData: async () => true,
      cleanVersion: (raw) => raw.trim(),
      scan: async () => make(),
      preview: async (_inst, _paths, itemId) => ({ id: itemId, source: 'fake', truncated: false, bytesRead: 0, blocks: [] }),
    };
  }

  it('rejects a stale snapshot id after a rescan and serves the new one', async () => {
    t = makeTempEnv();
    const engine = new Engine([fakeAdapter(fixture)], t.ctx);
    const first = await engine.scan('pi');
    expect(first.installation.state).toBe('dataOnly');
    const second = await engine.scan('pi');
    expect(second.snapshotId).not.toBe(first.snapshotId);
    const stale = { snapshotId: first.snapshotId, scope: { view: 'tree' as const }, filter: {}, sort: 'updated' as const, offset: 0, limit: 50 };
    await expect(engine.page(stale)).rejects.toThrow(/older scan/);
    await expect(engine.matchIds(first.snapshotId, {})).rejects.toThrow(RequestError);
    await expect(engine.detail(first.snapshotId, 'session:a1')).rejects.toThrow(RequestError);
    await expect(engine.preview(first.snapshotId, 'session:a1')).rejects.toThrow(RequestError);
    await expect(engine.page({ ...stale, snapshotId: 'never-issued' })).rejects.toThrow(RequestError);
    const page = await engine.page({ ...stale, snapshotId: second.snapshotId });
    expect(page.total).toBe(8);
  });

  it('read-only mode makes nothing selectable', async () => {
    t = makeTempEnv();
    const engine = new Engine([fakeAdapter(fixture)], t.ctx, { readOnly: true, demo: false });
    const sum = await engine.scan('pi');
    expect(sum.readOnly).toBe(true);
    expect(sum.selection).toEqual([]);
    const page = await engine.page({ snapshotId: sum.snapshotId, scope: { view: 'flat' }, filter: {}, sort: 'updated', offset: 0, limit: 100 });
    expect(page.rows.some((r) => r.selectable)).toBe(false);
    expect((await engine.matchIds(sum.snapshotId, {})).ids).toEqual([]);
  });

  it('rejects an unknown agent and unknown item ids', async () => {
    t = makeTempEnv();
    const engine = new Engine([fakeAdapter(fixture)], t.ctx);
    await expect(engine.scan('codex')).rejects.toThrow(RequestError);
    const sum = await engine.scan('pi');
    await expect(engine.detail(sum.snapshotId, 'session:nope')).rejects.toThrow(RequestError);
    await expect(engine.preview(sum.snapshotId, 'session:nope')).rejects.toThrow(RequestError);
    const d = await engine.detail(sum.snapshotId, 'session:a3');
    expect(d.kind).toBe('session');
    const fields = Object.fromEntries(d.sections.flatMap((s) => s.fields.map((f) => [f.label, f.value])));
    expect(fields.Parent).toBe('Fork of parser (a2)');
    expect(fields.Project).toBe('alpha');
  });
});
