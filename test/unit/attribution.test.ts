// Every regular file under an agent's home (and Claude's temp roots) belongs
// to exactly one inventory row, on the project's own fixture stores: an
// independent walk of the home finds no file held by no row and none held by
// two, the engine's figures equal that walk, skipped files get read-only rows
// with their reason, and protected files and task output are never opened.

import fs, { linkSync, lstatSync, mkdirSync, readdirSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { claudeTempRootPaths } from '../../src/adapters/claude/temp-roots.js';
import { PI_PROTECTED } from '../../src/adapters/pi/scan.js';
import { ADAPTERS } from '../../src/adapters/registry.js';
import { buildClaudeFixture, claudeSlug } from '../../src/adapters/claude/fixture.js';
import { buildPiFixture } from '../../src/adapters/pi/fixture.js';
import { Engine } from '../../src/engine/api/engine.js';
import type { AgentKind, Item, ScanSummary, SessionRecord } from '../../src/engine/core/model.js';
import type { Snapshot } from '../../src/engine/inventory/snapshot.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
afterEach(() => {
  vi.restoreAllMocks();
  syncBuiltinESMExports();
  t?.cleanup();
});

type RowOf = { id: string; paths: string[]; row: SessionRecord | Item };

/** Every regular file under the roots, as du -x sees them: lstat, no link followed, a hard-linked inode once; allocated bytes. */
function duFiles(roots: string[]): Map<string, number> {
  const out = new Map<string, number>();
  const inodes = new Set<string>();
  const visit = (p: string, dev: number): void => {
    const st = lstatSync(p);
    if (st.isDirectory()) {
      if (st.dev !== dev) return;
      for (const c of readdirSync(p)) visit(join(p, c), dev);
    } else if (st.isFile()) {
      const key = `${st.dev}:${st.ino}`;
      if (st.nlink > 1 && inodes.has(key)) return;
      inodes.add(key);
      out.set(p, st.blocks * 512);
    }
  };
  for (const r of roots) visit(r, lstatSync(r).dev);
  return out;
}

function rowsOf(snap: Snapshot): RowOf[] {
  return [
    ...snap.forest.nodes.map((n) => ({ id: n.s.itemId, paths: n.s.paths, row: n.s as SessionRecord | Item })),
    ...snap.items.map((i) => ({ id: i.id, paths: i.paths, row: i })),
  ];
}

const holds = (r: RowOf, file: string): boolean => r.paths.some((p) => file === p || file.startsWith(p + '/'));

async function scanWithOpens(agent: AgentKind): Promise<{ sum: ScanSummary; snap: Snapshot; opened: Set<string> }> {
  const opened = new Set<string>();
  const open = fs.openSync;
  vi.spyOn(fs, 'openSync').mockImplementation(((p: fs.PathLike, ...rest: unknown[]) => {
    opened.add(String(p));
    return (open as (...a: unknown[]) => number)(p, ...rest);
  }) as typeof fs.openSync);
  const readFile = fs.readFileSync;
  vi.spyOn(fs, 'readFileSync').mockImplementation(((p: fs.PathOrFileDescriptor, ...rest: unknown[]) => {
    if (typeof p === 'string') opened.add(p);
    return (readFile as (...a: unknown[]) => unknown)(p, ...rest);
  }) as typeof fs.readFileSync);
  const popen = fs.promises.open;
  vi.spyOn(fs.promises, 'open').mockImplementation(((p: fs.PathLike, ...rest: unknown[]) => {
    opened.add(String(p));
    return (popen as (...a: unknown[]) => Promise<fs.promises.FileHandle>)(p, ...rest);
  }) as typeof fs.promises.open);
  syncBuiltinESMExports();
  const engine = new Engine(ADAPTERS, t.ctx);
  const sum = await engine.scan(agent);
  return { sum, snap: engine.snapshot(sum.snapshotId), opened };
}

/** Each file with the rows holding it, when that is not exactly one. */
function misattributed(files: Map<string, number>, rows: RowOf[]): { file: string; rows: string[] }[] {
  const bad: { file: string; rows: string[] }[] = [];
  for (const f of files.keys()) {
    const by = rows.filter((r) => holds(r, f)).map((r) => r.id);
    if (by.length !== 1) bad.push({ file: f, rows: by });
  }
  return bad;
}

function expectFigures(sum: ScanSummary, files: Map<string, number>): void {
  const a = sum.attribution!;
  expect(a.measure).toBe('allocated');
  expect(a.totalFiles).toBe(files.size);
  expect(a.totalBytes).toBe([...files.values()].reduce((x, y) => x + y, 0));
  expect(a.accountedBytes + a.unrecognizedBytes).toBe(a.totalBytes);
  expect(a.accountedFiles + a.unrecognizedFiles).toBe(a.totalFiles);
  expect(a.doubleCountedFiles).toBe(0);
  expect(a.notWalked).toEqual([]);
}

describe('Claude Code: every file of the home and the temp roots in exactly one row', () => {
  it('on the fixture store with its hostile entries, per-session todos and temp roots', async () => {
    t = makeTempEnv();
    const home = t.env.CLAUDE_CONFIG_DIR!;
    const m = buildClaudeFixture({
      configDir: home,
      cwdRoot: join(t.env.HOME!, 'code'),
      projects: 4,
      sessionsPerProject: 3,
      hostile: true,
      config: true,
      sidecars: true,
      memory: true,
    });
    // The temp roots as Claude Code lays them out: a session-named folder, the older per-project tasks/, the daemon's dir.
    const [tasksRoot, daemonRoot] = claudeTempRootPaths(t.ctx) as [string, string];
    const s0 = m.sessions.find((s) => s.cwd && !s.ownedPaths.some((p) => p.includes('/todos/')) && m.sessions.indexOf(s) > 0)!;
    const slug = claudeSlug(s0.cwd!);
    const named = join(tasksRoot, slug, s0.id, 'tasks', 'b1.output');
    const scratch = join(tasksRoot, slug, s0.id, 'scratchpad', 'notes.md');
    const unnamed = join(tasksRoot, slug, 'tasks', 'bx9.output');
    const strangerSession = join(tasksRoot, slug, '00000000-0000-4000-8000-00000000dead', 'tasks', 'c.output');
    const daemon = join(daemonRoot, 'daemon.log');
    for (const p of [named, scratch, unnamed, strangerSession, daemon]) {
      mkdirSync(join(p, '..'), { recursive: true, mode: 0o700 });
      writeFileSync(p, 'output line\n');
    }
    // A huge sparse output: sized by lstat, never read.
    const huge = join(tasksRoot, slug, 'tasks', 'huge.output');
    writeFileSync(huge, '');
    truncateSync(huge, 200 * 1024 ** 3);
    // A hard link counts once; a link out of the root is never followed.
    linkSync(named, join(tasksRoot, slug, s0.id, 'tasks', 'b1-again.output'));
    symlinkSync(t.env.HOME!, join(tasksRoot, slug, 'out-link'));

    const { sum, snap, opened } = await scanWithOpens('claude');
    const files = duFiles([home, tasksRoot, daemonRoot]);
    expect(misattributed(files, rowsOf(snap))).toEqual([]);
    expectFigures(sum, files);
    expect(sum.attribution!.roots).toEqual([home, tasksRoot, daemonRoot]);

    // The legacy todo list goes with its session; the session-named temp folder too, the rest is the temp item.
    const todoOwner = m.sessions.find((s) => s.ownedPaths.some((p) => p.includes('/todos/')))!;
    const todo = todoOwner.ownedPaths.find((p) => p.includes('/todos/'))!;
    expect(snap.forest.nodeById.get(todoOwner.id)!.s.paths).toContain(todo);
    expect(snap.forest.nodeById.get(s0.id)!.s.paths).toContain(join(tasksRoot, slug, s0.id));
    const temp = snap.item('claude-temp')!;
    expect(temp).toMatchObject({ category: 'temporary', selectable: true, recoverable: false });
    for (const f of [unnamed, huge, strangerSession, daemon]) expect(holds({ id: '', paths: temp.paths, row: temp }, f), f).toBe(true);
    expect(temp.bytes).toBeLessThan(1024 ** 2); // the sparse 200 GB file allocates next to nothing

    // Skipped transcripts are rows now: read-only, with the skip's reason.
    const rows = rowsOf(snap);
    for (const sk of m.skipped) {
      if (!files.has(sk.path)) continue;
      const by = rows.filter((r) => holds(r, sk.path));
      expect(by.length, sk.path).toBe(1);
      const row = by[0]!.row;
      if ('itemId' in row) continue; // a session after all (the fixture's "skipped by Claude", listed by cleanerx)
      expect(row.selectable, sk.path).toBe(false);
      expect(row.blockedReason, sk.path).toBeTruthy();
    }
    const gaps = snap.items.filter((i) => i.id.startsWith('unrecognized:'));
    expect(gaps.length).toBeGreaterThan(0);
    for (const g of gaps) expect(g).toMatchObject({ category: 'protected', selectable: false, metadata: { unrecognized: true } });
    for (const g of gaps) expect(g.blockedReason).toMatch(/^Not recognized — /);
    const emptyTranscript = m.skipped.find((s) => /empty|zero/i.test(s.why));
    if (emptyTranscript)
      expect(gaps.find((g) => g.paths.includes(emptyTranscript.path))?.blockedReason).toBe('Not recognized — Skipped empty Claude transcript.');

    // Nothing protected and no task output was opened (settings.json is read, read only, for cleanupPeriodDays: the sweep's rule).
    for (const name of m.protectedNames.filter((n) => n !== 'settings.json')) {
      const p = join(home, name);
      for (const o of opened) expect(o === p || o.startsWith(p + '/'), `${o} opened`).toBe(false);
    }
    for (const o of opened) expect(o.endsWith('.output'), `${o} opened`).toBe(false);
  });

  it('a temp root owned by nobody else but linked, or foreign entries inside, are left out and shown as not recognized', async () => {
    t = makeTempEnv();
    const home = t.env.CLAUDE_CONFIG_DIR!;
    buildClaudeFixture({ configDir: home, cwdRoot: join(t.env.HOME!, 'code'), projects: 1, sessionsPerProject: 1 });
    const [tasksRoot, daemonRoot] = claudeTempRootPaths(t.ctx) as [string, string];
    const elsewhere = join(t.root, 'elsewhere');
    mkdirSync(elsewhere, { recursive: true });
    writeFileSync(join(elsewhere, 'x.output'), 'x');
    mkdirSync(join(tasksRoot, '..'), { recursive: true });
    symlinkSync(elsewhere, tasksRoot);
    mkdirSync(join(daemonRoot, 'sock'), { recursive: true });
    writeFileSync(join(daemonRoot, 'state.json'), '{}');
    fs.chownSync(join(daemonRoot, 'state.json'), 65534, 65534);
    // Deeper down, a foreign file makes the temp item read-only (never removed), as any foreign-owned tree.
    writeFileSync(join(daemonRoot, 'sock', 'deep.json'), '{}');
    fs.chownSync(join(daemonRoot, 'sock', 'deep.json'), 65534, 65534);
    const { sum, snap } = await scanWithOpens('claude');
    expect(sum.warnings.find((w) => w.path === tasksRoot)?.reason).toMatch(/not a real directory/);
    expect(sum.attribution!.roots).toEqual([home, daemonRoot]);
    // The link's target is not walked, not listed, not a removal root.
    expect(snap.items.some((i) => i.paths.some((p) => p.startsWith(elsewhere)))).toBe(false);
    expect(snap.item('claude-temp')).toMatchObject({ selectable: false, paths: [join(daemonRoot, 'sock')] });
    const foreign = join(daemonRoot, 'state.json');
    const row = snap.items.find((i) => i.paths.some((p) => foreign === p || foreign.startsWith(p + '/')))!;
    expect(row.metadata.unrecognized).toBe(true);
    expect(row.blockedReason).toBe('Not recognized — Skipped a Claude Code temp entry owned by another user.');
    const files = duFiles([home, daemonRoot]);
    expect(misattributed(files, rowsOf(snap))).toEqual([]);
    expectFigures(sum, files);
  });
});

describe('pi: every file of the agent dir in exactly one row', () => {
  it('on the fixture store with config, hostile entries and the files pi writes beside its sessions', async () => {
    t = makeTempEnv();
    const dir = t.env.PI_CODING_AGENT_DIR!;
    const m = buildPiFixture({
      agentDir: dir,
      projects: 3,
      sessionsPerProject: 4,
      seed: 5,
      hostile: true,
      config: true,
      edgeCases: true,
      cwdRoot: join(t.root, 'src'),
    });
    const extra: Record<string, string> = {
      'mcp.json': '{"mcpServers":{}}\n',
      'crashes.json': '[]\n',
      'pi-debug.log': 'debug\n',
      'bin/rg': 'binary',
      'bin/fd': 'binary',
      'tools/my-tool.ts': 'export {}\n',
      'tmp/extensions/x.js': '//\n',
      '2024-01-01T00-00-00-000Z_legacy.jsonl': '{"type":"session","id":"legacy","timestamp":"2024-01-01T00:00:00.000Z","cwd":"/src/old"}\n',
      'sessions/stray.jsonl': '{"type":"session","version":3,"id":"stray","timestamp":"2024-01-01T00:00:00.000Z","cwd":"/src/old"}\n',
      'sessions/README.txt': 'not a session\n',
      'auth.json.lock/pid': '1\n',
    };
    for (const [rel, body] of Object.entries(extra)) {
      mkdirSync(join(dir, rel, '..'), { recursive: true });
      writeFileSync(join(dir, rel), body);
    }
    const { sum, snap, opened } = await scanWithOpens('pi');
    const files = duFiles([dir]);
    expect(misattributed(files, rowsOf(snap))).toEqual([]);
    expectFigures(sum, files);

    expect(snap.item('protected:pi:mcp.json')).toMatchObject({ category: 'protected', selectable: false });
    expect(snap.item('log:pi')!.paths).toEqual([join(dir, 'pi-debug.log'), join(dir, 'crashes.json')]);
    expect(snap.item('cache:pi-bin')).toMatchObject({ category: 'cache', selectable: true, paths: [join(dir, 'bin')] });
    expect(snap.item('legacy:pi:tools')).toMatchObject({ selectable: false });
    expect(snap.item('temporary:pi')!.paths).toEqual([join(dir, 'tmp')]);
    for (const stray of [join(dir, '2024-01-01T00-00-00-000Z_legacy.jsonl'), join(dir, 'sessions', 'stray.jsonl')]) {
      expect(snap.item(`stray:pi:${stray}`), stray).toMatchObject({ category: 'session', selectable: false });
      expect(snap.item(`stray:pi:${stray}`)!.blockedReason).toMatch(/^Read-only: a session file/);
    }
    // Files pi skips are rows: a skipped session file with its reason, the rest as not recognized.
    const rows = rowsOf(snap);
    for (const sk of m.skipped) {
      if (!files.has(sk.file)) continue;
      const by = rows.filter((r) => holds(r, sk.file));
      expect(by.length, sk.file).toBe(1);
      if (!('itemId' in by[0]!.row)) expect(by[0]!.row.selectable, sk.file).toBe(false);
    }
    const readme = snap.items.find((i) => i.paths.includes(join(dir, 'sessions', 'README.txt')))!;
    expect(readme.metadata.unrecognized).toBe(true);

    // Protected files are counted from lstat alone.
    for (const name of [...PI_PROTECTED, 'mcp.json']) {
      const p = join(dir, name);
      for (const o of opened) expect(o === p || o.startsWith(p + '/'), `${o} opened`).toBe(false);
    }
    const protBytes = snap.items.filter((i) => i.category === 'protected' && i.metadata.protected === true).reduce((n, i) => n + i.bytes, 0);
    expect(protBytes).toBeGreaterThan(0);
  });
});
