// The CLI around backups, end to end through the real binary: a backup's
// warnings (a FIFO it cannot hold) reach `clean --backup`; `backups restore`
// says how many files were already in place and what the backup does not
// hold; a restore never runs beside a cleanup of the same agent; `recovery
// list` shows a partly removed item path by path (bounded).

import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildClaudeFixture } from '../../src/adapters/claude/fixture.js';
import { cliEngine } from '../../src/cli/engine-factory.js';
import { itemLines } from '../../src/cli/recovery.js';
import { acquireAgentLock } from '../../src/engine/cleanup/agent-lock.js';
import { CLI } from '../helpers/pty-screen.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

const SECRET = { CLEANERX_TEST_MODE: '1', CLEANERX_SCRYPT_LOG_N: '12' };
const PASS = 'passphrase-123\n';
const envs: TempEnv[] = [];
afterEach(() => {
  for (const t of envs.splice(0)) t.cleanup();
});

function cli(t: TempEnv, args: string[], extra: Record<string, string> = {}, input = ''): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [CLI, ...args], { env: { ...t.env, ...SECRET, ...extra }, encoding: 'utf8', input, timeout: 30_000 });
}

/** A Claude Code session owning its transcript and tasks/<id>, which holds a task, an empty dir and a FIFO. */
function sessionWithFifo(): { t: TempEnv; id: string; transcript: string; tasks: string; fifo: string } {
  const t = makeTempEnv('cleanerx-followups-');
  envs.push(t);
  const dir = t.env.CLAUDE_CONFIG_DIR!;
  const m = buildClaudeFixture({ configDir: dir, projects: 1, sessionsPerProject: 2, bodyBytes: 300, cwdRoot: join(t.env.HOME!, 'code') });
  const s = m.sessions[0]!;
  for (const p of s.ownedPaths) rmSync(p, { recursive: true, force: true });
  const tasks = join(dir, 'tasks', s.id);
  mkdirSync(tasks, { recursive: true });
  writeFileSync(join(tasks, '1.json'), '{"id":"1","subject":"a task"}\n');
  mkdirSync(join(tasks, 'notes'));
  chmodSync(join(tasks, 'notes'), 0o750);
  const fifo = join(tasks, 'events.pipe');
  expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
  return { t, id: `session:${s.id}`, transcript: s.file, tasks, fifo };
}

const backupId = (t: TempEnv): string => {
  const list = cli(t, ['backups', 'list']);
  expect(list.status, list.stderr).toBe(0);
  return list.stdout.trim().split('\n')[0]!.split(/\s+/)[0]!;
};

describe('backup warnings and restore results on the command line', () => {
  it('clean --backup prints the FIFO the backup left out; restore counts files already in place and names the FIFO again', () => {
    const { t, id, transcript, tasks, fifo } = sessionWithFifo();
    const body = readFileSync(transcript);
    const clean = cli(t, ['clean', '--agent', 'claude', '--id', id, '--yes', '--backup'], {}, PASS);
    expect(clean.stderr).toBe('');
    expect(clean.status).toBe(0);
    const lines = clean.stdout.trim().split('\n');
    expect(lines).toContain(`warning: Not in the backup: ${fifo} is a FIFO (named pipe), which holds no data to keep; a restore will not bring it back.`);
    expect(lines.at(-1)).toMatch(/^complete: Cleanup complete/);
    expect(existsSync(tasks)).toBe(false);

    // The transcript is put back by hand, byte-identical: the restore leaves it and says so.
    writeFileSync(transcript, body, { mode: 0o600 });
    const r = cli(t, ['backups', 'restore', backupId(t), '--yes'], {}, PASS);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const out = r.stdout.trim().split('\n');
    expect(out[0]).toMatch(/^Restore would create 2 files \(.*\), 1 of them already in place and 1 empty folder:$/);
    expect(out).toContain(`  ${join(tasks, 'notes')}/`);
    expect(out).toContain('Restored 2 files (1 already in place), 1 empty folder recreated.');
    expect(statSync(join(tasks, 'notes')).mode & 0o777).toBe(0o750);
    expect(out.at(-1)).toBe(`Not in the backup: ${fifo} was a FIFO (named pipe), which holds no data; the restore did not recreate it.`);
    expect(readFileSync(join(tasks, '1.json'), 'utf8')).toBe('{"id":"1","subject":"a task"}\n');
    expect(existsSync(fifo)).toBe(false);
  }, 60_000);

  it('a restore refuses to run while a cleanup of the same agent holds its lock, and says who holds it', async () => {
    const { t, id, tasks } = sessionWithFifo();
    expect(cli(t, ['clean', '--agent', 'claude', '--id', id, '--yes', '--backup'], {}, PASS).status).toBe(0);
    const bid = backupId(t);
    const engine = cliEngine(t.env, { readOnly: false });
    const lock = acquireAgentLock(t.env.CLEANERX_STATE_DIR!, 'claude', 'cleanerx clean --agent claude');
    try {
      await expect(engine.backupRestore(bid, 'passphrase-123')).rejects.toThrow(
        new RegExp(
          `Another Claude Code cleanup is running \\(pid ${process.pid}, started .*, command: cleanerx clean --agent claude\\); wait for it to finish and try again\\.`,
        ),
      );
      expect(existsSync(tasks)).toBe(false);
      // The CLI says the same in one line, after its dry run.
      const r = cli(t, ['backups', 'restore', bid, '--yes'], {}, PASS);
      expect(r.status).not.toBe(0);
      expect(r.stderr).toMatch(new RegExp(`^cleanerx: Another Claude Code cleanup is running \\(pid ${process.pid}, `));
      expect(existsSync(tasks)).toBe(false);
    } finally {
      lock.release();
    }
    // Released: the restore runs, and leaves no lock behind.
    const ok = await engine.backupRestore(bid, 'passphrase-123');
    expect(ok.restored).toBe(2);
    expect(ok.alreadyPresent).toBe(0);
    expect(ok.emptyDirs).toEqual([join(tasks, 'notes')]);
    expect(existsSync(join(tasks, '1.json'))).toBe(true);
    expect(existsSync(join(t.env.CLEANERX_STATE_DIR!, 'locks', 'claude.lock'))).toBe(false);
  }, 60_000);
});

describe('recovery list shows path states', () => {
  it('a partly removed item lists each path as intact or missing', () => {
    const { t, id, transcript, tasks } = sessionWithFifo();
    const r = cli(t, ['clean', '--agent', 'claude', '--id', id, '--yes', '--backup'], { CLEANERX_CRASH_AT: 'remove:0:0:after' }, PASS);
    expect(r.signal ?? r.status).toSatisfy((x: unknown) => x === 'SIGKILL' || x === 137);
    const gone = [transcript, tasks].find((p) => !existsSync(p))!;
    const kept = [transcript, tasks].find((p) => p !== gone)!;
    const list = cli(t, ['recovery']);
    expect(list.status, list.stderr).toBe(0);
    const lines = list.stdout.split('\n');
    expect(lines.find((l) => l.startsWith('  item '))).toMatch(new RegExp(`^  item partial .* \\(${id}\\)`));
    expect(lines).toContain(`    missing  ${gone}`);
    expect(lines).toContain(`    intact   ${kept}`);
  }, 60_000);

  it('at most 20 paths per item, then how many more; labels and paths are printed cleaned', () => {
    const paths = Array.from({ length: 25 }, (_, i) => ({
      path: `/h/.claude/projects/p/f${i}\x1b[2J`,
      state: (['intact', 'missing', 'changed', 'replaced'] as const)[i % 4],
    }));
    const out = itemLines([
      { itemId: 'session:a', label: 'evil\x1b]0;title\x07 label', listed: true, state: 'partial', paths },
      { itemId: 'session:b', label: 'b', listed: false, state: 'gone', paths: [{ path: '/h/b', state: 'missing' }] },
    ]).map(String);
    expect(out).toHaveLength(1 + 20 + 1 + 1);
    expect(out[1]).toMatch(/^    intact   \/h\/\.claude\/projects\/p\/f0/);
    expect(out[2]).toMatch(/^    missing  /);
    expect(out[3]).toMatch(/^    changed  /);
    expect(out[4]).toMatch(/^    replaced /);
    expect(out[21]).toBe('    … and 5 more');
    expect(out[22]).toBe('  item gone    b (session:b), not listed by the rescan');
    for (const l of out) expect(l).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
  });
});
