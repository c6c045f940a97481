// Deterministic pi store builder: the demo home, the tests and the benches
// all build their pi data with it, in the format pi 0.73/1.x writes
// (../shared/research/pi.md §3–4). It returns a manifest of what it wrote.

import { mkdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rng } from '../fixture-rng.js';

export interface PiFixtureOptions {
  agentDir: string;
  projects: number;
  sessionsPerProject: number;
  seed?: number;
  /** ms since epoch that "now" is, so ages are stable. */
  now?: number;
  /** Root that the fake working directories live under (never created). */
  cwdRoot?: string;
  /** Share of sessions that get a fork (0–1). */
  forkRate?: number;
  /** Add the hostile cases: malformed, symlinked, duplicate, empty, a directory. */
  hostile?: boolean;
  /** Add the protected configuration files and the model catalog cache. */
  config?: boolean;
  /** Extra bytes of transcript per session, on average. */
  bodyBytes?: number;
  /** A title that carries a terminal escape sequence (for the PTY tests). */
  escapeTitle?: boolean;
  /**
   * Add a bucket of title/lineage edge cases that pi's own lister handles in a
   * well-defined way (for the peer tests): header-only and assistant-only
   * sessions ("(no messages)"), control characters and whitespace runs, titles
   * that display empty in pi, long
   * titles with astral characters, multi-block content, renamed/cleared/padded
   * names, a garbage first line, CRLF lines, a v1 header and a dangling parent.
   */
  edgeCases?: boolean;
  /**
   * Add two sessions longer than the 2 MiB prefix (about 2.6 MiB each): one
   * renamed late (its session_info name in the last 256 KiB), one whose last
   * message is 12 days after its file mtime (pi's Updated is the message's).
   */
  longSessions?: boolean;
}

export interface PiFixtureSession {
  id: string;
  file: string;
  cwd: string;
  name: string | null;
  firstUser: string | null;
  parentId: string | null;
  kind: 'root' | 'fork' | 'crossFork' | 'relativeFork' | 'edge' | 'long';
  mtime: number;
}

export interface PiFixtureManifest {
  sessions: PiFixtureSession[];
  skipped: { file: string; why: string }[];
}

const WORDS = ['refactor', 'parser', 'cache', 'tests', 'flaky', 'deploy', 'migration', 'schema', 'router', 'docs', 'bench', 'auth', 'retry', 'lint', 'build', 'types', 'stream', 'queue', 'index', 'memory'];
const CJK = ['修复登录页面的样式问题', '重构数据库迁移脚本', 'テストを追加して', '빌드 오류 수정', '优化搜索性能 🚀'];
const PROJECT_NAMES = ['api-server', 'web-app', 'infra', 'ml-pipeline', 'docs-site', 'cli-tools', 'payments', 'mobile', 'data-lake', 'search', 'auth-service', 'notebooks', 'scripts', 'monorepo', 'game', 'blog', 'dotfiles', 'analytics', 'billing', 'etl'];

function uuid7(r: () => number, ms: number): string {
  const hex = (n: number, len: number): string => Math.floor(n).toString(16).padStart(len, '0').slice(-len);
  const t = hex(ms, 12);
  const rand = Array.from({ length: 20 }, () => hex(r() * 16, 1)).join('');
  return `${t.slice(0, 8)}-${t.slice(8, 12)}-7${rand.slice(0, 3)}-${'89ab'[Math.floor(r() * 4)]}${rand.slice(3, 6)}-${rand.slice(6, 18)}`;
}

export function bucketName(cwd: string): string {
  return `--${cwd.replace(/^[/\\]/, '').replace(/[/\\:]/g, '-')}--`;
}

function fileStamp(ms: number): string {
  return new Date(ms).toISOString().replace(/[:.]/g, '-');
}

export function buildPiFixture(o: PiFixtureOptions): PiFixtureManifest {
  const r = rng(o.seed ?? 1);
  const now = o.now ?? Date.UTC(2026, 10, 29, 12, 0, 0);
  const cwdRoot = o.cwdRoot ?? '/home/demo/src';
  const forkRate = o.forkRate ?? 0.15;
  const body = o.bodyBytes ?? 2000;
  const sessionsDir = join(o.agentDir, 'sessions');
  mkdirSync(sessionsDir, { recursive: true });
  const manifest: PiFixtureManifest = { sessions: [], skipped: [] };
  const lines = new Map<string, string[]>();

  const write = (s: PiFixtureSession, content: string[]): void => {
    writeFileSync(s.file, content.join('\n') + '\n');
    const t = new Date(s.mtime);
    utimesSync(s.file, t, t);
    lines.set(s.id, content);
    manifest.sessions.push(s);
  };

  let counter = 0;
  for (let p = 0; p < o.projects; p++) {
    const base = PROJECT_NAMES[p % PROJECT_NAMES.length]!;
    const cwd = `${cwdRoot}/${base}${p >= PROJECT_NAMES.length ? `-${Math.floor(p / PROJECT_NAMES.length)}` : ''}`;
    const bucket = join(sessionsDir, bucketName(cwd));
    mkdirSync(bucket, { recursive: true });
    for (let i = 0; i < o.sessionsPerProject; i++) {
      counter++;
      const age = Math.floor(r() * r() * 200 * 86_400_000);
      const created = now - age - 3_600_000;
      const id = uuid7(r, created);
      const roll = r();
      let name: string | null = null;
      let first: string;
      if (roll < 0.08) first = CJK[counter % CJK.length]!;
      else first = `${pick(r, WORDS)} the ${pick(r, WORDS)} ${pick(r, WORDS)} in ${base} (${counter})`;
      if (o.escapeTitle && counter === 1) first = 'evil \x1b[31mRED\x1b[0m \x1b]0;pwned\x07title';
      if (roll > 0.7) name = roll > 0.95 ? `${CJK[counter % CJK.length]} · 任务 ${counter}` : `${pick(r, WORDS)} ${pick(r, WORDS)} session ${counter}`;
      const content = transcript(r, id, cwd, created, first, name, body);
      const file = join(bucket, `${fileStamp(created)}_${id}.jsonl`);
      write({ id, file, cwd, name, firstUser: first, parentId: null, kind: 'root', mtime: created + Math.floor(r() * 3_600_000) }, content);

      if (r() < forkRate) {
        const fid = uuid7(r, created + 60_000);
        const fork = forkLines(fid, cwd, created + 60_000, file, lines.get(id)!);
        const ffile = join(bucket, `${fileStamp(created + 60_000)}_${fid}.jsonl`);
        write({ id: fid, file: ffile, cwd, name, firstUser: first, parentId: id, kind: 'fork', mtime: created + 120_000 }, fork);
        if (r() < 0.3) {
          const gid = uuid7(r, created + 180_000);
          const gfile = join(bucket, `${fileStamp(created + 180_000)}_${gid}.jsonl`);
          const g = forkLines(gid, cwd, created + 180_000, ffile, fork);
          write({ id: gid, file: gfile, cwd, name, firstUser: first, parentId: fid, kind: 'fork', mtime: created + 240_000 }, g);
        }
      }
    }
  }

  // A cross-project fork (pi --fork from another directory) and a relative one (0.73 stores it verbatim).
  if (manifest.sessions.length > 2 && o.projects > 1) {
    const src = manifest.sessions[0]!;
    const cwd = `${cwdRoot}/scratch`;
    const bucket = join(sessionsDir, bucketName(cwd));
    mkdirSync(bucket, { recursive: true });
    const t = now - 86_400_000;
    const xid = uuid7(r, t);
    const xfile = join(bucket, `${fileStamp(t)}_${xid}.jsonl`);
    write({ id: xid, file: xfile, cwd, name: src.name, firstUser: src.firstUser, parentId: src.id, kind: 'crossFork', mtime: t + 1000 }, forkLines(xid, cwd, t, src.file, lines.get(src.id)!));
    const rid = uuid7(r, t + 5000);
    const rfile = join(bucket, `${fileStamp(t + 5000)}_${rid}.jsonl`);
    const rel = `../${src.file.split('/').slice(-2).join('/')}`;
    write({ id: rid, file: rfile, cwd: bucket, name: src.name, firstUser: src.firstUser, parentId: src.id, kind: 'relativeFork', mtime: t + 6000 }, forkLines(rid, bucket, t + 5000, rel, lines.get(src.id)!));
  }

  if (o.edgeCases) addEdgeCases(sessionsDir, cwdRoot, now, write);
  if (o.longSessions) addLongSessions(sessionsDir, cwdRoot, now, write);
  if (o.config) writeConfig(o.agentDir);
  if (o.hostile) addHostile(o.agentDir, sessionsDir, manifest, now);
  return manifest;
}

function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)]!;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function transcript(r: () => number, id: string, cwd: string, t: number, first: string, name: string | null, body: number): string[] {
  let prev: string | null = null;
  let n = 0;
  const entry = (o: Record<string, unknown>): string => {
    const eid = (++n).toString(16).padStart(8, '0');
    const line = JSON.stringify({ ...o, id: eid, parentId: prev, timestamp: iso(t + n * 1000) });
    prev = eid;
    return line;
  };
  const out = [JSON.stringify({ type: 'session', version: 3, id, timestamp: iso(t), cwd })];
  out.push(entry({ type: 'model_change', provider: 'anthropic', modelId: 'claude-sonnet-4' }));
  out.push(entry({ type: 'thinking_level_change', thinkingLevel: 'off' }));
  out.push(entry({ type: 'message', message: { role: 'user', content: [{ type: 'text', text: first }], timestamp: t + 3000 } }));
  const turns = 1 + Math.floor(r() * 4);
  const size = Math.floor(body * (0.2 + r() * r() * 4));
  for (let k = 0; k < turns; k++) {
    const filler = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(Math.max(1, Math.floor(size / turns / 56)));
    out.push(entry({ type: 'message', message: { role: 'assistant', content: [{ type: 'text', text: `Step ${k + 1}: ${filler}` }], api: 'anthropic-messages', provider: 'anthropic', model: 'claude-sonnet-4', stopReason: 'stop', timestamp: t + 5000 + k } }));
    if (r() < 0.5) out.push(entry({ type: 'message', message: { role: 'toolResult', toolCallId: `call_${k}`, toolName: 'read', content: [{ type: 'text', text: `file contents ${k}` }], isError: false, timestamp: t + 6000 + k } }));
    if (r() < 0.3) out.push(entry({ type: 'message', message: { role: 'bashExecution', command: 'npm test', output: 'ok 12 passed', exitCode: 0, cancelled: false, truncated: false, timestamp: t + 7000 + k } }));
    out.push(entry({ type: 'message', message: { role: 'user', content: `follow-up ${k}`, timestamp: t + 8000 + k } }));
  }
  if (name) out.push(entry({ type: 'session_info', name }));
  return out;
}

function forkLines(id: string, cwd: string, t: number, parentPath: string, parent: string[]): string[] {
  const header = JSON.stringify({ type: 'session', version: 3, id, timestamp: iso(t), cwd, parentSession: parentPath });
  return [header, ...parent.slice(1)];
}

function addLongSessions(sessionsDir: string, cwdRoot: string, now: number, write: (s: PiFixtureSession, content: string[]) => void): void {
  const cwd = `${cwdRoot}/long-sessions`;
  const bucket = join(sessionsDir, bucketName(cwd));
  mkdirSync(bucket, { recursive: true });
  const filler = 'x'.repeat(64 * 1024);
  const long = (n: number, first: string, tailName: string | null, lastAt: number, mtime: number): void => {
    const t = now - 30 * 86_400_000 + n * 60_000;
    const id = `0190f000-0000-7000-8000-00000000010${n}`;
    const lines = [JSON.stringify({ type: 'session', version: 3, id, timestamp: iso(t), cwd })];
    let k = 0;
    const entry = (o: Record<string, unknown>): string => JSON.stringify({ ...o, id: `l${n}-${++k}`, parentId: k > 1 ? `l${n}-${k - 1}` : null, timestamp: iso(t + k * 1000) });
    lines.push(entry({ type: 'message', message: { role: 'user', content: first, timestamp: t + 1000 } }));
    for (let i = 0; i < 40; i++) lines.push(entry({ type: 'message', message: { role: 'assistant', content: [{ type: 'text', text: filler }], timestamp: t + 2000 + i } }));
    if (tailName) lines.push(entry({ type: 'session_info', name: tailName }));
    lines.push(entry({ type: 'message', message: { role: 'assistant', content: [{ type: 'text', text: 'done' }], timestamp: lastAt } }));
    write({ id, file: join(bucket, `${fileStamp(t)}_${id}.jsonl`), cwd, name: tailName, firstUser: first, parentId: null, kind: 'long', mtime }, lines);
  };
  long(1, 'a long session, renamed at the end', 'renamed late, after 2 MiB', now - 20 * 86_400_000, now - 20 * 86_400_000 + 5000);
  long(2, 'a long session, touched later', null, now - 14 * 86_400_000, now - 2 * 86_400_000);
}

function addEdgeCases(sessionsDir: string, cwdRoot: string, now: number, write: (s: PiFixtureSession, content: string[]) => void): void {
  const cwd = `${cwdRoot}/edge-cases`;
  const bucket = join(sessionsDir, bucketName(cwd));
  mkdirSync(bucket, { recursive: true });
  let k = 0;
  const add = (
    firstUser: string | null,
    name: string | null,
    entries: Record<string, unknown>[],
    opts: { header?: Record<string, unknown>; prefix?: string; eol?: string; v1?: boolean } = {},
  ): PiFixtureSession => {
    k++;
    const t = now - 10 * 86_400_000 + k * 60_000;
    // Deterministic, UUIDv7-shaped, independent of the seeded generator.
    const id = `${t.toString(16).padStart(12, '0').slice(0, 8)}-${t.toString(16).padStart(12, '0').slice(8)}-7e00-8000-${k.toString(16).padStart(12, '0')}`;
    const header = { type: 'session', version: 3, id, timestamp: iso(t), cwd, ...opts.header };
    let prev: string | null = null;
    const lines = [JSON.stringify(header)];
    entries.forEach((e, i) => {
      const eid = `e${k.toString(16).padStart(3, '0')}${i.toString(16).padStart(4, '0')}`;
      lines.push(JSON.stringify(opts.v1 ? { ...e, timestamp: iso(t + (i + 1) * 1000) } : { ...e, id: eid, parentId: prev, timestamp: iso(t + (i + 1) * 1000) }));
      prev = eid;
    });
    if (opts.prefix !== undefined) lines.unshift(opts.prefix);
    const file = join(bucket, `${fileStamp(t)}_${id}.jsonl`);
    const s: PiFixtureSession = { id, file, cwd, name, firstUser, parentId: null, kind: 'edge', mtime: t + 30_000 };
    write(s, lines);
    if (opts.eol) {
      writeFileSync(file, lines.join(opts.eol) + opts.eol);
      utimesSync(file, new Date(s.mtime), new Date(s.mtime));
    }
    return s;
  };
  const user = (content: unknown): Record<string, unknown> => ({ type: 'message', message: { role: 'user', content, timestamp: now } });
  const assistant = (text: string): Record<string, unknown> => ({
    type: 'message',
    message: { role: 'assistant', content: [{ type: 'text', text }], api: 'anthropic-messages', provider: 'anthropic', model: 'claude-sonnet-4', stopReason: 'stop', timestamp: now },
  });
  const info = (name: string): Record<string, unknown> => ({ type: 'session_info', name });

  // "(no messages)": a header only, and a transcript without any user text.
  add(null, null, []);
  add(null, null, [{ type: 'model_change', provider: 'anthropic', modelId: 'claude-sonnet-4' }, assistant('I started on my own.')]);
  // Control characters and whitespace runs.
  add('fix\tthe\r\nbuild   now\u0007 please  ', null, [user('fix\tthe\r\nbuild   now\u0007 please  '), assistant('ok')]);
  // Titles that display as nothing in pi: a whitespace-only first message, a name of control characters.
  add('   \t  ', null, [user('   \t  '), assistant('?'), user('asked again')]);
  add('name of controls', '\u0001\u0007', [user('name of controls'), assistant('ok'), info('\u0001\u0007')]);
  // Longer than the 96-code-point title bound, with astral characters.
  const long = `${'重构数据库迁移脚本 🚀 '.repeat(8)}and then ${'update the deployment docs '.repeat(4)}`;
  add(long, null, [user([{ type: 'text', text: long }]), assistant('done')]);
  // Several content blocks (an image in between) are joined with one space.
  add('first block second block', null, [user([{ type: 'text', text: 'first block' }, { type: 'image', data: 'aGVsbG8=', mimeType: 'image/png' }, { type: 'text', text: 'second block' }]), assistant('seen')]);
  // Empty user texts are skipped; the first non-empty one is the title.
  add('the real question', null, [user(''), user([{ type: 'text', text: '' }]), assistant('?'), user('the real question'), user('a later one')]);
  // Names: the latest wins, "" clears, surrounding whitespace is trimmed.
  add('renamed twice', 'final name', [user('renamed twice'), assistant('ok'), info('first name'), info('final name')]);
  add('name cleared again', null, [user('name cleared again'), info('temporary'), assistant('ok'), info('')]);
  add('padded name', 'padded\tname', [info('   padded\tname \t '), user('padded name'), assistant('ok')]);
  add('日本語の名前', 'テストを追加して · 任务', [user('日本語の名前'), assistant('はい'), info('テストを追加して · 任务')]);
  // A malformed first line before the header: pi skips it and lists the file.
  add('after a garbage line', null, [user('after a garbage line'), assistant('ok')], { prefix: '{"type":"session", this is not json' });
  // CRLF line endings.
  add('crlf line endings', null, [user('crlf line endings'), assistant('ok')], { eol: '\r\n' });
  // A v1 header (no version) with entries that carry no ids.
  add('legacy v1 session', null, [user('legacy v1 session'), assistant('ok')], { header: { version: undefined }, v1: true });
  // A parent that no longer exists: pi shows the child as a root.
  add('dangling parent', null, [user('dangling parent'), assistant('ok')], { header: { parentSession: join(bucket, '2020-01-01T00-00-00-000Z_gone.jsonl') } });
}

function writeConfig(agentDir: string): void {
  writeFileSync(join(agentDir, 'auth.json'), '{"anthropic":{"type":"api_key","key":"sk-demo-not-a-real-key"}}\n', { mode: 0o600 });
  writeFileSync(join(agentDir, 'settings.json'), '{"defaultProvider":"anthropic","defaultModel":"claude-sonnet-4"}\n');
  writeFileSync(join(agentDir, 'models.json'), '{"providers":{}}\n');
  writeFileSync(join(agentDir, 'keybindings.json'), '{}\n');
  writeFileSync(join(agentDir, 'AGENTS.md'), '# Rules\nAlways run the tests.\n');
  writeFileSync(join(agentDir, 'models-store.json'), JSON.stringify({ anthropic: { models: Array.from({ length: 40 }, (_, i) => ({ id: `model-${i}` })) } }), { mode: 0o600 });
  for (const d of ['prompts', 'skills', 'extensions', 'themes']) mkdirSync(join(agentDir, d), { recursive: true });
  writeFileSync(join(agentDir, 'prompts', 'review.md'), 'Review this change.\n');
}

function addHostile(agentDir: string, sessionsDir: string, m: PiFixtureManifest, now: number): void {
  const bucket = join(sessionsDir, bucketName('/home/demo/src/broken'));
  mkdirSync(bucket, { recursive: true });
  const bad = join(bucket, '2026-01-01T00-00-00-000Z_not-a-header.jsonl');
  writeFileSync(bad, '{"type":"message","id":"x","parentId":null}\n');
  m.skipped.push({ file: bad, why: 'unrecognized header' });
  const empty = join(bucket, '2026-01-02T00-00-00-000Z_empty.jsonl');
  writeFileSync(empty, '');
  m.skipped.push({ file: empty, why: 'empty' });
  const dir = join(bucket, 'directory.jsonl');
  mkdirSync(dir, { recursive: true });
  m.skipped.push({ file: dir, why: 'not a file' });
  if (m.sessions[0]) {
    const link = join(bucket, '2026-01-03T00-00-00-000Z_link.jsonl');
    symlinkSync(m.sessions[0].file, link);
    m.skipped.push({ file: link, why: 'symlink' });
    const dup = join(bucket, '2099-01-01T00-00-00-000Z_dup.jsonl');
    writeFileSync(dup, `${JSON.stringify({ type: 'session', version: 3, id: m.sessions[0].id, timestamp: iso(now), cwd: '/home/demo/src/broken' })}\n`);
    m.skipped.push({ file: dup, why: 'duplicate id' });
  }
  const outside = join(agentDir, '..', 'outside-bucket');
  mkdirSync(outside, { recursive: true });
  // A real session behind the link: pi 1.x lists it, 0.73's listAll() skips symlinked buckets; cleanerx shows the link as one read-only row.
  writeFileSync(
    join(outside, '2026-01-04T00-00-00-000Z_0190f000-0000-7000-8000-0000000000aa.jsonl'),
    `${JSON.stringify({ type: 'session', version: 3, id: '0190f000-0000-7000-8000-0000000000aa', timestamp: '2026-01-04T00:00:00.000Z', cwd: '/home/demo/src/linked' })}\n`,
  );
  symlinkSync(outside, join(sessionsDir, '--linked-bucket--'));
  m.skipped.push({ file: join(sessionsDir, '--linked-bucket--'), why: 'symlinked bucket' });
}
