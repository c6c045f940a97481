// `recovery` in its usual spellings runs without yargs (src/cli/recovery-args.ts);
// everything else still goes through yargs, and both list, act and refuse alike.

import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPiFixture } from '../../src/adapters/pi/fixture.js';
import { recoveryArgs } from '../../src/cli/recovery-args.js';
import { journalDir } from '../../src/engine/cleanup/journal.js';
import { CLI } from '../helpers/constants.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

const ID = '0190f000-0000-7000-8000-00000000beef';

describe('recoveryArgs', () => {
  it('reads the usual spellings', () => {
    expect(recoveryArgs(['recovery'])).toEqual({ action: 'list' });
    expect(recoveryArgs(['recovery', 'list'])).toEqual({ action: 'list' });
    for (const action of ['accept', 'close', 'restore']) expect(recoveryArgs(['recovery', action, ID])).toEqual({ action, operation: ID });
    expect(recoveryArgs(['recovery', 'close', ID.toUpperCase()])).toEqual({ action: 'close', operation: ID.toUpperCase() });
  });

  it('leaves everything else to yargs', () => {
    for (const argv of [
      [],
      ['scan'],
      ['recover'],
      ['recovery', '--help'],
      ['recovery', '--demo'],
      ['recovery', '--json'],
      ['recovery', 'list', ID],
      ['recovery', 'list', '--read-only'],
      ['recovery', 'accept'],
      ['recovery', 'close', 'x'],
      ['recovery', 'close', '123'],
      ['recovery', 'close', `${ID}0`],
      ['recovery', 'close', ID, 'extra'],
      ['recovery', 'close', ID, '--yes'],
      ['recovery', 'undo', ID],
      ['recovery', '--', 'list'],
      ['--read-only', 'recovery'],
    ])
      expect(recoveryArgs(argv), argv.join(' ')).toBeNull();
  });
});

describe('recovery through the fast path and through yargs', () => {
  // Two identical homes, each with the same pi cleanup killed half-way: one is recovered through each path.
  const homes: { t: TempEnv; op: string }[] = [];
  const run = (t: TempEnv, args: string[], extra: Record<string, string> = {}) =>
    spawnSync(process.execPath, [CLI, ...args], { env: { ...t.env, ...extra }, encoding: 'utf8', input: '' });
  const status = (t: TempEnv): string => {
    const dir = journalDir(t.env.CLEANERX_STATE_DIR!);
    const [name] = readdirSync(dir).filter((n) => n.endsWith('.json'));
    return (JSON.parse(readFileSync(join(dir, name!), 'utf8')) as { status: string }).status;
  };

  beforeAll(() => {
    for (let i = 0; i < 2; i++) {
      const t = makeTempEnv('cleanerx-recovery-fast-');
      const m = buildPiFixture({ agentDir: t.env.PI_CODING_AGENT_DIR!, projects: 1, sessionsPerProject: 3, forkRate: 0, cwdRoot: join(t.env.HOME!, 'src') });
      const ids = m.sessions.filter((s) => s.kind === 'root').map((s) => `session:${s.id}`);
      const killed = run(t, ['clean', '--agent', 'pi', '--id', ids[0]!, '--id', ids[1]!, '--yes'], { CLEANERX_CRASH_AT: 'remove:0:0:after' });
      expect(killed.signal ?? killed.status, killed.stderr).toSatisfy((x: unknown) => x === 'SIGKILL' || x === 137);
      const [name] = readdirSync(journalDir(t.env.CLEANERX_STATE_DIR!)).filter((n) => n.endsWith('.json'));
      homes.push({ t, op: name!.replace(/\.json$/, '') });
    }
  });
  afterAll(() => {
    for (const h of homes) h.t.cleanup();
  });

  it('lists the same interrupted cleanup, in both languages', () => {
    const [a] = homes;
    for (const lang of [[], ['--lang', 'zh']]) {
      const fast = run(a!.t, ['recovery', ...lang]);
      const slow = run(a!.t, ['recovery', 'list', '--read-only=false', ...lang]);
      expect(recoveryArgs(['recovery'])).not.toBeNull();
      expect(recoveryArgs(['recovery', 'list', '--read-only=false'])).toBeNull();
      expect(fast.status, fast.stderr).toBe(0);
      expect(slow.status, slow.stderr).toBe(0);
      expect(fast.stdout).toContain(a!.op);
      expect(fast.stdout).toBe(slow.stdout);
      expect(fast.stderr).toBe(slow.stderr);
    }
  });

  it('refuses the same way: an accept the rescan does not allow, an unknown operation', () => {
    const [a] = homes;
    const fast = run(a!.t, ['recovery', 'accept', a!.op]);
    const slow = run(a!.t, ['recovery', 'accept', a!.op, '--read-only=false']);
    expect(fast.status).toBe(2);
    expect(fast.stderr).toMatch(/Cannot accept/);
    expect([slow.status, slow.stderr, slow.stdout]).toEqual([fast.status, fast.stderr, fast.stdout]);
    const gone = run(a!.t, ['recovery', 'close', ID]);
    const goneSlow = run(a!.t, ['recovery', 'close', ID, '--read-only=false']);
    expect(gone.status).not.toBe(0);
    expect(gone.stderr).toMatch(/^cleanerx: /);
    expect([goneSlow.status, goneSlow.stderr]).toEqual([gone.status, gone.stderr]);
    expect(status(a!.t)).toBe('deleting');
  });

  it('closes alike: each home is left with no interrupted cleanup and a terminated journal', () => {
    const [a, b] = homes;
    const fast = run(a!.t, ['recovery', 'close', a!.op]);
    const slow = run(b!.t, ['recovery', 'close', b!.op, '--read-only=false']);
    expect(fast.status, fast.stderr).toBe(0);
    expect(fast.stdout).toBe('No interrupted cleanup.\n');
    expect([slow.status, slow.stdout, slow.stderr]).toEqual([fast.status, fast.stdout, fast.stderr]);
    expect(status(a!.t)).toBe('terminated');
    expect(status(b!.t)).toBe('terminated');
  });

  it('an operation id that is not a UUID is still yargs’ to read, and still refused', () => {
    const [a] = homes;
    const r = run(a!.t, ['recovery', 'close', 'not-an-operation']);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/^cleanerx: /);
  });
});
