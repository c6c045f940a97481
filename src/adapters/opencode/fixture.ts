// Deterministic OpenCode store builder for tests and benches. The database
// itself is made by the real program (`opencode db path` creates it and runs
// all of its migrations: initOpencodeStore), then rows are inserted in the
// official 1.18.33 schema the way OpenCode writes them: projects and their
// directories, sessions (roots, children, grandchildren, forks, archived,
// orphans, global ones), messages, parts, todos and the event store. The
// database is left as OpenCode leaves it (WAL mode with -wal and -shm).
// Optionally the rest of a data dir (log/, auth.json, storage/, snapshot/…),
// the cache root and the config dir are written too.
// (../shared/research/opencode.md §2–5.)

import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { rng } from '../fixture-rng.js';
import { runOpencode } from './official-cli.js';

export interface OpencodeFixtureOptions {
  /** The database, already created by OpenCode (initOpencodeStore / copyOpencodeStore). */
  db: string;
  /** Where project worktrees and plain (non-git) directories are created. */
  workRoot: string;
  projects?: number;
  rootsPerProject?: number;
  /** Children of each of the first half of a project's roots. */
  childrenPerRoot?: number;
  /** Grandchildren under the first child of each root that has children. */
  grandchildren?: number;
  /** Forks (new roots, "<title> (fork #n)") per project. */
  forks?: number;
  /** Roots per project whose time_archived is set. */
  archived?: number;
  /** Sessions whose parent does not exist (spread over the projects). */
  orphans?: number;
  /** Sessions of the "global" project (non-git directories). */
  globalSessions?: number;
  messagesPerSession?: number;
  /** Approximate bytes of text per part. */
  partBytes?: number;
  /** Write the event store (event_sequence/event) for each session, as the server does. */
  events?: boolean;
  seed?: number;
  now?: number;
  spreadDays?: number;
  /** A session with an empty title, one with an escape sequence, a two-session parent cycle. */
  edgeCases?: boolean;
  /** Make each project dir a git repo whose .git/opencode names the project (so the CLI resolves it). */
  git?: boolean;
  /** Also write these dirs the way OpenCode fills them. */
  dataDir?: string;
  cacheDir?: string;
  configDir?: string;
}

export type OpencodeSessionKind = 'root' | 'child' | 'grandchild' | 'fork' | 'archived' | 'orphan' | 'global' | 'edge' | 'cycle';

export interface OpencodeFixtureSession {
  id: string;
  title: string;
  parentId: string | null;
  projectId: string;
  directory: string;
  kind: OpencodeSessionKind;
  archivedAt: number | null;
  createdAt: number;
  updatedAt: number;
  /** Logical size by cleanerx's rule (UTF-8 bytes): id+title+directory and every owned row. */
  bytes: number;
  messages: number;
}

export interface OpencodeFixtureManifest {
  db: string;
  projects: { id: string; worktree: string; name: string | null }[];
  sessions: OpencodeFixtureSession[];
  /** Transitive descendants of each session (the scope OpenCode's delete removes). */
  descendants: Map<string, string[]>;
}

const WORDS = ['refactor', 'parser', 'cache', 'tests', 'flaky', 'deploy', 'migration', 'schema', 'router', 'docs', 'bench', 'auth', 'retry', 'lint', 'build', 'types', 'stream', 'queue', 'index', 'memory'];
const TITLES = ['Fix the flaky retry test', 'Add a migration for sessions', 'Explain the router', 'Speed up the parser', 'Refactor auth middleware', 'Write docs for the CLI', 'Überarbeite die Queue ✨', '修复登录页面的样式问题', 'Profile the stream reader', 'Clean up lint warnings'];
const B62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const OPENCODE_VERSION = '1.18.33';
const DAY = 86_400_000;

/**
 * OpenCode's ids: `<prefix>_<12 hex><14 base62>`, the hex being the low 48
 * bits of ms*4096+counter, bit-inverted for sessions (newest sort first).
 */
function makeIds(r: () => number): (prefix: 'ses' | 'msg' | 'prt' | 'evt', ms: number) => string {
  let counter = 0;
  return (prefix, ms) => {
    let v = (BigInt(Math.floor(ms)) * 4096n + BigInt(++counter % 4096)) & 0xffffffffffffn;
    if (prefix === 'ses') v = ~v & 0xffffffffffffn;
    const rand = Array.from({ length: 14 }, () => B62[Math.floor(r() * 62)]).join('');
    return `${prefix}_${v.toString(16).padStart(12, '0')}${rand}`;
  };
}

/** Extra env for every OpenCode run in a sandbox: no update, model fetch, share, LSP download or default plugins. */
export function opencodeSandboxEnv(env: Record<string, string>, tmpDir: string): Record<string, string> {
  mkdirSync(tmpDir, { recursive: true });
  return {
    ...env,
    TMPDIR: tmpDir,
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_SHARE: '1',
    OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
    OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
  };
}

/**
 * The files that make OpenCode skip its background `npm install
 * @opencode-ai/plugin` in the config dir (its check reads only package names).
 */
export function writeNpmGuard(configDir: string): void {
  mkdirSync(join(configDir, 'node_modules'), { recursive: true });
  const deps = { '@opencode-ai/plugin': OPENCODE_VERSION };
  if (!existsSync(join(configDir, 'package.json'))) writeFileSync(join(configDir, 'package.json'), JSON.stringify({ dependencies: deps }, null, 2) + '\n');
  if (!existsSync(join(configDir, 'package-lock.json'))) {
    writeFileSync(join(configDir, 'package-lock.json'), JSON.stringify({ name: 'opencode', lockfileVersion: 3, requires: true, packages: { '': { dependencies: deps } } }, null, 2) + '\n');
  }
}

/** Runs the real `opencode db path` with OPENCODE_DB = `db`: OpenCode creates and migrates it. */
export async function initOpencodeStore(opencode: string, env: Record<string, string>, db: string, timeoutMs = 90_000): Promise<void> {
  mkdirSync(dirname(db), { recursive: true });
  const r = await runOpencode(opencode, ['db', 'path'], { cwd: '/', env: { ...env, OPENCODE_DB: db }, timeoutMs });
  if (r.code !== 0 || r.stdout.trim() !== db || !existsSync(db)) {
    throw new Error(`opencode db path did not create ${db} (exit ${r.code ?? r.signal}${r.timedOut ? ', timed out' : ''}): ${r.stderr.slice(0, 500)}`);
  }
}

/** Copies a store OpenCode made (db, -wal, -shm) to `to` (+ side files). */
export function copyOpencodeStore(from: string, to: string): void {
  mkdirSync(dirname(to), { recursive: true });
  for (const side of ['', '-wal', '-shm']) if (existsSync(from + side)) copyFileSync(from + side, to + side);
}

/** Closes a writer the way OpenCode ends: no checkpoint-on-close, -wal and -shm stay. */
function closeLikeOpencode(db: Database.Database, file: string): void {
  const reader = new Database(file, { readonly: true, fileMustExist: true });
  reader.prepare('SELECT 1').get();
  db.close();
  reader.close();
}

const bytes = (...xs: (string | null)[]): number => xs.reduce((a, x) => a + (x === null ? 0 : Buffer.byteLength(x, 'utf8')), 0);

export function buildOpencodeFixture(o: OpencodeFixtureOptions): OpencodeFixtureManifest {
  if (!existsSync(o.db)) throw new Error(`${o.db} does not exist: create it with initOpencodeStore first`);
  const r = rng(o.seed ?? 1);
  const now = o.now ?? Date.UTC(2026, 10, 20, 12, 0, 0);
  const spread = (o.spreadDays ?? 30) * DAY;
  const id = makeIds(r);
  const word = (): string => WORDS[Math.floor(r() * WORDS.length)]!;
  const text = (n: number): string => {
    let s = '';
    while (s.length < n) s += (s ? ' ' : '') + word();
    return s;
  };

  const db = new Database(o.db, { fileMustExist: true });
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  const cols = new Set((db.prepare("SELECT name FROM pragma_table_info('session')").all() as { name: string }[]).map((c) => c.name));
  if (!cols.has('parent_id') || !cols.has('time_archived')) {
    db.close();
    throw new Error(`${o.db} does not have OpenCode's session schema`);
  }

  const insProject = db.prepare('INSERT OR REPLACE INTO project (id, worktree, vcs, name, time_created, time_updated, sandboxes) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const insDir = db.prepare('INSERT OR IGNORE INTO project_directory (project_id, directory, time_created) VALUES (?, ?, ?)');
  const insSession = db.prepare(
    `INSERT INTO session (id, project_id, parent_id, slug, directory, path, title, version, agent, model, time_created, time_updated, time_archived)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'build', '{"id":"big-pickle","providerID":"opencode","variant":"default"}', ?, ?, ?)`,
  );
  const insMessage = db.prepare('INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)');
  const insPart = db.prepare('INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)');
  const insTodo = db.prepare('INSERT INTO todo (session_id, content, status, priority, position, time_created, time_updated) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const insSeq = db.prepare('INSERT INTO event_sequence (aggregate_id, seq) VALUES (?, ?)');
  const insEvent = db.prepare('INSERT INTO event (id, aggregate_id, seq, type, data) VALUES (?, ?, ?, ?, ?)');

  const projects: OpencodeFixtureManifest['projects'] = [];
  const sessions: OpencodeFixtureSession[] = [];
  const msgCount = o.messagesPerSession ?? 2;
  const partBytes = o.partBytes ?? 160;
  const withEvents = o.events ?? true;

  const addSession = (
    kind: OpencodeSessionKind,
    projectId: string,
    worktree: string,
    directory: string,
    title: string,
    parentId: string | null,
    createdAt: number,
    archived: boolean,
    copyFrom?: string[],
  ): OpencodeFixtureSession => {
    const updatedAt = Math.min(now, createdAt + Math.floor(r() * 6 * 3600_000));
    const sid = id('ses', createdAt);
    const archivedAt = archived ? Math.min(now, updatedAt + 3600_000) : null;
    const path = directory.startsWith(worktree + '/') ? directory.slice(worktree.length + 1) : worktree === '/' ? directory.slice(1) : '';
    const slug = `${word()}-${word()}`;
    insSession.run(sid, projectId, parentId, slug, directory, path, title, OPENCODE_VERSION, createdAt, updatedAt, archivedAt);
    let size = bytes(sid, title, directory);
    const events: { type: string; data: string }[] = [];
    const info = {
      id: sid,
      slug,
      projectID: projectId,
      directory,
      path,
      ...(parentId ? { parentID: parentId } : {}),
      cost: 0,
      tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
      title,
      version: OPENCODE_VERSION,
      time: { created: createdAt, updated: updatedAt, ...(archivedAt ? { archived: archivedAt } : {}) },
    };
    events.push({ type: 'session.created.1', data: JSON.stringify({ sessionID: sid, info }) });
    const texts = copyFrom ?? Array.from({ length: msgCount }, () => text(partBytes));
    let t = createdAt;
    let lastUser: string | null = null;
    texts.forEach((body, i) => {
      t += 1000 + Math.floor(r() * 60_000);
      const mid = id('msg', t);
      const user = i % 2 === 0;
      const mdata = JSON.stringify(
        user
          ? { role: 'user', time: { created: t }, agent: 'build', model: { providerID: 'opencode', modelID: 'big-pickle' } }
          : {
              role: 'assistant',
              time: { created: t, completed: t + 900 },
              parentID: lastUser,
              modelID: 'big-pickle',
              providerID: 'opencode',
              mode: 'build',
              agent: 'build',
              path: { cwd: directory, root: worktree },
              cost: 0,
              tokens: { input: 12, output: 34, reasoning: 0, cache: { read: 0, write: 0 } },
              finish: 'stop',
            },
      );
      if (user) lastUser = mid;
      insMessage.run(mid, sid, t, t, mdata);
      const pid = id('prt', t + 1);
      const pdata = JSON.stringify({ type: 'text', text: body });
      insPart.run(pid, mid, sid, t + 1, t + 1, pdata);
      size += bytes(mdata, pdata);
      events.push({ type: 'message.updated.1', data: JSON.stringify({ sessionID: sid, info: { id: mid, sessionID: sid, ...JSON.parse(mdata) } }) });
      events.push({ type: 'message.part.updated.1', data: JSON.stringify({ sessionID: sid, part: { id: pid, sessionID: sid, messageID: mid, ...JSON.parse(pdata) } }) });
    });
    if (kind === 'root' || kind === 'archived') {
      const content = `Check ${word()} before ${word()}`;
      insTodo.run(sid, content, 'pending', 'medium', 0, createdAt, createdAt);
      size += bytes(content, 'pending');
    }
    if (withEvents) {
      insSeq.run(sid, events.length - 1);
      events.forEach((e, seq) => {
        insEvent.run(id('evt', createdAt + seq), sid, seq, e.type, e.data);
        size += bytes(e.data, e.type);
      });
    }
    const s: OpencodeFixtureSession = { id: sid, title, parentId, projectId, directory, kind, archivedAt, createdAt, updatedAt, bytes: size, messages: texts.length };
    sessions.push(s);
    return s;
  };
  const textsOf = (sid: string): string[] =>
    (db.prepare('SELECT p.data FROM part p JOIN message m ON m.id = p.message_id WHERE m.session_id = ? ORDER BY m.id, p.id').all(sid) as { data: string }[]).map(
      (x) => (JSON.parse(x.data) as { text: string }).text,
    );

  const build = db.transaction(() => {
    const nProjects = o.projects ?? 3;
    for (let p = 0; p < nProjects; p++) {
      const pid = createHash('sha1').update(`cleanerx-opencode-fixture:${o.seed ?? 1}:${p}`).digest('hex');
      const worktree = join(o.workRoot, 'projects', `p${p + 1}`);
      mkdirSync(join(worktree, 'src'), { recursive: true });
      if (o.git) gitProject(worktree, pid);
      const name = p === 1 ? 'Payments API' : null;
      const created = now - spread - DAY;
      insProject.run(pid, worktree, 'git', name, created, created, '[]');
      insDir.run(pid, worktree, created);
      projects.push({ id: pid, worktree, name });
      const roots: OpencodeFixtureSession[] = [];
      const nRoots = o.rootsPerProject ?? 4;
      for (let i = 0; i < nRoots; i++) {
        const created = now - Math.floor(r() * spread) - 3600_000;
        const dir = i % 3 === 2 ? join(worktree, 'src') : worktree;
        const archived = i < (o.archived ?? 1);
        const title = i === nRoots - 1 ? `New session - ${new Date(created).toISOString()}` : TITLES[(p * 7 + i) % TITLES.length]!;
        roots.push(addSession(archived ? 'archived' : 'root', pid, worktree, dir, title, null, created, archived));
      }
      const withKids = roots.slice(0, Math.ceil(roots.length / 2));
      for (const root of withKids) {
        let first: OpencodeFixtureSession | null = null;
        for (let c = 0; c < (o.childrenPerRoot ?? 2); c++) {
          const created = Math.min(now - 60_000, root.createdAt + 60_000 * (c + 1));
          const title = c % 2 === 0 ? `${text(18)} (@general subagent)` : `Child session - ${new Date(created).toISOString()}`;
          const child = addSession('child', pid, worktree, root.directory, title, root.id, created, false);
          first ??= child;
        }
        if (first) {
          for (let g = 0; g < (o.grandchildren ?? 1); g++) {
            addSession('grandchild', pid, worktree, first.directory, `${text(14)} (@explore subagent)`, first.id, Math.min(now - 30_000, first.createdAt + 30_000 * (g + 1)), false);
          }
        }
      }
      for (let f = 0; f < (o.forks ?? 1) && roots.length; f++) {
        const src = roots[f % roots.length]!;
        addSession('fork', pid, worktree, src.directory, `${src.title} (fork #${f + 1})`, null, Math.min(now - 1000, src.createdAt + 7200_000), false, textsOf(src.id));
      }
    }
    for (let i = 0; i < (o.orphans ?? 0); i++) {
      const p = projects[i % projects.length]!;
      addSession('orphan', p.id, p.worktree, p.worktree, `Orphaned subagent ${i + 1}`, id('ses', now - spread - DAY * 2), now - Math.floor(r() * spread), false);
    }
    if ((o.globalSessions ?? 1) > 0) {
      const created = now - spread - DAY;
      insProject.run('global', '/', null, null, created, created, '[]');
      projects.push({ id: 'global', worktree: '/', name: null });
      for (let i = 0; i < (o.globalSessions ?? 1); i++) {
        const dir = join(o.workRoot, `plain${i + 1}`);
        mkdirSync(dir, { recursive: true });
        addSession('global', 'global', '/', dir, `Scratch question ${i + 1}`, null, now - Math.floor(r() * spread), false);
      }
    }
    if (o.edgeCases) {
      const p = projects[0]!;
      addSession('edge', p.id, p.worktree, p.worktree, '', null, now - 5 * DAY, false);
      addSession('edge', p.id, p.worktree, p.worktree, 'Evil \x1b]0;pwned\x07title\x1b[31m red', null, now - 4 * DAY, false);
      const a = addSession('cycle', p.id, p.worktree, p.worktree, 'Cycle A', null, now - 3 * DAY, false);
      const b = addSession('cycle', p.id, p.worktree, p.worktree, 'Cycle B', a.id, now - 3 * DAY + 1000, false);
      db.prepare('UPDATE session SET parent_id = ? WHERE id = ?').run(b.id, a.id);
      a.parentId = b.id;
    }
  });
  build();
  closeLikeOpencode(db, o.db);

  if (o.dataDir) writeDataDir(o.dataDir, sessions, projects, r);
  if (o.cacheDir) writeCacheDir(o.cacheDir);
  if (o.configDir) writeConfigDir(o.configDir);
  return { db: o.db, projects, sessions, descendants: descendantMap(sessions) };
}

function descendantMap(sessions: OpencodeFixtureSession[]): Map<string, string[]> {
  const children = new Map<string, string[]>();
  for (const s of sessions) if (s.parentId) children.set(s.parentId, [...(children.get(s.parentId) ?? []), s.id]);
  const out = new Map<string, string[]>();
  for (const s of sessions) {
    const seen = new Set<string>([s.id]);
    const list: string[] = [];
    const queue = [s.id];
    for (let i = 0; i < queue.length; i++) {
      for (const c of children.get(queue[i]!) ?? []) {
        if (seen.has(c)) continue;
        seen.add(c);
        list.push(c);
        queue.push(c);
      }
    }
    out.set(s.id, list);
  }
  return out;
}

function gitProject(worktree: string, projectId: string): void {
  const r = spawnSync('git', ['init', '-q'], { cwd: worktree, timeout: 20_000, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: worktree, GIT_CONFIG_NOSYSTEM: '1' } });
  if (r.status !== 0) throw new Error(`git init failed in ${worktree}: ${String(r.stderr)}`);
  // OpenCode's project id cache: it wins over the (missing) root commit.
  writeFileSync(join(worktree, '.git', 'opencode'), projectId);
}

function writeDataDir(dir: string, sessions: OpencodeFixtureSession[], projects: OpencodeFixtureManifest['projects'], r: () => number): void {
  const put = (rel: string, body: string, mode = 0o644): void => {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), body, { mode });
  };
  const line = (i: number): string => `timestamp=2026-11-20T10:${String(i % 60).padStart(2, '0')}:00.000Z level=INFO run=ab12cd34 message="session.prompt" session=${sessions[i % Math.max(1, sessions.length)]?.id ?? 'none'}\n`;
  put('log/opencode.log', Array.from({ length: 40 }, (_, i) => line(i)).join(''));
  put('log/2026-11-19T090000.log', Array.from({ length: 20 }, (_, i) => line(i + 7)).join(''));
  put('auth.json', JSON.stringify({ opencode: { type: 'api', key: 'sk-fixture-not-a-real-key' } }) + '\n', 0o600);
  put('mcp-auth.json', '{}\n', 0o600);
  put('storage/migration', '2\n');
  if (sessions[0]) put(`storage/session_diff/${sessions[0].id}.json`, '[]\n');
  put('storage/session/legacy/ses_legacy000000000000000000.json', '{"id":"ses_legacy000000000000000000","title":"pre-SQLite session"}\n');
  for (const p of projects.slice(0, 2)) put(`snapshot/${p.id}/${createHash('sha1').update(p.worktree).digest('hex').slice(0, 16)}/HEAD`, 'ref: refs/heads/main\n');
  put(`tool-output/tool_${Math.floor(r() * 1e9).toString(16)}`, 'x'.repeat(2048));
  put('plans/plan-1.md', '# plan\n');
  mkdirSync(join(dir, 'repos'), { recursive: true });
}

function writeCacheDir(dir: string): void {
  mkdirSync(join(dir, 'bin'), { recursive: true });
  mkdirSync(join(dir, 'skills', 'fixture-skill'), { recursive: true });
  writeFileSync(join(dir, 'skills', 'fixture-skill', 'SKILL.md'), '# fixture skill\n');
  // (No models.json: OpenCode reads it as its model catalogue, and a fake one breaks its prompts.)
  mkdirSync(join(dir, 'node_modules', '@ai-sdk', 'fixture'), { recursive: true });
  writeFileSync(join(dir, 'node_modules', '@ai-sdk', 'fixture', 'package.json'), '{"name":"@ai-sdk/fixture","version":"1.0.0"}\n');
}

function writeConfigDir(dir: string): void {
  mkdirSync(dir, { recursive: true });
  if (!existsSync(join(dir, 'opencode.jsonc'))) writeFileSync(join(dir, 'opencode.jsonc'), '{\n  "$schema": "https://opencode.ai/config.json"\n}');
  writeFileSync(join(dir, '.gitignore'), 'node_modules\npackage.json\npackage-lock.json\nbun.lock\n.gitignore');
  writeNpmGuard(dir);
}
