// Peer test: cleanerx's Codex archive route against the real pinned Codex
// (0.171.0) App Server, offline, with HOME, XDG_* and CODEX_HOME inside a
// temp dir. After thread/archive Codex's own listing reports the thread
// archived (and cleanerx's scan shows it archived); after thread/unarchive it
// is current again; nothing else of the store changes but the rollout Codex
// itself moves between sessions/ and archived_sessions/.

import { afterEach, describe, expect, it } from 'vitest';
import { resetSocketBypass } from '../../src/adapters/codex/connection.js';
import { codexAdapter } from '../../src/adapters/codex/index.js';
import type { Inventory } from '../../src/engine/core/model.js';
import { buildStore, installation, rawClient, serverListing, storePicture } from '../helpers/codex.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { treeDiff } from '../helpers/tree-hash.js';
import { budget } from '../helpers/budget.js';

let t: TempEnv;
afterEach(() => {
  resetSocketBypass();
  t?.cleanup();
});

const scan = (): Promise<Inventory> => codexAdapter.scan(installation(t), t.ctx, () => undefined);
const route = () => codexAdapter.archiveRoute!;

async function listed(): Promise<Map<string, boolean>> {
  const c = await rawClient(t);
  try {
    return new Map((await serverListing(c)).map((s) => [s.id, s.archived]));
  } finally {
    await c.close();
  }
}

describe('thread/archive and thread/unarchive', () => {
  it(
    'Codex lists the thread archived, then current again; only its rollout moves',
    async () => {
      t = makeTempEnv('cleanerx-codex-archive-');
      buildStore(t, { threads: 6, subagentRate: 0, seed: 5 });
      const inv = await scan();
      const s = inv.sessions.find((x) => x.state === 'current' && x.selectable)!;
      expect(s).toBeTruthy();
      const before = await listed();
      const picture = storePicture(t);

      const res = await route().setArchived(installation(t), t.ctx, [s.id], true, { expectedRevision: s.metadata.routeRevision as string });
      expect(res).toEqual({ changed: [s.id], failed: [] });
      const after = await listed();
      expect(after.get(s.id)).toBe(true);
      for (const [id, v] of before) if (id !== s.id) expect(after.get(id), id).toBe(v);
      expect((await scan()).sessions.find((x) => x.id === s.id)?.state).toBe('archived');
      const moved = treeDiff(picture, storePicture(t));
      expect(
        moved.every((l) => /rollout-|session_index|_sessions\b|sessions\/\d{4}/.test(l)),
        moved.join('\n'),
      ).toBe(true);

      // Again: already archived, nothing to do, still reported as done (an interrupted plan re-applies safely).
      expect(await route().setArchived(installation(t), t.ctx, [s.id], true)).toEqual({ changed: [s.id], failed: [] });

      const back = await route().setArchived(installation(t), t.ctx, [s.id], false);
      expect(back.failed).toEqual([]);
      expect((await listed()).get(s.id)).toBe(false);
      expect((await scan()).sessions.find((x) => x.id === s.id)?.state).toBe('current');
    },
    budget(240_000),
  );

  it(
    'refuses, changing nothing, when the store changed since the scan',
    async () => {
      t = makeTempEnv('cleanerx-codex-archive-rev-');
      buildStore(t, { threads: 3, subagentRate: 0, seed: 7 });
      const inv = await scan();
      const s = inv.sessions.find((x) => x.state === 'current')!;
      const before = await listed();
      await expect(route().setArchived(installation(t), t.ctx, [s.id], true, { expectedRevision: 'stale' })).rejects.toThrow(
        /changed after the inventory scan/,
      );
      expect(await listed()).toEqual(before);
    },
    budget(240_000),
  );
});
