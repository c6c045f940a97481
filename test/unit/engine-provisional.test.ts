// Provisional snapshots: while a scan runs, the engine publishes partial,
// read-only views built from the adapter's partial inventory; the final
// snapshot replaces them and they cannot be planned or marked.

import { afterEach, describe, expect, it } from 'vitest';
import { buildPiFixture } from '../../src/adapters/pi/fixture.js';
import { ADAPTERS } from '../../src/adapters/registry.js';
import { Engine } from '../../src/engine/api/engine.js';
import type { PageResult, ScanProgress, ScanSummary } from '../../src/engine/core/model.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
afterEach(() => t?.cleanup());

const pageOf = (snapshotId: string, offset = 0) => ({ snapshotId, scope: { view: 'tree' as const }, filter: {}, sort: 'updated' as const, offset, limit: 100 });

function fixture(): void {
  t = makeTempEnv();
  buildPiFixture({ agentDir: t.env.PI_CODING_AGENT_DIR!, projects: 4, sessionsPerProject: 400, forkRate: 0.2, seed: 5, bodyBytes: 200 });
}

describe('provisional snapshots during a scan', () => {
  it('are published with rows, read-only, never forward the adapter callback, and the final one replaces them', async () => {
    fixture();
    const engine = new Engine(ADAPTERS, t.ctx);
    const events: ScanProgress[] = [];
    // Refusals are kept as values (every provisional's calls are made; only the first is inspected).
    const settle = (x: Promise<unknown>): Promise<unknown> =>
      x.then(
        (v) => v,
        (e: Error) => e,
      );
    const seen: { summary: ScanSummary; page: Promise<PageResult>; match: Promise<unknown>; plan: Promise<unknown> }[] = [];
    const final = await engine.scan('pi', (p) => {
      events.push(p);
      // Asked while the scan runs, as the UI does between the adapter's yields.
      if (p.provisional) {
        const id = p.provisional.snapshotId;
        seen.push({ summary: p.provisional, page: engine.page(pageOf(id)), match: settle(engine.matchIds(id, {})), plan: settle(engine.plan(id, [])) });
      }
    });
    expect(events.every((e) => !('partial' in e))).toBe(true);
    expect(seen.length).toBeGreaterThan(0);
    const first = seen[0]!;
    expect(first.summary.provisional).toBe(true);
    expect(first.summary.sessionCount).toBeGreaterThan(0);
    expect(first.summary.sessionCount).toBeLessThan(final.sessionCount);
    expect(first.summary.selection).toEqual([]);
    const page = await first.page;
    const sessions = page.rows.filter((r) => r.kind === 'session');
    expect(sessions.length).toBeGreaterThan(0);
    expect(sessions.every((r) => !r.selectable && /Still scanning/.test(r.blockedReason ?? ''))).toBe(true);
    expect(String(await first.match)).toMatch(/still being scanned/);
    expect(String(await first.plan)).toMatch(/still being scanned/);

    // After the scan: the final snapshot is complete and markable; every provisional id is gone.
    expect(final.provisional).toBeUndefined();
    expect(final.selection.length).toBe(final.sessionCount);
    for (const s of seen) await expect(engine.page(pageOf(s.summary.snapshotId))).rejects.toThrow(/older scan/);
    await expect(engine.plan(final.snapshotId, [final.selection[0]!.id])).resolves.toBeTruthy();
  });

  it('change nothing in the final inventory (same sessions, titles, parents and projects as a scan without them)', async () => {
    fixture();
    const withViews = new Engine(ADAPTERS, t.ctx);
    let published = 0;
    const a = await withViews.scan('pi', (p) => void (p.provisional && published++));
    const plain = new Engine(ADAPTERS, t.ctx);
    const b = await plain.scan('pi');
    expect(published).toBeGreaterThan(0);
    const shape = (e: Engine, s: ScanSummary) =>
      e
        .snapshot(s.snapshotId)
        .forest.nodes.map((n) => [n.s.id, n.s.title, n.s.parentId, n.projectKey, n.s.paths.join()].join('|'))
        .sort();
    expect(shape(withViews, a)).toEqual(shape(plain, b));
    expect(a.projects).toEqual(b.projects);
    expect(a.warnings).toEqual(b.warnings);
  });
});
