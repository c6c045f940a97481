// pi writer detection: cleanerx's own `pi --version` probe (which renames
// itself "pi" like a working pi) is not a writer; a real pi is, and the
// blocker names it by pid and command line, cleaned of escape sequences.

import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findClaudeWriters } from '../../src/adapters/claude/writers.js';
import { findCodexWriters } from '../../src/adapters/codex/writers.js';
import { findOpencodeWriters } from '../../src/adapters/opencode/writers.js';
import { scanPiWriters } from '../../src/adapters/pi/writers.js';
import { VERSION_PROBE_ENV } from '../../src/engine/host/detect.js';
import { spawnForeign } from '../helpers/foreign-process.js';
import { fakeProcess, makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) {
    try {
      process.kill(-c.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  t?.cleanup();
});

function fakeStat(pid: number, comm: string, ppid: number): void {
  writeFileSync(join(t.procRoot, String(pid), 'stat'), `${pid} (${comm}) S ${ppid} ${pid} ${pid} 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 12345 0 0\n`);
}

describe('pi writers', () => {
  it('a version probe cleanerx started (its parent is us, or it carries the probe marker) blocks nothing', async () => {
    t = makeTempEnv();
    // After pi's process.title = "pi" the probe's comm and cmdline say just "pi".
    fakeProcess(t.procRoot, 5000, 'pi', ['pi']);
    fakeStat(5000, 'pi', process.pid);
    fakeProcess(t.procRoot, 5001, 'pi', ['pi']);
    fakeStat(5001, 'pi', 1);
    writeFileSync(join(t.procRoot, '5001', 'environ'), `PATH=/usr/bin\0${VERSION_PROBE_ENV}=1\0`);
    // Before the rename: node on the launcher with --version.
    fakeProcess(t.procRoot, 5002, 'node', ['node', '/work/node_modules/.bin/pi', '--version']);
    fakeStat(5002, 'node', process.pid);
    expect(await scanPiWriters(t.ctx, t.env.PI_CODING_AGENT_DIR!)).toEqual({ writers: [] });
  });

  it('a real pi blocks, and the reason names its pid and cleaned command line', async () => {
    t = makeTempEnv();
    fakeProcess(t.procRoot, 6000, 'pi', ['pi', '--continue', '\x1b]0;PWNED\x07title']);
    fakeStat(6000, 'pi', 1);
    fakeProcess(t.procRoot, 6001, 'node', ['/usr/bin/node', '/usr/local/bin/pi']);
    fakeStat(6001, 'node', 1);
    const r = await scanPiWriters(t.ctx, t.env.PI_CODING_AGENT_DIR!);
    expect(r.writers).toMatchObject([
      { pid: 6000, name: 'pi' },
      { pid: 6001, name: 'node' },
    ]);
    expect(r.reason).toBe(
      'pi is running (pid 6000: pi --continue title (its environment and open files cannot be read (hidepid or a protected process)); pid 6001: /usr/bin/node /usr/local/bin/pi (its environment and open files cannot be read (hidepid or a protected process))); quit it before deleting local session data.',
    );
    expect(r.reason).not.toMatch(/[\x00-\x1f\x7f-\x9f]/);
  });

  it('on the real /proc: our own child named pi is a probe, a pi started by someone else is a writer', async () => {
    t = makeTempEnv();
    const pi = join(t.root, 'pi');
    copyFileSync('/bin/sleep', pi);
    const ownChild = spawn(pi, ['30'], { stdio: 'ignore', detached: true });
    // Reparented away from this process: a pi the user started.
    const other = (await spawnForeign(pi, ['31'], { env: { PATH: '/usr/bin:/bin', HOME: t.env.HOME, PI_CODING_AGENT_DIR: t.env.PI_CODING_AGENT_DIR } })).child;
    children.push(ownChild, other);
    const ctx = { ...t.ctx, procRoot: '/proc' };
    let found: Awaited<ReturnType<typeof scanPiWriters>> = { writers: [] };
    for (let i = 0; i < 100 && !found.writers.some((w) => w.pid !== ownChild.pid && /31/.test(found.reason ?? '')); i++) {
      found = await scanPiWriters(ctx, t.env.PI_CODING_AGENT_DIR!);
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(found.writers.map((w) => w.pid)).not.toContain(ownChild.pid);
    expect(found.reason).toMatch(new RegExp(`pid \\d+: ${pi.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} 31`));
  });
});

describe('version probes of the other agents', () => {
  function environ(pid: number, vars: Record<string, string>): void {
    writeFileSync(
      join(t.procRoot, String(pid), 'environ'),
      Object.entries(vars)
        .map(([k, v]) => `${k}=${v}\0`)
        .join(''),
    );
  }

  it('claude, codex and opencode --version started by detection block nothing; the same programs without the marker do', async () => {
    t = makeTempEnv();
    const codexHome = t.env.CODEX_HOME!;
    for (const [pid, comm, probe] of [
      [7000, 'claude', true],
      [7001, 'claude', false],
      [7010, 'codex', true],
      [7011, 'codex', false],
      [7020, 'opencode', true],
      [7021, 'opencode', false],
    ] as const) {
      fakeProcess(t.procRoot, pid, comm, [comm, ...(probe ? ['--version'] : [])]);
      fakeStat(pid, comm, 1);
      environ(pid, { CODEX_HOME: codexHome, ...(probe ? { [VERSION_PROBE_ENV]: '1' } : {}) });
    }
    expect((await findClaudeWriters(t.ctx, t.env.CLAUDE_CONFIG_DIR!, [])).writers.map((w) => w.pid)).toEqual([7001]);
    expect((await findCodexWriters(t.ctx, codexHome)).writers.map((w) => w.pid)).toEqual([7011]);
    expect((await findOpencodeWriters(t.ctx, null, dirname(t.env.OPENCODE_DB!))).map((w) => w.pid)).toEqual([7021]);
  });
});
