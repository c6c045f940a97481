// The README's promise about protected files, checked with a syscall trace:
// `scan --agent X --json`, `doctor` and a `clean` dry run of the real binary
// run under strace on each agent's fixture home, and every open by cleanerx's
// own process (its threads and node children; not the agents' own programs it
// starts, such as `codex app-server`) is compared with the adapter's lists.
// A never-opened file is never opened, not even to fail; a never-opened
// directory is at most listed (O_DIRECTORY, to show its size) and nothing
// inside it is opened; a file on the read list is opened only read-only.

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildClaudeFixture } from '../../src/adapters/claude/fixture.js';
import { CLAUDE_PROTECTED } from '../../src/adapters/claude/scan.js';
import { readConfigProjects } from '../../src/adapters/codex/projects.js';
import { readSessionIndex } from '../../src/adapters/codex/session-index.js';
import type { ScanWarning } from '../../src/engine/core/model.js';
import { CODEX_DB_FILE, CODEX_PROTECTED_NEVER_OPENED, CODEX_PROTECTED_READ } from '../../src/adapters/codex/items.js';
import { OPENCODE_PROTECTED } from '../../src/adapters/opencode/items.js';
import { buildPiFixture } from '../../src/adapters/pi/fixture.js';
import { PI_PROTECTED } from '../../src/adapters/pi/scan.js';
import { buildStore, CODEX_BIN, codexHome } from '../helpers/codex.js';
import { parseTrace, straceOrError, tracedRun, within, writes, type OpenEvent, type TracedRun } from '../helpers/open-trace.js';
import { buildStore as buildOpencodeStore, configDir, dataDir, makeTemplate, OPENCODE_BIN, opencodeEnv } from '../helpers/opencode.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

/** Claude's own sweep period: only cleanupPeriodDays is taken from settings.json (adapters/claude/sweep.ts). */
const CLAUDE_READ = ['settings.json'];

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
let t: TempEnv;
afterEach(() => t?.cleanup());

beforeAll(() => {
  const s = straceOrError();
  if (s instanceof Error) throw s;
});

interface Policy {
  /** Protected paths never opened (a directory: only listed, nothing inside opened). */
  never: string[];
  /** Protected files cleanerx reads: opened read-only or not at all. */
  read: string[];
  /** Database files by name pattern (their names carry a version): read-only too. */
  readMatch?: RegExp;
}

function violations(run: TracedRun, p: Policy): string[] {
  const bad: string[] = [];
  const show = (e: OpenEvent): string => `${e.syscall} ${e.path} ${e.flags.join('|')}`;
  for (const e of run.opens) {
    for (const n of p.never) {
      if (!within(e.path, n)) continue;
      // Listing a protected directory (for its size) reads names, never contents.
      if (e.flags.includes('O_DIRECTORY') && !writes(e)) continue;
      bad.push(`never-opened ${n}: ${show(e)}`);
    }
    for (const r of p.read) if (e.path === r && writes(e)) bad.push(`read-only ${r}: ${show(e)}`);
    // cleanerx's own private view (sqlite-quiet.ts: a link or copy in a 0700 temp dir) is its to write; the agent's files are not.
    if (p.readMatch?.test(e.path) && writes(e) && !/\/cleanerx-sqlite-[^/]+\//.test(e.path)) bad.push(`read-only database: ${show(e)}`);
  }
  return bad;
}

function commands(agent: string, env: Record<string, string>, p: Policy): { runs: Record<string, TracedRun>; bad: string[] } {
  const runs: Record<string, TracedRun> = {};
  const bad: string[] = [];
  const once = (name: string, args: string[]): TracedRun => {
    const r = tracedRun(CLI, args, env, { cwd: t.root });
    runs[name] = r;
    bad.push(...violations(r, p).map((v) => `${name}: ${v}`));
    return r;
  };
  const scan = once('scan', ['scan', '--agent', agent, '--json']);
  expect(scan.status, scan.stderr).toBe(0);
  const listed = (JSON.parse(scan.stdout) as { agents: { sessions: { id: string; selectable: boolean }[] }[] }).agents[0]?.sessions ?? [];
  // A blocked session (no executable) still goes through the plan, which then refuses it.
  const first = listed.find((s) => s.selectable) ?? listed[0];
  expect(first, 'the scan lists a session').toBeTruthy();
  expect(once('doctor', ['doctor']).status).toBe(0);
  // Without --yes, clean is the dry run: it plans and prints, nothing changes.
  once('clean', ['clean', '--agent', agent, '--id', `session:${first!.id}`]);
  return { runs, bad };
}

/** The trace saw the scan read sessions: an empty trace cannot pass. */
function sawOpen(run: TracedRun, under: string): void {
  expect(
    run.opens.some((e) => e.ok && within(e.path, under) && !e.flags.includes('O_DIRECTORY')),
    `an open beneath ${under}`,
  ).toBe(true);
}

describe('protected files under a syscall trace', () => {
  it('pi: every protected entry is never opened', { timeout: 180_000 }, () => {
    t = makeTempEnv();
    const home = t.env.PI_CODING_AGENT_DIR!;
    buildPiFixture({ agentDir: home, projects: 2, sessionsPerProject: 3, forkRate: 0.3, config: true, cwdRoot: join(t.env.HOME!, 'src') });
    const p: Policy = { never: PI_PROTECTED.map((n) => join(home, n)), read: [] };
    const { runs, bad } = commands('pi', t.env, p);
    sawOpen(runs.scan!, join(home, 'sessions'));
    expect(bad).toEqual([]);
  });

  it('Claude Code: every protected entry, .claude.json included, is never opened; settings.json only read-only', { timeout: 180_000 }, () => {
    t = makeTempEnv();
    const home = t.env.CLAUDE_CONFIG_DIR!;
    buildClaudeFixture({ configDir: home, cwdRoot: join(t.env.HOME!, 'code'), projects: 2, sessionsPerProject: 3, config: true, sidecars: true, memory: true });
    const p: Policy = {
      never: [...CLAUDE_PROTECTED.filter((n) => !CLAUDE_READ.includes(n)).map((n) => join(home, n)), join(t.env.HOME!, '.claude.json')],
      read: CLAUDE_READ.map((n) => join(home, n)),
    };
    const { runs, bad } = commands('claude', t.env, p);
    sawOpen(runs.scan!, join(home, 'projects'));
    expect(bad).toEqual([]);
  });

  it('Codex: the never-opened list is never opened; config.toml, session_index.jsonl and the databases only read-only', { timeout: 240_000 }, () => {
    t = makeTempEnv();
    const home = codexHome(t);
    buildStore(t, { threads: 4 });
    const env = { ...t.env, PATH: `${dirname(CODEX_BIN)}:/usr/bin:/bin` };
    const p: Policy = {
      never: CODEX_PROTECTED_NEVER_OPENED.map((n) => join(home, n)),
      read: CODEX_PROTECTED_READ.map((n) => join(home, n)),
      readMatch: CODEX_DB_FILE,
    };
    const { runs, bad } = commands('codex', env, p);
    expect(
      runs.scan!.foreign.some((f) => f.endsWith('/codex')),
      'the scan asked the real codex app-server',
    ).toBe(true);
    // The rollouts are Codex's to read; cleanerx copies the state database.
    sawOpen(runs.scan!, home);
    expect(bad).toEqual([]);
  });
});

describe('Codex without its program', () => {
  it('the state-DB fallback opens the same files, the databases only read-only', { timeout: 180_000 }, () => {
    t = makeTempEnv();
    const home = codexHome(t);
    buildStore(t, { threads: 4 });
    // The fixture's state DB is written by Codex on its first start: start it once, then scan without it.
    const seed = tracedRun(CLI, ['scan', '--agent', 'codex', '--json'], { ...t.env, PATH: `${dirname(CODEX_BIN)}:/usr/bin:/bin` }, { cwd: t.root });
    expect(seed.status, seed.stderr).toBe(0);
    const p: Policy = {
      never: CODEX_PROTECTED_NEVER_OPENED.map((n) => join(home, n)),
      read: CODEX_PROTECTED_READ.map((n) => join(home, n)),
      readMatch: CODEX_DB_FILE,
    };
    const { runs, bad } = commands('codex', t.env, p);
    expect(runs.scan!.foreign.filter((f) => f.endsWith('/codex'))).toEqual([]);
    expect(
      runs.scan!.opens.some((e) => e.ok && /state_\d+\.sqlite$/.test(e.path)),
      'the fallback read the state DB',
    ).toBe(true);
    expect(bad).toEqual([]);
  });
});

describe('OpenCode under a syscall trace', () => {
  it('every protected entry and the config dir are never opened; the database file only read-only, its bytes and its log unchanged', {
    timeout: 240_000,
  }, async () => {
    const template = await makeTemplate();
    try {
      t = makeTempEnv();
      buildOpencodeStore(t, template);
      const home = dataDir(t);
      const db = t.env.OPENCODE_DB!;
      const env = { ...opencodeEnv(t), PATH: `${dirname(OPENCODE_BIN)}:/usr/bin:/bin` };
      // The database file itself only read-only. SQLite opens the -wal and -shm of a WAL database read-write even
      // for a read-only connection (its shared-memory index; this build has no readonly_shm): cleanerx reads only
      // while both exist (db-open.ts), so they are never created, and the database and its log stay byte for byte.
      const p: Policy = { never: [...OPENCODE_PROTECTED.map((n) => join(home, n)), configDir(t)], read: [db] };
      const bytes = (): string[] => [db, `${db}-wal`].map((f) => createHash('sha256').update(readFileSync(f)).digest('hex'));
      const before = bytes();
      expect(existsSync(`${db}-shm`)).toBe(true);
      const { runs, bad } = commands('opencode', env, p);
      expect(
        runs.scan!.opens.some((e) => e.ok && e.path === db && !writes(e)),
        'the scan read the database',
      ).toBe(true);
      expect(bad).toEqual([]);
      expect(bytes()).toEqual(before);
    } finally {
      template.cleanup();
    }
  });
});

describe('the trace reader', () => {
  const cli = '/opt/cx/dist/cli.js';
  const trace = [
    `100 execve("/usr/bin/node", ["/usr/bin/node", "${cli}", "scan"], 0x7ffd /* 9 vars */) = 0`,
    '100 clone3({flags=CLONE_VM|CLONE_THREAD, child_tid=0x1}, 88) = 101',
    '101 openat(AT_FDCWD, "/h/.codex/config.toml", O_RDONLY|O_NONBLOCK|O_NOFOLLOW|O_CLOEXEC <unfinished ...>',
    '100 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|SIGCHLD, child_tidptr=0x7f) = 200',
    '101 <... openat resumed>)              = 21</h/.codex/config.toml>',
    '200 execve("/bin/codex", ["/bin/codex", "app-server"], 0x3b /* 11 vars */) = 0',
    '200 clone(child_stack=0x7f, flags=CLONE_VM|CLONE_THREAD, parent_tid=[201]) = 201',
    '201 open("/h/.codex/auth.json", O_RDONLY|O_LARGEFILE|O_CLOEXEC) = 9</h/.codex/auth.json>',
    '100 openat(7</h/.codex>, "session_index.jsonl", O_RDWR|O_CREAT, 0600) = -1 EACCES (Permission denied)',
    '100 openat(AT_FDCWD, "/h/.codex/caf\\303\\251", O_RDONLY) = -1 ENOENT (No such file or directory)',
  ].join('\n');

  it("keeps cleanerx's process and threads, drops the agent's program and its threads", () => {
    const r = parseTrace(trace, cli, '/work');
    expect(r.foreign).toEqual(['/bin/codex']);
    expect(r.opens.map((e) => [e.tid, e.path, e.ok, writes(e)])).toEqual([
      [101, '/h/.codex/config.toml', true, false],
      [100, '/h/.codex/session_index.jsonl', false, true],
      [100, '/h/.codex/café', false, false],
    ]);
  });

  it('reports a never-opened file even when the open failed, and a write to a read-only file', () => {
    const r = parseTrace(trace, cli, '/work');
    const run = { status: 0, stdout: '', stderr: '', ...r };
    expect(violations(run, { never: ['/h/.codex/config.toml'], read: ['/h/.codex/session_index.jsonl'] })).toHaveLength(2);
    expect(violations(run, { never: ['/h/.codex/auth.json'], read: [] })).toEqual([]);
  });
});

describe("Codex's read list: bounded, only the keys needed", () => {
  const A = '01a0ee72-0000-7000-8000-00000000000a';
  const B = '01a0ee72-0000-7000-8000-00000000000b';

  it('session_index.jsonl keeps the names of listed threads only, and decodes a name split across reads', async () => {
    t = makeTempEnv();
    const pad = JSON.stringify({ id: B, thread_name: 'x'.repeat(256 * 1024 - 128) });
    // The é straddles the first 256 KiB read.
    const lines = [pad, JSON.stringify({ id: A, thread_name: 'caf\u00e9 \u4f1a\u8bdd', token: 'sk-secret' })];
    writeFileSync(join(t.root, 'session_index.jsonl'), lines.join('\n') + '\n');
    const w: ScanWarning[] = [];
    const names = await readSessionIndex(t.root, w, new Set([A]));
    expect([...names]).toEqual([[A, 'café 会话']]);
    expect(w).toEqual([]);
  });

  it('a FIFO in place of either file is refused at once with a warning', async () => {
    t = makeTempEnv();
    execFileSync('mkfifo', [join(t.root, 'session_index.jsonl'), join(t.root, 'config.toml')]);
    const w: ScanWarning[] = [];
    expect((await readSessionIndex(t.root, w)).size).toBe(0);
    expect(await readConfigProjects(t.root, w)).toEqual([]);
    expect(w.map((x) => x.reason)).toEqual([
      'session_index.jsonl is not a readable regular file; thread names from it are ignored.',
      'config.toml is not a readable regular file; its project registry is not used (Git roots still are).',
    ]);
  });

  it('config.toml over 1 MiB is not read; only project table names come out of it', async () => {
    t = makeTempEnv();
    writeFileSync(join(t.root, 'config.toml'), '[projects."/w/a"]\ntrust_level = "trusted"\n[model_providers.x]\nenv_key = "SECRET"\n');
    const w: ScanWarning[] = [];
    expect(await readConfigProjects(t.root, w)).toEqual([{ root: '/w/a', name: '' }]);
    writeFileSync(join(t.root, 'config.toml'), '#'.repeat(1024 * 1024 + 1));
    expect(await readConfigProjects(t.root, w)).toEqual([]);
    expect(w.map((x) => x.reason)).toEqual(['config.toml is larger than 1 MiB; its project registry is not used (Git roots still are).']);
  });
});
