// The Codex delete route at scale, against the real `codex app-server`
// 0.171.0, with every request counted through the route's own client: one
// whole listing per plan (both archive states, every page) before the first
// delete, and after each root only a bounded proof (thread/list restricted to
// that root's scope, ≤ 100 ids). A root whose rollout comes back after Codex
// said it deleted it is reported, every later root is left alone, and no file
// outside what was deleted changes.

import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { resetSocketBypass } from '../../src/adapters/codex/connection.js';
import { codexAdapter } from '../../src/adapters/codex/index.js';
import { JsonRpcClient } from '../../src/adapters/codex/rpc-client.js';
import type { Inventory } from '../../src/engine/core/model.js';
import { buildStore, installation, storePicture } from '../helpers/codex.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { treeDiff } from '../helpers/tree-hash.js';
import { budget } from '../helpers/budget.js';

let t: TempEnv;
afterEach(() => {
  vi.restoreAllMocks();
  resetSocketBypass();
  t?.cleanup();
});

interface Call {
  method: string;
  params: Record<string, unknown> | null;
}

/** Every request the route's client sends, in order; `after` runs once a request has been answered. */
function countRequests(after?: (c: Call) => void): Call[] {
  const calls: Call[] = [];
  const real = JsonRpcClient.prototype.request;
  vi.spyOn(JsonRpcClient.prototype, 'request').mockImplementation(async function (this: JsonRpcClient, method, params, timeout) {
    const c = { method, params: (params ?? null) as Record<string, unknown> | null };
    calls.push(c);
    const r = await real.call(this, method, params, timeout);
    after?.(c);
    return r;
  });
  return calls;
}

const scan = (): Promise<Inventory> => codexAdapter.scan(installation(t), t.ctx, () => undefined);

describe('Codex delete route at scale', () => {
  it(
    'lists the store once per plan and proves each root with a bounded thread/list of its own scope',
    async () => {
      t = makeTempEnv('cleanerx-codex-scale-');
      // 250 live roots: more than one page (200) of the whole listing.
      buildStore(t, { threads: 250, subagentRate: 0.3, archivedRate: 0.1, seed: 8 });
      const inv = await scan();
      const roots = inv.sessions.filter((s) => !s.parentId && s.selectable).slice(0, 12);
      const rev = roots[0]!.metadata.routeRevision as string;
      const calls = countRequests();
      const res = await codexAdapter.sessionRoute!.deleteSessions(
        installation(t),
        t.ctx,
        roots.map((r) => r.id),
        { expectedRevision: rev },
      );
      expect(res.failed).toEqual([]);
      const scopes = new Map(roots.map((r) => [r.id, [r.id, ...r.deletionDescendantIds]]));
      expect([...res.deleted].sort()).toEqual([...scopes.values()].flat().sort());

      const whole = calls.filter((c) => c.method === 'thread/list' && !c.params?.includedThreadIds);
      const bounded = calls.filter((c) => c.method === 'thread/list' && c.params?.includedThreadIds);
      // (The capability probe is a thread/delete without a threadId.)
      const deletes = calls.filter((c) => c.method === 'thread/delete' && c.params?.threadId);
      // One listing (live over several pages of 200, and archived), each page asked once, all before the first delete.
      expect(whole.filter((c) => c.params?.archived === false).length).toBeGreaterThanOrEqual(2);
      expect(whole.some((c) => c.params?.archived === true)).toBe(true);
      expect(new Set(whole.map((c) => `${c.params?.archived}|${c.params?.cursor ?? ''}`)).size).toBe(whole.length);
      for (const c of whole) expect(calls.indexOf(c)).toBeLessThan(calls.indexOf(deletes[0]!));
      expect(deletes.map((c) => c.params?.threadId)).toEqual(roots.map((r) => r.id));
      // The proof after each root: both archive states, restricted to that root's scope only.
      expect(bounded).toHaveLength(2 * roots.length);
      for (const [i, r] of roots.entries()) {
        for (const c of bounded.slice(2 * i, 2 * i + 2)) {
          expect([...(c.params!.includedThreadIds as string[])].sort()).toEqual([...scopes.get(r.id)!].sort());
          expect(calls.indexOf(c)).toBeGreaterThan(calls.indexOf(deletes[i]!));
        }
      }
    },
    budget(600_000),
  );

  it(
    'a root whose rollout comes back after thread/delete is reported; later roots are not attempted and nothing else changes',
    async () => {
      t = makeTempEnv('cleanerx-codex-reappear-');
      buildStore(t, { threads: 40, subagentRate: 0, archivedRate: 0, namedRate: 0, seed: 9 });
      const inv = await scan();
      const roots = inv.sessions.filter((s) => s.selectable && !s.parentId).slice(0, 4);
      const back = roots[1]!;
      const rollout = back.paths[0]!;
      const saved = `${t.root}/saved-rollout`;
      copyFileSync(rollout, saved);
      const before = storePicture(t);
      countRequests((c) => {
        // Something (a sync tool, a second Codex) writes the thread's rollout back right after Codex deleted it.
        if (c.method === 'thread/delete' && c.params?.threadId === back.id) writeFileSync(rollout, readFileSync(saved));
      });
      const res = await codexAdapter.sessionRoute!.deleteSessions(
        installation(t),
        t.ctx,
        roots.map((r) => r.id),
        {
          expectedRevision: roots[0]!.metadata.routeRevision as string,
        },
      );
      expect(res.deleted).toEqual([roots[0]!.id]);
      expect(res.failed[0]).toEqual({ id: back.id, reason: expect.stringMatching(/still listed or still have rollout files/) });
      expect(res.failed.slice(1).map((f) => f.id)).toEqual([roots[2]!.id, roots[3]!.id]);
      for (const f of res.failed.slice(1)) expect(f.reason).toMatch(/Not attempted/);
      // Byte for byte: only the first root's rollout is gone (the second one is back as it was).
      const diff = treeDiff(before, storePicture(t)).filter((d) => !d.endsWith('saved-rollout'));
      expect(diff).toEqual([`removed ${roots[0]!.paths[0]!.slice(t.root.length + 1)}`]);
    },
    budget(600_000),
  );
});
