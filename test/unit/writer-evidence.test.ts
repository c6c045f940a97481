// A shared server: other people's agents never block this home's cleanup.
// Stand-in agent processes on the real /proc (a copy of sleep named opencode,
// pi, claude or codex): one under another HOME, one as another user (even
// with this home in its environment: it cannot write it), one as root with
// another data dir, short-lived ones exiting while the check runs — none
// blocks; one holding this home's database open, one with this home in its
// environment, one working inside the store — each blocks, named with its
// evidence.

import type { ChildProcess } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { killForeign, spawnForeign } from '../helpers/foreign-process.js';
import { findClaudeWriters } from '../../src/adapters/claude/writers.js';
import { findCodexWriters } from '../../src/adapters/codex/writers.js';
import { findOpencodeWriters } from '../../src/adapters/opencode/writers.js';
import { scanPiWriters } from '../../src/adapters/pi/writers.js';
import { describeWriters, runningReason } from '../../src/engine/core/model.js';
import { judgeWriter } from '../../src/engine/host/writer-evidence.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) killForeign(c);
  t?.cleanup();
});
afterAll(() => {
  if (binDir) rmSync(binDir, { recursive: true, force: true });
});

const isRoot = process.getuid?.() === 0;

/** Where the stand-in binaries live: readable by any user, so one can run as another uid. */
let binDir: string | null = null;

/**
 * A copy of sleep named `name`, started with exactly `env` (and optionally a
 * file of this home as its stdin, a cwd, another uid), reparented away from
 * this process as a user's own agent would be (cleanerx's children are never writers).
 */
async function standIn(
  name: string,
  env: Record<string, string>,
  o: { stdinFile?: string; cwd?: string; uid?: number; seconds?: string } = {},
): Promise<{ pid: number }> {
  binDir ??= mkdtempSync(join(tmpdir(), 'cleanerx-standin-'));
  chmodSync(binDir, 0o755);
  const exe = join(binDir, name);
  if (!existsSync(exe)) {
    copyFileSync('/bin/sleep', exe);
    chmodSync(exe, 0o755);
  }
  const { child, pid } = await spawnForeign(exe, [o.seconds ?? '30'], {
    env: { PATH: '/usr/bin:/bin', ...env },
    cwd: o.cwd ?? '/',
    stdinFile: o.stdinFile,
    uid: o.uid,
  });
  children.push(child);
  started.push({ pid, name, stdinFile: o.stdinFile });
  return { pid };
}

/** The stand-ins started since the last settle: what each must show in /proc once its exec is done. */
const started: { pid: number; name: string; stdinFile?: string }[] = [];

const realProc = () => ({ ...t.ctx, procRoot: '/proc' });

/** Waits (no fixed sleep: a loaded machine execs late) until every stand-in's exec is done: /proc/<pid>/comm names the copy, not node, and its stdin is the file. */
async function settle(): Promise<void> {
  const read = (f: () => string): string | null => {
    try {
      return f();
    } catch {
      return null;
    }
  };
  const ready = (s: (typeof started)[number]): boolean =>
    read(() => readFileSync(`/proc/${s.pid}/comm`, 'utf8').trim()) === s.name &&
    (!s.stdinFile || read(() => readlinkSync(`/proc/${s.pid}/fd/0`)) === s.stdinFile);
  const end = Date.now() + 60_000;
  while (!started.every(ready)) {
    if (Date.now() > end) throw new Error(`stand-ins not exec'd in 60 s: ${started.filter((s) => !ready(s)).map((s) => s.pid)}`);
    await new Promise((r) => setTimeout(r, 10));
  }
  started.length = 0;
}

function openDb(): string {
  const db = t.env.OPENCODE_DB!;
  mkdirSync(dirname(db), { recursive: true });
  writeFileSync(db, 'SQLite format 3\0');
  return db;
}

describe('writers are tied to this home by evidence (real /proc)', () => {
  it('OpenCode under another HOME, as another user, or as root with another data dir blocks nothing; this home in its environment or its database open blocks, named', async () => {
    t = makeTempEnv();
    const db = openDb();
    const dataDir = dirname(db);
    const elsewhere = join(t.root, 'alice');
    const otherHome = await standIn('opencode', { HOME: elsewhere });
    const otherData = await standIn('opencode', { HOME: t.env.HOME!, XDG_DATA_HOME: join(elsewhere, 'data') });
    const foreign = isRoot ? await standIn('opencode', { HOME: t.env.HOME!, OPENCODE_DB: db }, { uid: 65534 }) : null;
    const byEnv = await standIn('opencode', { HOME: t.env.HOME!, OPENCODE_DB: db });
    const byFile = await standIn('opencode', { HOME: elsewhere }, { stdinFile: db });
    const byCwd = await standIn('opencode', { HOME: elsewhere }, { cwd: dataDir });
    await settle();
    const found = await findOpencodeWriters(realProc(), db, dataDir);
    const pids = found.map((w) => w.pid);
    expect(pids).not.toContain(otherHome.pid);
    expect(pids).not.toContain(otherData.pid);
    if (foreign) expect(pids).not.toContain(foreign.pid);
    expect(found.find((w) => w.pid === byEnv.pid)).toMatchObject({ name: 'opencode', evidence: `OPENCODE_DB=${db}` });
    expect(found.find((w) => w.pid === byFile.pid)?.evidence).toBe(`holds ${db} open`);
    expect(found.find((w) => w.pid === byCwd.pid)?.evidence).toBe(`works in ${dataDir}`);
    const w = found.find((x) => x.pid === byEnv.pid)!;
    expect(w.user).toBeTruthy();
    expect(w.command).toMatch(/opencode 30$/);
    // The blocker a user reads names pid, user, command line and evidence.
    expect(describeWriters([w])).toBe(`opencode pid ${w.pid} (${w.user}: ${w.command}; OPENCODE_DB=${db})`);
  });

  it('pi, Claude Code and Codex: the same rule through their own home variables', async () => {
    t = makeTempEnv();
    const elsewhere = join(t.root, 'bob');
    const piHome = t.env.PI_CODING_AGENT_DIR!;
    const claudeHome = t.env.CLAUDE_CONFIG_DIR!;
    const codexHome = t.env.CODEX_HOME!;
    for (const h of [piHome, claudeHome, codexHome]) mkdirSync(h, { recursive: true });
    const piOther = await standIn('pi', { HOME: elsewhere });
    const piMine = await standIn('pi', { HOME: elsewhere, PI_CODING_AGENT_DIR: piHome });
    const claudeOther = await standIn('claude', { HOME: elsewhere });
    const claudeMine = await standIn('claude', { HOME: elsewhere, CLAUDE_CONFIG_DIR: claudeHome });
    const codexOther = await standIn('codex', { HOME: elsewhere, CODEX_HOME: join(elsewhere, '.codex') });
    const codexMine = await standIn('codex', { HOME: elsewhere, CODEX_HOME: codexHome });
    await settle();
    const pi = (await scanPiWriters(realProc(), piHome)).writers.map((w) => w.pid);
    const claude = (await findClaudeWriters(realProc(), claudeHome, [])).writers;
    const codex = (await findCodexWriters(realProc(), codexHome)).writers.map((w) => w.pid);
    expect(pi).toContain(piMine.pid);
    expect(pi).not.toContain(piOther.pid);
    expect(claude.map((w) => w.pid)).toContain(claudeMine.pid);
    expect(claude.map((w) => w.pid)).not.toContain(claudeOther.pid);
    expect(claude.find((w) => w.pid === claudeMine.pid)?.evidence).toBe(`CLAUDE_CONFIG_DIR=${claudeHome}`);
    expect(codex).toContain(codexMine.pid);
    expect(codex).not.toContain(codexOther.pid);
  });

  it('a process that exits during the check is simply gone, never "cannot be inspected"', async () => {
    t = makeTempEnv();
    const db = openDb();
    // Short-lived OpenCodes with no evidence readable once they are gone.
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < 3; i++) await standIn('opencode', { HOME: join(t.root, 'x') }, { seconds: '0.01' });
      const found = await findOpencodeWriters(realProc(), db, dirname(db));
      expect(found.filter((w) => /cannot be read/.test(w.evidence ?? ''))).toEqual([]);
    }
    // And judged directly after it is gone.
    const c = await standIn('opencode', { HOME: t.env.HOME! }, { seconds: '0.01' });
    while (existsSync(`/proc/${c.pid}/exe`)) await new Promise((r) => setTimeout(r, 10));
    const verdict = await judgeWriter(
      realProc(),
      { pid: c.pid, comm: 'opencode', argv: ['opencode'], exe: null },
      { roots: [dirname(db)], envEvidence: () => 'HOME' },
    );
    expect(verdict).toEqual({ gone: true });
  });
});

describe('evidence that cannot be read (fake /proc)', () => {
  it('a same-user process whose environment and fds are unreadable blocks, and says why', async () => {
    t = makeTempEnv();
    mkdirSync(join(t.procRoot, '4242'));
    writeFileSync(join(t.procRoot, '4242', 'comm'), 'opencode\n');
    writeFileSync(join(t.procRoot, '4242', 'cmdline'), 'opencode\0serve\0');
    const v = await judgeWriter(
      t.ctx,
      { pid: 4242, comm: 'opencode', argv: ['opencode', 'serve'], exe: null },
      { roots: [t.env.HOME!], envEvidence: () => null },
    );
    expect(v).toMatchObject({ writer: { pid: 4242, command: 'opencode serve', evidence: expect.stringMatching(/cannot be read/) } });
  });

  it('a process in do_exit (R, with PF_EXITING in its flags) whose environment already fails is gone, not unreadable', async () => {
    t = makeTempEnv();
    const judge = (flags: number) => {
      const dir = join(t.procRoot, '4343');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'comm'), 'opencode\n');
      writeFileSync(join(dir, 'cmdline'), 'opencode\0');
      // pid (comm) state ppid pgrp session tty_nr tpgid flags …
      writeFileSync(join(dir, 'stat'), `4343 (opencode) R 1 4343 4343 0 -1 ${flags} 0 0 0 0\n`);
      return judgeWriter(t.ctx, { pid: 4343, comm: 'opencode', argv: ['opencode'], exe: null }, { roots: [t.env.HOME!], envEvidence: () => null });
    };
    expect(await judge(0x400004)).toEqual({ gone: true });
    // The same process not exiting, its evidence unreadable: it blocks.
    expect(await judge(0x400000)).toMatchObject({ writer: { pid: 4343, evidence: expect.stringMatching(/cannot be read/) } });
  });

  it('a blocked reason names its writers; none leaves the reason as it was', () => {
    const w = { pid: 7, name: 'pi', user: 'alice', command: 'pi --continue', evidence: 'HOME=/home/alice' };
    expect(runningReason('pi is running.', [w])).toBe('pi is running. Running: pi pid 7 (alice: pi --continue; HOME=/home/alice).');
    expect(runningReason('pi is running.', [])).toBe('pi is running.');
    expect(describeWriters([w, w, w, w], 2)).toMatch(/, and 2 more$/);
  });
});
