// Unit tests of the Codex adapter's parts: title order, project association,
// the JSON-RPC client (out-of-order answers, timeouts, garbage), the line and
// WebSocket framing, schema checks of the state DB and its fallback listing,
// session_index.jsonl, lineage, writer detection through a fake /proc, the
// capability probe's parameters, and a no-executable scan.

import Database from 'better-sqlite3';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MEMORY_RESET_PROBE, probeCapabilities } from '../../src/adapters/codex/connection.js';
import { codexAdapter } from '../../src/adapters/codex/index.js';
import { buildLineage, descendantsOf, minimalRoots } from '../../src/adapters/codex/lineage.js';
import { codexBinary } from '../../src/adapters/codex/paths.js';
import { parseProjectHeaders, ProjectResolver } from '../../src/adapters/codex/projects.js';
import { rolloutMessages } from '../../src/adapters/codex/rollout-reader.js';
import { JsonRpcClient, LineSplitter, RpcClosed, RpcError, RpcTimeout, type MessageChannel } from '../../src/adapters/codex/rpc-client.js';
import { NO_EXECUTABLE, sessionBlock } from '../../src/adapters/codex/scan.js';
import { readSessionIndex } from '../../src/adapters/codex/session-index.js';
import { readStateDb } from '../../src/adapters/codex/state-db.js';
import { scopeBlocker } from '../../src/adapters/codex/delete-route.js';
import { storeRevision, type StoreView } from '../../src/adapters/codex/store.js';
import { parseThread, type ListedThread } from '../../src/adapters/codex/thread-list.js';
import { chooseTitle, UNTITLED, UNTITLED_ZH } from '../../src/adapters/codex/titles.js';
import { acceptFor, encodeFrame, WsReader, type WsEvent } from '../../src/adapters/codex/websocket.js';
import { findCodexWriters } from '../../src/adapters/codex/writers.js';
import type { ScanWarning } from '../../src/engine/core/model.js';
import { CODEX_BIN } from '../helpers/codex.js';
import { fakeProcess, makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';
import { waitUntil } from '../helpers/wait-until.js';

let t: TempEnv | undefined;
afterEach(() => {
  t?.cleanup();
  t = undefined;
});

const A = '01a0ee72-0000-7000-8000-00000000000a';
const B = '01a0ee72-0000-7000-8000-00000000000b';
const C = '01a0ee72-0000-7000-8000-00000000000c';
const D = '01a0ee72-0000-7000-8000-00000000000d';

describe('titles', () => {
  const env = { LANG: 'C.UTF-8' };
  it('follows name → session_index → title → first user message → Untitled, skipping blanks', () => {
    expect(chooseTitle({ serverName: 'srv', dbName: 'db', indexName: 'idx', dbTitle: 't', dbFirstUserMessage: 'f', serverPreview: 'p' }, env)).toEqual({
      title: 'srv',
      named: true,
    });
    expect(chooseTitle({ serverName: '  ', dbName: 'db', indexName: 'idx', dbTitle: 't' }, env)).toEqual({ title: 'db', named: true });
    expect(chooseTitle({ serverName: null, dbName: '', indexName: ' idx ', dbTitle: 't' }, env)).toEqual({ title: 'idx', named: true });
    expect(chooseTitle({ indexName: '\t', dbTitle: 'the title', dbFirstUserMessage: 'f' }, env)).toEqual({ title: 'the title', named: false });
    expect(chooseTitle({ dbTitle: '', dbFirstUserMessage: 'first', serverPreview: 'p' }, env)).toEqual({ title: 'first', named: false });
    expect(chooseTitle({ serverPreview: 'preview' }, env)).toEqual({ title: 'preview', named: false });
    expect(chooseTitle({}, env)).toEqual({ title: UNTITLED, named: false });
  });
  it('is 未命名会话 under a Chinese locale (LC_ALL first, then LC_MESSAGES, then LANG)', () => {
    expect(chooseTitle({}, { LANG: 'zh_CN.UTF-8' }).title).toBe(UNTITLED_ZH);
    expect(chooseTitle({}, { LC_ALL: 'zh_TW', LANG: 'en_US' }).title).toBe(UNTITLED_ZH);
    expect(chooseTitle({}, { LC_ALL: 'en_US.UTF-8', LANG: 'zh_CN' }).title).toBe(UNTITLED);
    expect(chooseTitle({}, { LC_MESSAGES: 'zh_CN' }).title).toBe(UNTITLED_ZH);
  });
  it('strips terminal escapes and control characters', () => {
    expect(chooseTitle({ serverName: '\x1b]0;pwned\x07Evil \x1b[31mred\x1b[0m\nx' }, env).title).toBe('Evil red x');
    expect(chooseTitle({ serverName: '\x1b[2J', dbTitle: 'fallback' }, env).title).toBe('fallback');
  });
});

describe('project association', () => {
  it('reads [projects."<path>"] headers (basic and literal strings, escapes), ignoring relative paths', () => {
    const toml = [
      'model = "x"',
      '[projects."/work/a"]',
      'trust_level = "trusted"',
      "[projects.'/work/lit b']",
      '[ projects . "/w/\\u00e9t\\u00e9" ] # c',
      '[projects."rel/path"]',
      '[projects."/bad\\q"]',
      '[other."/x"]',
    ].join('\n');
    expect(parseProjectHeaders(toml)).toEqual(['/work/a', '/work/lit b', '/w/été']);
  });
  it('prefers the deepest registered root, then the nearest .git, and leaves desktop chats and relative cwds alone', () => {
    t = makeTempEnv();
    const w = join(t.root, 'w');
    mkdirSync(join(w, 'repo', 'pkg', 'src'), { recursive: true });
    mkdirSync(join(w, 'repo', '.git'));
    mkdirSync(join(w, 'wt', 'x'), { recursive: true });
    writeFileSync(join(w, 'wt', '.git'), 'gitdir: /elsewhere\n');
    const desk = join(t.env.HOME!, 'Documents', 'Codex', '2026-11-20', 'chat');
    mkdirSync(desk, { recursive: true });
    const r = new ProjectResolver([
      { root: join(w, 'repo'), name: '' },
      { root: join(w, 'repo', 'pkg'), name: 'The package' },
    ]);
    expect(r.associate(join(w, 'repo', 'pkg', 'src'))).toEqual({ root: join(w, 'repo', 'pkg'), label: 'The package' });
    expect(r.associate(join(w, 'repo'))).toEqual({ root: join(w, 'repo'), label: 'repo' });
    expect(r.associate(join(w, 'wt', 'x'))).toEqual({ root: join(w, 'wt'), label: 'wt' });
    expect(r.associate(desk)).toBeNull();
    expect(r.associate('relative/dir')).toBeNull();
    expect(r.associate('')).toBeNull();
    expect(r.associate(null)).toBeNull();
  });
});

/** A channel whose other side the test plays. */
function fakeChannel(): MessageChannel & { sent: Record<string, unknown>[]; deliver(t: string): void; drop(why: string): void } {
  let onMsg: (t: string) => void = () => undefined;
  let onClose: (w: string) => void = () => undefined;
  const sent: Record<string, unknown>[] = [];
  return {
    sent,
    send: (text) => sent.push(JSON.parse(text) as Record<string, unknown>),
    onMessage: (cb) => (onMsg = cb),
    onClose: (cb) => (onClose = cb),
    close: async () => undefined,
    deliver: (text) => onMsg(text),
    drop: (why) => onClose(why),
  };
}

describe('JSON-RPC client', () => {
  it('matches out-of-order answers by id and ignores garbage, notifications and strangers', async () => {
    const ch = fakeChannel();
    const c = new JsonRpcClient(ch, 1000);
    const p1 = c.request('a', {});
    const p2 = c.request('b', { x: 1 });
    expect(ch.sent.map((m) => [m.id, m.method, m.params])).toEqual([
      [1, 'a', {}],
      [2, 'b', { x: 1 }],
    ]);
    ch.deliver('not json at all');
    ch.deliver('[1,2]');
    ch.deliver('{"method":"thread/started","params":{}}');
    ch.deliver('{"id":99,"result":"nobody"}');
    ch.deliver('{"id":"2","result":"second"}');
    ch.deliver('{"id":1,"error":{"code":-32600,"message":"Invalid request: missing field `threadId`"}}');
    await expect(p2).resolves.toBe('second');
    const e = await p1.catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RpcError);
    expect((e as RpcError).code).toBe(-32600);
    expect(c.ignored).toBe(4);
  });
  it('times out each call on its own and answers server requests with an error', async () => {
    const ch = fakeChannel();
    const c = new JsonRpcClient(ch, 1000);
    const slow = c.request('slow', {}, 30);
    const fast = c.request('fast', {});
    await expect(slow).rejects.toBeInstanceOf(RpcTimeout);
    ch.deliver('{"id":1,"result":"too late"}');
    ch.deliver('{"id":2,"result":"ok"}');
    await expect(fast).resolves.toBe('ok');
    ch.deliver('{"id":7,"method":"item/commandExecution/requestApproval","params":{}}');
    expect(ch.sent.at(-1)).toMatchObject({ id: 7, error: { code: -32601 } });
  });
  it('rejects pending calls when the channel closes, and later calls at once', async () => {
    const ch = fakeChannel();
    const c = new JsonRpcClient(ch, 1000);
    const p = c.request('x', {});
    ch.drop('exit 1');
    await expect(p).rejects.toBeInstanceOf(RpcClosed);
    await expect(c.request('y', {})).rejects.toBeInstanceOf(RpcClosed);
  });
  it('splits lines across chunks and drops an overlong line whole', () => {
    const got: string[] = [];
    const s = new LineSplitter((l) => got.push(l), 10);
    s.push(Buffer.from('{"a":'));
    s.push(Buffer.from('1}\n\n{"b"'));
    s.push(Buffer.from(':2}\n0123456789ABC'));
    s.push(Buffer.from('DEF\nok\n'));
    expect(got).toEqual(['{"a":1}', '{"b":2}', 'ok']);
  });
});

describe('WebSocket framing (control socket)', () => {
  const serverFrame = (opcode: number, payload: Buffer, fin = true): Buffer => {
    const head =
      payload.length < 126
        ? Buffer.from([(fin ? 0x80 : 0) | opcode, payload.length])
        : Buffer.from([(fin ? 0x80 : 0) | opcode, 126, payload.length >> 8, payload.length & 255]);
    return Buffer.concat([head, payload]);
  };
  it('checks the upgrade, joins fragments, reports pings and closes on errors', () => {
    const key = 'dGhlIHNhbXBsZSBub25jZQ==';
    const events: WsEvent[] = [];
    const r = new WsReader(key, (e) => events.push(e));
    const head = `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nSec-WebSocket-Accept: ${acceptFor(key)}\r\n\r\n`;
    const big = 'x'.repeat(300);
    const all = Buffer.concat([
      Buffer.from(head),
      serverFrame(1, Buffer.from('{"id":1,'), false),
      serverFrame(0, Buffer.from('"result":{}}'), true),
      serverFrame(9, Buffer.from('p')),
      serverFrame(1, Buffer.from(big)),
    ]);
    // Byte by byte: frames may arrive split anywhere.
    for (let i = 0; i < all.length; i++) r.push(all.subarray(i, i + 1));
    expect(events.map((e) => e.kind)).toEqual(['open', 'text', 'ping', 'text']);
    expect(events[1]).toEqual({ kind: 'text', text: '{"id":1,"result":{}}' });
    expect((events[3] as { text: string }).text).toBe(big);
    const bad: WsEvent[] = [];
    new WsReader(key, (e) => bad.push(e)).push(Buffer.from('HTTP/1.1 400 Bad\r\n\r\n'));
    expect(bad[0]?.kind).toBe('close');
    const wrong: WsEvent[] = [];
    new WsReader(key, (e) => wrong.push(e)).push(Buffer.from('HTTP/1.1 101 OK\r\nSec-WebSocket-Accept: nope\r\n\r\n'));
    expect(wrong[0]).toMatchObject({ kind: 'close' });
  });
  it('masks client frames', () => {
    const f = encodeFrame(1, Buffer.from('hello'));
    expect(f[0]).toBe(0x81);
    expect(f[1]! & 0x80).toBe(0x80);
    const mask = f.subarray(2, 6);
    expect(Buffer.from(f.subarray(6).map((b, i) => b ^ mask[i & 3]!)).toString()).toBe('hello');
  });
});

describe('capability probe', () => {
  it('never sends memory/reset with absent, null or empty parameters', async () => {
    const ch = fakeChannel();
    const c = new JsonRpcClient(ch, 1000);
    const caps = probeCapabilities(c);
    await waitUntil(() => ch.sent.length >= 2, 'both probes to be sent');
    for (const m of ch.sent) {
      if (m.method === 'thread/delete') ch.deliver(JSON.stringify({ id: m.id, error: { code: -32600, message: 'Invalid request: missing field `threadId`' } }));
      else if (m.method === 'memory/reset')
        ch.deliver(JSON.stringify({ id: m.id, error: { code: -32600, message: 'Invalid request: invalid type: string "x", expected unit' } }));
    }
    await waitUntil(() => ch.sent.some((m) => m.method === 'thread/loaded/list'), 'thread/loaded/list to be sent');
    for (const m of ch.sent) if (m.method === 'thread/loaded/list') ch.deliver(JSON.stringify({ id: m.id, result: { data: [], nextCursor: null } }));
    expect(await caps).toMatchObject({ threadDelete: true, memoryReset: true, loadedList: true });
    const resets = ch.sent.filter((m) => m.method === 'memory/reset');
    expect(resets).toHaveLength(1);
    expect(resets[0]!.params).toBe(MEMORY_RESET_PROBE);
    expect(ch.sent.find((m) => m.method === 'thread/delete')!.params).toEqual({});
  });
  it('counts a method as missing when the server does not know it', async () => {
    const ch = fakeChannel();
    const c = new JsonRpcClient(ch, 1000);
    const caps = probeCapabilities(c);
    await waitUntil(() => ch.sent.length >= 2, 'both probes to be sent');
    for (const m of ch.sent)
      ch.deliver(JSON.stringify({ id: m.id, error: { code: -32600, message: `Invalid request: unknown variant \`${String(m.method)}\`` } }));
    await waitUntil(() => ch.sent.some((m) => m.method === 'thread/loaded/list'), 'thread/loaded/list to be sent');
    for (const m of ch.sent) ch.deliver(JSON.stringify({ id: m.id, error: { code: -32600, message: 'unknown variant' } }));
    expect(await caps).toMatchObject({ threadDelete: false, memoryReset: false });
  });
});

function stateDb(path: string, columns: string[], rows: Record<string, unknown>[]): void {
  const db = new Database(path);
  db.exec(`CREATE TABLE threads (${columns.join(', ')})`);
  db.exec('CREATE TABLE thread_spawn_edges (parent_thread_id TEXT, child_thread_id TEXT PRIMARY KEY, status TEXT)');
  db.exec('CREATE TABLE thread_sections (id TEXT PRIMARY KEY, name TEXT)');
  db.exec("INSERT INTO thread_sections VALUES ('sec-pin', 'Pinned')");
  for (const r of rows) {
    const keys = Object.keys(r);
    db.prepare(`INSERT INTO threads (${keys.join(', ')}) VALUES (${keys.map(() => '?').join(', ')})`).run(...keys.map((k) => r[k] as string | number | null));
  }
  db.close();
}

const FULL = [
  'id TEXT PRIMARY KEY',
  'rollout_path TEXT',
  'created_at INTEGER',
  'updated_at INTEGER',
  'source TEXT',
  'cwd TEXT',
  'title TEXT',
  'archived INTEGER',
  'name TEXT',
  'first_user_message TEXT',
  'preview TEXT',
  'cli_version TEXT',
  'originator TEXT',
  'is_pinned INTEGER',
  'thread_section_id TEXT',
];

describe('state database', () => {
  it('refuses a threads table without the required columns', () => {
    t = makeTempEnv();
    const p = join(t.root, 'state_5.sqlite');
    stateDb(p, ['id TEXT', 'title TEXT'], [{ id: A, title: 'x' }]);
    const r = readStateDb(p, { listing: true });
    expect('error' in r && r.error).toMatch(/lacks the columns rollout_path, created_at, updated_at, source, cwd, archived/);
    // Titles alone still supplement.
    const s = readStateDb(p, { listing: false });
    expect('error' in s).toBe(false);
  });
  it('lists valid rows read-only and ignores rows a malformed rollout left', () => {
    t = makeTempEnv();
    const p = join(t.root, 'state_5.sqlite');
    const roll = (id: string): string => {
      const f = join(t!.root, `rollout-2026-11-20T10-00-00-${id}.jsonl`);
      writeFileSync(f, '{}\n');
      return f;
    };
    const base = {
      created_at: 1795168800,
      updated_at: 1795168900,
      cli_version: '0.1',
      originator: 'codex_cli_rs',
      archived: 0,
      title: 't',
      first_user_message: 'f',
      preview: 'p',
      cwd: '/w',
    };
    stateDb(p, FULL, [
      { ...base, id: A, rollout_path: roll(A), source: 'cli', name: 'Named' },
      {
        ...base,
        id: B,
        rollout_path: roll(B),
        source: JSON.stringify({ subagent: { thread_spawn: { parent_thread_id: A, depth: 1, agent_nickname: 'Euclid' } } }),
        thread_section_id: 'sec-pin',
        archived: 1,
      },
      { ...base, id: C, rollout_path: roll(C), source: 'vscode', cwd: '', originator: null },
      { ...base, id: D, rollout_path: join(t.root, 'gone.jsonl'), source: 'cli' },
      { ...base, id: 'not-a-uuid', rollout_path: roll('x'), source: 'cli' },
    ]);
    const before = hashTree(t.root);
    const r = readStateDb(p, { listing: true });
    expect(treeDiff(before, hashTree(t.root))).toEqual([]);
    if ('error' in r) throw new Error(r.error);
    expect(r.threads!.map((x) => x.id)).toEqual([A, B]);
    expect(r.ignoredRows).toBe(3);
    const b = r.threads!.find((x) => x.id === B)!;
    expect(b).toMatchObject({ parentId: A, archived: true, pinned: true, nickname: 'Euclid', source: 'subagent' });
    expect(r.titles.get(A)).toMatchObject({ name: 'Named', title: 't', firstUserMessage: 'f', pinned: false });
  });
  it('a scan without the codex executable lists the DB read-only with titles in order, nothing selectable', async () => {
    t = makeTempEnv();
    const home = t.env.CODEX_HOME!;
    mkdirSync(join(home, 'sessions'), { recursive: true });
    const roll = join(home, 'sessions', `rollout-2026-11-20T10-00-00-${A}.jsonl`);
    writeFileSync(roll, '{}\n');
    const roll2 = join(home, 'sessions', `rollout-2026-11-20T10-00-00-${B}.jsonl`);
    writeFileSync(roll2, '{}\n');
    writeFileSync(join(home, 'session_index.jsonl'), JSON.stringify({ id: B, thread_name: 'From the index' }) + '\n');
    const base = { created_at: 1795168800, updated_at: 1795168900, cli_version: '0.1', originator: 'o', archived: 0, source: 'cli', cwd: '/w', preview: 'p' };
    stateDb(join(home, 'state_5.sqlite'), FULL, [
      { ...base, id: A, rollout_path: roll, title: '', first_user_message: 'first message' },
      { ...base, id: B, rollout_path: roll2, title: 'db title', first_user_message: 'f', name: '  ' },
    ]);
    const inst = {
      agent: 'codex' as const,
      displayName: 'Codex',
      memoryNotice: '',
      state: 'dataOnly' as const,
      home,
      homeSource: 'env' as const,
      executable: null,
      version: null,
      warnings: [],
    };
    const before = hashTree(t.root, [t.procRoot]);
    const inv = await codexAdapter.scan(inst, t.ctx, () => undefined);
    expect(treeDiff(before, hashTree(t.root, [t.procRoot]))).toEqual([]);
    expect(inv.sessions.map((s) => [s.id, s.title, s.named, s.selectable, s.blockedReason])).toEqual([
      [A, 'first message', false, false, NO_EXECUTABLE],
      [B, 'From the index', true, false, NO_EXECUTABLE],
    ]);
  });
});

describe('session_index.jsonl', () => {
  it('keeps the last name per id and drops blank ones', async () => {
    t = makeTempEnv();
    const w: ScanWarning[] = [];
    writeFileSync(
      join(t.root, 'session_index.jsonl'),
      [
        { id: A, thread_name: 'one' },
        { id: B, thread_name: 'b' },
        { id: A, thread_name: ' two ' },
        { id: B, thread_name: '  ' },
      ]
        .map((r) => JSON.stringify(r))
        .join('\n') + '\n\n',
    );
    const names = await readSessionIndex(t.root, w);
    expect([...names]).toEqual([[A, 'two']]);
    expect(w).toEqual([]);
  });
  it('ignores the whole index when a line is malformed or the file is a link', async () => {
    t = makeTempEnv();
    const w: ScanWarning[] = [];
    writeFileSync(join(t.root, 'session_index.jsonl'), `${JSON.stringify({ id: A, thread_name: 'one' })}\n{broken\n`);
    expect((await readSessionIndex(t.root, w)).size).toBe(0);
    expect(w[0]!.reason).toMatch(/malformed/);
    const other = join(t.root, 'other');
    mkdirSync(other);
    writeFileSync(join(t.root, 'real.jsonl'), `${JSON.stringify({ id: A, thread_name: 'one' })}\n`);
    symlinkSync(join(t.root, 'real.jsonl'), join(other, 'session_index.jsonl'));
    const w2: ScanWarning[] = [];
    expect((await readSessionIndex(other, w2)).size).toBe(0);
    expect(w2[0]!.reason).toMatch(/symbolic link/);
  });
});

describe('lineage and blockers', () => {
  const th = (id: string, parentId: string | null, extra: Partial<ListedThread> = {}): ListedThread => ({
    id,
    parentId,
    depth: null,
    nickname: null,
    archived: false,
    name: null,
    preview: 'p',
    cwd: '/w',
    path: null,
    source: 'cli',
    historyMode: 'legacy',
    pinned: false,
    forkedFromId: null,
    createdAt: null,
    updatedAt: null,
    status: 'notLoaded',
    modelProvider: 'openai',
    ...extra,
  });
  it('finds descendants, minimal roots and cycles', () => {
    const l = buildLineage([th(A, null), th(B, A), th(C, B), th(D, D)]);
    expect(descendantsOf(l, A)).toEqual([B, C]);
    expect(minimalRoots(l, [C, A, B])).toEqual([A]);
    expect(minimalRoots(l, [C, B])).toEqual([B]);
    expect(l.parentOf.has(D)).toBe(false);
    const cyc = buildLineage([th(A, C), th(B, A), th(C, B)]);
    expect([...cyc.inCycle].sort()).toEqual([A, B, C]);
  });
  it('blocks a scope on a fork outside it that reads its history, a loaded member, a pinned member', () => {
    const threads = [th(A, null), th(B, A), th(C, null, { historyMode: 'paginated' })];
    const store = {
      byId: new Map(threads.map((x) => [x.id, x])),
      lineage: buildLineage(threads),
      loaded: new Set<string>(),
      state: null,
      forkDeps: new Map([[B, [C]]]),
    } as unknown as StoreView;
    expect(scopeBlocker('/h', store, new Map(), [A, B])).toMatch(/a fork .* still reads the history/);
    (store.forkDeps as Map<string, string[]>).set(B, []);
    expect(scopeBlocker('/h', store, new Map(), [A, B])).toBeNull();
    store.loaded.add(B);
    expect(scopeBlocker('/h', store, new Map(), [A, B])).toMatch(/loaded/);
    store.loaded.clear();
    expect(scopeBlocker('/h', store, new Map([[B, 42]]), [A, B])).toMatch(/pid 42/);
    threads[0]!.pinned = true;
    expect(scopeBlocker('/h', store, new Map(), [A, B])).toMatch(/Pinned/);
  });
  it('the revision follows structure, not sizes or names', () => {
    const a = [th(A, null), th(B, A)];
    const r = storeRevision(a, new Map());
    expect(storeRevision([th(B, A, { name: 'renamed' }), th(A, null, { updatedAt: 5 })], new Map())).toBe(r);
    expect(storeRevision([th(A, null), th(B, null)], new Map())).not.toBe(r);
    expect(storeRevision([th(A, null, { archived: true }), th(B, A)], new Map())).not.toBe(r);
    expect(storeRevision(a, new Map([[A, [B]]]))).not.toBe(r);
  });
  it('parses a listed thread defensively (parent from the spawn source, pinned from the section)', () => {
    expect(parseThread({ id: 'nope' }, false)).toBeNull();
    const p = parseThread(
      {
        id: B.toUpperCase(),
        parentThreadId: null,
        source: { subAgent: { thread_spawn: { parent_thread_id: A, depth: 2, agent_nickname: 'Turing' } } },
        section: { id: 'x', name: 'Pinned' },
        status: { type: 'idle' },
        createdAt: 1795168800,
        preview: 42,
      },
      true,
    )!;
    expect(p).toMatchObject({
      id: B,
      parentId: A,
      depth: 2,
      nickname: 'Turing',
      pinned: true,
      status: 'idle',
      archived: true,
      preview: '',
      createdAt: 1795168800000,
      source: 'subagent',
    });
  });
});

describe('writers', () => {
  it('finds a Codex using this home and the threads it holds open; ignores one on another home', async () => {
    t = makeTempEnv();
    const home = t.env.CODEX_HOME!;
    const roll = join(home, 'sessions', '2026', '11', '20', `rollout-2026-11-20T10-00-00-${A}.jsonl`);
    mkdirSync(join(home, 'sessions', '2026', '11', '20'), { recursive: true });
    writeFileSync(roll, '{}\n');
    fakeProcess(t.procRoot, 4242, 'codex', ['codex', 'resume']);
    writeFileSync(join(t.procRoot, '4242', 'environ'), `HOME=${t.env.HOME}\0CODEX_HOME=${home}\0`);
    mkdirSync(join(t.procRoot, '4242', 'fd'));
    symlinkSync(roll, join(t.procRoot, '4242', 'fd', '7'));
    symlinkSync('/dev/null', join(t.procRoot, '4242', 'fd', '0'));
    fakeProcess(t.procRoot, 4343, 'node', ['node', '/usr/lib/node_modules/@openai/codex/bin/codex.js']);
    writeFileSync(join(t.procRoot, '4343', 'environ'), `HOME=/somewhere/else\0`);
    fakeProcess(t.procRoot, 4444, 'bash', ['bash']);
    const w = await findCodexWriters({ ...t.ctx, platform: 'linux' }, home);
    expect(w.writers.map((x) => x.pid)).toEqual([4242]);
    expect(w.writers[0]).toMatchObject({ command: 'codex resume', evidence: `holds ${roll} open` });
    expect([...w.held]).toEqual([[A, 4242]]);
  });

  it('a Codex whose open files cannot be read blocks the threads, named with its command line and why', async () => {
    t = makeTempEnv();
    const home = t.env.CODEX_HOME!;
    mkdirSync(home, { recursive: true });
    fakeProcess(t.procRoot, 4545, 'codex', ['codex', 'exec', 'fix it']);
    writeFileSync(join(t.procRoot, '4545', 'environ'), `HOME=${t.env.HOME}\0CODEX_HOME=${home}\0`);
    const w = await findCodexWriters({ ...t.ctx, platform: 'linux' }, home);
    expect(w.opaque.map((x) => x.pid)).toEqual([4545]);
    const inst = { executable: '/x/codex' } as Parameters<typeof sessionBlock>[0];
    const store = { notStarted: true } as Parameters<typeof sessionBlock>[1];
    expect(sessionBlock(inst, store, w, undefined)).toBe(
      `A running Codex cannot be inspected (codex pid 4545 (${w.opaque[0]!.user}: codex exec fix it; CODEX_HOME=${home})); quit it to delete threads.`,
    );
  });
});

describe('executable', () => {
  it('runs the platform binary behind the npm launcher, and anything else as given', () => {
    const launcher = join(process.cwd(), 'node_modules', '.bin', 'codex');
    expect(codexBinary(launcher)).toBe(CODEX_BIN);
    expect(codexBinary('/usr/bin/env')).toBe('/usr/bin/env');
    expect(codexBinary('/no/such/codex')).toBe('/no/such/codex');
    expect(codexAdapter.cleanVersion('codex-cli 0.171.0\n')).toBe('0.171.0');
  });
});

describe('rollout fallback reader', () => {
  it('reads user and agent messages from events, else from response items', () => {
    const lines = [
      { type: 'session_meta', payload: { id: A } },
      { type: 'event_msg', payload: { type: 'user_message', message: 'hello' } },
      { type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'dup' }] } },
      { type: 'event_msg', payload: { type: 'agent_message', message: 'hi there' } },
    ].map((l) => JSON.stringify(l));
    expect(rolloutMessages([...lines, 'garbage'].join('\n'))).toEqual([
      { role: 'user', text: 'hello' },
      { role: 'assistant', text: 'hi there' },
    ]);
    expect(rolloutMessages(lines[2]!)).toEqual([{ role: 'user', text: 'dup' }]);
  });
});
