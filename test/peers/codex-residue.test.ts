// Residue proof against the real `codex app-server` 0.171.0: after cleanerx
// deletes a thread through Codex's own thread/delete, the verify step probes
// every surface Codex keeps for it (rollout, state DB row, session_index.jsonl
// lines, log rows, memory rows) and reports COMPLETE; an index line a stopped
// write of Codex left behind (appended after the real delete, before the
// probe) makes the item PARTIAL, naming the index file, and no route removes
// it. The probe reads the databases without creating -wal or -shm files.

import { appendFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { codexAdapter } from '../../src/adapters/codex/index.js';
import { ADAPTERS } from '../../src/adapters/registry.js';
import { Engine } from '../../src/engine/api/engine.js';
import type { AgentAdapter } from '../../src/engine/core/adapter.js';
import { buildStore, CODEX_BIN, codexHome } from '../helpers/codex.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { defaultHostContext } from '../../src/engine/core/adapter.js';
import { budget } from '../helpers/budget.js';

let t: TempEnv;
afterEach(() => t?.cleanup());

/** An Engine whose Codex is the real one, on PATH; `afterDelete` runs between Codex's delete and cleanerx's verify. */
function engineWith(afterDelete?: (ids: readonly string[]) => void): Engine {
  t.env.PATH = `${dirname(CODEX_BIN)}:/usr/bin:/bin`;
  const ctx = { ...defaultHostContext(t.env), procRoot: t.procRoot };
  const codex: AgentAdapter = {
    ...codexAdapter,
    sessionRoute: {
      deleteSessions: async (inst, c, roots, opts) => {
        const r = await codexAdapter.sessionRoute!.deleteSessions(inst, c, roots, opts);
        afterDelete?.(r.deleted);
        return r;
      },
    },
  };
  return new Engine(
    ADAPTERS.map((a) => (a.kind === 'codex' ? codex : a)),
    ctx,
  );
}

async function deleteOneNamedLeaf(engine: Engine) {
  const summary = await engine.scan('codex');
  const snap = engine.snapshot(summary.snapshotId);
  const index = readFileSync(join(codexHome(t), 'session_index.jsonl'), 'utf8');
  const leaf = snap.forest.nodes.find((n) => n.s.selectable && !n.s.deletionDescendantIds.length && index.includes(n.s.id));
  expect(leaf, 'a named thread without subagents').toBeTruthy();
  const plan = await engine.plan(summary.snapshotId, [leaf!.s.itemId]);
  const r = await engine.execute(plan.id);
  return { r, id: leaf!.s.id, itemId: leaf!.s.itemId };
}

const sideFiles = (dir: string): string[] => readdirSync(dir).filter((n) => /-(wal|shm)$/.test(n));

describe('residue proof (Codex)', () => {
  it(
    'a clean thread/delete is COMPLETE on every surface, and clean --json shape carries it',
    async () => {
      t = makeTempEnv('cleanerx-codex-res-');
      buildStore(t, { threads: 4, subagentRate: 0, seed: 7, namedRate: 1 });
      const engine = engineWith();
      const { r, id, itemId } = await deleteOneNamedLeaf(engine);
      expect(r.status, r.message).toBe('complete');
      expect(r.residue).toEqual([{ id: itemId, label: expect.any(String), verdict: 'complete', surfaces: [] }]);
      expect(readFileSync(join(codexHome(t), 'session_index.jsonl'), 'utf8')).not.toContain(id);
    },
    budget(240_000),
  );

  it(
    'an index line left by a stopped write is PARTIAL, naming session_index.jsonl with no route',
    async () => {
      t = makeTempEnv('cleanerx-codex-res-');
      buildStore(t, { threads: 4, subagentRate: 0, seed: 8, namedRate: 1 });
      const indexPath = join(codexHome(t), 'session_index.jsonl');
      let sidesBeforeProbe: string[] = [];
      const engine = engineWith((ids) => {
        // What a name write cut off by a crash leaves: the thread's line back at the end of the index, half written.
        for (const id of ids) appendFileSync(indexPath, `{"id":"${id}","thread_name":"stale","updated_at":"2026-01-01T00:00:00Z"}\n{"id":"${id}","thread_na`);
        sidesBeforeProbe = sideFiles(codexHome(t));
      });
      const { r, id, itemId } = await deleteOneNamedLeaf(engine);
      // Codex no longer lists it: the cleanup itself is complete, the proof says what survives.
      expect(r.status, r.message).toBe('complete');
      expect(r.residue).toHaveLength(1);
      const res = r.residue![0]!;
      expect(res).toMatchObject({ id: itemId, verdict: 'partial' });
      expect(res.surfaces).toEqual([{ surface: 'indexLine', path: indexPath, why: 'noRoute', count: 2 }]);
      expect(readFileSync(indexPath, 'utf8')).toContain(id);
      // The probe's reads created no side file of Codex's databases.
      expect(sideFiles(codexHome(t))).toEqual(sidesBeforeProbe);
      expect(existsSync(indexPath)).toBe(true);
    },
    budget(240_000),
  );
});
