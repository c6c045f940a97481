// A restore gives back what was there: contents, modes and mtimes of files,
// and the modes and mtimes of every directory it has to recreate (the
// session's own and the ones on the way to it), set after their contents.
// Directories that are still there are left alone. A format-1 archive (no
// times recorded) still restores as it always did.

import { generateX25519Identity, identityToRecipient } from 'age-encryption';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildClaudeFixture } from '../../src/adapters/claude/fixture.js';
import { readArchive } from '../../src/backup/archive.js';
import { restoreArchive, settlePendingRestores } from '../../src/backup/restore.js';
import { CLI } from '../helpers/pty-screen.js';
import { backUpPiSession } from '../helpers/pi-backup.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CHILD = join(REPO, 'test/helpers/restore-child.mjs');
const FIXTURE = join(REPO, 'test/fixtures/backup-v1');

let t: TempEnv;
let identity: string;
let recipient: string;
beforeAll(async () => {
  identity = await generateX25519Identity();
  recipient = await identityToRecipient(identity);
});
beforeEach(() => {
  t = makeTempEnv('cleanerx-exact-');
});
afterEach(() => {
  delete process.env.CLEANERX_FAIL_AT;
  t.cleanup();
});

/** The µs a restore can give back (Node sets times through libuv, which keeps whole microseconds). */
const us = (ns: bigint): string => String(ns - (ns % 1000n));

/** Every entry under `top` (and `top` itself): type, mode, mtime (to the µs) and, for files, content. */
function picture(root: string, top = root): Record<string, string> {
  const out: Record<string, string> = {};
  const one = (p: string): void => {
    const st = lstatSync(p, { bigint: true });
    const mode = (Number(st.mode) & 0o777).toString(8);
    const rel = relative(root, p) || '.';
    if (st.isDirectory()) {
      out[rel] = `dir ${mode} ${us(st.mtimeNs)}`;
      for (const n of readdirSync(p).sort()) one(join(p, n));
    } else out[rel] = `file ${mode} ${us(st.mtimeNs)} ${readFileSync(p, 'utf8')}`;
  };
  one(top);
  return out;
}

const T0 = 1_600_000_000; // 2020-09-13: far from now, so a restore-time mtime cannot pass for it

/**
 * sessions/ (0750) / --home-u-exact-- (0755) holding files of several modes
 * and times (one written now, with the filesystem's own ns), a 0750 subdir
 * with a 0700 one below it, and an empty 0755 dir; every dir's mtime set
 * last, deepest first.
 */
function buildTree(src: string): string {
  const sessions = join(src, 'sessions');
  const s = join(sessions, '--home-u-exact--');
  mkdirSync(join(s, 'sub', 'deeper'), { recursive: true });
  mkdirSync(join(s, 'empty'));
  const file = (rel: string, body: string, mode: number, mtime?: number): void => {
    writeFileSync(join(s, rel), body);
    chmodSync(join(s, rel), mode);
    if (mtime !== undefined) utimesSync(join(s, rel), mtime, mtime);
  };
  file('a.jsonl', '{"type":"session","id":"a"}\n', 0o640, T0 + 0.123456);
  file('b.jsonl', '{"type":"session","id":"b"}\n', 0o600, T0 + 86_400);
  file('now.jsonl', '{"type":"session","id":"now"}\n', 0o644); // the filesystem's own (ns) time
  file('sub/c.bin', 'c'.repeat(5000), 0o444, T0 + 3600.5);
  file('sub/deeper/d.txt', 'deep\n', 0o664, T0 + 7);
  const dir = (p: string, mode: number, mtime: number): void => {
    chmodSync(p, mode);
    utimesSync(p, mtime, mtime);
  };
  dir(join(s, 'sub', 'deeper'), 0o700, T0 + 11.25);
  dir(join(s, 'sub'), 0o750, T0 + 12);
  dir(join(s, 'empty'), 0o755, T0 + 13.000001);
  dir(s, 0o755, T0 + 14);
  dir(sessions, 0o750, T0 + 15);
  return s;
}

async function backUp(src: string, s: string): Promise<string> {
  return (await backUpPiSession({ path: s, root: src, env: t.env, key: { identity, recipient } })).archive;
}

describe('a restore is exact', () => {
  let src: string;
  let s: string;
  let archive: string;
  let before: Record<string, string>;
  const staging = (): string => join(t.root, 'staging');
  const journals = (): string => join(t.root, 'journals');
  const opts = () => ({
    archivePath: archive,
    identity,
    agent: 'pi' as const,
    roots: { pi_home: src },
    uid: process.getuid!(),
    stagingParent: staging(),
    journalDir: journals(),
  });

  beforeEach(async () => {
    src = t.env.PI_CODING_AGENT_DIR!;
    s = buildTree(src);
    before = picture(src, join(src, 'sessions'));
    archive = await backUp(src, s);
    // Backing up reads; it changes no time or mode.
    expect(picture(src, join(src, 'sessions'))).toEqual(before);
  });

  it('records each file’s mtime to the ns and every dir on the way with its mode and mtime (format 2)', async () => {
    const m = await readArchive(archive, identity);
    expect(m.formatVersion).toBe(2);
    const now = lstatSync(join(s, 'now.jsonl'), { bigint: true }).mtimeNs;
    expect(m.entries.find((e) => e.relativePath.endsWith('/now.jsonl'))!.mtimeNs).toBe(String(now));
    expect(m.entries.find((e) => e.relativePath.endsWith('/a.jsonl'))!.mtimeNs).toBe(String(lstatSync(join(s, 'a.jsonl'), { bigint: true }).mtimeNs));
    expect(m.dirs!.map((d) => [d.relativePath, d.mode.toString(8)])).toEqual([
      ['sessions', '750'],
      ['sessions/--home-u-exact--', '755'],
      ['sessions/--home-u-exact--/empty', '755'],
      ['sessions/--home-u-exact--/sub', '750'],
      ['sessions/--home-u-exact--/sub/deeper', '700'],
    ]);
    expect(m.dirs![3]!.mtimeNs).toBe(String(BigInt(T0 + 12) * 1_000_000_000n));
  });

  it('the stock tools see each file’s mtime too: age -d | zstd -d | tar -x dates them as they were (whole seconds)', () => {
    const key = join(t.root, 'key.txt');
    writeFileSync(key, identity + '\n', { mode: 0o600 });
    const out = join(t.root, 'untarred');
    mkdirSync(out);
    execFileSync('/bin/sh', ['-c', 'age -d -i "$1" "$2" | zstd -d -q | tar -x -C "$3"', 'sh', key, archive, out]);
    const x = join(out, 'payload', 'pi_home', 'sessions', '--home-u-exact--');
    expect(lstatSync(join(x, 'a.jsonl')).mtimeMs).toBe(T0 * 1000);
    expect(lstatSync(join(x, 'sub', 'c.bin')).mtimeMs).toBe((T0 + 3600) * 1000);
    expect(Math.floor(lstatSync(join(x, 'now.jsonl')).mtimeMs / 1000)).toBe(Math.floor(lstatSync(join(s, 'now.jsonl')).mtimeMs / 1000));
  });

  it('after the cleanup removed the session dir: contents, modes and mtimes come back, dirs included', async () => {
    rmSync(s, { recursive: true });
    chmodSync(join(src, 'sessions'), 0o700);
    const r = await restoreArchive(opts());
    expect(r.restored).toHaveLength(5);
    const after = picture(src, join(src, 'sessions'));
    // sessions/ was there all along: its mode is left as it was, and it is not dated back (its mtime is the kernel's, from the mkdir).
    expect(after['sessions']).toMatch(/^dir 700 /);
    expect(after['sessions']).not.toBe(before['sessions']!.replace('750', '700'));
    delete after['sessions'];
    const want = { ...before };
    delete want['sessions'];
    expect(after).toEqual(want);
  });

  it('a dir on the way that is gone too (sessions/) is recreated with its mode and mtime', async () => {
    rmSync(join(src, 'sessions'), { recursive: true });
    await restoreArchive(opts());
    expect(picture(src, join(src, 'sessions'))).toEqual(before);
  });

  it('only the missing files of a session dir that is still there: the files get their times, the dir is left alone', async () => {
    rmSync(join(s, 'a.jsonl'));
    rmSync(join(s, 'sub'), { recursive: true });
    chmodSync(s, 0o700);
    await restoreArchive(opts());
    const after = picture(src, join(src, 'sessions'));
    // Its mode stays (its mtime is the kernel's: the restore linked a file into it).
    expect(after['sessions/--home-u-exact--']).toMatch(/^dir 700 /);
    for (const k of Object.keys(before).filter((k) => k.includes('/sub') || k.endsWith('a.jsonl'))) expect(after[k]).toBe(before[k]);
  });

  it.each(['restore:2:after', 'restore:committing'])(
    'killed at %s and resumed by the next start: modes and mtimes are set all the same',
    async (point) => {
      rmSync(join(src, 'sessions'), { recursive: true });
      const r = spawnSync(process.execPath, [CHILD, JSON.stringify(opts())], {
        cwd: REPO,
        env: { PATH: process.env.PATH, HOME: t.env.HOME, CLEANERX_CRASH_AT: point },
        encoding: 'utf8',
        timeout: 120_000,
      });
      expect(r.signal, r.stderr).toBe('SIGKILL');
      const out = await settlePendingRestores({ journalDir: journals(), stagingParent: staging(), mode: 'resume', rootsFor: async () => opts().roots });
      expect(out.map((o) => o.outcome)).toEqual(['completed']);
      expect(picture(src, join(src, 'sessions'))).toEqual(before);
    },
    120_000,
  );

  it('a restore journal of format 1 (left by a cleanerx before this one) is still resumed: its empty dirs come back with their modes', async () => {
    rmSync(join(src, 'sessions'), { recursive: true });
    const r = spawnSync(process.execPath, [CHILD, JSON.stringify(opts())], {
      cwd: REPO,
      env: { PATH: process.env.PATH, HOME: t.env.HOME, CLEANERX_CRASH_AT: 'restore:1:after' },
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(r.signal, r.stderr).toBe('SIGKILL');
    // Rewritten in the old shape: mode only on the empty dirs (that is how format 1 marked them), no times.
    const [name] = readdirSync(journals()).filter((n) => n.endsWith('.json'));
    const path = join(journals(), name!);
    const j = JSON.parse(readFileSync(path, 'utf8')) as {
      formatVersion: number;
      entries: { mtimeNs?: string }[];
      dirs: { empty?: boolean; mode?: number; mtimeNs?: string }[];
    };
    j.formatVersion = 1;
    for (const e of j.entries) delete e.mtimeNs;
    for (const d of j.dirs) {
      if (!d.empty) delete d.mode;
      delete d.empty;
      delete d.mtimeNs;
    }
    writeFileSync(path, JSON.stringify(j));
    const out = await settlePendingRestores({ journalDir: journals(), stagingParent: staging(), mode: 'resume', rootsFor: async () => opts().roots });
    expect(out.map((o) => o.outcome)).toEqual(['completed']);
    const after = picture(src, join(src, 'sessions'));
    expect(after['sessions/--home-u-exact--/empty']).toMatch(/^dir 755 /);
    expect(after['sessions/--home-u-exact--/sub']).toMatch(/^dir 700 /);
    expect(after['sessions/--home-u-exact--/sub/deeper/d.txt']).toMatch(/^file 664 .* deep\n$/);
  }, 120_000);

  it('a failing restore undoes itself; restoring again is exact', async () => {
    rmSync(join(src, 'sessions'), { recursive: true });
    process.env.CLEANERX_FAIL_AT = 'restore:emptyDirs';
    await expect(restoreArchive(opts())).rejects.toThrow('injected failure at restore:emptyDirs');
    expect(readdirSync(src)).not.toContain('sessions');
    delete process.env.CLEANERX_FAIL_AT;
    await restoreArchive(opts());
    expect(picture(src, join(src, 'sessions'))).toEqual(before);
  });
});

// Root passes every permission check: here the restore runs as nobody (via
// setpriv when the tests run as root), so a 0555 dir holding a file really
// refuses a link into it once its mode is given: it must come last.
describe('a dir that locks its owner out, without root privileges', () => {
  const asRoot = process.getuid!() === 0;
  const uid = asRoot ? 65534 : process.getuid!();
  const run = (child: string, arg: unknown, env: Record<string, string> = {}): ReturnType<typeof spawnSync> => {
    const cmd = [process.execPath, join(REPO, 'test/helpers', child), JSON.stringify(arg)];
    const full = asRoot ? ['setpriv', `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', ...cmd] : cmd;
    return spawnSync(full[0]!, full.slice(1), { cwd: REPO, env: { PATH: process.env.PATH!, HOME: t.env.HOME, ...env }, encoding: 'utf8', timeout: 120_000 });
  };

  it.each(['done', 'rolled back'] as const)(
    'a 0555 dir holding a file comes back with its mode and mtime (%s)',
    async (how) => {
      const src = t.env.PI_CODING_AGENT_DIR!;
      const s = join(src, 'sessions', '--home-u-locked--');
      mkdirSync(join(s, 'ro'), { recursive: true });
      writeFileSync(join(s, 'ro', 'kept.jsonl'), 'kept\n');
      chmodSync(join(s, 'ro', 'kept.jsonl'), 0o444);
      utimesSync(join(s, 'ro', 'kept.jsonl'), T0, T0);
      chmodSync(join(s, 'ro'), 0o555);
      utimesSync(join(s, 'ro'), T0 + 1, T0 + 1);
      chmodSync(s, 0o750);
      utimesSync(s, T0 + 2, T0 + 2);
      const was = picture(src, s);
      const archived = await backUp(src, s);
      chmodSync(join(s, 'ro'), 0o700);
      rmSync(s, { recursive: true });
      const archive = join(t.root, 'a.cxb');
      writeFileSync(archive, readFileSync(archived));
      chmodSync(t.root, 0o755);
      if (asRoot) execFileSync('chown', ['-R', `${uid}:${uid}`, t.root]);
      const opts = {
        archivePath: archive,
        identity,
        agent: 'pi',
        roots: { pi_home: src },
        uid,
        stagingParent: join(t.root, 'staging'),
        journalDir: join(t.root, 'journals'),
      };
      const r = run('restore-child.mjs', opts, how === 'done' ? {} : { CLEANERX_CRASH_AT: 'restore:emptyDirs' });
      if (how === 'done') {
        expect(r.status, String(r.stderr)).toBe(0);
        expect(picture(src, s)).toEqual(was);
      } else {
        expect(r.signal, String(r.stderr)).toBe('SIGKILL');
        expect(picture(src, s)).toEqual(was);
        const st = run('settle-child.mjs', { journalDir: opts.journalDir, stagingParent: opts.stagingParent, mode: 'rollback', roots: opts.roots });
        expect(st.stdout, String(st.stderr)).toBe('["rolledBack"]\n');
        expect(readdirSync(join(src, 'sessions'))).toEqual([]);
      }
      if (lstatSync(join(s, 'ro'), { throwIfNoEntry: false })) chmodSync(join(s, 'ro'), 0o700);
    },
    120_000,
  );
});

describe('an archive of format 1 (no times recorded)', () => {
  it('still restores: contents, file modes and the empty dir’s mode, as it always did', async () => {
    const src = t.env.PI_CODING_AGENT_DIR!;
    mkdirSync(src, { recursive: true });
    const key = readFileSync(join(FIXTURE, 'v1.key.txt'), 'utf8').trim();
    const r = await restoreArchive({
      archivePath: join(FIXTURE, 'v1.cxb'),
      identity: key,
      agent: 'pi',
      roots: { pi_home: src },
      uid: process.getuid!(),
      stagingParent: join(t.root, 'staging'),
      journalDir: join(t.root, 'journals'),
    });
    expect(r.manifest.formatVersion).toBe(1);
    expect(r.emptyDirs).toEqual([join(src, 'sessions/--home-u-old--/empty')]);
    const s = join(src, 'sessions', '--home-u-old--');
    expect(readFileSync(join(s, 'a.jsonl'), 'utf8')).toBe('{"type":"session","id":"a"}\n');
    expect(readFileSync(join(s, 'b.jsonl'), 'utf8')).toBe('{"type":"session","id":"b"}\n');
    expect(lstatSync(join(s, 'a.jsonl')).mode & 0o777).toBe(0o640);
    expect(lstatSync(join(s, 'b.jsonl')).mode & 0o777).toBe(0o600);
    expect(lstatSync(join(s, 'empty')).mode & 0o777).toBe(0o750);
    // No recorded mode for the dirs on the way: private, as before.
    expect(lstatSync(s).mode & 0o777).toBe(0o700);
  });
});

describe('through the command line', () => {
  const SECRET = { CLEANERX_TEST_MODE: '1', CLEANERX_SCRYPT_LOG_N: '12' };
  const PASS = 'passphrase-123\n';
  const cli = (args: string[], input = '') =>
    spawnSync(process.execPath, [CLI, ...args], { env: { ...t.env, ...SECRET }, encoding: 'utf8', input, timeout: 30_000 });

  it('clean --backup, then backups restore --yes: the session’s files and dirs come back with their modes and mtimes', () => {
    const dir = t.env.CLAUDE_CONFIG_DIR!;
    const m = buildClaudeFixture({ configDir: dir, projects: 1, sessionsPerProject: 2, bodyBytes: 300, cwdRoot: join(t.env.HOME!, 'code') });
    const s = m.sessions[0]!;
    for (const p of s.ownedPaths) rmSync(p, { recursive: true, force: true });
    // The session owns its transcript and tasks/<id> (0750), holding a 0644 task and a 0755 subdir with a 0600 note.
    const tasks = join(dir, 'tasks', s.id);
    mkdirSync(join(tasks, 'notes'), { recursive: true });
    writeFileSync(join(tasks, '1.json'), '{"id":"1","subject":"a task"}\n');
    writeFileSync(join(tasks, 'notes', 'n.md'), 'note\n');
    chmodSync(join(tasks, '1.json'), 0o644);
    chmodSync(join(tasks, 'notes', 'n.md'), 0o600);
    utimesSync(join(tasks, '1.json'), T0 + 1.5, T0 + 1.5);
    utimesSync(join(tasks, 'notes', 'n.md'), T0 + 2, T0 + 2);
    chmodSync(join(tasks, 'notes'), 0o755);
    utimesSync(join(tasks, 'notes'), T0 + 3, T0 + 3);
    chmodSync(tasks, 0o750);
    utimesSync(tasks, T0 + 4.25, T0 + 4.25);
    chmodSync(s.file, 0o640);
    utimesSync(s.file, T0 + 5.000002, T0 + 5.000002);
    const was = { ...picture(dir, tasks), ...picture(dir, s.file) };

    const clean = cli(['clean', '--agent', 'claude', '--id', `session:${s.id}`, '--yes', '--backup'], PASS);
    expect(clean.stderr).toBe('');
    expect(clean.status).toBe(0);
    expect(readdirSync(join(dir, 'tasks'))).not.toContain(s.id);
    const list = cli(['backups', 'list']);
    expect(list.status, list.stderr).toBe(0);
    const id = list.stdout.trim().split('\n')[0]!.split(/\s+/)[0]!;
    const r = cli(['backups', 'restore', id, '--yes'], PASS);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect({ ...picture(dir, tasks), ...picture(dir, s.file) }).toEqual(was);
  }, 60_000);
});
