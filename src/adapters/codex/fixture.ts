// A realistic Codex store, written the way Codex writes it (legacy rollouts
// the real `codex app-server` indexes on its first start): root threads in
// Git repositories, a config.toml-registered project, a plain directory and
// Codex Desktop chat workspaces (~/Documents/Codex/<date>/<slug>); spawned
// subagents two levels deep; archived threads (flat archived_sessions/);
// names in session_index.jsonl; hostile titles (escape sequences, CJK);
// several model providers and sources; malformed rollouts Codex does not
// list; per-thread media and an orphan; memory files; caches, old temporary
// entries and protected files. Deterministic for a seed. Never writes a
// database: Codex builds its own index from these files.

import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rng } from '../fixture-rng.js';

export interface CodexFixtureOptions {
  codexHome: string;
  /** Where the fake repositories and plain directories go. */
  workRoot: string;
  /** The user's home (desktop chat workspaces go under Documents/Codex). */
  userHome: string;
  /** Root threads. */
  threads: number;
  seed?: number;
  now?: number;
  /** Share of roots with spawned subagents (and of those, with grandchildren). */
  subagentRate?: number;
  archivedRate?: number;
  namedRate?: number;
  malformed?: boolean;
  memories?: boolean;
  media?: boolean;
  extras?: boolean;
  /** Bytes of filler text per rollout (agent message), to give threads a size. */
  bodyBytes?: number;
}

export interface FixtureThread {
  id: string;
  parentId: string | null;
  depth: number;
  archived: boolean;
  /** What Codex shows: the session_index name, else the first user message. */
  name: string | null;
  firstMessage: string;
  cwd: string;
  kind: 'git' | 'registered' | 'plain' | 'desktop';
  /** The project root cleanerx should associate (null: No project). */
  projectRoot: string | null;
  rollout: string;
  media: string[];
  modelProvider: string;
  source: string;
}

export interface CodexFixtureManifest {
  threads: FixtureThread[];
  /**
   * Files Codex does not list. (A rollout whose meta id is not a UUID *is*
   * listed by 0.171 under its file name's id, with an empty cwd; the state-DB
   * fallback ignores that row, so the fixture leaves the case out.)
   */
  malformed: string[];
  orphanMedia: string[];
  repos: string[];
  registered: string;
  desktop: string[];
}

const FIRST = ['Fix the flaky', 'Refactor the', 'Add tests for', 'Explain the', 'Profile the', 'Document the', 'Speed up the'];
const WHAT = ['login flow', 'image resize path', 'CSV importer', 'retry logic', 'sidebar', 'cache layer', 'build script'];
const NICK = ['Euclid', 'Turing', 'Noether', 'Hopper', 'Lovelace', 'Gauss'];

function pad(n: number, w = 2): string {
  return String(n).padStart(w, '0');
}

/** A UUIDv7 for `ms` with random bits from the fixture RNG. */
export function uuidv7(ms: number, r: () => number): string {
  const hex = Math.floor(ms).toString(16).padStart(12, '0').slice(-12);
  const rnd = (n: number): string => Array.from({ length: n }, () => Math.floor(r() * 16).toString(16)).join('');
  const variant = (8 + Math.floor(r() * 4)).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7${rnd(3)}-${variant}${rnd(3)}-${rnd(12)}`;
}

function rolloutName(ms: number, id: string): string {
  const d = new Date(ms);
  return `rollout-${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}-${pad(d.getMinutes())}-${pad(d.getSeconds())}-${id}.jsonl`;
}

function line(ts: number, type: string, payload: Record<string, unknown>): string {
  return JSON.stringify({ timestamp: new Date(ts).toISOString(), type, payload }) + '\n';
}

export function writeRollout(
  file: string,
  o: { id: string; ms: number; cwd: string; source: unknown; provider: string; message: string; reply: string; git?: Record<string, string> | null; omit?: string[] },
): void {
  const meta: Record<string, unknown> = {
    id: o.id,
    timestamp: new Date(o.ms).toISOString(),
    cwd: o.cwd,
    originator: 'codex_cli_rs',
    cli_version: '0.100.0',
    source: o.source,
    model_provider: o.provider,
  };
  if (o.git) meta.git = o.git;
  for (const k of o.omit ?? []) delete meta[k];
  const text =
    line(o.ms, 'session_meta', meta) +
    line(o.ms + 1000, 'event_msg', { type: 'user_message', message: o.message }) +
    line(o.ms + 2000, 'response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: o.message }] }) +
    line(o.ms + 3000, 'event_msg', { type: 'agent_message', message: o.reply });
  writeFileSync(file, text);
  const end = new Date(o.ms + 3000);
  utimesSync(file, end, end);
}

export function buildCodexFixture(opts: CodexFixtureOptions): CodexFixtureManifest {
  const r = rng(opts.seed ?? 1);
  const now = opts.now ?? Date.now();
  const home = opts.codexHome;
  const sessionsRoot = join(home, 'sessions');
  const archivedRoot = join(home, 'archived_sessions');
  mkdirSync(sessionsRoot, { recursive: true });
  mkdirSync(archivedRoot, { recursive: true });
  const repos = [0, 1, 2, 3].map((k) => join(opts.workRoot, `repo-${['alpha', 'beta', 'gamma', 'delta'][k]}`));
  for (const repo of repos) {
    mkdirSync(join(repo, '.git'), { recursive: true });
    mkdirSync(join(repo, 'src', 'lib'), { recursive: true });
  }
  const registered = join(opts.workRoot, 'registered-notes');
  mkdirSync(join(registered, 'sub'), { recursive: true });
  const plain = join(opts.workRoot, 'scratch');
  mkdirSync(plain, { recursive: true });
  const desktop = [0, 1, 2].map((k) => join(opts.userHome, 'Documents', 'Codex', `2026-11-${pad(10 + k)}`, `chat-${k}`));
  for (const d of desktop) mkdirSync(join(d, 'work'), { recursive: true });

  const threads: FixtureThread[] = [];
  const names: string[] = [];
  const filler = 'x'.repeat(opts.bodyBytes ?? 200);
  const pickCwd = (): { cwd: string; kind: FixtureThread['kind']; root: string | null } => {
    const x = r();
    if (x < 0.55) {
      const repo = repos[Math.floor(r() * repos.length)]!;
      return r() < 0.5 ? { cwd: repo, kind: 'git', root: repo } : { cwd: join(repo, 'src', 'lib'), kind: 'git', root: repo };
    }
    if (x < 0.7) return { cwd: join(registered, 'sub'), kind: 'registered', root: registered };
    if (x < 0.85) return { cwd: plain, kind: 'plain', root: null };
    return { cwd: desktop[Math.floor(r() * desktop.length)]!, kind: 'desktop', root: null };
  };
  const write = (t: Omit<FixtureThread, 'rollout' | 'media'>, ms: number): FixtureThread => {
    const name = rolloutName(ms, t.id);
    let file: string;
    if (t.archived) file = join(archivedRoot, name);
    else {
      const d = new Date(ms);
      const dir = join(sessionsRoot, String(d.getFullYear()), pad(d.getMonth() + 1), pad(d.getDate()));
      mkdirSync(dir, { recursive: true });
      file = join(dir, name);
    }
    const source = t.parentId ? { subagent: { thread_spawn: { parent_thread_id: t.parentId, depth: t.depth, agent_path: null, agent_nickname: NICK[Math.floor(r() * NICK.length)], agent_role: null } } } : t.source;
    const git = t.kind === 'git' ? { commit_hash: 'd95088e7aa', branch: 'main', repository_url: 'https://example.invalid/repo.git' } : null;
    writeRollout(file, { id: t.id, ms, cwd: t.cwd, source, provider: t.modelProvider, message: t.firstMessage, reply: `Done. ${filler}`, git });
    const media: string[] = [];
    if (opts.media !== false && r() < 0.15) {
      const dir = join(home, r() < 0.5 ? 'attachments' : 'generated_images', t.id);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'image.png'), Buffer.alloc(700, 1));
      media.push(dir);
    }
    const full: FixtureThread = { ...t, rollout: file, media };
    threads.push(full);
    return full;
  };

  const start = now - 60 * 86400_000;
  for (let i = 0; i < opts.threads; i++) {
    const ms = start + Math.floor((i / Math.max(1, opts.threads)) * 55 * 86400_000) + Math.floor(r() * 3600_000);
    const id = uuidv7(ms, r);
    const where = pickCwd();
    let msg = `${FIRST[i % FIRST.length]} ${WHAT[Math.floor(r() * WHAT.length)]} #${i}`;
    if (i % 17 === 3) msg = `修复登录流程 ${i}`;
    if (i % 29 === 5) msg = `\x1b]0;pwned\x07Evil \x1b[31mred\x1b[0m title ${i}`;
    const named = r() < (opts.namedRate ?? 0.2);
    const name = named ? (i % 11 === 0 ? `命名的会话 ${i}` : `Named thread ${i}`) : null;
    if (name) names.push(JSON.stringify({ id, thread_name: name, updated_at: new Date(ms).toISOString() }));
    const archived = r() < (opts.archivedRate ?? 0.1);
    const sources = ['cli', 'vscode', 'exec', 'cli', 'vscode'];
    const source = sources[i % sources.length]!;
    const provider = i % 13 === 7 ? 'ollama' : 'openai';
    const root = write({ id, parentId: null, depth: 0, archived, name, firstMessage: msg, cwd: where.cwd, kind: where.kind, projectRoot: where.root, modelProvider: provider, source }, ms);
    if (r() < (opts.subagentRate ?? 0.35)) {
      const kids = 1 + Math.floor(r() * 3);
      for (let k = 0; k < kids; k++) {
        const cms = ms + 60_000 * (k + 1);
        const child = write(
          { id: uuidv7(cms, r), parentId: root.id, depth: 1, archived, name: null, firstMessage: `Sub-task ${k} for: ${msg.slice(0, 40)}`, cwd: root.cwd, kind: root.kind, projectRoot: root.projectRoot, modelProvider: provider, source: 'subagent' },
          cms,
        );
        if (r() < 0.35) {
          const gms = cms + 20_000;
          write(
            { id: uuidv7(gms, r), parentId: child.id, depth: 2, archived, name: null, firstMessage: `Grandchild of ${child.id.slice(0, 8)}`, cwd: root.cwd, kind: root.kind, projectRoot: root.projectRoot, modelProvider: provider, source: 'subagent' },
            gms,
          );
        }
      }
    }
  }
  writeFileSync(join(home, 'session_index.jsonl'), names.map((n) => n + '\n').join(''));

  const malformed: string[] = [];
  if (opts.malformed !== false) {
    const dir = join(sessionsRoot, '2026', '01', '02');
    mkdirSync(dir, { recursive: true });
    const ms = start - 86400_000;
    // Not named rollout-*.jsonl: not a rollout at all.
    const aId = uuidv7(ms, r);
    const a = join(dir, `session-${aId}.jsonl`);
    writeRollout(a, { id: aId, ms, cwd: plain, source: 'cli', provider: 'openai', message: 'wrong file name', reply: 'x' });
    // Not JSON at all.
    const bId = uuidv7(ms + 1000, r);
    const b = join(dir, rolloutName(ms + 1000, bId));
    writeFileSync(b, 'this is not json\n{"also": "not a rollout"}\n');
    // No user message: an empty preview, which Codex hides.
    const cId = uuidv7(ms + 2000, r);
    const c = join(dir, rolloutName(ms + 2000, cId));
    writeFileSync(c, line(ms + 2000, 'session_meta', { id: cId, timestamp: new Date(ms + 2000).toISOString(), cwd: plain, originator: 'codex_cli_rs', cli_version: '0.100.0' }));
    malformed.push(a, b, c);
  }

  const orphanMedia: string[] = [];
  if (opts.media !== false) {
    const o = join(home, 'attachments', uuidv7(start, r));
    mkdirSync(o, { recursive: true });
    writeFileSync(join(o, 'lost.png'), Buffer.alloc(300, 2));
    orphanMedia.push(o);
  }
  if (opts.memories) {
    mkdirSync(join(home, 'memories', 'rollout_summaries'), { recursive: true });
    writeFileSync(join(home, 'memories', 'memory_summary.md'), '# Memory\n- prefers pnpm\n');
    writeFileSync(join(home, 'memories', 'rollout_summaries', 'one.md'), 'summary\n');
  }
  const projects = [registered, ...repos.slice(0, 1)];
  writeFileSync(
    join(home, 'config.toml'),
    ['model = "gpt-5"', '', ...projects.flatMap((p) => [`[projects."${p.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"]`, 'trust_level = "trusted"', ''])].join('\n'),
  );
  if (opts.extras !== false) {
    writeFileSync(join(home, 'auth.json'), '{"OPENAI_API_KEY":null}\n', { mode: 0o600 });
    writeFileSync(join(home, 'AGENTS.md'), '# Be careful\n');
    mkdirSync(join(home, 'rules'), { recursive: true });
    writeFileSync(join(home, 'rules', 'default.rules'), 'prefix_rule(pattern=["ls"], decision="allow")\n');
    mkdirSync(join(home, 'prompts'), { recursive: true });
    writeFileSync(join(home, 'prompts', 'review.md'), 'Review this.\n');
    mkdirSync(join(home, 'cache'), { recursive: true });
    writeFileSync(join(home, 'cache', 'models.json'), '{"models":[]}\n');
    const old = new Date(now - 3 * 86400_000);
    mkdirSync(join(home, '.tmp-old-staging'), { recursive: true });
    writeFileSync(join(home, '.tmp-old-staging', 'part'), 'x');
    utimesSync(join(home, '.tmp-old-staging', 'part'), old, old);
    utimesSync(join(home, '.tmp-old-staging'), old, old);
    writeFileSync(join(home, 'download.partial'), 'y');
    // A fresh one: not old enough to offer.
    utimesSync(join(home, 'download.partial'), new Date(now), new Date(now));
  }
  return { threads, malformed, orphanMedia, repos, registered, desktop };
}
