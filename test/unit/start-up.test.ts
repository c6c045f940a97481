// Start-up of the real binary and of the npm scripts: relative directory
// overrides are usage errors for every command, --agent is checked, `npm
// start` builds only a stale dist/, and the test setup's system-tool check
// installs or names what is missing without apt when nothing is.

import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
// @ts-expect-error plain ESM scripts
import { inputsKey, isStale, writeStamp } from '../../scripts/build-stamp.mjs';
// @ts-expect-error plain ESM scripts
import { ensureBuilt } from '../../scripts/start.mjs';
// @ts-expect-error plain ESM scripts
import { ensureSystemTools, SYSTEM_TOOLS } from '../../scripts/ensure-system-tools.mjs';

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
let t: TempEnv;
afterEach(() => t?.cleanup());

function run(args: string[], env: Record<string, string>): { status: number | null; stderr: string; stdout: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { env, encoding: 'utf8', input: '', timeout: 20_000 });
  return { status: r.status, stderr: r.stderr, stdout: r.stdout };
}

describe('relative directory overrides are usage errors', () => {
  const COMMANDS: string[][] = [[], ['--demo'], ['scan'], ['scan', '--json'], ['doctor'], ['clean', '--agent', 'pi', '--id', 'x'], ['backups'], ['recovery']];
  const VARS = [
    'PI_CODING_AGENT_DIR',
    'CODEX_HOME',
    'CLAUDE_CONFIG_DIR',
    'XDG_DATA_HOME',
    'XDG_CONFIG_HOME',
    'XDG_STATE_HOME',
    'XDG_CACHE_HOME',
    'CLEANERX_CONFIG_DIR',
    'CLEANERX_STATE_DIR',
    'CLEANERX_DATA_DIR',
  ];

  it.each(VARS.map((v, i) => [v, COMMANDS[i % COMMANDS.length]!] as const))('%s=relative with `cleanerx %s`: exit 2, one line naming it', (name, args) => {
    t = makeTempEnv();
    const r = run(args, { ...t.env, [name]: 'relpi' });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`cleanerx: ${name} is a relative path ("relpi"); set it to an absolute path or unset it.\n`);
  });

  it.each(COMMANDS)('every command refuses it: `cleanerx %s`', (...args) => {
    t = makeTempEnv();
    const r = run(args, { ...t.env, PI_CODING_AGENT_DIR: 'relpi' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^cleanerx: PI_CODING_AGENT_DIR is a relative path .*absolute path.*\n$/);
  });

  it('OPENCODE_DB keeps OpenCode\u2019s forms (a bare name in the data dir, :memory:) and refuses a relative path', () => {
    t = makeTempEnv();
    for (const ok of ['opencode-dev.db', ':memory:']) expect(run(['scan', '--agent', 'opencode'], { ...t.env, OPENCODE_DB: ok }).status).toBe(0);
    const r = run(['scan'], { ...t.env, OPENCODE_DB: '../elsewhere/opencode.db' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      /^cleanerx: OPENCODE_DB is a relative path \("\.\.\/elsewhere\/opencode\.db"\); set it to an absolute path, a file name inside OpenCode's data dir, or unset it\.\n$/,
    );
  });

  it('absolute and ~/ values pass; the value is printed without escape sequences', () => {
    t = makeTempEnv();
    expect(run(['scan', '--agent', 'pi'], { ...t.env, PI_CODING_AGENT_DIR: '~/pi-here' }).status).toBe(0);
    const r = run(['scan'], { ...t.env, CODEX_HOME: 'rel\x1b]0;PWNED\x07x' });
    expect(r.status).toBe(2);
    expect(r.stderr).not.toContain('\x1b');
  });
});

describe('--agent', () => {
  it('an unknown or missing agent is a usage error, one line', () => {
    t = makeTempEnv();
    for (const args of [['--agent', 'nope'], ['--agent=nope', '--demo'], ['--agent']]) {
      const r = run(args, t.env);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^cleanerx: --agent needs one of codex, claude, opencode, pi( \(got "nope"\))?\.\n$/);
    }
  });

  it('a known agent reaches the app (which then needs a terminal)', () => {
    t = makeTempEnv();
    const r = run(['--agent', 'codex'], t.env);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/needs an interactive terminal/);
  });
});

describe('npm start builds only a stale dist/', () => {
  function fakePackage(root: string): void {
    mkdirSync(join(root, 'src', 'engine'), { recursive: true });
    mkdirSync(join(root, 'dist'), { recursive: true });
    writeFileSync(join(root, 'src', 'cli.ts'), 'export {};\n');
    writeFileSync(join(root, 'src', 'engine', 'a.ts'), 'export {};\n');
    writeFileSync(join(root, 'tsconfig.json'), '{}\n');
    writeFileSync(join(root, 'tsconfig.build.json'), '{}\n');
    writeFileSync(join(root, 'package.json'), '{}\n');
    const past = new Date(Date.now() - 60_000);
    for (const f of ['src/cli.ts', 'src/engine/a.ts', 'tsconfig.json', 'tsconfig.build.json', 'package.json']) utimesSync(join(root, f), past, past);
  }

  it('is stale without a stamp, current after a build, stale again after each kind of change', () => {
    t = makeTempEnv();
    const root = join(t.root, 'pkg');
    fakePackage(root);
    let builds = 0;
    const build = (r: string): boolean => {
      builds++;
      writeStamp(r, inputsKey(r));
      return true;
    };
    expect(isStale(root)).toBe(true);
    expect(ensureBuilt(root, build)).toBe(true);
    expect(builds).toBe(1);
    // Current: no build however often it starts.
    for (let i = 0; i < 3; i++) expect(ensureBuilt(root, build)).toBe(true);
    expect(builds).toBe(1);
    const future = new Date(Date.now() + 5_000);
    const changes: Array<() => void> = [
      () => utimesSync(join(root, 'src', 'engine', 'a.ts'), future, future),
      () => writeFileSync(join(root, 'src', 'engine', 'new.ts'), 'export {};\n'),
      () => rmSync(join(root, 'src', 'engine', 'new.ts')),
      () => utimesSync(join(root, 'tsconfig.build.json'), new Date(Date.now() + 10_000), new Date(Date.now() + 10_000)),
      () => utimesSync(join(root, 'package.json'), new Date(Date.now() + 15_000), new Date(Date.now() + 15_000)),
    ];
    for (const change of changes) {
      change();
      expect(isStale(root)).toBe(true);
      ensureBuilt(root, build);
      expect(isStale(root)).toBe(false);
    }
    expect(builds).toBe(1 + changes.length);
  });

  it('a failed build leaves dist/ stale (no stamp), so the next start tries again', () => {
    t = makeTempEnv();
    const root = join(t.root, 'pkg');
    fakePackage(root);
    expect(ensureBuilt(root, () => false)).toBe(false);
    expect(isStale(root)).toBe(true);
  });

  it('package.json runs start through the staleness check, not a build on every start', () => {
    const pkg = JSON.parse(readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.start).toBe('node scripts/start.mjs');
    expect(pkg.scripts.prestart).toBeUndefined();
  });
});

describe('system tools for the tests', () => {
  function binWith(root: string, names: string[]): string {
    const bin = join(root, 'bin');
    mkdirSync(bin, { recursive: true });
    for (const n of names) {
      writeFileSync(join(bin, n), '#!/bin/sh\nexit 0\n');
      chmodSync(join(bin, n), 0o755);
    }
    return bin;
  }
  const ALL = (SYSTEM_TOOLS as string[][]).map(([exe]) => exe!);

  it('everything present: returns at once, no apt call', () => {
    t = makeTempEnv();
    const calls: string[][] = [];
    const bin = binWith(t.root, [...ALL, 'apt-get']);
    expect(ensureSystemTools({ env: { PATH: bin }, isRoot: true, run: (_: string, a: string[]) => (calls.push(a), true), files: [] })).toBeNull();
    expect(calls).toEqual([]);
  });

  it('root with apt-get: updates once, installs exactly the missing packages', () => {
    t = makeTempEnv();
    const bin = binWith(t.root, ['zstd', 'tar', 'tmux', 'dbus-run-session', 'strace', 'ssh', 'ssh-keygen', 'apt-get']);
    const calls: string[][] = [];
    const run = (_: string, a: string[]): boolean => {
      calls.push(a);
      if (a.includes('install')) for (const n of ['age', 'gnome-keyring-daemon']) binWith(t.root, [n]);
      return true;
    };
    expect(ensureSystemTools({ env: { PATH: bin }, isRoot: true, run, files: [] })).toBeNull();
    expect(calls.map((a) => a.filter((x) => !x.startsWith('-') && !x.startsWith('DPkg')))).toEqual([['update'], ['install', 'age', 'gnome-keyring']]);
    expect(calls[1]).toContain('--no-install-recommends');
  });

  it('not root, or no apt-get: one line naming the packages and how to install them, nothing run', () => {
    t = makeTempEnv();
    const calls: string[][] = [];
    const run = (_: string, a: string[]): boolean => (calls.push(a), true);
    const withApt = binWith(t.root, ['zstd', 'tar', 'dbus-run-session', 'gnome-keyring-daemon', 'strace', 'ssh', 'ssh-keygen', 'apt-get']);
    const line = ensureSystemTools({ env: { PATH: withApt }, isRoot: false, run, files: [] }) as string;
    expect(line).toBe(
      'The tests need age, tmux; install them with "sudo apt-get update && sudo apt-get install -y --no-install-recommends age tmux" and run npm test again.',
    );
    rmSync(join(withApt, 'apt-get'));
    expect(ensureSystemTools({ env: { PATH: withApt }, isRoot: true, run, files: [] })).toMatch(
      /^The tests need age, tmux \(Debian package names\); install them/,
    );
    expect(calls).toEqual([]);
  });

  it('a data file the tests read is installed by its package the same way, or named in the one line', () => {
    t = makeTempEnv();
    const bin = binWith(t.root, [...ALL, 'apt-get']);
    const file = join(t.root, 'usr/share/gocode/src/filippo.io/age/testdata/example.age');
    const files = [[file, 'golang-filippo-age-dev']];
    const calls: string[][] = [];
    const run = (_: string, a: string[]): boolean => {
      calls.push(a);
      if (a.includes('install')) {
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, 'age-encryption.org/v1\n');
      }
      return true;
    };
    expect(ensureSystemTools({ env: { PATH: bin }, isRoot: false, run, files })).toBe(
      'The tests need golang-filippo-age-dev; install them with "sudo apt-get update && sudo apt-get install -y --no-install-recommends golang-filippo-age-dev" and run npm test again.',
    );
    expect(calls).toEqual([]);
    expect(ensureSystemTools({ env: { PATH: bin }, isRoot: true, run, files })).toBeNull();
    expect(calls.map((a) => a.filter((x) => !x.startsWith('-') && !x.startsWith('DPkg')))).toEqual([['update'], ['install', 'golang-filippo-age-dev']]);
  });

  it('root whose apt-get fails: one line, at once', () => {
    t = makeTempEnv();
    const bin = binWith(t.root, ['apt-get']);
    symlinkSync('/bin/sh', join(bin, 'sh'));
    const line = ensureSystemTools({ env: { PATH: bin }, isRoot: true, run: () => false, files: [] }) as string;
    expect(line.split('\n')).toHaveLength(1);
    expect(line).toMatch(
      /apt-get could not install them; run "apt-get update && apt-get install -y --no-install-recommends age zstd tar tmux gnome-keyring dbus-daemon strace openssh-client"/,
    );
  });
});
