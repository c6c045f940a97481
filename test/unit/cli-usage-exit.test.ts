// The command line's usage and exit codes through the real binary (#27 part 6
// and "mistyped flags and commands get a suggestion"): a mistyped flag or
// command names the nearest known one (exit 2); `clean` without --yes exits
// 2 whatever its preview found; a wrong key passphrase is a refusal (exit 1,
// one sentence), no passphrase at all a usage error, and `backups restore`
// without --yes says so before any passphrase matters; `scan --demo` and
// `doctor --demo` read the demo home, never the real one, and commands that
// only work on your own homes refuse --demo; an --id is named as typed;
// counts agree with their nouns.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildClaudeFixture } from '../../src/adapters/claude/fixture.js';
import { buildPiFixture, type PiFixtureManifest } from '../../src/adapters/pi/fixture.js';
import { CLI, TEST_PASSPHRASE as PASS } from '../helpers/constants.js';
import { fakeProcess, makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';

let t: TempEnv;
let m: PiFixtureManifest;
beforeEach(() => {
  t = makeTempEnv('cleanerx-cli-usage-');
  m = buildPiFixture({
    agentDir: t.env.PI_CODING_AGENT_DIR!,
    projects: 1,
    sessionsPerProject: 3,
    forkRate: 0,
    now: Date.now(),
    cwdRoot: join(t.env.HOME!, 'src'),
  });
});
afterEach(() => t.cleanup());

/** The binary; `input` is standard input (empty by default: no passphrase is given). */
function run(args: string[], input = '', env: Record<string, string | undefined> = {}) {
  return spawnSync(process.execPath, [CLI, ...args], {
    env: { ...t.env, CLEANERX_TEST_MODE: '1', CLEANERX_SCRYPT_LOG_N: '12', ...env },
    encoding: 'utf8',
    input,
  });
}

const oneLine = (s: string): void => expect(s.trim().split('\n'), s).toHaveLength(1);

describe('a mistyped flag or command gets a suggestion, exit 2', () => {
  it('names the flag as typed and the nearest one of that command', () => {
    const flag = run(['plan', '--agent', 'pi', '--older-thn', '30d']);
    expect(flag.status).toBe(2);
    expect(flag.stderr).toBe('cleanerx: Unknown argument: --older-thn. Did you mean --older-than?\n');
    expect(flag.stdout).toBe('');
    expect(run(['scan', '--jsno']).stderr).toBe('cleanerx: Unknown argument: --jsno. Did you mean --json?\n');
    expect(run(['clean', '--agent', 'pi', '--id', m.sessions[0]!.id, '--yess']).stderr).toBe('cleanerx: Unknown argument: --yess. Did you mean --yes?\n');
    expect(run(['--read-onl']).stderr).toBe('cleanerx: Unknown argument: --read-onl. Did you mean --read-only?\n');
    // Nothing near: the flag as typed and where to look.
    const far = run(['scan', '--frobnicate']);
    expect(far.status).toBe(2);
    expect(far.stderr).toBe('cleanerx: Unknown argument: --frobnicate (see cleanerx --help)\n');
    // Options of another command are not suggested, and the suggestion follows the language.
    expect(run(['scan', '--older-than', '3d']).stderr).toMatch(/^cleanerx: Unknown argument: --older-than \(see cleanerx --help\)\n$/);
    expect(run(['scan', '--jsno', '--lang', 'zh']).stderr).toBe('cleanerx: 无法识别的选项：--jsno。你是想用 --json 吗？\n');
  });

  it('a mistyped command names the nearest command', () => {
    for (const [typed, meant] of [
      ['sacn', 'scan'],
      ['doctr', 'doctor'],
      ['backup', 'backups'],
      ['recover', 'recovery'],
    ]) {
      const r = run([typed!]);
      expect(r.status, typed).toBe(2);
      expect(r.stderr).toBe(`cleanerx: Unknown command: ${typed}. Did you mean ${meant}?\n`);
    }
  });

  it('the spellings yargs accepts are not mistakes', () => {
    expect(run(['scan', '--agent', 'pi', '--no-json']).status).toBe(0);
    expect(run(['scan', '--agent=pi', '--readOnly', '--json']).status).toBe(0);
    expect(run(['plan', '--agent', 'pi', '--olderThan', '1d']).status).toBe(0);
  });

  it('the distance and the choice', async () => {
    const { closest, editDistance, unknownFlag } = await import('../../src/cli/suggest.js');
    expect(editDistance('sacn', 'scan')).toBe(1);
    expect(editDistance('older-thn', 'older-than')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
    expect(closest('jsno', ['json', 'agent'])).toBe('json');
    expect(closest('xyz', ['json', 'agent'])).toBeNull();
    // Two equally near: no guess.
    expect(closest('ab', ['ax', 'ay'])).toBeNull();
    const o = { key: { json: true, agent: true, 'read-only': true }, alias: {}, boolean: ['json', 'read-only'] };
    expect(unknownFlag(['--agent=pi', '--no-json', '--readOnly', '--', '--whatever'], o)).toBeNull();
    expect(unknownFlag(['--agnet', 'pi'], o)).toEqual({ flag: '--agnet', suggestion: '--agent' });
    expect(unknownFlag(['-x'], o)).toEqual({ flag: '-x', suggestion: null });
  });
});

describe('clean without --yes is a usage error (exit 2), whatever the preview finds', () => {
  it('an out-of-date plan file and a gone --id both exit 2; with --yes the plan file is refused (exit 1)', () => {
    const p = run(['plan', '--agent', 'pi', '--keep-latest', '0', '--json']);
    expect(p.status, p.stderr).toBe(0);
    const file = join(t.root, 'plan.json');
    writeFileSync(file, p.stdout);
    const gone = m.sessions[0]!;
    rmSync(gone.file);
    const before = hashTree(t.env.PI_CODING_AGENT_DIR!);

    const stale = run(['clean', '--plan', file]);
    expect(stale.stderr).toMatch(/^cleanerx: The plan is out of date: .*Nothing was removed; make a new plan\.\n$/);
    expect(stale.status).toBe(2);
    const id = run(['clean', '--agent', 'pi', '--id', gone.id]);
    expect(id.status).toBe(2);
    oneLine(id.stderr);
    expect(run(['clean', '--plan', file, '--yes']).status).toBe(1);
    expect(treeDiff(before, hashTree(t.env.PI_CODING_AGENT_DIR!))).toEqual([]);
  });

  it('a blocked plan: exit 2 without --yes, 1 with it; nothing removed', () => {
    fakeProcess(t.procRoot, 4242, 'pi', ['pi']);
    const before = hashTree(t.env.PI_CODING_AGENT_DIR!);
    const preview = run(['clean', '--agent', 'pi', '--id', m.sessions[0]!.id]);
    expect(preview.stderr).toMatch(/^blocked: /m);
    expect(preview.status).toBe(2);
    expect(run(['clean', '--agent', 'pi', '--id', m.sessions[0]!.id, '--yes']).status).toBe(1);
    expect(treeDiff(before, hashTree(t.env.PI_CODING_AGENT_DIR!))).toEqual([]);
  });

  it('an --id that names nothing is named as typed, never as session:<id>', () => {
    buildClaudeFixture({ configDir: t.env.CLAUDE_CONFIG_DIR!, projects: 1, sessionsPerProject: 2, seed: 3, cwdRoot: join(t.env.HOME!, 'code') });
    const r = run(['clean', '--agent', 'claude', '--id', 'claude-temp']);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('cleanerx: Unknown item id "claude-temp" in this snapshot; rescan and mark again.\n');
    // A bare session id still means its session.
    const s = run(['clean', '--agent', 'pi', '--id', m.sessions[0]!.id]);
    expect(s.stdout).toContain(`session:${m.sessions[0]!.id}`);
  });

  it('counts agree with their nouns: 1 item, 1 session', () => {
    const one = m.sessions[0]!;
    const preview = run(['clean', '--agent', 'pi', '--id', one.id]);
    expect(preview.stdout.split('\n')[1]).toMatch(/^pi: 1 item, /);
    const done = run(['clean', '--agent', 'pi', '--id', one.id, '--yes']);
    expect(done.status, done.stderr).toBe(0);
    expect(done.stdout).toMatch(/complete: Cleanup complete · 1 item \(operation /);
    const plan = run(['plan', '--agent', 'pi', '--keep-latest', '1']);
    expect(plan.stdout.split('\n')[1]).toMatch(/^Plan: 1 item, /);
    expect(run(['scan', '--agent', 'pi']).stdout).toMatch(/^ {4}\s*[\d.]+ \S+ +2 sessions  /m);
  });
});

describe('backups: a wrong passphrase is a refusal, no passphrase a usage error', () => {
  /** A backup of one pi session, through `clean --backup` with a new key. */
  function backup(): string {
    const c = run(['clean', '--agent', 'pi', '--id', m.sessions[0]!.id, '--yes', '--backup'], `${PASS}\n`);
    expect(c.status, c.stderr).toBe(0);
    const id = /backup ([0-9a-f-]{36})/.exec(c.stdout)?.[1];
    expect(id, c.stdout).toBeTruthy();
    return id!;
  }

  it('verify with a wrong passphrase: exit 1, one sentence; restore the same; nothing written', () => {
    const id = backup();
    const before = hashTree(t.env.PI_CODING_AGENT_DIR!);
    const v = run(['backups', 'verify', id], 'not the passphrase\n');
    expect(v.status).toBe(1);
    expect(v.stderr).toBe('cleanerx: Wrong passphrase for the backup key; try again.\n');
    const r = run(['backups', 'restore', id, '--yes'], 'not the passphrase\n');
    expect(r.status).toBe(1);
    oneLine(r.stderr);
    expect(treeDiff(before, hashTree(t.env.PI_CODING_AGENT_DIR!))).toEqual([]);
    expect(run(['backups', 'verify', id], `${PASS}\n`).status).toBe(0);
  }, 60_000);

  it('restore with nothing on standard input: without --yes it says to add --yes; with it, that no passphrase was given (exit 2)', () => {
    const id = backup();
    const before = hashTree(t.env.PI_CODING_AGENT_DIR!);
    const noYes = run(['backups', 'restore', id]);
    expect(noYes.status).toBe(2);
    expect(noYes.stderr).toMatch(/^cleanerx: Nothing was restored: add --yes to restore this backup/);
    expect(noYes.stderr).not.toMatch(/passphrase for the backup key/i);
    oneLine(noYes.stderr);
    const yes = run(['backups', 'restore', id, '--yes']);
    expect(yes.status).toBe(2);
    expect(yes.stderr).toBe('cleanerx: No key passphrase was given: type it on a terminal, or pipe it as the first line of standard input.\n');
    // With the passphrase and no --yes: the plan first, then the same usage error naming what it would restore.
    const dry = run(['backups', 'restore', id], `${PASS}\n`);
    expect(dry.status).toBe(2);
    expect(dry.stdout).toMatch(/^Restore would create 1 file \(/);
    expect(dry.stderr).toBe('cleanerx: Nothing was restored: add --yes to restore 1 file.\n');
    expect(treeDiff(before, hashTree(t.env.PI_CODING_AGENT_DIR!))).toEqual([]);
    expect(run(['backups', 'list']).stdout).toMatch(/ pi .* 1 item /);
  }, 60_000);
});

describe('--demo', () => {
  const demoHomes = (tmp: string): string[] => (existsSync(tmp) ? readdirSync(tmp).filter((n) => n.startsWith('cleanerx-demo-')) : []);

  it('scan --demo and doctor --demo read the demo home (not the real one), and remove it', () => {
    const tmp = join(t.root, 'tmp');
    mkdirSync(tmp);
    const s = run(['scan', '--demo', '--agent', 'pi', '--json'], '', { TMPDIR: tmp });
    expect(s.status, s.stderr).toBe(0);
    const pi = (JSON.parse(s.stdout) as { agents: { home: string; sessions: unknown[] }[] }).agents[0]!;
    expect(pi.home.startsWith(join(tmp, 'cleanerx-demo-')), pi.home).toBe(true);
    expect(pi.home).not.toBe(t.env.PI_CODING_AGENT_DIR);
    expect(pi.sessions.length).toBeGreaterThan(m.sessions.length);
    const d = run(['doctor', '--demo'], '', { TMPDIR: tmp });
    expect(d.status, d.stderr).toBe(0);
    expect(d.stdout).toMatch(new RegExp(`^  home +${tmp}/cleanerx-demo-[^/]+/home/\\.pi/agent `, 'm'));
    expect(d.stdout).not.toContain(t.env.PI_CODING_AGENT_DIR);
    expect(demoHomes(tmp)).toEqual([]);
  }, 120_000);

  it('commands that only work on your own homes refuse --demo; --keep is the app’s alone', () => {
    const before = hashTree(t.env.PI_CODING_AGENT_DIR!);
    const c = run(['clean', '--demo', '--agent', 'pi', '--id', m.sessions[0]!.id, '--yes']);
    expect(c.status).toBe(2);
    expect(c.stderr).toBe('cleanerx: clean does not take --demo: it works on your own agent homes (--demo applies to the app, scan and doctor).\n');
    for (const cmd of [['plan', '--agent', 'pi', '--keep-latest', '0'], ['backups', 'list'], ['recovery']])
      expect(run([...cmd, '--demo']).status, cmd[0]).toBe(2);
    const keep = run(['scan', '--demo', '--keep']);
    expect(keep.status).toBe(2);
    expect(keep.stderr).toBe("cleanerx: --keep only applies to the app's --demo (cleanerx --demo --keep).\n");
    expect(treeDiff(before, hashTree(t.env.PI_CODING_AGENT_DIR!))).toEqual([]);
  });
});
