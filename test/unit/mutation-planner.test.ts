// The planner, case by case (#26 item 5: the mutants of
// engine/cleanup/planner.ts): what a selection refuses, how operations are
// formed (official sessions, file batches of 64, official items), what each
// item carries, the route notes, what a backup covers and why not, and the
// archive plans (already in state, one-way, spawned subagents, blockers).

import { describe, expect, it } from 'vitest';
import type { ArchiveSupport, Installation, Inventory, Item, SessionRecord } from '../../src/engine/core/model.js';
import { buildPlan, planBlockers, type PlanOptions } from '../../src/engine/cleanup/planner.js';
import { RequestError } from '../../src/engine/core/validate.js';
import { Snapshot } from '../../src/engine/inventory/snapshot.js';

const NOW = Date.UTC(2026, 10, 29, 12, 0, 0);

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
    updatedAt: NOW - 1000,
    bytes: 100,
    paths: [`/w/store/${id}.jsonl`],
    recoverable: true,
    selectable: true,
    metadata: {},
    ...o,
  };
}

function item(id: string, o: Partial<Item> = {}): Item {
  return {
    id,
    category: 'cache',
    label: `label ${id}`,
    paths: [`/w/store/${id}`],
    bytes: 10,
    risk: 'safe',
    recoverable: false,
    selectable: true,
    metadata: {},
    ...o,
  };
}

function snapshot(sessions: SessionRecord[], items: Item[] = [], losses?: Record<string, string>): Snapshot {
  const inst = {
    agent: 'codex',
    displayName: 'Codex',
    memoryNotice: '',
    state: 'dataOnly',
    home: '/w/store',
    homeSource: 'env',
    executable: null,
    version: null,
    warnings: [],
    ...(losses ? { labels: { losses } } : {}),
  } as Installation;
  const inv: Inventory = { sessions, items, projects: [{ id: 'pa', label: 'a', roots: ['/w/a'] }], warnings: [], writers: [] };
  return new Snapshot('codex', inst, inv, NOW, 1);
}

const OPTS: PlanOptions = { readOnly: false, routeAvailable: true };
const refused = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(RequestError);
    return (e as Error).message;
  }
  return 'planned';
};

describe('what a selection refuses', () => {
  const snap = snapshot([rec('a')], [item('item:p', { category: 'protected' }), item('item:c')]);
  it('nothing, too much, a non-string, a protected item, an unknown id', () => {
    for (const action of [undefined, 'archive', 'unarchive'] as const) {
      expect(refused(() => buildPlan(snap, [], { ...OPTS, action }))).toBe('Nothing is selected.');
      expect(refused(() => buildPlan(snap, 'session:a' as never, { ...OPTS, action }))).toBe('Nothing is selected.');
      expect(
        refused(() =>
          buildPlan(
            snap,
            Array.from({ length: 200_001 }, () => 'session:a'),
            { ...OPTS, action },
          ),
        ),
      ).toBe('At most 200000 items can be planned at once.');
      expect(refused(() => buildPlan(snap, [7 as never], { ...OPTS, action }))).toBe('Item ids must be strings.');
      expect(refused(() => buildPlan(snap, ['session:zz'], { ...OPTS, action }))).toBe('Unknown item id "session:zz" in this snapshot; rescan and mark again.');
    }
    expect(
      refused(() =>
        buildPlan(
          snap,
          Array.from({ length: 200_000 }, () => 'session:a'),
          OPTS,
        ),
      ),
    ).toBe('planned');
    expect(refused(() => buildPlan(snap, ['item:p'], OPTS))).toBe('Blocked: protected item cannot be selected.');
    expect(refused(() => buildPlan(snap, ['item:c'], { ...OPTS, action: 'archive' }))).toBe('Only sessions can be archived; unmark the other items.');
  });
});

describe('a deletion plan', () => {
  it('one official operation for every session root, its descendants after it, at depth 1, named by their root', () => {
    const snap = snapshot([
      rec('r', { deletionDescendantIds: ['k', 'gone'], bytes: 10 }),
      rec('k', { parentId: 'r', bytes: 20, selectable: false, blockedReason: 'in use' }),
      rec('s', { bytes: 30, state: 'archived' }),
    ]);
    const plan = buildPlan(snap, ['session:r', 'session:k', 'session:s', 'session:s'], { ...OPTS, officialSessions: true });
    expect(plan.selectedItemIds).toEqual(['session:r', 'session:k', 'session:s']);
    expect(plan.expandedSessionIds).toEqual(['r', 'k', 's']);
    expect(plan.items.map((i) => [i.id, i.depth, i.category, i.bytes, i.includedBecause ?? null, i.sessionId])).toEqual([
      ['session:r', 0, 'session', 10, null, 'r'],
      ['session:k', 1, 'session', 20, 'removed with title r by Codex', 'k'],
      ['session:s', 0, 'archivedSession', 30, null, 's'],
    ]);
    expect(plan.items[0]!.updatedAt).toBe(NOW - 1000);
    expect(plan.items[0]!.label).toBe('title r');
    expect(plan.operations).toHaveLength(1);
    const op = plan.operations[0]!;
    expect(op).toMatchObject({ index: 0, kind: 'officialDelete', itemIds: ['session:r', 'session:k', 'session:s'], sessionIds: ['r', 'k', 's'] });
    expect(op.rootSessionIds).toEqual(['r', 's']);
    expect(op.bytes).toBe(60);
    expect(op.paths).toEqual(['/w/store/r.jsonl', '/w/store/k.jsonl', '/w/store/s.jsonl']);
    expect(op.blockers).toEqual(['title k: in use']);
    expect(planBlockers(plan)).toEqual(['title k: in use']);
    expect(plan.routeNotes).toEqual(["Sessions are deleted by Codex's own delete route (2 roots; their descendant sessions go with them)."]);
    expect(plan.estimatedBytes).toBe(60);
    expect(plan.irreversible).toBe(true);
    expect(plan.blockers).toEqual([]);
    expect(plan.snapshotId).toBe(snap.id);
    expect(plan.agent).toBe('codex');
    expect(plan.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Date.parse(plan.createdAt)).not.toBeNaN();
  });

  it('file-route sessions and items go in batches of 64, sessions first, official items last, indexed in that order', () => {
    const sessions = Array.from({ length: 65 }, (_, i) => rec(`s${i}`));
    const items = [item('item:f'), item('item:o', { metadata: { route: 'official', officialKind: 'compact' } })];
    const plan = buildPlan(snapshot(sessions, items), ['item:o', ...sessions.map((s) => s.itemId), 'item:f'], OPTS);
    expect(plan.operations.map((o) => [o.index, o.kind, o.itemIds.length])).toEqual([
      [0, 'removePaths', 64],
      [1, 'removePaths', 2],
      [2, 'officialItems', 1],
    ]);
    expect(plan.operations[0]!.rootSessionIds).toBeUndefined();
    expect(plan.operations[1]!.itemIds).toEqual(['session:s64', 'item:f']);
    const one = buildPlan(
      snapshot(sessions.slice(0, 64)),
      sessions.slice(0, 64).map((s) => s.itemId),
      OPTS,
    );
    expect(one.operations).toHaveLength(1);
  });

  it('an operation is backup-eligible only when every item is recoverable, and waits for the agent when one needs it stopped', () => {
    const snap = snapshot(
      [rec('a'), rec('b', { recoverable: false, metadata: { requiresAgentExit: true } })],
      [item('item:x', { metadata: { requiresAgentExit: true } })],
    );
    const a = buildPlan(snap, ['session:a'], OPTS).operations[0]!;
    expect([a.backupEligible, a.requiresAgentExit]).toEqual([true, false]);
    const ab = buildPlan(snap, ['session:a', 'session:b'], OPTS).operations[0]!;
    expect([ab.backupEligible, ab.requiresAgentExit]).toEqual([false, true]);
    const x = buildPlan(snap, ['item:x'], OPTS);
    expect(x.operations[0]!.requiresAgentExit).toBe(true);
    expect(x.items[0]!.cost).toEqual({ recoverable: 'none', regenerable: true, needsAgentStopped: true, agentLoses: expect.any(String) });
    expect(x.items[0]).toMatchObject({
      id: 'item:x',
      label: 'label item:x',
      category: 'cache',
      bytes: 10,
      paths: ['/w/store/item:x'],
      recoverable: false,
      depth: 0,
    });
  });

  it('a blocked item without a reason is named as one that cannot be cleaned; the agent labels add to what is lost', () => {
    const snap = snapshot([rec('a', { selectable: false })], [item('item:y', { selectable: false, blockedReason: 'busy' })], { session: 'its chat history' });
    const plan = buildPlan(snap, ['session:a', 'item:y'], OPTS);
    expect(planBlockers(plan)).toEqual(['title a: cannot be cleaned', 'label item:y: busy']);
    expect(plan.items[0]!.cost?.agentLoses).toContain('its chat history');
    expect(plan.items[0]!.cost?.recoverable).toBe('backup');
  });

  it('read-only and routeless plans are blocked as a whole', () => {
    const snap = snapshot([rec('a')]);
    expect(buildPlan(snap, ['session:a'], { readOnly: true, routeAvailable: true }).blockers).toEqual(['Read-only mode: no cleanup route is offered.']);
    expect(buildPlan(snap, ['session:a'], { readOnly: false, routeAvailable: false }).blockers).toEqual([
      'Cleanup of Codex data is not available in this version of cleanerx.',
    ]);
    const both = buildPlan(snap, ['session:a'], { readOnly: true, routeAvailable: false });
    expect(planBlockers(both)).toHaveLength(2);
  });

  it('route notes: official items by kind, and what the agent does as its route starts (once per sentence)', () => {
    const items = [
      item('item:call', { metadata: { route: 'official', routeStart: 'Codex prunes as it starts.' } }),
      item('item:call2', { metadata: { route: 'official', officialKind: 'other', routeStart: 'Codex prunes as it starts.' } }),
      item('item:rows', { metadata: { route: 'official', officialKind: 'rows' } }),
      item('item:c1', { metadata: { route: 'official', officialKind: 'compact' } }),
      item('item:c2', { metadata: { route: 'official', officialKind: 'compact' } }),
      item('item:gc', { metadata: { route: 'official', officialKind: 'gc' } }),
    ];
    const snap = snapshot([rec('a', { metadata: { routeStart: 'The App Server starts.' } })], items);
    const plan = buildPlan(
      snap,
      items.map((i) => i.id),
      OPTS,
    );
    expect(plan.routeNotes).toEqual([
      "2 items are cleaned by Codex's own call, which cannot be undone.",
      'The old log entries are deleted from the database, which itself is kept; they cannot be brought back.',
      'The 2 databases are compacted: each copied without its free pages, proven equal, then swapped in. No data in them is removed.',
      'git gc packs 1 snapshot repository: every snapshot a session still refers to is kept.',
      'Codex prunes as it starts.',
    ]);
    const withSession = buildPlan(snap, ['session:a', 'item:gc'], { ...OPTS, officialSessions: true });
    expect(withSession.routeNotes).toEqual([
      "Sessions are deleted by Codex's own delete route (1 root; their descendant sessions go with them).",
      'git gc packs 1 snapshot repository: every snapshot a session still refers to is kept.',
      'The App Server starts.',
    ]);
    // A file-route session's start note is not the route's: only official operations speak.
    expect(buildPlan(snap, ['session:a'], OPTS).routeNotes).toEqual([]);
    expect(buildPlan(snapshot([], [item('item:n', { metadata: { route: 'official', routeStart: 7 } })]), ['item:n'], OPTS).routeNotes).toEqual([
      "1 item is cleaned by Codex's own call, which cannot be undone.",
    ]);
  });

  it('what the backup covers: all, a mix (named as not covered), nothing (why not), or unavailable', () => {
    const snap = snapshot(
      [rec('a', { bytes: 7 }), rec('n', { recoverable: false, bytes: 5 })],
      [item('item:c', { bytes: 3 }), item('item:r', { recoverable: true, bytes: 2 })],
    );
    const all = buildPlan(snap, ['session:a', 'item:r'], OPTS);
    expect([all.backupEligible, all.backupWhyNot, all.estimatedBackupBytes, all.backupNotCovered, all.backupUncoveredIds]).toEqual([
      true,
      undefined,
      9,
      undefined,
      undefined,
    ]);
    expect('backupNotCovered' in all).toBe(false);
    const mix = buildPlan(snap, ['session:a', 'item:c'], OPTS);
    expect(mix.backupEligible).toBe(true);
    expect(mix.estimatedBackupBytes).toBe(7);
    expect(mix.estimatedBytes).toBe(10);
    expect(mix.backupNotCovered).toBe("The backup leaves out 1 item nothing could restore (caches, temporary data, items changed by the agent's own call).");
    expect(mix.backupUncoveredIds).toEqual(['item:c']);
    const mixSessions = buildPlan(snap, ['session:a', 'session:n'], OPTS);
    expect(mixSessions.backupNotCovered).toBe(
      'The backup leaves out 1 item nothing could restore: Codex has no import route for its sessions, and caches and temporary data are not kept.',
    );
    const sessionsOnly = buildPlan(snap, ['session:n'], OPTS);
    expect([sessionsOnly.backupEligible, sessionsOnly.estimatedBackupBytes, sessionsOnly.backupNotCovered]).toEqual([false, 0, undefined]);
    expect(sessionsOnly.backupWhyNot).toBe('Codex has no import route, so its deleted sessions cannot be restored from any backup.');
    const cachesOnly = buildPlan(snap, ['item:c'], OPTS);
    expect(cachesOnly.backupWhyNot).toBe('Nothing in this plan could be restored from a backup (caches, temporary data, items without a restore route).');
    const mixedNothing = buildPlan(snap, ['session:n', 'item:c'], OPTS);
    expect(mixedNothing.backupWhyNot).toBe('Nothing in this plan could be restored from a backup (caches, temporary data, items without a restore route).');
    const unavailable = buildPlan(snap, ['session:a', 'item:c'], { ...OPTS, backupUnavailable: 'no key ring' });
    expect([unavailable.backupEligible, unavailable.backupWhyNot, unavailable.estimatedBackupBytes, unavailable.backupNotCovered]).toEqual([
      false,
      'no key ring',
      0,
      undefined,
    ]);
  });

  it('a backup-only plan is the deletion plan turned into a backup', () => {
    const snap = snapshot([rec('a')]);
    const plan = buildPlan(snap, ['session:a'], { ...OPTS, action: 'backupOnly' });
    expect(plan.action).toBe('backupOnly');
    expect(plan.items.map((i) => i.id)).toEqual(['session:a']);
  });

  it('an item whose paths all lie inside another selected item goes with it; one half inside, or inside an official item, does not', () => {
    const repo = item('item:repo', { paths: ['/w/store/repo'] });
    const inner = item('item:inner', { paths: ['/w/store/repo/a', '/w/store/repo/b/c'] });
    const prefix = item('item:prefix', { paths: ['/w/store/repository'] });
    const official = item('item:off', { paths: ['/w/store/off'], metadata: { route: 'official' } });
    const inOfficial = item('item:inoff', { paths: ['/w/store/off/x'] });
    const slash = item('item:slash', { paths: ['/w/store/s/'] });
    const inSlash = item('item:inslash', { paths: ['/w/store/s/x'] });
    const noPaths = item('item:none', { paths: [] });
    const snap = snapshot([], [repo, inner, prefix, official, inOfficial, slash, inSlash, noPaths]);
    const ids = (sel: string[]): string[] => buildPlan(snap, sel, OPTS).items.map((i) => i.id);
    expect(ids(['item:inner', 'item:repo'])).toEqual(['item:repo']);
    expect(ids(['item:prefix', 'item:repo'])).toEqual(['item:prefix', 'item:repo']);
    expect(ids(['item:inoff', 'item:off'])).toEqual(['item:inoff', 'item:off']);
    expect(ids(['item:inslash', 'item:slash'])).toEqual(['item:slash']);
    expect(ids(['item:none', 'item:repo'])).toEqual(['item:none', 'item:repo']);
    // Nested three deep: the middle one is inside the outer, the inner inside both; only the outer is planned.
    const mid = item('item:mid', { paths: ['/w/store/repo/b'] });
    const nested = snapshot([], [repo, mid, inner]);
    expect(buildPlan(nested, ['item:inner', 'item:mid', 'item:repo'], OPTS).items.map((i) => i.id)).toEqual(['item:repo']);
  });
});

describe('an archive plan', () => {
  const ROUTE: ArchiveSupport = { archive: true, unarchive: true };
  const snap = snapshot([
    rec('a'),
    rec('b', { selectable: false }),
    rec('c', { state: 'archived', selectable: false, blockedReason: 'open' }),
    rec('p', { deletionDescendantIds: ['k1', 'k2', 'k3', 'ghost'] }),
    rec('k1', { parentId: 'p' }),
    rec('k2', { parentId: 'p', state: 'archived' }),
    rec('k3', { parentId: 'p' }),
  ]);

  it('marks only the sessions not yet in the wanted state, nothing removed, nothing to back up', () => {
    const plan = buildPlan(snap, ['session:a', 'session:c', 'session:a'], { ...OPTS, action: 'archive', archive: ROUTE });
    expect(plan.action).toBe('archive');
    expect(plan.items.map((i) => [i.id, i.category, i.bytes, i.paths, i.recoverable, i.depth, i.sessionId, i.cost])).toEqual([
      ['session:a', 'session', 0, [], true, 0, 'a', { recoverable: 'reversible', regenerable: false, needsAgentStopped: false, agentLoses: '' }],
    ]);
    expect(plan.items[0]!.label).toBe('title a');
    expect(plan.items[0]!.updatedAt).toBe(NOW - 1000);
    expect(plan.operations).toEqual([
      {
        index: 0,
        kind: 'archive',
        itemIds: ['session:a'],
        sessionIds: ['a'],
        paths: [],
        bytes: 0,
        backupEligible: false,
        requiresAgentExit: false,
        blockers: [],
      },
    ]);
    expect(plan.selectedItemIds).toEqual(['session:a']);
    expect(plan.expandedSessionIds).toEqual(['a']);
    expect([plan.estimatedBytes, plan.estimatedBackupBytes, plan.backupEligible, plan.irreversible]).toEqual([0, 0, false, false]);
    expect(plan.backupWhyNot).toBe('Archiving removes no data (the sessions stay on disk): no backup is needed.');
    expect(plan.routeNotes).toEqual([
      "Sessions are archived by Codex's own route: they stay on disk and can be unarchived.",
      '1 marked session is already archived and is left as it is.',
    ]);
    expect(plan.blockers).toEqual([]);
    expect(plan.snapshotId).toBe(snap.id);
  });

  it('unarchive: the archived ones, with the route touching them said; blocked ones named', () => {
    const plan = buildPlan(snap, ['session:c', 'session:a', 'session:b'], {
      ...OPTS,
      action: 'unarchive',
      archive: { ...ROUTE, unarchiveTouches: true },
    });
    expect(plan.items.map((i) => [i.id, i.category])).toEqual([['session:c', 'archivedSession']]);
    expect(plan.operations[0]!.blockers).toEqual(['title c: open']);
    expect(plan.backupWhyNot).toBe('Unarchiving changes no data and is reversible: no backup is needed.');
    expect(plan.routeNotes).toEqual([
      "Sessions are unarchived by Codex's own route.",
      expect.stringContaining('marks every session it unarchives as just used'),
      '2 marked sessions are already current and are left as they are.',
    ]);
    expect(plan.irreversible).toBe(false);
    const notTouching = buildPlan(snap, ['session:c'], { ...OPTS, action: 'unarchive', archive: ROUTE });
    expect(notTouching.routeNotes).toEqual(["Sessions are unarchived by Codex's own route."]);
  });

  it('a blocked session is named as one that cannot be changed', () => {
    const plan = buildPlan(snap, ['session:b'], { ...OPTS, action: 'archive', archive: ROUTE });
    expect(plan.operations[0]!.blockers).toEqual(['title b: cannot be changed']);
  });

  it('everything already in state is refused', () => {
    expect(refused(() => buildPlan(snap, ['session:c'], { ...OPTS, action: 'archive', archive: ROUTE }))).toBe('Every marked session is already archived.');
    expect(refused(() => buildPlan(snap, ['session:a'], { ...OPTS, action: 'unarchive', archive: ROUTE }))).toBe('No marked session is archived.');
  });

  it('without a route it is blocked (the adapter’s words first) and says nothing of the route; one way only is irreversible', () => {
    const none = buildPlan(snap, ['session:a'], { ...OPTS, action: 'archive' });
    expect(none.blockers).toEqual(['Codex has no official archive route in this version.']);
    expect(none.routeNotes).toEqual([]);
    expect(none.irreversible).toBe(false);
    const why = buildPlan(snap, ['session:c'], { ...OPTS, action: 'unarchive', archive: { archive: true, unarchive: false, why: 'Codex 0.1 cannot.' } });
    expect(why.blockers).toEqual(['Codex 0.1 cannot.']);
    const noUn = buildPlan(snap, ['session:c'], { ...OPTS, action: 'unarchive', archive: { archive: true, unarchive: false } });
    expect(noUn.blockers).toEqual(['Codex has no official unarchive route in this version.']);
    const oneWay = buildPlan(snap, ['session:a'], { ...OPTS, action: 'archive', archive: { archive: true, unarchive: false } });
    expect(oneWay.irreversible).toBe(true);
    expect(oneWay.routeNotes[0]).toBe(
      "Sessions are archived by Codex's own route: they stay on disk, but Codex has no unarchive, so they cannot be brought back into its list.",
    );
    const readOnly = buildPlan(snap, ['session:a'], { readOnly: true, routeAvailable: true, action: 'archive', archive: ROUTE });
    expect(readOnly.blockers).toEqual(['Read-only mode: no cleanup route is offered.']);
  });

  it('spawned subagents not planned and not yet in state are counted', () => {
    const plan = buildPlan(snap, ['session:p', 'session:k1'], { ...OPTS, action: 'archive', archive: { ...ROUTE, spawned: true } });
    expect(plan.routeNotes).toEqual([
      "Sessions are archived by Codex's own route: they stay on disk and can be unarchived.",
      'Codex also archives the 1 subagent session they spawned.',
    ]);
    const all = buildPlan(snap, ['session:p', 'session:k1', 'session:k3'], { ...OPTS, action: 'archive', archive: { ...ROUTE, spawned: true } });
    expect(all.routeNotes).toEqual(["Sessions are archived by Codex's own route: they stay on disk and can be unarchived."]);
    const un = buildPlan(
      snapshot([rec('q', { state: 'archived', deletionDescendantIds: ['z'] }), rec('z', { state: 'archived', parentId: 'q' })]),
      ['session:q'],
      {
        ...OPTS,
        action: 'unarchive',
        archive: { ...ROUTE, spawned: true },
      },
    );
    expect(un.routeNotes).toEqual(["Sessions are unarchived by Codex's own route.", 'Codex also unarchives the 1 subagent session they spawned.']);
    const notSpawned = buildPlan(snap, ['session:p'], { ...OPTS, action: 'archive', archive: ROUTE });
    expect(notSpawned.routeNotes).toHaveLength(1);
  });
});

describe('the survivors of the first run', () => {
  it('an item waits for the agent only when it says so', () => {
    const snap = snapshot([], [item('item:a'), item('item:b', { metadata: { requiresAgentExit: 'yes' } })]);
    expect(buildPlan(snap, ['item:a'], OPTS).operations[0]!.requiresAgentExit).toBe(false);
    expect(buildPlan(snap, ['item:b'], OPTS).operations[0]!.requiresAgentExit).toBe(false);
  });

  it('an item goes with another only when every one of its paths is inside one of the other’s paths', () => {
    const two = item('item:two', { paths: ['/w/store/x', '/w/store/y'] });
    const inX = item('item:inx', { paths: ['/w/store/x/1'] });
    const ids = buildPlan(snapshot([], [two, inX]), ['item:inx', 'item:two'], OPTS).items.map((i) => i.id);
    expect(ids).toEqual(['item:two']);
  });

  it('archived sessions count as sessions in what the backup leaves out and why it is not offered', () => {
    const snap = snapshot([rec('a'), rec('z', { state: 'archived', recoverable: false })]);
    expect(buildPlan(snap, ['session:a', 'session:z'], OPTS).backupNotCovered).toContain('Codex has no import route for its sessions');
    expect(buildPlan(snap, ['session:z'], OPTS).backupWhyNot).toBe('Codex has no import route, so its deleted sessions cannot be restored from any backup.');
  });

  it('an archive plan takes exactly 200,000 ids', () => {
    const snap = snapshot([rec('a')]);
    expect(
      buildPlan(
        snap,
        Array.from({ length: 200_000 }, () => 'session:a'),
        { ...OPTS, action: 'archive', archive: { archive: true, unarchive: true } },
      ).items,
    ).toHaveLength(1);
  });

  it('the note that unarchive touches sessions is never on an archive plan', () => {
    const snap = snapshot([rec('a')]);
    const plan = buildPlan(snap, ['session:a'], { ...OPTS, action: 'archive', archive: { archive: true, unarchive: true, unarchiveTouches: true } });
    expect(plan.routeNotes).toEqual(["Sessions are archived by Codex's own route: they stay on disk and can be unarchived."]);
  });

  it('a descendant two selected roots both remove is planned once', () => {
    const snap = snapshot([rec('r1', { deletionDescendantIds: ['k'] }), rec('r2', { deletionDescendantIds: ['k'] }), rec('k', { parentId: 'r1' })]);
    const plan = buildPlan(snap, ['session:r1', 'session:r2'], OPTS);
    expect(plan.items.map((i) => i.id)).toEqual(['session:r1', 'session:k', 'session:r2']);
    expect(plan.estimatedBytes).toBe(300);
  });
});
