// Peer test: cleanerx's OpenCode inventory and routes against the real
// `opencode` 1.18.33 (the exact-pinned devDependency), offline, with HOME,
// XDG_*, TMPDIR and OPENCODE_DB inside a temp dir. OpenCode's own listings
// (the server's all-project session list and `opencode session list`) must
// match the inventory; deleting a root through the CLI, through one private
// server, and through a user's verified `opencode serve --port` removes
// exactly that root's subtree (proved with OpenCode's listing and a row-by-row
// comparison of the database); a busy session blocks its scope; export →
// delete → import restores the same sessions, and a failed import is undone.

import { spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawnForeign } from '../helpers/foreign-process.js';
import { opencodeAdapter } from '../../src/adapters/opencode/index.js';
import { RUNNING_REASON } from '../../src/adapters/opencode/items.js';
import { freeLoopbackPort } from '../../src/adapters/opencode/private-server.js';
import { ACTIVE_REASON } from '../../src/adapters/opencode/scan.js';
import { findOpencodeWriters } from '../../src/adapters/opencode/writers.js';
import type { HostContext } from '../../src/engine/core/adapter.js';
import type { Inventory, SessionRecord } from '../../src/engine/core/model.js';
import {
  buildStore,
  configDir,
  deepRoot,
  expectOnlyRemoved,
  installation,
  makeTemplate,
  OPENCODE_BIN,
  opencodeEnv,
  sessionRows,
  type Template,
} from '../helpers/opencode.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { budget } from '../helpers/budget.js';

const CLI_TIMEOUT = 120_000;

let template: Template;
beforeAll(async () => {
  template = await makeTemplate();
}, budget(180_000));
afterAll(() => template?.cleanup());

let t: TempEnv;
const children: ChildProcess[] = [];
const servers: Server[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) await stop(c);
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
  t?.cleanup();
});

async function stop(c: ChildProcess): Promise<void> {
  if (c.exitCode !== null || c.signalCode !== null) return;
  const exited = new Promise((r) => c.once('exit', r));
  try {
    process.kill(-c.pid!, 'SIGTERM');
  } catch {
    return;
  }
  const ok = await Promise.race([exited.then(() => true), new Promise((r) => setTimeout(() => r(false), 5000))]);
  if (!ok) {
    try {
      process.kill(-c.pid!, 'SIGKILL');
    } catch {
      // gone
    }
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
  }
}

/** The host context of the tests: the temp env plus TMPDIR and the no-network switches. */
const ctx = (): HostContext => ({ ...t.ctx, env: opencodeEnv(t) });
const scan = (): Promise<Inventory> => opencodeAdapter.scan(installation(t), ctx(), () => undefined);
const route = () => opencodeAdapter.sessionRoute!;

/** `opencode <args>` in the sandbox, bounded. */
function oc(args: string[], cwd: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(OPENCODE_BIN, args, { cwd, env: opencodeEnv(t), encoding: 'utf8', timeout: CLI_TIMEOUT, killSignal: 'SIGKILL' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** OpenCode's own root listing for the project of `cwd`, newest first. */
function cliList(cwd: string): { id: string; title: string; projectId: string; directory: string; updated: number }[] {
  const r = oc(['session', 'list', '--format', 'json', '-n', '1000'], cwd);
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.trim() ? JSON.parse(r.stdout) : [];
}

/** Starts `opencode serve` on 127.0.0.1 as a user would; resolves once /global/health answers. */
async function serve(o: { password?: string } = {}): Promise<{ port: number; pid: number; auth?: string }> {
  const port = await freeLoopbackPort();
  const env = { ...opencodeEnv(t), ...(o.password ? { OPENCODE_SERVER_PASSWORD: o.password } : {}) };
  // Not our descendant, as a user's server: cleanerx never counts its own children as writers.
  const { child: c, pid } = await spawnForeign(OPENCODE_BIN, ['serve', '--hostname', '127.0.0.1', '--port', String(port)], { cwd: t.root, env });
  children.push(c);
  const auth = o.password ? `Basic ${Buffer.from(`opencode:${o.password}`).toString('base64')}` : undefined;
  const started = Date.now();
  for (;;) {
    if (c.exitCode !== null) throw new Error(`opencode serve exited (${c.exitCode})`);
    if (Date.now() - started > 90_000) throw new Error('opencode serve was not ready in 90 s');
    try {
      const r = await fetch(`http://127.0.0.1:${port}/global/health`, { headers: auth ? { authorization: auth } : {}, signal: AbortSignal.timeout(2000) });
      if (r.status === 200) break;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { port, pid, auth };
}

async function api(port: number, method: string, path: string, body?: unknown, auth?: string): Promise<{ status: number; json: unknown }> {
  const r = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(auth ? { authorization: auth } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await r.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: r.status, json };
}

/** The end of OpenCode's own log, for failure messages. */
function logTail(): string {
  try {
    return readFileSync(join(t.env.XDG_DATA_HOME!, 'opencode', 'log', 'opencode.log'), 'utf8')
      .split('\n')
      .slice(-40)
      .join('\n');
  } catch {
    return '(no log)';
  }
}

describe('OpenCode lists what cleanerx inventories', () => {
  it(
    'the server listing of all projects and `opencode session list` match the inventory',
    async () => {
      t = makeTempEnv();
      const m = buildStore(t, template, { git: true, orphans: 1, globalSessions: 2, rootsPerProject: 5 });
      const inv = await scan();
      const ours = new Map(inv.sessions.map((s) => [s.id, s]));
      const srv = await serve({ password: 'peer-test-password' });
      const r = await api(srv.port, 'GET', '/experimental/session?archived=true&limit=1000', undefined, srv.auth);
      expect(r.status).toBe(200);
      const theirs = r.json as {
        id: string;
        parentID?: string;
        title: string;
        directory: string;
        projectID: string;
        time: { created: number; updated: number; archived?: number };
      }[];
      expect(theirs.map((s) => s.id).sort()).toEqual([...ours.keys()].sort());
      for (const s of theirs) {
        const c = ours.get(s.id)!;
        expect(c.parentId ?? c.metadata.missingParentId ?? null, s.id).toBe(s.parentID ?? null);
        expect(c.title).toBe(s.title);
        expect(c.cwd).toBe(s.directory);
        expect(c.metadata.opencodeProjectId).toBe(s.projectID);
        expect(c.createdAt).toBe(s.time.created);
        expect(c.updatedAt).toBe(s.time.updated);
        expect(c.metadata.archivedAt ?? null).toBe(s.time.archived ?? null);
        expect(c.state).toBe(s.time.archived ? 'archived' : 'current');
      }
      for (const c of children.splice(0)) await stop(c);
      // The CLI lists the roots (parent_id IS NULL) of the cwd's project, newest first.
      const p1 = m.projects[0]!;
      const listed = cliList(p1.worktree);
      const expected = inv.sessions.filter((s) => s.metadata.opencodeProjectId === p1.id && s.parentId === null && !s.metadata.missingParentId);
      expect(listed.map((s) => s.id)).toEqual(expected.map((s) => s.id));
      expect(listed.map((s) => s.title)).toEqual(expected.map((s) => s.title));
    },
    budget(300_000),
  );
});

describe('deleteSessions', () => {
  it(
    'offline, through `opencode session delete`: a root goes with its child and grandchild, and nothing else',
    async () => {
      t = makeTempEnv();
      const m = buildStore(t, template, { git: true });
      const root = deepRoot(m);
      const rootRec = m.sessions.find((s) => s.id === root.id)!;
      const fork = m.sessions.find((s) => s.kind === 'fork' && s.title.startsWith(rootRec.title))!;
      const inv = await scan();
      const rec = inv.sessions.find((s) => s.id === root.id)!;
      expect(rec.deletionDescendantIds.sort()).toEqual(root.scope.slice(1).sort());
      const before = sessionRows(t);
      const res = await route().deleteSessions(installation(t), ctx(), [root.scope[1]!, root.id], {
        expectedRevision: rec.metadata.routeRevision as string,
        bulkThreshold: 99,
      });
      expect(res.route).toBe('cli');
      expect(res.roots).toEqual([root.id]);
      expect(res.failed).toEqual([]);
      expect(res.deleted.sort()).toEqual([...root.scope].sort());
      expectOnlyRemoved(before, sessionRows(t), root.scope);
      // OpenCode's own listing: the root is gone, its fork is still there.
      const listed = cliList(rootRec.directory).map((s) => s.id);
      expect(listed).not.toContain(root.id);
      if (fork) expect(listed).toContain(fork.id);
      // A rescan shows exactly the rest.
      expect((await scan()).sessions.map((s) => s.id).sort()).toEqual([...before.keys()].filter((id) => !root.scope.includes(id)).sort());
    },
    budget(300_000),
  );

  it(
    'offline, many roots: one private loopback server deletes them all, and it is gone afterwards',
    async () => {
      t = makeTempEnv();
      const m = buildStore(t, template, { orphans: 1, globalSessions: 1 });
      const a = deepRoot(m);
      const b = deepRoot(m, 'archived');
      const orphan = m.sessions.find((s) => s.kind === 'orphan')!.id;
      const global = m.sessions.find((s) => s.kind === 'global')!.id;
      const scope = [...a.scope, ...b.scope, orphan, global];
      const before = sessionRows(t);
      const res = await route().deleteSessions(installation(t), ctx(), [a.id, b.id, orphan, global], { bulkThreshold: 2 });
      expect(res.fallbackReason).toBeUndefined();
      expect(res.route).toBe('privateServer');
      expect(res.failed).toEqual([]);
      expect(res.deleted.sort()).toEqual([...scope].sort());
      expectOnlyRemoved(before, sessionRows(t), scope);
      // The private server was stopped: no OpenCode process is left on this database.
      expect(await findOpencodeWriters({ ...ctx(), procRoot: '/proc' }, t.env.OPENCODE_DB!, dirname(t.env.OPENCODE_DB!))).toEqual([]);
    },
    budget(300_000),
  );

  it(
    'while OpenCode serves on an explicit loopback port: a busy session blocks its scope, an idle root goes through that server',
    async () => {
      t = makeTempEnv();
      const m = buildStore(t, template);
      // A model provider on loopback that never answers: a prompt keeps its session busy, with no network.
      const hang = createServer(() => undefined);
      servers.push(hang);
      await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r));
      const hangPort = (hang.address() as { port: number }).port;
      writeFileSync(
        join(configDir(t), 'opencode.jsonc'),
        JSON.stringify({
          $schema: 'https://opencode.ai/config.json',
          provider: { opencode: { options: { baseURL: `http://127.0.0.1:${hangPort}/v1`, apiKey: 'none' } } },
        }),
      );
      const srv = await serve();
      // The real process, as /proc shows it; the fake /proc of the test gets a copy of it.
      const real = await findOpencodeWriters({ ...ctx(), procRoot: '/proc' }, t.env.OPENCODE_DB!, dirname(t.env.OPENCODE_DB!));
      expect(real.find((w) => w.pid === srv.pid)?.endpoint).toEqual({ host: '127.0.0.1', port: srv.port });
      const dir = join(t.procRoot, String(srv.pid));
      mkdirSync(dir);
      // (procfs files report size 0, so they are read, not copied)
      for (const f of ['comm', 'cmdline', 'environ']) writeFileSync(join(dir, f), readFileSync(`/proc/${srv.pid}/${f}`));

      const busyRoot = deepRoot(m);
      const busy = m.sessions.find((s) => s.id === busyRoot.scope[1])!;
      const q = `?directory=${encodeURIComponent(busy.directory)}`;
      const p = await api(srv.port, 'POST', `/session/${busy.id}/prompt_async${q}`, { parts: [{ type: 'text', text: 'keep busy' }] });
      expect(p.status).toBeLessThan(300);
      const until = Date.now() + 60_000;
      for (;;) {
        const s = await api(srv.port, 'GET', `/session/status${q}`);
        if ((s.json as Record<string, { type: string }>)[busy.id]?.type === 'busy') break;
        if (Date.now() > until) throw new Error(`session never became busy: ${JSON.stringify(s.json)}\n${logTail()}`);
        await new Promise((r) => setTimeout(r, 250));
      }

      const inv = await scan();
      const byId = new Map<string, SessionRecord>(inv.sessions.map((s) => [s.id, s]));
      expect(byId.get(busy.id)).toMatchObject({ selectable: false, blockedReason: ACTIVE_REASON });
      expect(inv.items.find((i) => i.id === 'logs:opencode')?.blockedReason).toContain(RUNNING_REASON);
      await expect(route().deleteSessions(installation(t), ctx(), [busyRoot.id])).rejects.toThrow(
        new RegExp(`active session data in this deletion scope: ${busy.id}`),
      );

      const idle = m.sessions.find((s) => s.kind === 'root' && !busyRoot.scope.includes(s.id) && m.descendants.get(s.id)!.length > 0)!;
      const idleScope = [idle.id, ...m.descendants.get(idle.id)!];
      expect(byId.get(idle.id)!.selectable).toBe(true);
      const before = sessionRows(t);
      const res = await route().deleteSessions(installation(t), ctx(), [idle.id]);
      expect(res.route).toBe('verifiedServer');
      expect(res.failed).toEqual([]);
      expect(res.deleted.sort()).toEqual([...idleScope].sort());
      expectOnlyRemoved(before, sessionRows(t), idleScope, busyRoot.scope);
      expect((await api(srv.port, 'GET', `/session/${idle.id}?directory=${encodeURIComponent(idle.directory)}`)).status).toBe(404);
      expect(sessionRows(t).has(busy.id)).toBe(true);
    },
    budget(300_000),
  );
});

describe('exportSessions and importSessions', () => {
  it(
    'export → delete → import restores the same sessions; importing over them or a failing import is refused or undone',
    async () => {
      t = makeTempEnv();
      // git: the project of a directory comes from its repository, and import files a session under the cwd's project.
      const m = buildStore(t, template, { messagesPerSession: 3, git: true });
      const root = deepRoot(m, 'archived');
      const before = sessionRows(t);
      const stage = join(t.root, 'stage');
      const { exports, revision } = await route().exportSessions!(installation(t), ctx(), [root.id], stage);
      expect(exports.map((e) => e.id)).toEqual(root.scope);
      expect(statSync(stage).mode & 0o777).toBe(0o700);
      for (const e of exports) {
        expect(statSync(e.file).mode & 0o777).toBe(0o600);
        const j = JSON.parse(readFileSync(e.file, 'utf8')) as { info: { id: string; directory: string }; messages: unknown[] };
        expect(j.info.id).toBe(e.id);
        expect(e.directory).toBe(before.get(e.id)!.directory);
        expect(e.parentId).toBe(before.get(e.id)!.parent_id);
        expect(j.messages).toHaveLength(before.get(e.id)!.messages as number);
      }
      await route().deleteSessions(installation(t), ctx(), [root.id], { bulkThreshold: 99, expectedRevision: revision });
      expect(root.scope.some((id) => sessionRows(t).has(id))).toBe(false);

      const res = await route().importSessions!(installation(t), ctx(), exports);
      expect(res.imported).toEqual(root.scope);
      expect(res.rehomed).toEqual([]);
      const after = sessionRows(t);
      for (const id of root.scope) expect(after.get(id), id).toEqual(before.get(id));
      expect(after.size).toBe(before.size);
      await expect(route().importSessions!(installation(t), ctx(), exports)).rejects.toThrow(/already exists/);

      // A failing import in the middle: the sessions imported before it are deleted again.
      await route().deleteSessions(installation(t), ctx(), [root.id], { bulkThreshold: 99 });
      const last = exports[exports.length - 1]!;
      const broken = JSON.parse(readFileSync(last.file, 'utf8')) as { info: Record<string, unknown> };
      delete broken.info.slug;
      writeFileSync(last.file, JSON.stringify(broken));
      await expect(route().importSessions!(installation(t), ctx(), exports)).rejects.toThrow(
        /OpenCode import of .* failed.*imported before it were deleted again/,
      );
      expect(root.scope.filter((id) => sessionRows(t).has(id))).toEqual([]);
      expect(sessionRows(t).size).toBe(before.size - root.scope.length);
    },
    budget(600_000),
  );
});
