// Peer test of cleanerx's Codex routes against the real `codex app-server`
// 0.171.0, each on a fresh hand-written store in a temp HOME/CODEX_HOME:
// thread/delete removes exactly the root and the subagents Codex itself
// reports (every other file byte-identical); stale revisions, pinned and
// loaded threads refuse before anything changes; memory/reset empties memory
// only; old log rows go and newer ones stay; a running daemon is used through
// `codex app-server proxy`, and a dead one falls back to stdio with a warning.

import Database from 'better-sqlite3';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { connectCodex, resetSocketBypass, SOCKET_FALLBACK_WARNING } from '../../src/adapters/codex/connection.js';
import { codexAdapter } from '../../src/adapters/codex/index.js';
import { LOGS_ITEM, MEMORY_ITEM } from '../../src/adapters/codex/items.js';
import { controlSocket } from '../../src/adapters/codex/paths.js';
import { LOADED_REASON, PINNED_REASON } from '../../src/adapters/codex/scan.js';
import { RouteRefused } from '../../src/adapters/shared/official-delete.js';
import { PINNED_SECTION_ID } from '../../src/adapters/codex/thread-list.js';
import type { Inventory } from '../../src/engine/core/model.js';
import { buildStore, CODEX_BIN, codexHome, installation, rawClient, rowCount, serverDescendants, serverListing, storePicture } from '../helpers/codex.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { treeDiff } from '../helpers/tree-hash.js';

let t: TempEnv;
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) {
    try {
      process.kill(-c.pid!, 'SIGKILL');
    } catch {
      // gone
    }
    await new Promise((r) => (c.exitCode !== null || c.signalCode !== null ? r(null) : c.once('exit', r)));
  }
  resetSocketBypass();
  t?.cleanup();
});

const scan = (): Promise<Inventory> => codexAdapter.scan(installation(t), t.ctx, () => undefined);
const route = () => codexAdapter.sessionRoute!;

describe('thread/delete', () => {
  it('removes exactly the root and the subagents Codex reports, every other file byte-identical', async () => {
    t = makeTempEnv('cleanerx-codex-del-');
    const m = buildStore(t, { threads: 10, subagentRate: 1, seed: 21, namedRate: 0.5 });
    const inv = await scan();
    const byId = new Map(inv.sessions.map((s) => [s.id, s]));
    const grand = m.threads.find((f) => f.depth === 2 && !f.archived)!;
    const child = m.threads.find((f) => f.id === grand.parentId)!;
    const root = byId.get(child.parentId!)!;
    expect(root.deletionDescendantIds.length).toBeGreaterThanOrEqual(2);
    const c = await rawClient(t);
    const before = await serverListing(c);
    const reported = await serverDescendants(c, root.id, ['openai', 'ollama']);
    await c.close();
    expect([...reported].sort()).toEqual([...root.deletionDescendantIds].sort());
    const scope = [root.id, ...root.deletionDescendantIds];
    const pictureBefore = storePicture(t);
    const indexBefore = readFileSync(join(codexHome(t), 'session_index.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean);

    const res = await route().deleteSessions(installation(t), t.ctx, [child.id, root.id], { expectedRevision: root.metadata.routeRevision as string });
    expect(res.failed).toEqual([]);
    expect(res.roots).toEqual([root.id]);
    expect(res.route).toBe('privateServer');
    expect([...res.deleted].sort()).toEqual([...scope].sort());

    const c2 = await rawClient(t);
    const after = await serverListing(c2);
    await c2.close();
    expect(after.map((s) => s.id).sort()).toEqual(
      before
        .map((s) => s.id)
        .filter((id) => !scope.includes(id))
        .sort(),
    );
    const removed = new Set(scope.map((id) => byId.get(id)!.paths[0]!));
    const named = scope.some((id) => byId.get(id)!.named);
    const diff = treeDiff(pictureBefore, storePicture(t));
    const expected = [...removed].map((p) => `removed ${p.slice(t.root.length + 1)}`);
    if (named) expected.push('changed home/.codex/session_index.jsonl');
    expect(diff.sort()).toEqual(expected.sort());
    // Codex dropped the scope's names from session_index.jsonl and kept every other line.
    const lines = readFileSync(join(codexHome(t), 'session_index.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean);
    const kept = indexBefore.filter((l) => !scope.includes((JSON.parse(l) as { id: string }).id));
    expect(lines).toEqual(kept);
    // Owned media stay for the engine to remove after the official delete.
    for (const id of scope) for (const p of byId.get(id)!.paths.slice(1)) expect(existsSync(p)).toBe(true);
  });

  it('refuses a stale revision, an unknown id and a pinned scope before changing anything', async () => {
    t = makeTempEnv('cleanerx-codex-refuse-');
    const m = buildStore(t, { threads: 6, subagentRate: 1, seed: 5 });
    const inv = await scan();
    const live = m.threads.find((f) => f.depth === 1 && !f.archived)!;
    const root = inv.sessions.find((s) => s.id === live.parentId)!;
    const before = storePicture(t);
    await expect(route().deleteSessions(installation(t), t.ctx, [root.id], { expectedRevision: 'stale' })).rejects.toThrow(RouteRefused);
    await expect(route().deleteSessions(installation(t), t.ctx, ['01a0ee72-0000-7000-8000-000000000000'])).rejects.toThrow(/does not list/);
    await expect(route().deleteSessions(installation(t), t.ctx, ['../../etc'])).rejects.toThrow(/Not a Codex thread id/);
    expect(treeDiff(before, storePicture(t))).toEqual([]);

    // Pin the subagent in Codex: it and its root become blocked.
    const c = await rawClient(t);
    await c.request('thread/section/move', { threadId: live.id, sectionId: PINNED_SECTION_ID });
    await c.close();
    const again = await scan();
    const pinned = again.sessions.find((s) => s.id === live.id)!;
    expect(pinned.selectable).toBe(false);
    expect(pinned.blockedReason).toBe(PINNED_REASON);
    const blockedRoot = again.sessions.find((s) => s.id === root.id)!;
    expect(blockedRoot.selectable).toBe(false);
    expect(blockedRoot.blockedReason).toMatch(/subagent thread .* is blocked: Pinned/);
    const pictured = storePicture(t);
    await expect(route().deleteSessions(installation(t), t.ctx, [root.id], { expectedRevision: blockedRoot.metadata.routeRevision as string })).rejects.toThrow(
      /Pinned/,
    );
    expect(treeDiff(pictured, storePicture(t))).toEqual([]);
  });
});

describe('official items', () => {
  it('memory/reset empties memories only; the next scan has no memory item', async () => {
    t = makeTempEnv('cleanerx-codex-mem-');
    buildStore(t, { threads: 5, memories: true, seed: 8 });
    await scan(); // Codex creates its databases on this first start.
    const memDb = join(codexHome(t), 'memories_1.sqlite');
    const db = new Database(memDb);
    db.prepare('INSERT INTO stage1_outputs (thread_id, source_updated_at, raw_memory, rollout_summary, generated_at) VALUES (?, 1, ?, ?, 1)').run(
      '01a0ee72-0000-7000-8000-000000000001',
      'raw',
      'sum',
    );
    db.close();
    const inv = await scan();
    const mem = inv.items.find((i) => i.id === MEMORY_ITEM)!;
    expect(mem.selectable, mem.blockedReason).toBe(true);
    expect(mem.metadata.stage1Rows).toBe(1);
    const memDirs = ['memories', 'memories_v2'].map((d) => join(codexHome(t), d));
    const before = storePicture(t);
    const threadsBefore = rowCount(join(codexHome(t), 'state_5.sqlite'), 'threads');

    const res = await codexAdapter.itemRoute!.applyItems(installation(t), t.ctx, [MEMORY_ITEM]);
    expect(res).toEqual({ applied: [MEMORY_ITEM], failed: [] });
    expect(readdirSync(join(codexHome(t), 'memories'))).toEqual([]);
    expect(rowCount(memDb, 'stage1_outputs')).toBe(0);
    const diff = treeDiff(before, storePicture(t)).filter((d) => !memDirs.some((m) => d.includes(m.slice(t.root.length + 1))));
    expect(diff).toEqual([]);
    expect(rowCount(join(codexHome(t), 'state_5.sqlite'), 'threads')).toBe(threadsBefore);
    const next = await scan();
    expect(next.items.find((i) => i.id === MEMORY_ITEM)).toBeUndefined();
    expect(next.sessions.length).toBe(inv.sessions.length);
  });

  it('log pruning deletes only rows older than the retention; the next scan has no log item', async () => {
    t = makeTempEnv('cleanerx-codex-logs-');
    buildStore(t, { threads: 3, seed: 9 });
    const first = await scan();
    expect(first.items.find((i) => i.id === LOGS_ITEM)).toBeUndefined();
    const logsDb = join(codexHome(t), 'logs_2.sqlite');
    const now = Math.floor(Date.now() / 1000);
    const db = new Database(logsDb);
    const ins = db.prepare("INSERT INTO logs (ts, ts_nanos, level, target, feedback_log_body, estimated_bytes) VALUES (?, 0, 'INFO', 'test', 'body', 100)");
    // Codex 0.171 drops rows older than 10 days itself when it starts; 8–9 days is older than cleanerx's 7.
    for (let i = 0; i < 5; i++) ins.run(now - 8 * 86400 - i * 3600);
    for (let i = 0; i < 3; i++) ins.run(now - 3600 - i);
    const total = (db.prepare('SELECT count(*) AS n FROM logs').get() as { n: number }).n;
    db.close();
    const inv = await scan();
    const logs = inv.items.find((i) => i.id === LOGS_ITEM)!;
    expect(logs.metadata.rows).toBe(5);
    expect(logs.bytes).toBe(500);
    expect(logs.selectable).toBe(true);
    const res = await codexAdapter.itemRoute!.applyItems(installation(t), t.ctx, [LOGS_ITEM]);
    expect(res).toEqual({ applied: [LOGS_ITEM], failed: [] });
    expect(rowCount(logsDb, 'logs', `ts < ${now - 7 * 86400}`)).toBe(0);
    expect(rowCount(logsDb, 'logs', `target = 'test'`)).toBe(3);
    expect(rowCount(logsDb, 'logs')).toBeGreaterThanOrEqual(total - 5);
    const next = await scan();
    expect(next.items.find((i) => i.id === LOGS_ITEM)).toBeUndefined();
  });
});

describe('a running app-server daemon', () => {
  it('is used through codex app-server proxy, blocks what it has loaded, and a dead socket falls back to stdio', async () => {
    t = makeTempEnv('cleanerx-codex-sock-');
    // The temp dir beside the home, as on a user's machine (Codex makes helper links only in a home outside it).
    const tmp = join(t.root, 'tmp');
    mkdirSync(tmp);
    t.env.TMPDIR = tmp;
    (t.ctx.env as Record<string, string>).TMPDIR = tmp;
    buildStore(t, { threads: 4, subagentRate: 0, archivedRate: 0, seed: 4 });
    const first = await scan();
    const target = first.sessions.find((s) => s.state === 'current')!;
    const env = { HOME: t.env.HOME!, PATH: '/usr/bin:/bin', CODEX_HOME: codexHome(t), TMPDIR: tmp, LANG: 'C.UTF-8', RUST_LOG: 'error' };
    const daemon = spawn(CODEX_BIN, ['app-server', '--listen', 'unix://'], { env, stdio: 'ignore', detached: true });
    children.push(daemon);
    const sock = controlSocket(codexHome(t));
    for (let i = 0; i < 100 && !(existsSync(sock) && statSync(sock).isSocket()); i++) await new Promise((r) => setTimeout(r, 100));
    expect(statSync(sock).isSocket()).toBe(true);
    // The daemon's own helper links; a scan through the relay adds none of its own, not even for a moment (the dir's mtime).
    const arg0 = join(codexHome(t), 'tmp', 'arg0-linux');
    const helpers = (): string[] => [...readdirSync(arg0).sort(), `mtime ${statSync(arg0).mtimeMs}`];
    const daemonHelpers = helpers();
    expect(daemonHelpers.length).toBe(2);
    expect((await scan()).warnings.some((w) => w.reason === SOCKET_FALLBACK_WARNING)).toBe(false);
    expect(helpers()).toEqual(daemonHelpers);

    const conn = await connectCodex(installation(t), t.ctx);
    expect(conn.transport).toBe('proxy');
    // Loading a thread in the daemon (a fork is created loaded): another client now holds it.
    const fork = (await conn.client.request('thread/fork', { threadId: target.id })) as { thread: { id: string } };
    const inv = await scan();
    const loaded = inv.sessions.find((s) => s.id === fork.thread.id)!;
    expect(loaded.selectable).toBe(false);
    expect(loaded.blockedReason).toBe(LOADED_REASON);
    expect(inv.warnings.some((w) => w.reason === SOCKET_FALLBACK_WARNING)).toBe(false);
    await expect(
      route().deleteSessions(installation(t), t.ctx, [fork.thread.id], { expectedRevision: loaded.metadata.routeRevision as string }),
    ).rejects.toThrow(/loaded/);
    // Through the daemon, an unloaded thread is deleted (route: the verified shared server).
    const other = inv.sessions.find((s) => s.selectable && s.id !== target.id)!;
    const res = await route().deleteSessions(installation(t), t.ctx, [other.id], { expectedRevision: other.metadata.routeRevision as string });
    expect(res.route).toBe('verifiedServer');
    expect(res.deleted).toEqual([other.id]);
    await conn.close();

    // The daemon dies without cleaning up: its socket is still there but nobody answers.
    process.kill(-daemon.pid!, 'SIGKILL');
    await new Promise((r) => (daemon.exitCode !== null || daemon.signalCode !== null ? r(null) : daemon.once('exit', r)));
    expect(statSync(sock).isSocket()).toBe(true);
    resetSocketBypass();
    // An inventory starts no App Server of its own: with the daemon dead, the state database is the listing.
    const after = await scan();
    expect(after.warnings.some((w) => w.reason === SOCKET_FALLBACK_WARNING)).toBe(false);
    expect(after.sessions.map((s) => s.id).sort()).toEqual(
      inv.sessions
        .filter((s) => s.id !== other.id)
        .map((s) => s.id)
        .sort(),
    );
    expect(after.sessions.find((s) => s.id === fork.thread.id)!.selectable).toBe(true);
    // The killed daemon left its socket (and lock) in the system temp dir: remove what this test caused.
    const sockTarget = readlinkSync(sock);
    rmSync(sockTarget, { force: true });
    rmSync(`${sockTarget}.lock`, { force: true });
  });
});
