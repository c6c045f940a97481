// The engine's garbage collection hook (the worker passes V8's full
// collection): called once per scan, when the old snapshot and the
// provisional views are already unreachable and the new snapshot not yet
// built, so the collection frees them before the build allocates.

import { afterEach, describe, expect, it } from 'vitest';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { buildPiFixture } from '../../src/adapters/pi/fixture.js';
import { ADAPTERS } from '../../src/adapters/registry.js';
import { Engine } from '../../src/engine/api/engine.js';
import type { ScanSummary } from '../../src/engine/core/model.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
afterEach(() => t?.cleanup());

const pageOf = (snapshotId: string) => ({ snapshotId, scope: { view: 'tree' as const }, filter: {}, sort: 'updated' as const, offset: 0, limit: 10 });

describe('Engine collectGarbage hook', () => {
  it('runs once per scan, after the old snapshot and the provisional views are dropped and before the new snapshot exists', async () => {
    t = makeTempEnv();
    buildPiFixture({ agentDir: t.env.PI_CODING_AGENT_DIR!, projects: 3, sessionsPerProject: 300, forkRate: 0.1, seed: 3, bodyBytes: 100 });
    const seen: { oldGone: boolean; provisionalGone: boolean[]; latest: string | undefined }[] = [];
    let previous: string | undefined;
    const provisional: string[] = [];
    const refused = (id: string): boolean => {
      try {
        engine.snapshot(id);
        return false;
      } catch (e) {
        return /older scan/.test((e as Error).message);
      }
    };
    const engine: Engine = new Engine(ADAPTERS, t.ctx, { readOnly: false, demo: false }, undefined, {
      collectGarbage: () =>
        seen.push({
          oldGone: previous === undefined || refused(previous),
          // A live provisional view answers "still being scanned"; a dropped one is an older scan.
          provisionalGone: provisional.map(refused),
          latest: (engine as unknown as { latestByAgent: Map<string, string> }).latestByAgent.get('pi'),
        }),
    });
    const scan = (): Promise<ScanSummary> => engine.scan('pi', (p) => p.provisional && provisional.push(p.provisional.snapshotId));
    const first = await scan();
    expect(seen).toHaveLength(1);
    expect(provisional.length).toBeGreaterThan(0);
    expect(seen[0]!.provisionalGone.every(Boolean)).toBe(true);
    expect(seen[0]!.latest).toBeUndefined();

    previous = first.snapshotId;
    provisional.length = 0;
    const second = await scan();
    expect(seen).toHaveLength(2);
    expect(seen[1]!.oldGone).toBe(true);
    expect(seen[1]!.provisionalGone.every(Boolean)).toBe(true);
    // The old id was still the latest one's (not yet replaced): the new snapshot did not exist yet.
    expect(seen[1]!.latest).toBe(first.snapshotId);
    expect((await engine.page(pageOf(second.snapshotId))).rows.length).toBeGreaterThan(0);
  });

  it('with V8 full collection (as the worker passes it) the scan answers exactly as without a hook', async () => {
    t = makeTempEnv();
    buildPiFixture({ agentDir: t.env.PI_CODING_AGENT_DIR!, projects: 2, sessionsPerProject: 150, forkRate: 0.1, seed: 4, bodyBytes: 100 });
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    setFlagsFromString('--no-expose-gc');
    let calls = 0;
    const withGc = new Engine(ADAPTERS, t.ctx, { readOnly: false, demo: false }, undefined, {
      collectGarbage: () => {
        calls++;
        gc();
      },
    });
    const plain = new Engine(ADAPTERS, t.ctx);
    const strip = (s: ScanSummary) => ({ ...s, snapshotId: '', scannedAt: 0, durationMs: 0, growth: undefined });
    const a = await withGc.scan('pi', () => undefined);
    const b = await plain.scan('pi', () => undefined);
    expect(calls).toBe(1);
    expect(strip(a)).toEqual(strip(b));
    const pa = await withGc.page(pageOf(a.snapshotId));
    const pb = await plain.page(pageOf(b.snapshotId));
    expect({ ...pa, snapshotId: '' }).toEqual({ ...pb, snapshotId: '' });
  });
});
