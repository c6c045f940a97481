import { readPrefixSync } from '../../src/engine/host/fsx.js';
import { walkOwned } from '../../src/engine/inventory/revision.js';
// The pi adapter against hand-written and generated agent dirs in a temp home:
// titles, fork parents, projects, skips, items, writers, preview, bounds.

import { spawnSync } from 'node:child_process';
import fs, { chownSync, mkdirSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { bucketName, buildPiFixture } from '../../src/adapters/pi/fixture.js';
import { PI_PREFIX_BYTES } from '../../src/adapters/pi/session-reader.js';
import { isPiProcess } from '../../src/adapters/pi/writers.js';
import { ADAPTERS } from '../../src/adapters/registry.js';
import { Engine } from '../../src/engine/api/engine.js';
import { uuidv5Url } from '../../src/engine/core/ids.js';
import type { ScanSummary, SessionRecord } from '../../src/engine/core/model.js';
import type { Snapshot } from '../../src/engine/inventory/snapshot.js';
import { fakeProcess, makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

// eslint-disable-next-line no-control-regex
const UNSAFE = /[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;
const TS = '2026-11-29T14:37:37.577Z';

let t: TempEnv;
afterEach(() => {
  vi.restoreAllMocks();
  t?.cleanup();
});

function agentDir(): string {
  return t.env.PI_CODING_AGENT_DIR!;
}

let seq = 0;
function entry(o: Record<string, unknown>): string {
  seq++;
  return JSON.stringify({ ...o, id: seq.toString(16).padStart(8, '0'), parentId: null, timestamp: TS });
}
const header = (id: string, cwd: string | null, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ type: 'session', version: 3, id, timestamp: TS, ...(cwd === null ? {} : { cwd }), ...extra });
const user = (content: unknown): string => entry({ type: 'message', message: { role: 'user', content, timestamp: 1 } });
const assistant = (text: string): string =>
  entry({
    type: 'message',
    message: { role: 'assistant', content: [{ type: 'text', text }], api: 'x', provider: 'x', model: 'x', stopReason: 'stop', timestamp: 2 },
  });
const info = (name: string): string => entry({ type: 'session_info', name });

function bucket(cwd: string): string {
  const dir = join(agentDir(), 'sessions', bucketName(cwd));
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Writes one session file into the bucket of `cwd`; returns its path. */
function writeSession(cwd: string, id: string, lines: string[], opts: { bucketCwd?: string; name?: string; raw?: string } = {}): string {
  const file = join(bucket(opts.bucketCwd ?? cwd), opts.name ?? `2026-11-29T14-37-37-577Z_${id}.jsonl`);
  writeFileSync(file, opts.raw ?? `${[header(id, cwd), ...lines].join('\n')}\n`);
  return file;
}

interface Scanned {
  engine: Engine;
  sum: ScanSummary;
  snap: Snapshot;
  s(id: string): SessionRecord;
}

async function scan(): Promise<Scanned> {
  const engine = new Engine(ADAPTERS, t.ctx);
  const sum = await engine.scan('pi');
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
  };
}

function warningFor(sum: ScanSummary, path: string): string | undefined {
  return sum.warnings.find((w) => w.path === path)?.reason;
}

describe('titles', () => {
  it('the latest session_info name wins', async () => {
    t = makeTempEnv();
    writeSession('/src/app', 'named', [user('hello'), info('first name'), assistant('ok'), info('  second name  ')]);
    const r = await scan();
    expect(r.s('named').title).toBe('second name');
    expect(r.s('named').named).toBe(true);
  });

  it('a blank name clears it; the first user message is the title again', async () => {
    t = makeTempEnv();
    writeSession('/src/app', 'cleared', [user('what went wrong'), info('temporary'), assistant('ok'), info('')]);
    writeSession('/src/app', 'spaces', [user('padded'), info('temporary'), info('   ')]);
    writeSession('/src/app', 'renamed', [user('x'), info('a'), info(''), info('final')]);
    const r = await scan();
    expect(r.s('cleared').title).toBe('what went wrong');
    expect(r.s('cleared').named).toBe(false);
    expect(r.s('spaces').title).toBe('padded');
    expect(r.s('renamed').title).toBe('final');
  });

  it('normalizes the first user message: controls as spaces, escapes stripped, whitespace collapsed', async () => {
    t = makeTempEnv();
    writeSession('/src/app', 'ctl', [user('  fix\tthe\r\nbuild   now\u0007 please  '), user('later')]);
    writeSession('/src/app', 'esc', [user([{ type: 'text', text: 'evil \x1b[31mRED\x1b[0m \x1b]0;pwned\x07title' }])]);
    writeSession('/src/app', 'blocks', [
      user([
        { type: 'text', text: 'first block' },
        { type: 'image', data: 'aGk=', mimeType: 'image/png' },
        { type: 'text', text: 'second block' },
      ]),
    ]);
    writeSession('/src/app', 'empties', [user(''), user([{ type: 'text', text: '' }]), assistant('?'), user('the real question')]);
    const r = await scan();
    expect(r.s('ctl').title).toBe('fix the build now please');
    expect(r.s('esc').title).toBe('evil RED title');
    expect(r.s('esc').title).not.toMatch(UNSAFE);
    expect(r.s('blocks').title).toBe('first block second block');
    expect(r.s('empties').title).toBe('the real question');
    expect(r.s('ctl').named).toBe(false);
  });

  it('cuts a long first message to 96 code points plus an ellipsis', async () => {
    t = makeTempEnv();
    writeSession('/src/app', 'long', [user('x'.repeat(200))]);
    writeSession('/src/app', 'astral', [user('🚀'.repeat(150))]);
    writeSession('/src/app', 'exact', [user('y'.repeat(96))]);
    const r = await scan();
    expect(r.s('long').title).toBe(`${'x'.repeat(96)}…`);
    expect(Array.from(r.s('astral').title)).toHaveLength(97);
    expect(r.s('astral').title).toBe(`${'🚀'.repeat(96)}…`);
    expect(r.s('exact').title).toBe('y'.repeat(96));
  });

  it('shows pi\'s "(no messages)" without a name or user text; the id stays the row\'s id', async () => {
    t = makeTempEnv();
    const id = '01a227bd-75a8-76a9-a5ed-74d604883872';
    writeSession('/src/app', id, []);
    writeSession('/src/app', 'assistant-only-session', [assistant('I started on my own.')]);
    writeSession('/src/app', 'notime', [], { raw: `${JSON.stringify({ type: 'session', version: 3, id: 'notime-id-123', cwd: '/src/app' })}\n` });
    const r = await scan();
    expect(r.s(id).title).toBe('(no messages)');
    expect(r.s(id).named).toBe(false);
    const facts = r.snap.detail(r.s(id).itemId).sections.flatMap((x) => x.fields);
    expect(facts).toContainEqual({ label: 'Identifier', value: id });
    expect(r.s('assistant-only-session').title).toBe('(no messages)');
    expect(r.s('notime-id-123').title).toBe('(no messages)');
  });

  it('falls back to "pi · date time UTC · id8" where pi\'s title would be blank', async () => {
    t = makeTempEnv();
    writeSession('/src/app', 'blank-user', [user(' \t\u0007 ')]);
    writeSession('/src/app', 'notime', [user('\u0007')], {
      raw: `${JSON.stringify({ type: 'session', version: 3, id: 'notime-id-123', cwd: '/src/app' })}\n${user('\u0007')}\n`,
    });
    const r = await scan();
    expect(r.s('blank-user').title).toBe('pi · 2026-11-29 14:37 UTC · blank-us');
    expect(r.s('notime-id-123').title).toBe('pi · notime-i');
  });

  it('a name made only of escapes does not leave an empty title', async () => {
    t = makeTempEnv();
    writeSession('/src/app', 'escname', [user('the question'), info('\x1b[2J\x1b[H')]);
    const r = await scan();
    expect(r.s('escname').title).toBe('the question');
  });

  it('reads what pi reads: a garbage first line before the header, CRLF lines, malformed lines', async () => {
    t = makeTempEnv();
    const dir = bucket('/src/app');
    writeFileSync(join(dir, 'a_garbage.jsonl'), `{"type":"session", not json\n${header('garbage-first', '/src/app')}\n${user('after garbage')}\n`);
    writeFileSync(join(dir, 'b_crlf.jsonl'), `${header('crlf', '/src/app')}\r\n${user('crlf line endings')}\r\n${info('crlf name')}\r\n`);
    writeFileSync(join(dir, 'c_bad.jsonl'), `${header('badlines', '/src/app')}\n{oops\n[1,2]\nnull\n${user('survives')}\n`);
    const r = await scan();
    expect(r.s('garbage-first').title).toBe('after garbage');
    expect(r.s('crlf').title).toBe('crlf name');
    expect(r.s('badlines').title).toBe('survives');
  });

  it('shows named rows as named in pages', async () => {
    t = makeTempEnv();
    writeSession('/src/app', 'n', [info('called this')]);
    const r = await scan();
    const page = await r.engine.page({ snapshotId: r.sum.snapshotId, scope: { view: 'flat' }, filter: {}, sort: 'updated', offset: 0, limit: 10 });
    expect(page.rows[0]).toMatchObject({ id: 'session:n', title: 'called this', named: true, source: 'cli' });
  });
});

describe('fork parents', () => {
  it('links an absolute parentSession in the same bucket into the tree', async () => {
    t = makeTempEnv();
    const parent = writeSession('/src/app', 'parent', [user('root')]);
    writeFileSync(join(bucket('/src/app'), 'z_child.jsonl'), `${header('child', '/src/app', { parentSession: parent })}\n${user('root')}\n`);
    const r = await scan();
    expect(r.s('child').parentId).toBe('parent');
    const node = r.snap.forest.nodeById.get('child')!;
    expect(node.treeParent?.s.id).toBe('parent');
  });

  it('resolves a relative parentSession against the header cwd (pi 0.73 stores it verbatim)', async () => {
    t = makeTempEnv();
    const work = join(t.root, 'work', 'other-project');
    mkdirSync(work, { recursive: true });
    const parent = writeSession('/src/app', 'parent', [user('root')]);
    const rel = relative(work, parent);
    expect(rel.startsWith('..')).toBe(true);
    writeFileSync(join(bucket(work), 'fork.jsonl'), `${header('relfork', work, { parentSession: rel })}\n${user('root')}\n`);
    const r = await scan();
    expect(r.s('relfork').parentId).toBe('parent');
  });

  it('a cross-project fork keeps its lineage but is a root of its own project', async () => {
    t = makeTempEnv();
    const parent = writeSession('/src/app', 'parent', [user('root')]);
    writeFileSync(join(bucket('/src/scratch'), 'x.jsonl'), `${header('xfork', '/src/scratch', { parentSession: parent })}\n${user('root')}\n`);
    const r = await scan();
    const node = r.snap.forest.nodeById.get('xfork')!;
    expect(node.parent?.s.id).toBe('parent');
    expect(node.treeParent).toBeNull();
    const own = r.snap.forest.projectById.get(node.projectKey)!;
    expect(own.label).toBe('scratch');
    expect(own.top.map((n) => n.s.id)).toEqual(['xfork']);
  });

  it('a dangling, outside or self parentSession means no parent', async () => {
    t = makeTempEnv();
    const dir = bucket('/src/app');
    writeFileSync(join(dir, 'a.jsonl'), `${header('dangling', '/src/app', { parentSession: join(dir, '2020-01-01T00-00-00-000Z_gone.jsonl') })}\n`);
    const outside = join(t.root, 'copy.jsonl');
    writeFileSync(outside, `${header('outside-parent', '/src/app')}\n`);
    writeFileSync(join(dir, 'b.jsonl'), `${header('outside-child', '/src/app', { parentSession: outside })}\n`);
    writeFileSync(join(dir, 'c.jsonl'), `${header('self', '/src/app', { parentSession: join(dir, 'c.jsonl') })}\n`);
    const r = await scan();
    expect(r.s('dangling').parentId).toBeNull();
    expect(r.s('outside-child').parentId).toBeNull();
    expect(r.s('self').parentId).toBeNull();
    expect(r.snap.warnings.filter((w) => /cycle/.test(w.reason))).toEqual([]);
  });

  it('matches the generated fixture’s lineage, including cross-project and relative forks', async () => {
    t = makeTempEnv();
    const manifest = buildPiFixture({ agentDir: agentDir(), projects: 3, sessionsPerProject: 6, seed: 11, forkRate: 0.6, cwdRoot: join(t.root, 'src') });
    const kinds = new Set(manifest.sessions.map((s) => s.kind));
    expect(kinds).toEqual(new Set(['root', 'fork', 'crossFork', 'relativeFork']));
    const r = await scan();
    expect(r.sum.sessionCount).toBe(manifest.sessions.length);
    for (const m of manifest.sessions) {
      expect(r.s(m.id).parentId, `${m.kind} ${m.id}`).toBe(m.parentId);
      expect(r.s(m.id).paths).toEqual([m.file]);
    }
  });
});

describe('projects', () => {
  it('groups by bucket, labelled with the basename of the header cwd', async () => {
    t = makeTempEnv();
    writeSession('/home/u/src/api-server', 'a', [user('one')]);
    writeSession('/home/u/src/api-server', 'b', [user('two')]);
    writeSession('/home/u/src/web', 'c', [user('three')]);
    const r = await scan();
    expect(r.s('a').projectId).toBe(r.s('b').projectId);
    expect(r.s('a').projectId).not.toBe(r.s('c').projectId);
    const bucketPath = realpathSync(bucket('/home/u/src/api-server'));
    expect(r.s('a').projectId).toBe(uuidv5Url(bucketPath));
    const projects = Object.fromEntries(r.sum.projects.map((p) => [p.label, p]));
    expect(projects['api-server']).toMatchObject({ roots: ['/home/u/src/api-server'], sessions: 2 });
    expect(projects.web).toMatchObject({ roots: ['/home/u/src/web'], sessions: 1 });
    expect(r.s('a').cwd).toBe('/home/u/src/api-server');
  });

  it('labels "/" as Global and a cwd-less bucket by its directory name', async () => {
    t = makeTempEnv();
    writeSession('/', 'root-cwd', [user('x')]);
    writeFileSync(join(bucket('/src/nocwd'), 'n.jsonl'), `${header('nocwd', null)}\n`);
    const r = await scan();
    const labels = r.sum.projects.map((p) => p.label).sort();
    expect(labels).toEqual(['--src-nocwd--', 'Global']);
    expect(r.s('nocwd').cwd).toBeNull();
  });

  it('lists a working directory once, even one that cleaning would change', async () => {
    t = makeTempEnv();
    writeSession('/src/my  proj', 'w1', [user('x')]);
    writeSession('/src/my  proj', 'w2', [user('y')]);
    writeSession('/src/my  proj', 'w3', [user('z')]);
    const r = await scan();
    expect(r.sum.projects).toHaveLength(1);
    expect(r.sum.projects[0]!.roots).toHaveLength(1);
  });
});

describe('skips with warnings', () => {
  it('skips unrecognized headers, empty files, directories and symlinked files', async () => {
    t = makeTempEnv();
    const dir = bucket('/src/app');
    const good = writeSession('/src/app', 'good', [user('fine')]);
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, '{"type":"message","id":"x","parentId":null}\n{"type":"session","id":"late-header"}\n');
    const badId = join(dir, 'badid.jsonl');
    writeFileSync(badId, `${JSON.stringify({ type: 'session', id: 'evil\u001b[31m', cwd: '/src/app' })}\n`);
    const empty = join(dir, 'empty.jsonl');
    writeFileSync(empty, '');
    const blank = join(dir, 'blank.jsonl');
    writeFileSync(blank, '\n\n   \n');
    const folder = join(dir, 'x.jsonl');
    mkdirSync(folder);
    const link = join(dir, 'link.jsonl');
    symlinkSync(good, link);
    writeFileSync(join(dir, 'notes.txt'), 'not a session');
    writeFileSync(join(agentDir(), 'sessions', 'stray.jsonl'), header('stray', '/src/app'));
    const r = await scan();
    // The good session and the read-only row of the link to it.
    expect(r.sum.sessionCount).toBe(2);
    expect(r.s('good').title).toBe('fine');
    expect(warningFor(r.sum, bad)).toMatch(/unrecognized header/);
    expect(warningFor(r.sum, badId)).toMatch(/unrecognized header/);
    expect(warningFor(r.sum, empty)).toMatch(/empty/);
    expect(warningFor(r.sum, blank)).toMatch(/empty/);
    expect(warningFor(r.sum, folder)).toMatch(/not a regular file/);
    const linkRow = r.snap.forest.nodes.find((n) => n.s.paths[0] === link)!.s;
    expect(linkRow.selectable).toBe(false);
    expect(linkRow.blockedReason).toBe('A symbolic link: never followed, never removed.');
    expect(warningFor(r.sum, link)).toBeUndefined(); // the row itself says why
    // pi ignores non-.jsonl files and files directly in sessions/: so does the scan, silently.
    expect(r.sum.warnings.some((w) => w.path.endsWith('notes.txt') || w.path.endsWith('stray.jsonl'))).toBe(false);
  });

  it('skips a symlinked bucket and the sessions behind it', async () => {
    t = makeTempEnv();
    writeSession('/src/app', 'inside', [user('x')]);
    const outside = join(t.root, 'outside-bucket');
    mkdirSync(outside);
    writeFileSync(join(outside, 'o.jsonl'), `${header('behind-link', '/src/linked')}\n`);
    const linked = join(agentDir(), 'sessions', '--linked--');
    symlinkSync(outside, linked);
    const r = await scan();
    // Never followed: nothing behind the link is read, the link itself is one read-only row.
    expect(r.snap.forest.nodeById.has('behind-link')).toBe(false);
    const row = r.snap.forest.nodes.find((n) => n.s.paths[0] === linked)!.s;
    expect(row.title).toBe(`Linked pi project folder --linked-- → ${outside}`);
    expect(row.selectable).toBe(false);
    expect(row.recoverable).toBe(false);
    expect(row.blockedReason).toBe('A symbolic link: never followed, never removed.');
    expect(r.sum.projects.some((p) => p.label === '--linked--')).toBe(true);
  });

  it('a linked session file is described from lstat and readlink only: a FIFO target is never opened', async () => {
    t = makeTempEnv();
    const fifo = join(t.root, 'pipe.jsonl');
    spawnSync('mkfifo', [fifo]);
    expect(statSync(fifo).isFIFO()).toBe(true);
    const link = join(bucket('/src/app'), '2026-11-29T14-37-37-577Z_piped.jsonl');
    symlinkSync(fifo, link);
    writeSession('/src/app', 'real', [user('hello')]);
    const r = await scan(); // would hang on open(2) of the FIFO without a writer, were the link followed
    const row = r.snap.forest.nodes.find((n) => n.s.paths[0] === link)!.s;
    expect(row.title).toBe(`Linked pi session 2026-11-29T14-37-37-577Z_piped.jsonl → ${fifo}`);
    expect(row.selectable).toBe(false);
    expect(r.s('real').selectable).toBe(true);
    // Nor for a preview: the notice says why.
    const pv = await r.engine.preview(r.sum.snapshotId, row.itemId);
    expect(pv.blocks).toEqual([{ kind: 'notice', text: 'A symbolic link: never followed, never removed.' }]);
  });

  it('read-only rows (a link, a duplicate id) are refused by the planner; the rest of a plan is not', async () => {
    t = makeTempEnv();
    const good = writeSession('/src/app', 'good', [user('fine')]);
    const link = join(bucket('/src/app'), 'link.jsonl');
    symlinkSync(good, link);
    const copy = writeSession('/src/app', 'good', [user('copy')], { name: 'copy.jsonl' });
    const r = await scan();
    const linkRow = r.snap.forest.nodes.find((n) => n.s.paths[0] === link)!.s;
    const dupRow = r.snap.forest.nodes.find((n) => n.s.paths[0] === copy)!.s;
    for (const row of [linkRow, dupRow]) {
      const plan = await r.engine.plan(r.sum.snapshotId, [row.itemId]);
      expect(plan.operations.flatMap((o) => o.blockers).join(' '), row.title).toMatch(/never removed/);
    }
    const ok = await r.engine.plan(r.sum.snapshotId, [r.s('good').itemId]);
    expect(ok.operations.flatMap((o) => o.blockers)).toEqual([]);
    expect(ok.items.flatMap((i) => i.paths)).toEqual([good]);
  });

  it('shows both files with the same session id: the second read-only, with its reason', async () => {
    t = makeTempEnv();
    const first = writeSession('/src/app', 'dup', [user('original')], { name: 'a.jsonl' });
    const second = writeSession('/src/app', 'dup', [user('copy')], { name: 'b.jsonl' });
    const r = await scan();
    expect(r.s('dup').paths).toEqual([first]);
    expect(r.s('dup').title).toBe('original');
    expect(r.s('dup').selectable).toBe(true);
    const copy = r.snap.forest.nodes.find((n) => n.s.paths[0] === second)!.s;
    expect(copy.id).toMatch(/^dup#[0-9a-f]{8}$/);
    expect(copy.title).toBe('copy');
    expect(copy.selectable).toBe(false);
    expect(copy.blockedReason).toMatch(/same session ID.*read-only, never removed/);
    expect(warningFor(r.sum, second)).toBeUndefined();
  });

  it('prefers the file pi named for the id over a copy that sorts first', async () => {
    t = makeTempEnv();
    const real = writeSession('/src/zz-app', 'dup2', [user('the real one')]);
    const copy = writeSession('/src/aa-copy', 'dup2', [user('a copy')], { name: '2099-01-01T00-00-00-000Z_copy.jsonl' });
    const child = join(bucket('/src/zz-app'), '2026-11-29T15-00-00-000Z_kid.jsonl');
    writeFileSync(child, `${header('kid', '/src/zz-app', { parentSession: real })}\n`);
    const r = await scan();
    expect(r.s('dup2').paths).toEqual([real]);
    expect(r.s('dup2').title).toBe('the real one');
    expect(r.snap.forest.nodes.find((n) => n.s.paths[0] === copy)!.s.selectable).toBe(false);
    expect(r.s('kid').parentId).toBe('dup2');
  });

  it('a read-only copy keeps its own fork parent and can be a fork parent itself', async () => {
    t = makeTempEnv();
    const root = writeSession('/src/app', 'root', [user('root')]);
    writeSession('/src/app', 'twin', [user('the twin')]);
    const copy = join(bucket('/src/app'), 'copy-of-twin.jsonl');
    writeFileSync(copy, `${header('twin', '/src/app', { parentSession: root })}\n${user('a copy')}\n`);
    const child = join(bucket('/src/app'), '2026-11-29T15-00-00-000Z_kid2.jsonl');
    writeFileSync(child, `${header('kid2', '/src/app', { parentSession: copy })}\n`);
    const r = await scan();
    const row = r.snap.forest.nodes.find((n) => n.s.paths[0] === copy)!.s;
    expect(row.selectable).toBe(false);
    expect(row.parentId).toBe('root');
    expect(r.s('kid2').parentId).toBe(row.id);
    expect(r.s('twin').parentId).toBeNull();
  });

  it('skips a session file owned by another user', async () => {
    t = makeTempEnv();
    const mine = writeSession('/src/app', 'mine', [user('x')]);
    const theirs = writeSession('/src/app', 'theirs', [user('y')]);
    if (process.getuid?.() === 0) {
      chownSync(theirs, 4242, 4242);
    } else {
      // Without root, pretend to be someone else: then every file is foreign.
      t.ctx.uid = statSync(mine).uid + 1;
    }
    const r = await scan();
    expect(r.snap.forest.nodeById.has('theirs')).toBe(false);
    expect(warningFor(r.sum, theirs)).toMatch(/owned by another user/);
  });

  it('accounts for every hostile case of the generated fixture', async () => {
    t = makeTempEnv();
    const manifest = buildPiFixture({ agentDir: agentDir(), projects: 2, sessionsPerProject: 4, seed: 3, hostile: true, cwdRoot: join(t.root, 'src') });
    expect(manifest.skipped.length).toBeGreaterThanOrEqual(6);
    const r = await scan();
    const rows = new Map(r.snap.forest.nodes.map((n) => [n.s.paths[0]!, n.s]));
    const readOnly = ['symlink', 'duplicate id', 'symlinked bucket'];
    for (const sk of manifest.skipped) {
      if (readOnly.includes(sk.why)) {
        expect(rows.get(sk.file)?.selectable, `${sk.why}: ${sk.file}`).toBe(false);
        expect(rows.get(sk.file)?.blockedReason).toMatch(/never removed/);
        continue;
      }
      expect(warningFor(r.sum, sk.file), `${sk.why}: ${sk.file}`).toBeDefined();
      expect(rows.has(sk.file)).toBe(false);
    }
    expect(r.sum.sessionCount).toBe(manifest.sessions.length + readOnly.length);
  });
});

describe('items', () => {
  it('lists models-store.json as a selectable cache and protected config as never selectable', async () => {
    t = makeTempEnv();
    buildPiFixture({ agentDir: agentDir(), projects: 1, sessionsPerProject: 2, config: true, cwdRoot: join(t.root, 'src') });
    const r = await scan();
    const cache = r.snap.item('cache:pi-models-store')!;
    expect(cache).toMatchObject({ category: 'cache', risk: 'safe', selectable: true, recoverable: false, paths: [join(agentDir(), 'models-store.json')] });
    expect(cache.bytes).toBeGreaterThan(0);
    const protectedIds = r.sum.items
      .filter((i) => i.category === 'protected')
      .map((i) => i.id)
      .sort();
    expect(protectedIds).toEqual(
      ['AGENTS.md', 'auth.json', 'extensions', 'keybindings.json', 'models.json', 'prompts', 'settings.json', 'skills', 'themes']
        .map((n) => `protected:pi:${n}`)
        .sort(),
    );
    for (const it of r.sum.items.filter((i) => i.category === 'protected')) {
      expect(it.selectable).toBe(false);
      expect(it.risk).toBe('protected');
      expect(it.blockedReason).toMatch(/Protected/);
    }
    expect(r.snap.item('protected:pi:prompts')!.bytes).toBeGreaterThan(0);
    // Managed totals exclude protected bytes.
    const sessionBytes = r.snap.forest.nodes.reduce((a, n) => a + n.s.bytes, 0);
    expect(r.sum.totals.bytes).toBe(sessionBytes + cache.bytes);
    // Protected content is never opened, not even for a preview.
    const pv = await r.engine.preview(r.sum.snapshotId, 'protected:pi:auth.json');
    expect(pv.bytesRead).toBe(0);
    expect(JSON.stringify(pv)).not.toContain('sk-demo');
    const cachePv = await r.engine.preview(r.sum.snapshotId, 'cache:pi-models-store');
    expect(cachePv.blocks[0]).toMatchObject({ kind: 'notice' });
  });

  it('does not follow a symlinked cache or protected entry', async () => {
    t = makeTempEnv();
    mkdirSync(join(agentDir(), 'sessions'), { recursive: true });
    const real = join(t.root, 'real-store.json');
    writeFileSync(real, '{"x":1}'.repeat(1000));
    symlinkSync(real, join(agentDir(), 'models-store.json'));
    symlinkSync(real, join(agentDir(), 'auth.json'));
    const r = await scan();
    expect(r.snap.item('cache:pi-models-store')).toBeUndefined();
    expect(warningFor(r.sum, join(agentDir(), 'models-store.json'))).toMatch(/symbolic link/);
    expect(r.snap.item('protected:pi:auth.json')).toMatchObject({ bytes: 0, selectable: false });
  });
});

describe('writer detection', () => {
  it('a running pi blocks every session and the cache, with the reason', async () => {
    t = makeTempEnv();
    writeSession('/src/app', 's1', [user('one')]);
    writeSession('/src/app', 's2', [user('two')]);
    writeFileSync(join(agentDir(), 'models-store.json'), '{}');
    fakeProcess(t.procRoot, 4242, 'pi', ['pi']);
    fakeProcess(t.procRoot, 4243, 'bash', ['bash']);
    const r = await scan();
    const running =
      'pi is running (pid 4242: pi (its environment and open files cannot be read (hidepid or a protected process))); quit it before deleting local session data.';
    expect(r.sum.writers).toMatchObject([{ pid: 4242, name: 'pi' }]);
    for (const id of ['s1', 's2']) {
      expect(r.s(id).selectable).toBe(false);
      expect(r.s(id).blockedReason).toBe(running);
    }
    expect(r.snap.item('cache:pi-models-store')).toMatchObject({ selectable: false, blockedReason: running });
    expect(r.sum.selection).toEqual([]);
    const page = await r.engine.page({ snapshotId: r.sum.snapshotId, scope: { view: 'flat' }, filter: {}, sort: 'updated', offset: 0, limit: 10 });
    expect(page.rows.map((x) => [x.selectable, x.blockedReason])).toEqual([
      [false, running],
      [false, running],
    ]);
  });

  it('recognizes node running the pi package, and nothing else', async () => {
    t = makeTempEnv();
    writeSession('/src/app', 's1', [user('one')]);
    fakeProcess(t.procRoot, 100, 'pip', ['pip', 'install', 'x']);
    fakeProcess(t.procRoot, 101, 'node', ['node', 'server.js', '--pi']);
    fakeProcess(t.procRoot, 102, 'vim', ['vim', '/home/u/.pi/agent/settings.json']);
    let r = await scan();
    expect(r.sum.writers).toEqual([]);
    expect(r.s('s1').selectable).toBe(true);
    fakeProcess(t.procRoot, 103, 'node', ['/usr/bin/node', '/usr/lib/node_modules/@mariozechner/pi-coding-agent/dist/cli.js']);
    r = await scan();
    expect(r.sum.writers.map((w) => w.pid)).toEqual([103]);
    expect(r.s('s1').selectable).toBe(false);
  });

  it('isPiProcess matches comm, exe and argv[0] by basename', () => {
    const p = (comm: string, argv: string[], exe: string | null = null) => ({ pid: 1, comm, argv, exe });
    expect(isPiProcess(p('pi', []))).toBe(true);
    expect(isPiProcess(p('', ['/home/u/.local/bin/pi', '--continue']))).toBe(true);
    expect(isPiProcess(p('x', [], '/opt/pi'))).toBe(true);
    expect(isPiProcess(p('bun', ['bun', 'x/pi-coding-agent/cli.ts']))).toBe(true);
    expect(isPiProcess(p('pipewire', ['pipewire']))).toBe(false);
    expect(isPiProcess(p('node', ['node', 'pi.js']))).toBe(false);
  });

  it('a symlinked agent dir is read but nothing in it is selectable', async () => {
    t = makeTempEnv();
    const real = join(t.root, 'real-pi');
    mkdirSync(join(real, 'sessions', bucketName('/src/app')), { recursive: true });
    writeFileSync(join(real, 'sessions', bucketName('/src/app'), 'a.jsonl'), `${header('via-link', '/src/app')}\n${user('hi')}\n`);
    rmSync(agentDir(), { recursive: true, force: true });
    mkdirSync(join(agentDir(), '..'), { recursive: true });
    symlinkSync(real, agentDir());
    const r = await scan();
    expect(r.s('via-link').selectable).toBe(false);
    expect(r.s('via-link').blockedReason).toMatch(/symbolic link/);
    expect(warningFor(r.sum, agentDir())).toMatch(/symbolic link/);
  });
});

describe('preview', () => {
  it('shows user, assistant and tool text with escape sequences stripped', async () => {
    t = makeTempEnv();
    writeSession('/src/app', 'p', [
      user('look at \x1b[31mthis\x1b[0m\x1b]0;pwned\x07 now'),
      assistant('sure\u009b2J thing\nsecond line'),
      entry({
        type: 'message',
        message: { role: 'toolResult', toolCallId: 'c', toolName: 'read\x1b[1m', content: [{ type: 'text', text: 'file\x07 body' }], isError: false },
      }),
      entry({ type: 'message', message: { role: 'bashExecution', command: 'ls', output: 'a\x1b[2Kb', exitCode: 0 } }),
      entry({ type: 'model_change', provider: 'p', modelId: 'm' }),
    ]);
    const r = await scan();
    const pv = await r.engine.preview(r.sum.snapshotId, 'session:p');
    expect(pv.truncated).toBe(false);
    expect(pv.blocks.map((b) => b.kind)).toEqual(['message', 'message', 'text', 'text']);
    expect(pv.blocks[0]).toMatchObject({ kind: 'message', role: 'user' });
    expect(pv.blocks[1]).toMatchObject({ kind: 'message', role: 'assistant' });
    expect((pv.blocks[1] as { text: string }).text.split('\n')).toHaveLength(2);
    expect(pv.blocks[3]).toMatchObject({ kind: 'text', title: 'bash' });
    const all = JSON.stringify(pv.blocks);
    expect(all).not.toMatch(/\\u001b|\\u0007|\\u009b/);
    for (const b of pv.blocks) {
      const texts = b.kind === 'text' ? [b.title, b.text] : [b.text];
      // eslint-disable-next-line no-control-regex
      for (const s of texts) expect(s).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f]/);
    }
  });

  it('keeps at most 200 blocks and says it was truncated', async () => {
    t = makeTempEnv();
    writeSession(
      '/src/app',
      'many',
      Array.from({ length: 260 }, (_, i) => user(`message ${i}`)),
    );
    const r = await scan();
    const pv = await r.engine.preview(r.sum.snapshotId, 'session:many');
    expect(pv.blocks).toHaveLength(200);
    expect(pv.truncated).toBe(true);
    expect(pv.warning).toMatch(/Truncated/);
  });

  it('reads at most 512 KiB of a large session', async () => {
    t = makeTempEnv();
    const filler = 'z'.repeat(10_000);
    writeSession(
      '/src/app',
      'big',
      Array.from({ length: 120 }, () => assistant(filler)),
    );
    const r = await scan();
    const pv = await r.engine.preview(r.sum.snapshotId, 'session:big');
    expect(pv.bytesRead).toBe(512 * 1024);
    expect(pv.truncated).toBe(true);
    expect(pv.blocks.length).toBeLessThan(120);
  });

  it('has a notice for a session without text, and for a file gone since the scan', async () => {
    t = makeTempEnv();
    writeSession('/src/app', 'quiet', [entry({ type: 'model_change', provider: 'p', modelId: 'm' })]);
    const gone = writeSession('/src/app', 'gone', [user('bye')]);
    const r = await scan();
    const quiet = await r.engine.preview(r.sum.snapshotId, 'session:quiet');
    expect(quiet.blocks).toEqual([{ kind: 'notice', text: expect.stringMatching(/No user, assistant or tool text/) }]);
    rmSync(gone);
    const pv = await r.engine.preview(r.sum.snapshotId, 'session:gone');
    expect(pv.blocks[0]).toMatchObject({ kind: 'notice', text: expect.stringMatching(/gone since the scan/) });
  });
});

describe('the 2 MiB prefix bound', () => {
  function bigSession(id: string, nameAt: number): { file: string; size: number } {
    // Every line is ASCII, so string length = byte length. The name line starts exactly at `nameAt`.
    const lines = [header(id, '/src/app'), user('first words')];
    let size = lines.join('\n').length + 1;
    const filler = assistant('f'.repeat(64 * 1024 - 200));
    while (size + filler.length + 1 <= nameAt) {
      lines.push(filler);
      size += filler.length + 1;
    }
    if (size < nameAt) {
      lines.push('p'.repeat(nameAt - size - 1));
      size = nameAt;
    }
    lines.push(info('late name'));
    size += lines[lines.length - 1]!.length + 1;
    while (size < 3 * 1024 * 1024) {
      lines.push(filler);
      size += filler.length + 1;
    }
    const file = join(bucket('/src/app'), `${id}.jsonl`);
    writeFileSync(file, `${lines.join('\n')}\n`);
    return { file, size: statSync(file).size };
  }

  it('ignores a name in the unread middle (after 2 MiB, before the last 256 KiB) and never reads past the bound', async () => {
    t = makeTempEnv();
    const { file, size } = bigSession('big', PI_PREFIX_BYTES + 4096);
    expect(size).toBeGreaterThanOrEqual(3 * 1024 * 1024);
    // The scan reads through readPrefixSync with a 2 MiB buffer: it cannot return more than that.
    const probe = readPrefixSync(file, Buffer.alloc(PI_PREFIX_BYTES + 8192).subarray(0, PI_PREFIX_BYTES));
    expect(probe.length).toBe(PI_PREFIX_BYTES);
    expect(probe.truncated).toBe(true);
    const r = await scan();
    expect(r.s('big').title).toBe('first words');
    expect(r.s('big').named).toBe(false);
    // The size is still the whole file's.
    expect(r.s('big').bytes).toBeGreaterThanOrEqual(3 * 1024 * 1024);
  });

  it('ignores a name line cut by the bound', async () => {
    t = makeTempEnv();
    bigSession('straddle', PI_PREFIX_BYTES - 10);
    const r = await scan();
    expect(r.s('straddle').title).toBe('first words');
  });

  it('reads a name written late, in the last 256 KiB of a long session (pi reads the whole file)', async () => {
    t = makeTempEnv();
    const { file } = bigSession('renamed-late', PI_PREFIX_BYTES + 4096);
    fs.appendFileSync(file, `${assistant('more')}\n${info('renamed at the end')}\n${assistant('after the rename')}\n`);
    const r = await scan();
    expect(r.s('renamed-late').title).toBe('renamed at the end');
    expect(r.s('renamed-late').named).toBe(true);
  });

  it('a late rename that clears the name falls back to the first message', async () => {
    t = makeTempEnv();
    const { file } = bigSession('cleared-late', PI_PREFIX_BYTES - 200);
    fs.appendFileSync(file, `${info('   ')}\n`);
    const r = await scan();
    expect(r.s('cleared-late').title).toBe('first words');
  });

  it('uses a name that ends just before the bound', async () => {
    t = makeTempEnv();
    bigSession('before', PI_PREFIX_BYTES - 200);
    const r = await scan();
    expect(r.s('before').title).toBe('late name');
  });
});

describe("Updated: pi's `modified`, not the file mtime", () => {
  const at = (iso: string): number => Date.parse(iso);
  it("is the last user/assistant message's time: message.timestamp, else the entry's; else the header's; else the mtime", async () => {
    t = makeTempEnv();
    const msg = (role: string, ts: string, msgTs?: number): string =>
      JSON.stringify({
        type: 'message',
        id: `m${++seq}`,
        parentId: null,
        timestamp: ts,
        message: { role, content: [{ type: 'text', text: 'x' }], ...(msgTs === undefined ? {} : { timestamp: msgTs }) },
      });
    const a = writeSession('/src/app', 'numeric', [
      msg('user', '2026-11-01T00:00:00.000Z', at('2026-11-02T00:00:00.000Z')),
      msg('assistant', '2026-11-03T00:00:00.000Z', at('2026-11-04T05:06:07.000Z')),
    ]);
    const b = writeSession('/src/app', 'entry-time', [
      msg('user', '2026-10-01T00:00:00.000Z'),
      msg('assistant', '2026-10-05T01:02:03.000Z'),
      JSON.stringify({ type: 'message', id: 'tr', parentId: null, timestamp: '2026-12-30T00:00:00.000Z', message: { role: 'toolResult', content: [] } }),
      info('named after'),
    ]);
    const c = writeSession('/src/app', 'header-only', []);
    const d = writeSession('/src/app', 'no-time', [], { raw: `${JSON.stringify({ type: 'session', version: 3, id: 'no-time', cwd: '/src/app' })}\n` });
    const mtime = new Date('2030-01-01T00:00:00.000Z');
    for (const f of [a, b, c, d]) fs.utimesSync(f, mtime, mtime);
    const r = await scan();
    expect(r.s('numeric').updatedAt).toBe(at('2026-11-04T05:06:07.000Z'));
    expect(r.s('entry-time').updatedAt).toBe(at('2026-10-05T01:02:03.000Z')); // a tool result is not activity
    expect(r.s('header-only').updatedAt).toBe(at(TS));
    expect(r.s('no-time').updatedAt).toBe(mtime.getTime());
  });

  it('in a long session, is the time of the last message in the tail', async () => {
    t = makeTempEnv();
    const lines = [header('long', '/src/app'), user('start')];
    const filler = assistant('f'.repeat(64 * 1024));
    for (let i = 0; i < 48; i++) lines.push(filler);
    lines.push(
      JSON.stringify({
        type: 'message',
        id: 'last',
        parentId: null,
        timestamp: TS,
        message: { role: 'user', content: 'late', timestamp: at('2026-12-12T12:12:12.000Z') },
      }),
    );
    const file = join(bucket('/src/app'), 'long.jsonl');
    writeFileSync(file, `${lines.join('\n')}\n`);
    expect(statSync(file).size).toBeGreaterThan(PI_PREFIX_BYTES + 1024 * 1024);
    const r = await scan();
    expect(r.s('long').updatedAt).toBe(at('2026-12-12T12:12:12.000Z'));
  });
});

describe('source revision', () => {
  it('is recorded by the scan from its own stat and equals what the executor recomputes (walkOwned)', async () => {
    t = makeTempEnv();
    const a = writeSession('/home/u/a', 'rev-a', [user('one')]);
    const b = writeSession('/home/u/b', 'rev-b', [user('two'), info('named')]);
    const r = await scan();
    for (const [id, file] of [
      ['rev-a', a],
      ['rev-b', b],
    ] as const) {
      const rev = r.s(id).metadata.sourceRevision;
      expect(typeof rev).toBe('string');
      expect(rev).toBe(walkOwned([file], { uid: t.ctx.uid }).revision);
    }
    // A change to the file after the scan is a different revision.
    writeFileSync(a, `${header('rev-a', '/home/u/a')}\n${user('one, longer')}\n`);
    expect(walkOwned([a], { uid: t.ctx.uid }).revision).not.toBe(r.s('rev-a').metadata.sourceRevision);
  });
});
