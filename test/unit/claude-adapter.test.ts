// The Claude Code adapter against homes written by the project's own fixture
// builder and by hand, in a temp env: listSessions() titles, cwd, projects per bucket,
// owned paths and sizes, skips with warnings, orphans, memory, combined and
// protected items, links inside owned trees, writers through a fake /proc,
// hostile input (sparse 3 GB, non-UTF-8, escapes, vanishing files) and previews.

import { walkOwned } from '../../src/engine/inventory/revision.js';
import { randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs, { closeSync, lstatSync, mkdirSync, openSync, readdirSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildClaudeFixture, claudeSlug, type ClaudeFixtureManifest, type ClaudeFixtureOptions } from '../../src/adapters/claude/fixture.js';
import { claudeAdapter } from '../../src/adapters/claude/index.js';
import { CLAUDE_HEAD_BYTES, CLAUDE_TAIL_BYTES, readClaudeTranscript } from '../../src/adapters/claude/transcript-reader.js';
import { CLAUDE_RUNNING_REASON, isClaudeProcess } from '../../src/adapters/claude/writers.js';
import { ADAPTERS } from '../../src/adapters/registry.js';
import { Engine } from '../../src/engine/api/engine.js';
import { uuidv5Url } from '../../src/engine/core/ids.js';
import type { Installation, Item, ScanSummary, SessionRecord } from '../../src/engine/core/model.js';
import type { Snapshot } from '../../src/engine/inventory/snapshot.js';
import { CLI } from '../helpers/pty-screen.js';
import { fakeProcess, makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

// eslint-disable-next-line no-control-regex
const UNSAFE = /[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const TS = '2026-11-20T10:00:00.000Z';
const GiB = 1024 ** 3;

let t: TempEnv;
afterEach(() => {
  vi.restoreAllMocks();
  syncBuiltinESMExports();
  t?.cleanup();
});

const home = (): string => t.env.CLAUDE_CONFIG_DIR!;
const codeRoot = (): string => join(t.env.HOME!, 'code');

function build(o: Partial<ClaudeFixtureOptions> = {}): ClaudeFixtureManifest {
  return buildClaudeFixture({ configDir: home(), cwdRoot: codeRoot(), ...o });
}

/** A fixed-looking UUID from a number. */
const uid = (n: number): string => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

type Row = Record<string, unknown>;
/** A chain row, keys in Claude's order so `{"parentUuid":` leads the line. */
const chainRow = (id: string, cwd: string | null, role: 'user' | 'assistant', content: unknown, extra: Row = {}): Row => ({
  parentUuid: null,
  isSidechain: false,
  type: role,
  message: { role, content },
  uuid: randomUUID(),
  timestamp: TS,
  userType: 'external',
  entrypoint: 'cli',
  ...(cwd === null ? {} : { cwd }),
  sessionId: id,
  version: '2.1.332',
  ...extra,
});
const mode = (id: string): Row => ({ type: 'permission-mode', permissionMode: 'default', sessionId: id });
const custom = (id: string, v: string): Row => ({ type: 'custom-title', customTitle: v, sessionId: id });
const aiTitle = (id: string, v: string): Row => ({ type: 'ai-title', aiTitle: v, sessionId: id });
const lastPrompt = (id: string, v: string): Row => ({ type: 'last-prompt', lastPrompt: v, leafUuid: '', sessionId: id });
const jsonl = (rows: Row[]): string => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';

function bucketDir(cwd: string): string {
  const dir = join(home(), 'projects', claudeSlug(cwd));
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Writes projects/<slug(cwd)>/<name>; rows as JSONL unless raw bytes are given. */
function writeTranscript(cwd: string, id: string, rows: Row[], opts: { raw?: string | Buffer; name?: string } = {}): string {
  const file = join(bucketDir(cwd), opts.name ?? `${id}.jsonl`);
  writeFileSync(file, opts.raw ?? jsonl(rows));
  return file;
}

/** A small, well-formed session: mode row, one prompt, one answer. */
function simpleSession(cwd: string, id: string, prompt: string, extra: Row[] = []): string {
  return writeTranscript(cwd, id, [mode(id), chainRow(id, cwd, 'user', prompt), chainRow(id, cwd, 'assistant', [{ type: 'text', text: 'ok' }]), ...extra]);
}

interface Scanned {
  engine: Engine;
  sum: ScanSummary;
  snap: Snapshot;
  s(id: string): SessionRecord;
  has(id: string): boolean;
  item(id: string): Item;
  warning(path: string): string | undefined;
}

async function scan(): Promise<Scanned> {
  const engine = new Engine(ADAPTERS, t.ctx);
  const sum = await engine.scan('claude');
  const snap = engine.snapshot(sum.snapshotId);
  return {
    engine,
    sum,
    snap,
    s: (id) => {
      const n = snap.forest.nodeById.get(id);
      if (!n) throw new Error(`session ${id} not listed; have ${[...snap.forest.nodeById.keys()].join(', ')}`);
      return n.s;
    },
    has: (id) => snap.forest.nodeById.has(id),
    item: (id) => {
      const it = snap.item(id);
      if (!it) throw new Error(`item ${id} not listed; have ${snap.items.map((i) => i.id).join(', ')}`);
      return it;
    },
    warning: (path) => sum.warnings.find((w) => w.path === path)?.reason,
  };
}

/** Apparent size of every regular file under the paths, links not followed. */
function fileBytes(paths: string[]): number {
  let n = 0;
  const visit = (p: string): void => {
    const st = lstatSync(p);
    if (st.isDirectory()) for (const c of readdirSync(p)) visit(join(p, c));
    else if (st.isFile()) n += st.size;
  };
  for (const p of paths) visit(p);
  return n;
}

const allPaths = (r: Scanned): Set<string> => new Set(r.snap.forest.nodes.flatMap((n) => n.s.paths));

describe('a fixture home', () => {
  it.each([1, 7])('lists every session (seed %i) with the title Claude lists, cwd, source, times, archive state and owned paths', async (seed) => {
    t = makeTempEnv();
    const m = build({ projects: 8, sessionsPerProject: 5, seed, hostile: true });
    // The build exercises every title path, a fork, a branch, resumed files and a tail-only title.
    expect(new Set(m.sessions.map((s) => s.titleSource))).toEqual(new Set(['custom', 'ai', 'summary', 'prompt', 'fallback']));
    expect(new Set(m.sessions.map((s) => s.kind))).toEqual(new Set(['plain', 'fork', 'branch', 'resumed', 'tailTitle', 'peerCase']));
    const r = await scan();
    expect(r.sum.sessionCount).toBe(m.sessions.length);
    for (const ms of m.sessions) {
      const s = r.s(ms.id);
      const what = `${ms.kind}/${ms.titleSource} ${ms.id}`;
      expect(s.title, what).toBe(ms.expectedTitle);
      expect(s.title, what).not.toMatch(UNSAFE);
      expect(s.named, what).toBe(ms.titleSource === 'custom');
      expect(s.cwd, what).toBe(ms.cwd);
      expect(s.source, what).toBe(ms.entrypoint);
      // The first timestamp of any row, as Claude's lister takes it (an -p enqueue row comes seconds before the chain).
      expect(s.createdAt, what).toBe(ms.createdAt);
      expect(s.state, what).toBe(ms.archived ? 'archived' : 'current');
      expect(s.updatedAt, what).toBe(ms.mtime);
      expect([...s.paths].sort(), what).toEqual([ms.file, ...ms.ownedPaths].sort());
      expect(s.paths[0], what).toBe(ms.file);
      expect(s.bytes, what).toBeGreaterThanOrEqual(fileBytes(s.paths));
      expect(s.selectable, what).toBe(true);
      expect(s.blockedReason, what).toBeUndefined();
      expect(s.recoverable).toBe(true);
      expect(typeof s.metadata.sourceRevision).toBe('string');
      // What the executor's preflight recomputes (the scan reuses the transcript's fstat).
      expect(s.metadata.sourceRevision, what).toBe(walkOwned(s.paths, { uid: t.ctx.uid }).revision);
    }
    // The escape-laden custom title of the first session arrives as inert text.
    expect(r.s(m.sessions[0]!.id).title).toBe('evil RED title');
    // The >2 MiB transcript whose custom title sits only in its last 64 KiB.
    const big = m.sessions.find((s) => s.kind === 'tailTitle')!;
    expect(statSync(big.file).size).toBeGreaterThan(CLAUDE_HEAD_BYTES);
    expect(r.s(big.id).title).toBe('Giant build log triage');
  });

  it('the --json scan of the real binary shows the same titles and paths', async () => {
    t = makeTempEnv();
    const m = build({ projects: 6, sessionsPerProject: 4, seed: 3, hostile: true });
    const out = spawnSync(process.execPath, [CLI, 'scan', '--agent', 'claude', '--json'], { env: t.env, encoding: 'utf8' });
    expect(out.status, out.stderr).toBe(0);
    const report = JSON.parse(out.stdout) as { agents: { agent: string; sessions: { id: string; title: string; cwd: string | null; paths: string[] }[] }[] };
    expect(report.agents.map((a) => a.agent)).toEqual(['claude']);
    const listed = report.agents[0]!.sessions;
    expect(listed).toHaveLength(m.sessions.length);
    const byId = new Map(listed.map((s) => [s.id, s]));
    for (const ms of m.sessions) {
      expect(byId.get(ms.id)?.title, ms.id).toBe(ms.expectedTitle);
      expect(byId.get(ms.id)?.cwd, ms.id).toBe(ms.cwd);
      expect([...byId.get(ms.id)!.paths].sort()).toEqual([ms.file, ...ms.ownedPaths].sort());
    }
    expect(out.stdout).not.toContain('\\u001b');
  });

  it('groups sessions per bucket: my-app and my.app collide into one project with two roots', async () => {
    t = makeTempEnv();
    const m = build({ projects: 6, sessionsPerProject: 4, seed: 1 });
    const r = await scan();
    const withSessions = m.buckets.filter((b) => m.sessions.some((s) => s.bucket === b.name));
    expect(r.sum.projects).toHaveLength(withSessions.length);
    for (const b of withSessions) {
      const id = uuidv5Url(realpathSync(join(home(), 'projects', b.name)));
      const mine = m.sessions.filter((s) => s.bucket === b.name);
      for (const ms of mine) expect(r.s(ms.id).projectId, ms.id).toBe(id);
      const p = r.sum.projects.find((x) => x.id === id)!;
      expect(p.sessions).toBe(mine.length);
      expect([...p.roots].sort()).toEqual([...b.cwds].sort());
    }
    const slug = claudeSlug(`${codeRoot()}/my-app`);
    expect(slug).toBe(claudeSlug(`${codeRoot()}/my.app`));
    const collided = r.sum.projects.find((p) => p.id === uuidv5Url(realpathSync(join(home(), 'projects', slug))))!;
    expect([...collided.roots].sort()).toEqual([`${codeRoot()}/my-app`, `${codeRoot()}/my.app`]);
    // Distinct buckets are distinct projects, even nested ones.
    expect(new Set(r.sum.projects.map((p) => p.id)).size).toBe(r.sum.projects.length);
    const labels = r.sum.projects.map((p) => p.label);
    expect(labels).toEqual(expect.arrayContaining(['api-server', 'web-app', 'ui', 'service', 'données-été 🎮']));
  });

  it('every skipped entry gives a warning (or a read-only item) and no session; the rest stays complete', async () => {
    t = makeTempEnv();
    const m = build({ projects: 4, sessionsPerProject: 4, seed: 5, hostile: true });
    expect(m.skipped.length).toBeGreaterThanOrEqual(7);
    const r = await scan();
    const listed = allPaths(r);
    const registry = join(home(), 'sessions');
    for (const sk of m.skipped) {
      expect(listed.has(sk.path), `${sk.why}: listed`).toBe(false);
      if (sk.path.endsWith('.jsonl.bak')) {
        // Not a transcript name at all: ignored like Claude's own lister ignores it.
        expect(r.warning(sk.path)).toBeUndefined();
      } else if (sk.path.startsWith(`${registry}/`)) {
        // A stale live-process entry is not a session; the registry is listed read-only.
        expect(r.item('protected:claude:sessions')).toMatchObject({ selectable: false, paths: [registry] });
      } else {
        expect(r.warning(sk.path), `${sk.why}: ${sk.path}`).toBeDefined();
      }
    }
    const reasons = Object.fromEntries(m.skipped.map((sk) => [sk.why, r.warning(sk.path) ?? '']));
    expect(reasons['zero-byte transcript']).toMatch(/empty/);
    expect(reasons['binary junk']).toMatch(/no readable JSON rows/);
    expect(reasons['file name is not a UUID']).toMatch(/unrecognized or linked/);
    expect(reasons['a directory, not a file']).toMatch(/unrecognized or linked/);
    expect(reasons['symlinked transcript (target outside the store)']).toMatch(/unrecognized or linked/);
    expect(reasons['symlinked project dir']).toMatch(/symlinked Claude project directory/);
    // The stale registry entry (pid 999999) does not mark anything active.
    expect(r.sum.writers).toEqual([]);
    expect(r.snap.forest.nodes.some((n) => n.s.metadata.status === 'active')).toBe(false);
    expect(r.sum.sessionCount).toBe(m.sessions.length);
    for (const ms of m.sessions) expect(r.s(ms.id).title).toBe(ms.expectedTitle);
  });

  it('lists per-session leftovers without a transcript as orphan items, apart from any session', async () => {
    t = makeTempEnv();
    const m = build({ projects: 3, sessionsPerProject: 4, seed: 2, hostile: true });
    expect(m.orphans.length).toBe(3);
    const r = await scan();
    const orphans = r.sum.items.filter((i) => i.id.startsWith('orphan:claude:'));
    const inItems = orphans.flatMap((i) => r.item(i.id).paths);
    for (const o of m.orphans) {
      expect(
        inItems.filter((p) => p === o),
        o,
      ).toHaveLength(1);
      expect(allPaths(r).has(o)).toBe(false);
    }
    // No owned path of a listed session is ever called an orphan.
    for (const p of inItems) expect(allPaths(r).has(p)).toBe(false);
    for (const it of orphans) {
      const full = r.item(it.id);
      expect(full).toMatchObject({ risk: 'safe', recoverable: false, selectable: true });
      expect(full.bytes).toBeGreaterThanOrEqual(fileBytes(full.paths));
    }
    expect(r.item('orphan:claude:debug').category).toBe('log');
    // debug/latest is Claude's own symlink, never anybody's leftover.
    expect(inItems.some((p) => p.endsWith('/debug/latest'))).toBe(false);
  });

  it('one memory item per bucket memory/ dir: recoverable, selectable, in its project', async () => {
    t = makeTempEnv();
    const m = build({ projects: 6, sessionsPerProject: 2, seed: 4 });
    const r = await scan();
    const memBuckets = m.buckets.filter((b) => b.memory);
    expect(memBuckets.length).toBe(4);
    const items = r.snap.items.filter((i) => i.category === 'memory');
    expect(items).toHaveLength(memBuckets.length);
    for (const b of memBuckets) {
      const dir = join(home(), 'projects', b.name, 'memory');
      const it = items.find((i) => i.paths[0] === dir)!;
      expect(it, b.name).toBeDefined();
      expect(it).toMatchObject({ paths: [dir], recoverable: true, selectable: true, risk: 'high' });
      expect(it.id).toBe(`memory:${uuidv5Url(realpathSync(join(home(), 'projects', b.name)))}`);
      expect(it.bytes).toBeGreaterThanOrEqual(fileBytes([dir]));
      const sessionOf = m.sessions.find((s) => s.bucket === b.name);
      if (sessionOf) {
        expect(it.projectId).toBe(r.s(sessionOf.id).projectId);
        expect(it.label).toMatch(/ memory$/);
      } else expect(it.label).toBe('Unlinked Claude project memory');
    }
    // A memory-only bucket is not a session project row.
    expect(r.sum.projects.every((p) => p.sessions > 0)).toBe(true);
  });

  it('prompt history, caches and temporary data are three combined items', async () => {
    t = makeTempEnv();
    build({ projects: 2, sessionsPerProject: 3 });
    const r = await scan();
    const h = home();
    expect(r.item('claude-history')).toMatchObject({ category: 'log', risk: 'review', recoverable: true, selectable: true, paths: [join(h, 'history.jsonl')] });
    expect(r.item('claude-cache')).toMatchObject({
      category: 'cache',
      risk: 'safe',
      selectable: true,
      paths: ['cache', 'paste-cache', 'stats-cache.json', 'usage-data'].map((n) => join(h, n)),
    });
    expect(r.item('claude-temporary')).toMatchObject({
      category: 'temporary',
      selectable: true,
      paths: ['plans', 'shell-snapshots', 'logs'].map((n) => join(h, n)),
    }); // its one todo list went with its session
    for (const id of ['claude-history', 'claude-cache', 'claude-temporary']) {
      const it = r.item(id);
      expect(it.bytes).toBeGreaterThanOrEqual(fileBytes(it.paths));
      expect(it.bytes).toBeGreaterThan(0);
      expect(typeof it.metadata.sourceRevision).toBe('string');
    }
  });

  it('protected configuration is listed, never selectable, never opened; an unknown entry is read-only', async () => {
    t = makeTempEnv();
    const m = build({ projects: 2, sessionsPerProject: 2 });
    expect(m.protectedNames).toContain('.claude.json');
    const r = await scan();
    for (const name of m.protectedNames) {
      const it = r.item(`protected:claude:${name}`);
      expect(it, name).toMatchObject({ category: 'protected', risk: 'protected', selectable: false, recoverable: false, paths: [join(home(), name)] });
      expect(it.blockedReason).toMatch(/Protected/);
    }
    expect(r.item('protected:claude:.claude.json').paths).toEqual([join(home(), '.claude.json')]);
    expect(r.item('protected:claude:mystery-dir')).toMatchObject({
      selectable: false,
      blockedReason: 'Not recognized — not a Claude Code path cleanerx knows; it never guesses.',
    });
    for (const known of ['ide', 'statsig', 'telemetry'])
      expect(r.item(`protected:claude:${known}`)).toMatchObject({ selectable: false, blockedReason: 'Reported only.' });
    expect(r.sum.items.filter((i) => i.category === 'protected').every((i) => !i.selectable)).toBe(true);
    expect(r.sum.selection.some((e) => e.id.startsWith('protected:'))).toBe(false);
    const pv = await r.engine.preview(r.sum.snapshotId, 'protected:claude:.credentials.json');
    expect(pv.bytesRead).toBe(0);
    expect(JSON.stringify(pv)).not.toContain('sk-ant');
  });

  it('with the default home, the global .claude.json beside it is the protected one', async () => {
    t = makeTempEnv();
    const env = { ...t.ctx.env, CLAUDE_CONFIG_DIR: undefined };
    const h = join(t.env.HOME!, '.claude');
    const m = buildClaudeFixture({ configDir: h, claudeJsonPath: join(t.env.HOME!, '.claude.json'), projects: 1, sessionsPerProject: 2, cwdRoot: codeRoot() });
    expect(m.protectedNames).not.toContain('.claude.json');
    const inst: Installation = {
      agent: 'claude',
      displayName: 'Claude Code',
      memoryNotice: '',
      state: 'dataOnly',
      home: h,
      homeSource: 'default',
      executable: null,
      version: null,
      warnings: [],
    };
    const inv = await claudeAdapter.scan(inst, { ...t.ctx, env }, () => undefined);
    expect(inv.items.find((i) => i.id === 'protected:claude:.claude.json')).toMatchObject({ paths: [join(t.env.HOME!, '.claude.json')], selectable: false });
    expect(inv.sessions.map((x) => x.title).sort()).toEqual(m.sessions.map((x) => x.expectedTitle).sort());
    expect(inv.items.some((i) => i.paths.includes(join(h, '.claude.json')))).toBe(false);
  });

  it('a symlink inside one session’s owned dir makes that session read-only, naming the link', async () => {
    t = makeTempEnv();
    const m = build({ projects: 2, sessionsPerProject: 4, seed: 1 });
    const victim = m.sessions.find((s) => s.ownedPaths.some((p) => p.includes('/file-history/')))!;
    expect(victim).toBeDefined();
    const link = join(victim.ownedPaths.find((p) => p.includes('/file-history/'))!, 'link');
    symlinkSync('/etc/hostname', link);
    const r = await scan();
    const s = r.s(victim.id);
    expect(s.selectable).toBe(false);
    expect(s.blockedReason).toContain(link);
    expect(s.blockedReason).toMatch(/symbolic link/);
    for (const other of m.sessions.filter((x) => x.id !== victim.id)) expect(r.s(other.id).selectable, other.id).toBe(true);
    expect(r.sum.selection.some((e) => e.id === `session:${victim.id}`)).toBe(false);
  });

  it('a symlinked memory dir is skipped with a warning; a link inside one makes it read-only', async () => {
    t = makeTempEnv();
    const cwd = '/src/app';
    simpleSession(cwd, uid(1), 'hello');
    const mem = join(bucketDir(cwd), 'memory');
    mkdirSync(mem);
    writeFileSync(join(mem, 'MEMORY.md'), '- notes\n');
    symlinkSync('/etc/hostname', join(mem, 'secret.md'));
    const other = bucketDir('/src/other');
    simpleSession('/src/other', uid(2), 'hi');
    const outside = join(t.root, 'outside-memory');
    mkdirSync(outside);
    symlinkSync(outside, join(other, 'memory'));
    const r = await scan();
    const items = r.snap.items.filter((i) => i.category === 'memory');
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ paths: [mem], selectable: false, label: 'app memory' });
    expect(items[0]!.blockedReason).toContain(join(mem, 'secret.md'));
    expect(r.warning(join(other, 'memory'))).toMatch(/symlinked Claude project memory/);
  });
});

describe('writer detection', () => {
  function procStat(pid: number, comm: string, start: string): void {
    const dir = join(t.procRoot, String(pid));
    mkdirSync(dir, { recursive: true });
    // Fields 3..52 after "pid (comm)": field 22 (starttime) is the 20th of them.
    const rest = Array.from({ length: 50 }, (_, i) => (i === 0 ? 'S' : i === 19 ? start : '0'));
    writeFileSync(join(dir, 'stat'), `${pid} (${comm}) ${rest.join(' ')}\n`);
  }
  function registry(pid: number, sessionId: string, procStart: string): void {
    mkdirSync(join(home(), 'sessions'), { recursive: true });
    writeFileSync(
      join(home(), 'sessions', `${pid}.json`),
      JSON.stringify({ pid, sessionId, cwd: '/src/app', startedAt: 1, procStart, version: '2.1.332', kind: 'interactive', entrypoint: 'cli', status: 'idle' }),
    );
  }

  it('a running claude blocks every writable item with the reason', async () => {
    t = makeTempEnv();
    build({ projects: 2, sessionsPerProject: 3 });
    fakeProcess(t.procRoot, 4242, 'claude', ['claude', '--resume']);
    fakeProcess(t.procRoot, 4243, 'bash', ['bash']);
    const r = await scan();
    expect(r.sum.writers).toMatchObject([{ pid: 4242, name: 'claude', command: 'claude --resume', evidence: expect.stringMatching(/cannot be read/) }]);
    for (const n of r.snap.forest.nodes)
      expect(n.s).toMatchObject({ selectable: false, blockedReason: expect.stringContaining(`${CLAUDE_RUNNING_REASON} Running: claude pid 4242 (`) });
    const writable = r.snap.items.filter((i) => i.category !== 'protected');
    expect(writable.length).toBeGreaterThan(4);
    for (const it of writable)
      expect(it, it.id).toMatchObject({ selectable: false, blockedReason: expect.stringContaining(`${CLAUDE_RUNNING_REASON} Running: claude pid 4242 (`) });
    expect(r.sum.selection).toEqual([]);
  });

  it('recognizes the native build, the npm package and claude.exe, and nothing else', async () => {
    const p = (comm: string, argv: string[], exe: string | null = null) => ({ pid: 1, comm, argv, exe });
    expect(isClaudeProcess(p('claude', []))).toBe(true);
    expect(isClaudeProcess(p('claude.exe', ['/usr/lib/node_modules/@anthropic-ai/claude-code/bin/claude.exe']))).toBe(true);
    expect(isClaudeProcess(p('2.1.332', ['/home/u/.local/share/claude/versions/2.1.332'], '/home/u/.local/share/claude/versions/2.1.332'))).toBe(true);
    expect(isClaudeProcess(p('node', ['node', '/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js']))).toBe(true);
    expect(isClaudeProcess(p('claude-monitor', ['claude-monitor']))).toBe(false);
    expect(isClaudeProcess(p('vim', ['vim', '/home/u/.claude/settings.json']))).toBe(false);
    expect(isClaudeProcess(p('node', ['node', 'claude.js']))).toBe(false);
    t = makeTempEnv();
    simpleSession('/src/app', uid(1), 'hello');
    fakeProcess(t.procRoot, 300, 'vim', ['vim', join(home(), 'settings.json')]);
    expect((await scan()).s(uid(1)).selectable).toBe(true);
    fakeProcess(t.procRoot, 301, 'node', ['/usr/bin/node', '/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js']);
    const r = await scan();
    expect(r.sum.writers.map((w) => w.pid)).toEqual([301]);
    expect(r.s(uid(1)).blockedReason).toContain(`${CLAUDE_RUNNING_REASON} Running: `);
  });

  it('a live registry entry (pid alive, start time equal) marks its session active and blocks', async () => {
    t = makeTempEnv();
    simpleSession('/src/app', uid(1), 'the live one');
    simpleSession('/src/app', uid(2), 'another');
    registry(5150, uid(1), '777');
    // A process name with spaces and parentheses must not shift the fields.
    procStat(5150, 'tmux: (x) y', '777');
    const r = await scan();
    expect(r.sum.writers).toMatchObject([{ pid: 5150, name: 'claude', evidence: expect.stringMatching(/^registered in .*5150\.json$/) }]);
    expect(r.s(uid(1)).metadata.status).toBe('active');
    expect(r.s(uid(1)).selectable).toBe(false);
    expect(r.s(uid(1)).blockedReason).toMatch(/Claude Code/);
    expect(r.s(uid(2)).metadata.status).toBeUndefined();
  });

  it('a registry entry whose start time differs (reused pid) or whose pid is dead counts for nothing', async () => {
    t = makeTempEnv();
    simpleSession('/src/app', uid(1), 'one');
    simpleSession('/src/app', uid(2), 'two');
    registry(5151, uid(1), '777');
    procStat(5151, 'bash', '778');
    registry(5152, uid(2), '900');
    writeFileSync(join(home(), 'sessions', 'not-a-pid.json'), '{}');
    writeFileSync(join(home(), 'sessions', '5153.json'), '{"pid": 5153, "sessionId": tru');
    procStat(5153, 'bash', '1');
    const r = await scan();
    expect(r.sum.writers).toEqual([]);
    for (const id of [uid(1), uid(2)]) {
      expect(r.s(id).selectable).toBe(true);
      expect(r.s(id).metadata.status).toBeUndefined();
    }
    expect(r.warning(join(home(), 'sessions', '5153.json'))).toMatch(/unreadable Claude Code process registry/);
  });
});

describe('bad input', () => {
  it('empty, binary, non-UUID name, linked and directory entries: warnings; a garbage first line is skipped, as Claude does', async () => {
    t = makeTempEnv();
    const cwd = '/src/app';
    const good = simpleSession(cwd, uid(1), 'the good one');
    const empty = writeTranscript(cwd, uid(2), [], { raw: '' });
    const blank = writeTranscript(cwd, uid(3), [], { raw: '\n\n  \n' });
    const binary = writeTranscript(cwd, uid(4), [], { raw: Buffer.from([0x00, 0xff, 0xfe, 0x1b, 0x5b, 0x32, 0x4a, 0x0a, 0x7b, 0x00]) });
    const notJson = writeTranscript(cwd, uid(5), [], { raw: `not json at all\n${jsonl([mode(uid(5)), chainRow(uid(5), cwd, 'user', 'hidden')])}` });
    const array = writeTranscript(cwd, uid(6), [], { raw: `[1,2,3]\n${jsonl([chainRow(uid(6), cwd, 'user', 'hidden')])}` });
    const nonUuid = writeTranscript(cwd, 'x', [mode('x'), chainRow('x', cwd, 'user', 'hi')], { name: 'session-1.jsonl' });
    const asDir = join(bucketDir(cwd), `${uid(7)}.jsonl`);
    mkdirSync(asDir);
    const outsideFile = join(t.root, 'outside.jsonl');
    writeFileSync(outsideFile, jsonl([mode(uid(8)), chainRow(uid(8), cwd, 'user', 'behind a link')]));
    const linked = join(bucketDir(cwd), `${uid(8)}.jsonl`);
    symlinkSync(outsideFile, linked);
    const dangling = join(bucketDir(cwd), `${uid(9)}.jsonl`);
    symlinkSync(join(t.root, 'nowhere.jsonl'), dangling);
    // A symlinked bucket: the sessions behind it are not listed.
    const outsideBucket = join(t.root, 'outside-bucket');
    mkdirSync(outsideBucket);
    writeFileSync(join(outsideBucket, `${uid(10)}.jsonl`), jsonl([mode(uid(10)), chainRow(uid(10), '/src/linked', 'user', 'linked')]));
    const linkedBucket = join(home(), 'projects', claudeSlug('/src/linked'));
    symlinkSync(outsideBucket, linkedBucket);
    // A FIFO named like a transcript must neither hang nor be read.
    const fifo = join(bucketDir(cwd), `${uid(11)}.jsonl`);
    const mk = spawnSync('mkfifo', [fifo]);
    expect(mk.status).toBe(0);
    // A file where a directory is expected, and a symlinked per-session root.
    writeFileSync(join(home(), 'tasks'), 'not a dir');
    symlinkSync(t.root, join(home(), 'file-history'));
    const r = await scan();
    // Claude's lister skips a bad line, the first one too: the rows after it make the session.
    expect(r.sum.sessionCount).toBe(3);
    expect(r.s(uid(1)).title).toBe('the good one');
    expect(r.s(uid(1)).paths).toEqual([good]);
    expect(r.s(uid(5))).toMatchObject({ title: 'hidden', cwd, paths: [notJson] });
    expect(r.s(uid(6))).toMatchObject({ title: 'hidden', cwd, paths: [array] });
    expect(r.warning(notJson)).toBeUndefined();
    expect(r.warning(empty)).toMatch(/empty/);
    expect(r.warning(blank)).toMatch(/no readable JSON rows/);
    expect(r.warning(binary)).toMatch(/no readable JSON rows/);
    expect(r.warning(nonUuid)).toMatch(/unrecognized or linked/);
    expect(r.warning(asDir)).toMatch(/unrecognized or linked/);
    expect(r.warning(linked)).toMatch(/unrecognized or linked/);
    expect(r.warning(dangling)).toMatch(/unrecognized or linked/);
    expect(r.warning(linkedBucket)).toMatch(/symlinked Claude project directory/);
    expect(r.warning(fifo)).toMatch(/unrecognized or linked/);
    expect(r.warning(join(home(), 'file-history'))).toMatch(/symlinked Claude Code file-history/);
    expect(r.has(uid(10))).toBe(false);
    expect(r.has(uid(8))).toBe(false);
  });

  it('a truncated last line, non-UTF-8 bytes and escape-laden titles still give a clean, listed session', async () => {
    t = makeTempEnv();
    const cwd = '/src/app';
    const torn = `${jsonl([mode(uid(1)), chainRow(uid(1), cwd, 'user', 'before the tear')])}{"type":"custom-title","customTitle":"never fini`;
    writeTranscript(cwd, uid(1), [], { raw: torn });
    const rows = jsonl([mode(uid(2)), chainRow(uid(2), cwd, 'user', 'PROMPT')]);
    const [a, b] = rows.split('PROMPT') as [string, string];
    writeTranscript(cwd, uid(2), [], {
      raw: Buffer.concat([
        Buffer.from(`${a}bad `),
        Buffer.from([0xc3, 0x28, 0xff, 0xfe, 0xed, 0xa0, 0x80]),
        Buffer.from(` bytes${b}`),
        Buffer.from([0x80, 0x81, 0x0a]),
      ]),
    });
    writeTranscript(cwd, uid(3), [
      mode(uid(3)),
      chainRow(uid(3), cwd, 'user', 'x'),
      custom(uid(3), '\x1b]0;pwned\x07\x1b[2J\u009b31m\u202eevil\u2066 name\x00\r\n tail'),
    ]);
    writeTranscript(cwd, uid(4), [mode(uid(4)), chainRow(uid(4), cwd, 'user', [{ type: 'text', text: 'fix\tthe\r\nbuild \x1b[31mnow\x1b[0m' }])]);
    // An escape-only custom title does not blank the title: the prompt shows.
    writeTranscript(cwd, uid(5), [mode(uid(5)), chainRow(uid(5), cwd, 'user', 'the question'), custom(uid(5), '\x1b[2J\x1b[H')]);
    const r = await scan();
    expect(r.s(uid(1)).title).toBe('before the tear');
    expect(r.s(uid(1)).named).toBe(false);
    expect(r.s(uid(2)).title).toMatch(/^bad .*bytes$/);
    expect(r.s(uid(2)).title).toContain('\ufffd');
    expect(r.s(uid(3)).title).toBe('evil name tail');
    expect(r.s(uid(4)).title).toBe('fix the build now');
    expect(r.s(uid(5)).title).toBe('the question');
    for (const n of r.snap.forest.nodes) expect(n.s.title).not.toMatch(UNSAFE);
  });

  it('a 3 GB sparse transcript: the scan reads only its head and tail, fast, and titles it from the tail', async () => {
    t = makeTempEnv();
    const cwd = '/src/huge';
    const id = uid(42);
    const file = join(bucketDir(cwd), `${id}.jsonl`);
    const head = jsonl([mode(id), chainRow(id, cwd, 'user', 'head prompt'), aiTitle(id, 'head ai title')]);
    const tail = `\n${jsonl([aiTitle(id, 'tail ai title'), custom(id, 'tail custom title'), lastPrompt(id, 'head prompt')])}`;
    const size = 3 * GiB;
    const fd = openSync(file, 'w');
    try {
      writeSync(fd, head, 0);
      fs.ftruncateSync(fd, size - Buffer.byteLength(tail));
      writeSync(fd, tail, size - Buffer.byteLength(tail));
    } finally {
      closeSync(fd);
    }
    expect(statSync(file).size).toBe(size);
    expect(statSync(file).blocks * 512).toBeLessThan(1024 * 1024); // really sparse: costs no disk
    simpleSession('/src/small', uid(43), 'small one');

    const opened = new Map<number, string>();
    const reads: { path: string; pos: number; len: number }[] = [];
    const realOpen = fs.openSync;
    const realRead = fs.readSync;
    vi.spyOn(fs, 'openSync').mockImplementation(((p: fs.PathLike, ...rest: unknown[]) => {
      const fdn = (realOpen as (...a: unknown[]) => number)(p, ...rest);
      opened.set(fdn, String(p));
      return fdn;
    }) as typeof fs.openSync);
    vi.spyOn(fs, 'readSync').mockImplementation(((fdn: number, buf: Buffer, off: number, len: number, pos: number) => {
      const n = (realRead as (...a: unknown[]) => number)(fdn, buf, off, len, pos);
      reads.push({ path: opened.get(fdn) ?? '?', pos, len: n });
      return n;
    }) as typeof fs.readSync);
    syncBuiltinESMExports();

    const started = Date.now();
    const r = await scan();
    const ms = Date.now() - started;
    vi.restoreAllMocks();
    syncBuiltinESMExports();

    expect(ms).toBeLessThan(5000);
    const s = r.s(id);
    expect(s.title).toBe('tail custom title');
    expect(s.named).toBe(true);
    expect(s.cwd).toBe(cwd);
    expect(r.s(uid(43)).title).toBe('small one');
    const big = reads.filter((x) => x.path === file);
    expect(big.length).toBeGreaterThan(0);
    const total = big.reduce((a, x) => a + x.len, 0);
    expect(total).toBeLessThanOrEqual(CLAUDE_HEAD_BYTES + CLAUDE_TAIL_BYTES + 1);
    for (const x of big) expect(x.pos + x.len <= CLAUDE_HEAD_BYTES || x.pos >= size - CLAUDE_TAIL_BYTES - 1, `read at ${x.pos}+${x.len}`).toBe(true);
    // Its preview is bounded too.
    const pv = await r.engine.preview(r.sum.snapshotId, `session:${id}`);
    expect(pv.bytesRead).toBe(512 * 1024);
    expect(pv.truncated).toBe(true);
  });

  it('a title row that starts right after the 64 KiB head is read from the tail', async () => {
    t = makeTempEnv();
    const cwd = '/src/edge';
    // Contiguous: the file is shorter than head + tail, and the head's last byte is a newline.
    const id = uid(50);
    const start = jsonl([mode(id), chainRow(id, cwd, 'user', 'edge prompt')]);
    const pad = `${JSON.stringify({ type: 'x', p: '' })}`;
    const fillTo = (bytes: number): string => `${JSON.stringify({ type: 'x', p: 'f'.repeat(bytes - pad.length - 1) })}\n`;
    const body = start + fillTo(CLAUDE_HEAD_BYTES - Buffer.byteLength(start));
    expect(Buffer.byteLength(body)).toBe(CLAUDE_HEAD_BYTES);
    writeTranscript(cwd, id, [], { raw: body + jsonl([custom(id, 'right after the head')]) });
    // Far apart: the title row starts exactly 64 KiB before the end, after a newline.
    const id2 = uid(51);
    const start2 = jsonl([mode(id2), chainRow(id2, cwd, 'user', 'far prompt')]);
    const title2 = jsonl([custom(id2, 'exactly at the tail start')]);
    const filler2 = fillTo(3 * 1024 * 1024).repeat(1);
    const after = fillTo(CLAUDE_TAIL_BYTES - Buffer.byteLength(title2));
    writeTranscript(cwd, id2, [], { raw: start2 + filler2 + title2 + after });
    const r = await scan();
    expect(r.s(id).title).toBe('right after the head');
    expect(r.s(id2).title).toBe('exactly at the tail start');
  });

  it('a transcript deleted between listing and reading is a warning, not a crash', async () => {
    t = makeTempEnv();
    const cwd = '/src/app';
    simpleSession(cwd, uid(1), 'stays');
    const victim = simpleSession(cwd, uid(2), 'goes away');
    simpleSession(cwd, uid(3), 'stays too');
    const realOpen = fs.openSync;
    vi.spyOn(fs, 'openSync').mockImplementation(((p: fs.PathLike, ...rest: unknown[]) => {
      if (String(p) === victim) rmSync(victim, { force: true });
      return (realOpen as (...a: unknown[]) => number)(p, ...rest);
    }) as typeof fs.openSync);
    syncBuiltinESMExports();
    const r = await scan();
    vi.restoreAllMocks();
    syncBuiltinESMExports();
    expect(r.warning(victim)).toMatch(/vanished during the scan/);
    expect(r.has(uid(2))).toBe(false);
    expect(r.s(uid(1)).title).toBe('stays');
    expect(r.s(uid(3)).title).toBe('stays too');
  });

  it('a transcript owned by another user is skipped with a warning', async () => {
    t = makeTempEnv();
    const f = simpleSession('/src/app', uid(1), 'mine?');
    t.ctx.uid = statSync(f).uid + 1;
    const r = await scan();
    expect(r.sum.sessionCount).toBe(0);
    expect(r.warning(f)).toMatch(/owned by another user/);
  });

  it('readClaudeTranscript: empty, cut and foreign inputs are refusals, never throws', () => {
    const id = uid(1);
    expect(readClaudeTranscript(Buffer.alloc(0), false, null, id)).toEqual({ ok: false, reason: 'empty' });
    // A first line longer than the head cannot be judged: refused, not guessed.
    expect(readClaudeTranscript(Buffer.from(`{"type":"mode","x":"${'y'.repeat(100)}`), true, null, id)).toMatchObject({ ok: false, reason: 'notJson' });
    // Rows of another session without any title: nothing says whose data it is.
    expect(readClaudeTranscript(Buffer.from(jsonl([mode(uid(2)), chainRow(uid(2), '/a', 'assistant', 'x')])), false, null, id)).toMatchObject({
      ok: false,
      reason: 'foreignId',
    });
    // With a prompt, Claude lists it under the file's name; so does cleanerx.
    expect(readClaudeTranscript(Buffer.from(jsonl([mode(uid(2)), chainRow(uid(2), '/a', 'user', 'x')])), false, null, id)).toMatchObject({
      ok: true,
      meta: { title: 'x', listedByClaude: true },
    });
    // A subagent transcript (first row a sidechain) is no session, for Claude neither.
    expect(readClaudeTranscript(Buffer.from(jsonl([chainRow(id, '/a', 'user', 'x', { isSidechain: true })])), false, null, id)).toEqual({
      ok: false,
      reason: 'sidechain',
    });
    // The id may be evidenced in the tail only.
    const r = readClaudeTranscript(Buffer.from('{"type":"permission-mode"}\n'), true, Buffer.from(`cut\n${jsonl([custom(id, 'from the tail')])}`), id);
    expect(r).toEqual({
      ok: true,
      meta: { cwd: null, entrypoint: null, createdAt: null, title: 'from the tail', titleSource: 'custom', listedByClaude: true, hasUserMessage: null },
    });
  });
});

describe('preview', () => {
  it('shows user and assistant text and tool output, escape sequences stripped, sidechain and meta rows left out', async () => {
    t = makeTempEnv();
    const cwd = '/src/app';
    const id = uid(1);
    writeTranscript(cwd, id, [
      mode(id),
      chainRow(id, cwd, 'user', '<local-command-caveat>meta</local-command-caveat>', { isMeta: true }),
      chainRow(id, cwd, 'user', 'look at \x1b[31mthis\x1b[0m\x1b]0;pwned\x07 now'),
      chainRow(id, cwd, 'assistant', [
        { type: 'text', text: 'sure\u009b2J thing\nsecond line' },
        { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } },
      ]),
      chainRow(id, cwd, 'user', [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'a\x1b[2Kb\nfile.txt' }]),
      chainRow(id, cwd, 'user', 'secret subagent text', { isSidechain: true }),
      custom(id, 'named'),
    ]);
    const r = await scan();
    const pv = await r.engine.preview(r.sum.snapshotId, `session:${id}`);
    expect(pv.source).toBe('claudeTranscript.readOnly');
    expect(pv.truncated).toBe(false);
    expect(pv.blocks.map((b) => b.kind)).toEqual(['message', 'message', 'text']);
    expect(pv.blocks[0]).toMatchObject({ kind: 'message', role: 'user' });
    expect(pv.blocks[1]).toMatchObject({ kind: 'message', role: 'assistant' });
    expect((pv.blocks[1] as { text: string }).text).toContain('[tool: Bash]');
    expect(pv.blocks[2]).toMatchObject({ kind: 'text', title: 'tool output' });
    const all = JSON.stringify(pv.blocks);
    expect(all).not.toContain('secret subagent');
    expect(all).not.toContain('local-command-caveat');
    expect(all).not.toMatch(/\\u001b|\\u0007|\\u009b/);
    for (const b of pv.blocks) {
      const texts = b.kind === 'text' ? [b.title, b.text] : [b.text];
      // eslint-disable-next-line no-control-regex
      for (const s of texts) expect(s).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f]/);
    }
    // The detail lists every owned path and the working dir.
    const d = await r.engine.detail(r.sum.snapshotId, `session:${id}`);
    expect(d.sections.flatMap((s) => s.fields)).toContainEqual({ label: 'Working dir', value: cwd });
  });

  it('reads at most 512 KiB, keeps at most 200 blocks and says it was cut', async () => {
    t = makeTempEnv();
    const cwd = '/src/app';
    const big = uid(1);
    const fill = 'z'.repeat(10_000);
    writeTranscript(cwd, big, [mode(big), ...Array.from({ length: 120 }, () => chainRow(big, cwd, 'assistant', [{ type: 'text', text: fill }]))]);
    const many = uid(2);
    writeTranscript(cwd, many, [mode(many), ...Array.from({ length: 260 }, (_, i) => chainRow(many, cwd, 'user', `message ${i}`))]);
    const quiet = uid(3);
    writeTranscript(cwd, quiet, [mode(quiet), chainRow(quiet, cwd, 'user', 'x', { isMeta: true }), custom(quiet, 'quiet')]);
    const r = await scan();
    const pv = await r.engine.preview(r.sum.snapshotId, `session:${big}`);
    expect(pv.bytesRead).toBe(512 * 1024);
    expect(pv.truncated).toBe(true);
    expect(pv.warning).toMatch(/Truncated/);
    expect(pv.blocks.length).toBeLessThan(120);
    const pm = await r.engine.preview(r.sum.snapshotId, `session:${many}`);
    expect(pm.blocks).toHaveLength(200);
    expect(pm.truncated).toBe(true);
    const pq = await r.engine.preview(r.sum.snapshotId, `session:${quiet}`);
    expect(pq.blocks).toEqual([{ kind: 'notice', text: expect.stringMatching(/No user or assistant text/) }]);
  });

  it('a memory dir shows its Markdown files, never opens a symlinked one', async () => {
    t = makeTempEnv();
    const cwd = '/src/app';
    simpleSession(cwd, uid(1), 'hello');
    const mem = join(bucketDir(cwd), 'memory');
    mkdirSync(mem);
    writeFileSync(join(mem, 'MEMORY.md'), '- [Build](build.md): how it is built \x1b[31mred\x1b[0m\n');
    writeFileSync(join(mem, 'build.md'), 'Run `npm test`.\n');
    writeFileSync(join(mem, 'notes.txt'), 'not markdown');
    const secret = join(t.root, 'secret.md');
    writeFileSync(secret, 'TOP SECRET CONTENT');
    symlinkSync(secret, join(mem, 'linked.md'));
    const r = await scan();
    const it = r.snap.items.find((i) => i.category === 'memory')!;
    const pv = await r.engine.preview(r.sum.snapshotId, it.id);
    expect(pv.source).toBe('claudeMemoryMarkdown.readOnly');
    expect(pv.blocks.map((b) => (b.kind === 'text' ? b.title : b.kind))).toEqual(['MEMORY.md', 'build.md', 'notice']);
    expect(pv.blocks[2]).toMatchObject({ kind: 'notice', text: expect.stringMatching(/linked\.md is not a regular file; not opened/) });
    const all = JSON.stringify(pv);
    expect(all).not.toContain('TOP SECRET');
    expect(all).not.toContain('not markdown');
    expect(all).not.toMatch(/\\u001b/);
    expect(pv.bytesRead).toBe(statSync(join(mem, 'MEMORY.md')).size + statSync(join(mem, 'build.md')).size);
  });

  it('a file gone since the scan gives a notice', async () => {
    t = makeTempEnv();
    const f = simpleSession('/src/app', uid(1), 'bye');
    const r = await scan();
    rmSync(f);
    const pv = await r.engine.preview(r.sum.snapshotId, `session:${uid(1)}`);
    expect(pv.blocks[0]).toMatchObject({ kind: 'notice', text: expect.stringMatching(/gone since the scan/) });
  });
});
