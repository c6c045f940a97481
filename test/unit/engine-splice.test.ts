// Expanding or collapsing one node splices its subtree into the cached view;
// the result must be exactly what a full re-flattening gives.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PageRequest, SessionRecord } from '../../src/engine/core/model.js';
import type { Snapshot } from '../../src/engine/inventory/snapshot.js';
import { inventory, project, session, snapshotOf } from '../helpers/sessions.js';

function forest(parents: number[], projects: number): { snap: Snapshot; ids: string[] } {
  const sessions: SessionRecord[] = parents.map((p, i) =>
    session(`s${i}`, {
      projectId: `p${i % projects}`,
      parentId: p >= 0 && p < i && p % projects === i % projects ? `s${p}` : null,
      updatedAt: 1_000_000 + i * 7,
    }),
  );
  const snap = snapshotOf(
    inventory(
      sessions,
      Array.from({ length: projects }, (_, k) => project(`p${k}`, `proj${k}`)),
    ),
  );
  return { snap, ids: [...sessions.map((s) => s.itemId), ...Array.from({ length: projects }, (_, k) => `p${k}`)] };
}

function all(snap: Snapshot, toggled: string[], base: 'default' | 'allOpen' | 'allClosed' = 'default'): string[] {
  const out: string[] = [];
  const req = (offset: number): PageRequest => ({
    snapshotId: snap.id,
    scope: { view: 'tree', expansion: { base, toggled } },
    filter: {},
    sort: 'updated',
    offset,
    limit: 100,
  });
  for (let off = 0; ; off += 100) {
    const r = snap.page(req(off));
    out.push(...r.rows.map((x) => `${x.id}|${x.depth}|${x.expanded ? 1 : 0}|${x.expandable ? 1 : 0}`));
    if (off + 100 >= r.total) return out;
  }
}

describe('toggle splicing', () => {
  it('equals a full rebuild after every single toggle, in any order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -1, max: 40 }), { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.nat(), { maxLength: 25 }),
        fc.constantFrom('default' as const, 'allOpen' as const, 'allClosed' as const),
        (parents, projects, picks, base) => {
          const { snap, ids } = forest(parents, projects);
          const toggled: string[] = [];
          all(snap, toggled, base);
          for (const p of picks) {
            const id = ids[p % ids.length]!;
            const at = toggled.indexOf(id);
            if (at >= 0) toggled.splice(at, 1);
            else toggled.push(id);
            const incremental = all(snap, [...toggled], base);
            const fresh = all(forest(parents, projects).snap, [...toggled], base);
            expect(incremental).toEqual(fresh);
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
