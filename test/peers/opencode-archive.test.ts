// Peer test: cleanerx's OpenCode archive route against the real pinned
// `opencode` 1.18.33, offline, with HOME, XDG_*, TMPDIR and OPENCODE_DB inside
// a temp dir. After the archive OpenCode's own all-project listing
// (/experimental/session) leaves the session out and lists it with
// ?archived=true, and only that row's time_archived changed. It also pins why
// cleanerx offers no OpenCode unarchive: `"archived": null` is ignored and
// `0` is still archived in OpenCode's own listing.

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { NO_UNARCHIVE } from '../../src/adapters/opencode/archive-route.js';
import { opencodeAdapter } from '../../src/adapters/opencode/index.js';
import { startPrivateServer, type PrivateServer } from '../../src/adapters/opencode/private-server.js';
import { opencodeEnv as routeEnv } from '../../src/adapters/opencode/official-cli.js';
import { httpJson } from '../../src/adapters/opencode/http.js';
import type { HostContext } from '../../src/engine/core/adapter.js';
import { buildStore, installation, makeTemplate, OPENCODE_BIN, opencodeEnv, sessionRows, type Template } from '../helpers/opencode.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { budget } from '../helpers/budget.js';

let template: Template;
beforeAll(async () => {
  template = await makeTemplate();
}, budget(180_000));
afterAll(() => template?.cleanup());

let t: TempEnv;
let server: PrivateServer | null = null;
afterEach(async () => {
  await server?.stop();
  server = null;
  t?.cleanup();
});

const ctx = (): HostContext => ({ ...t.ctx, env: opencodeEnv(t) });

/** OpenCode's own all-project listing: the ids it shows as current, and as archived. */
async function ownListing(): Promise<{ current: Set<string>; archived: Set<string> }> {
  server ??= await startPrivateServer(OPENCODE_BIN, routeEnv(installation(t), ctx(), t.env.OPENCODE_DB!));
  const ids = async (q: string): Promise<Set<string>> => {
    const r = await httpJson(server!.endpoint, 'GET', `/experimental/session?limit=1000${q}`, { basicAuth: server!.auth, timeoutMs: 30_000 });
    expect(r.status).toBe(200);
    return new Set((r.json as { id: string }[]).map((s) => s.id));
  };
  const current = await ids('');
  const all = await ids('&archived=true');
  return { current, archived: new Set([...all].filter((id) => !current.has(id))) };
}

describe('OpenCode archive', () => {
  it(
    'PATCH time.archived: OpenCode lists the session archived; only that row changed',
    async () => {
      t = makeTempEnv('cleanerx-oc-archive-');
      buildStore(t, template, { projects: 2, rootsPerProject: 2 });
      // OpenCode's own server writes its database when it starts: its listing first, then the scan the route checks against.
      const before = await ownListing();
      await server?.stop();
      server = null;
      const inv = await opencodeAdapter.scan(installation(t), ctx(), () => undefined);
      const s = inv.sessions.find((x) => x.state === 'current' && x.parentId === null && x.selectable)!;
      expect(s).toBeTruthy();
      expect(before.current.has(s.id)).toBe(true);
      const rows = sessionRows(t);

      const res = await opencodeAdapter.archiveRoute!.setArchived(installation(t), ctx(), [s.id], true, {
        expectedRevision: s.metadata.routeRevision as string,
      });
      expect(res).toEqual({ changed: [s.id], failed: [] });
      const after = sessionRows(t);
      expect(typeof after.get(s.id)!.time_archived).toBe('number');
      for (const [id, r] of rows) {
        if (id === s.id) expect({ ...after.get(id), time_archived: null, time_updated: r.time_updated }).toEqual(r);
        else expect(after.get(id), id).toEqual(r);
      }
      const rescanned = await opencodeAdapter.scan(installation(t), ctx(), () => undefined);
      expect(rescanned.sessions.find((x) => x.id === s.id)?.state).toBe('archived');
      const own = await ownListing();
      expect(own.current.has(s.id)).toBe(false);
      expect(own.archived.has(s.id)).toBe(true);

      // Why there is no unarchive: null is ignored, 0 is still archived to OpenCode itself.
      for (const archived of [null, 0]) {
        const r = await httpJson(server!.endpoint, 'PATCH', `/session/${s.id}`, { basicAuth: server!.auth, body: { time: { archived } }, timeoutMs: 30_000 });
        expect(r.status).toBe(200);
        expect((await ownListing()).current.has(s.id), `archived: ${archived}`).toBe(false);
      }
      await expect(opencodeAdapter.archiveRoute!.setArchived(installation(t), ctx(), [s.id], false)).rejects.toThrow(NO_UNARCHIVE);
      expect(opencodeAdapter.archiveRoute!.unarchive).toBe(false);
    },
    budget(300_000),
  );
});
