// One cleanup per agent at a time: the second says who holds the lock; a
// lock left by a dead process is taken over; the lock file is never followed.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildPiFixture } from '../../src/adapters/pi/fixture.js';
import { ADAPTERS } from '../../src/adapters/registry.js';
import { acquireAgentLock, liveLockHolder, lockPath } from '../../src/engine/cleanup/agent-lock.js';
import { Engine } from '../../src/engine/api/engine.js';
import { journalDir } from '../../src/engine/cleanup/journal.js';
import { hashTree } from '../helpers/tree-hash.js';
import { CLI } from '../helpers/pty-screen.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

const envs: TempEnv[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  for (const t of envs.splice(0)) t.cleanup();
});

function env(): TempEnv {
  const t = makeTempEnv('cleanerx-lock-');
  envs.push(t);
  return t;
}

const LOCK_MODULE = new URL('../../dist/engine/cleanup/agent-lock.js', import.meta.url).href;

/** Another process that takes the pi lock and holds it until killed; resolves once it holds it. */
function holdInChild(stateDir: string): Promise<ChildProcess> {
  const code = `const { acquireAgentLock } = await import(${JSON.stringify(LOCK_MODULE)}); acquireAgentLock(${JSON.stringify(stateDir)}, 'pi', 'cleanerx clean --agent pi'); process.stdout.write('held\\n'); setInterval(() => {}, 1000);`;
  const c = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(c);
  return new Promise((resolve, reject) => {
    c.stdout!.on('data', (d: Buffer) => d.toString().includes('held') && resolve(c));
    c.on('exit', (n) => reject(new Error(`the lock holder exited (${n})`)));
  });
}

/** A cleanup killed with its journal at "running" (as a second run finds one mid-way), its lock left stale. */
function killedRun(env: Record<string, string>, id: string): void {
  const r = spawnSync(process.execPath, [CLI, 'clean', '--agent', 'pi', '--id', id, '--yes'], {
    env: { ...env, CLEANERX_CRASH_AT: 'mutation:0:running' },
    encoding: 'utf8',
    input: '',
    timeout: 20_000,
  });
  expect(r.signal ?? r.status).toSatisfy((x: unknown) => x === 'SIGKILL' || x === 137);
}

describe('per-agent cleanup lock', () => {
  it('a second taker is refused with the holder’s pid, start time and command; released, it can be taken again', () => {
    const t = env();
    const state = t.env.CLEANERX_STATE_DIR!;
    const first = acquireAgentLock(state, 'pi', 'cleanerx clean --agent pi --yes');
    expect(() => acquireAgentLock(state, 'pi')).toThrow(
      new RegExp(
        `^Another pi cleanup is running \\(pid ${process.pid}, started \\d{4}-\\d\\d-\\d\\dT[^,]+, command: cleanerx clean --agent pi --yes\\); wait for it to finish and try again\\.$`,
      ),
    );
    // Another agent is independent.
    acquireAgentLock(state, 'claude').release();
    expect(liveLockHolder(state, 'pi')?.pid).toBe(process.pid);
    first.release();
    expect(existsSync(lockPath(state, 'pi'))).toBe(false);
    expect(liveLockHolder(state, 'pi')).toBeNull();
    acquireAgentLock(state, 'pi').release();
  });

  it('a lock left by a dead process, or by a pid now reused by a later process, is taken over', () => {
    const t = env();
    const state = t.env.CLEANERX_STATE_DIR!;
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const deadPid = Number(dead.stdout);
    mkdirSync(join(state, 'locks'), { recursive: true });
    writeFileSync(lockPath(state, 'pi'), JSON.stringify({ pid: deadPid, procStart: null, startedAt: '2026-01-01T00:00:00Z', command: 'old' }));
    expect(liveLockHolder(state, 'pi')).toBeNull();
    const l = acquireAgentLock(state, 'pi');
    expect(JSON.parse(readFileSync(lockPath(state, 'pi'), 'utf8')).pid).toBe(process.pid);
    l.release();
    // Our own pid, but a different process start time: the pid was reused.
    writeFileSync(lockPath(state, 'pi'), JSON.stringify({ pid: process.pid, procStart: '1', startedAt: '2026-01-01T00:00:00Z', command: 'old' }));
    acquireAgentLock(state, 'pi').release();
  });

  it('a lock file that is a symbolic link is refused and its target never touched; hostile content is cleaned', () => {
    const t = env();
    const state = t.env.CLEANERX_STATE_DIR!;
    mkdirSync(join(state, 'locks'), { recursive: true });
    const target = join(t.root, 'precious');
    writeFileSync(target, 'keep');
    symlinkSync(target, lockPath(state, 'pi'));
    expect(() => acquireAgentLock(state, 'pi')).toThrow(/is a symbolic link; remove it and try again\.$/);
    expect(readFileSync(target, 'utf8')).toBe('keep');
    const other = lockPath(state, 'claude');
    writeFileSync(other, JSON.stringify({ pid: process.pid, procStart: null, startedAt: '\u001b]0;PWNED\u0007', command: 'x\u001b[2Jy' }));
    let msg = '';
    try {
      acquireAgentLock(state, 'claude');
    } catch (e) {
      msg = (e as Error).message;
    }
    expect(msg).toMatch(/^Another Claude Code cleanup is running/);
    expect(msg).not.toMatch(/[\u0000-\u001f\u007f]/);
  });

  it('a cleanup through the CLI while another process holds the lock: refused, nothing changed, no journal; once the holder is dead the cleanup runs', async () => {
    const t = env();
    const m = buildPiFixture({
      agentDir: t.env.PI_CODING_AGENT_DIR!,
      projects: 1,
      sessionsPerProject: 2,
      forkRate: 0,
      bodyBytes: 200,
      cwdRoot: join(t.env.HOME!, 'src'),
    });
    const id = `session:${m.sessions[0]!.id}`;
    const state = t.env.CLEANERX_STATE_DIR!;
    const holder = await holdInChild(state);
    const before = hashTree(t.env.HOME!, [state]);
    const r = spawnSync(process.execPath, [CLI, 'clean', '--agent', 'pi', '--id', id, '--yes'], { env: t.env, encoding: 'utf8', input: '', timeout: 20_000 });
    expect(r.stderr).toBe(
      `cleanerx: ${`Another pi cleanup is running (pid ${holder.pid}, started `}${r.stderr.slice(r.stderr.indexOf('started ') + 8, r.stderr.indexOf(', command'))}, command: cleanerx clean --agent pi); wait for it to finish and try again.\n`,
    );
    expect(r.status).toBe(2);
    expect(hashTree(t.env.HOME!, [state])).toEqual(before);
    expect(existsSync(journalDir(state))).toBe(false);
    // Killed, its lock is stale: the same cleanup now runs.
    holder.kill('SIGKILL');
    await new Promise((res) => holder.once('exit', res));
    const engine = new Engine(ADAPTERS, t.ctx);
    const plan = await engine.plan((await engine.scan('pi')).snapshotId, [id]);
    expect((await engine.execute(plan.id)).status).toBe('complete');
    expect(existsSync(lockPath(state, 'pi'))).toBe(false);
  });

  it('a second clean while the first is still running (its journal unfinished) is told "running (pid)", never "needs recovery"', async () => {
    const t = env();
    const m = buildPiFixture({
      agentDir: t.env.PI_CODING_AGENT_DIR!,
      projects: 1,
      sessionsPerProject: 2,
      forkRate: 0,
      bodyBytes: 200,
      cwdRoot: join(t.env.HOME!, 'src'),
    });
    const state = t.env.CLEANERX_STATE_DIR!;
    // The first run, as a second one finds it mid-way: its journal says running, and it holds the lock.
    killedRun(t.env, `session:${m.sessions[0]!.id}`);
    const holder = await holdInChild(state);
    const second = spawnSync(process.execPath, [CLI, 'clean', '--agent', 'pi', '--id', `session:${m.sessions[1]!.id}`, '--yes'], {
      env: t.env,
      encoding: 'utf8',
      input: '',
      timeout: 20_000,
    });
    expect(second.stdout + second.stderr).toContain(`Another pi cleanup is running (pid ${holder.pid}, started `);
    expect(second.stdout + second.stderr).not.toContain('needs recovery');
    expect(existsSync(m.sessions[1]!.file)).toBe(true);
    holder.kill('SIGKILL');
    await new Promise((res) => holder.once('exit', res));
    // With no cleanup running, the unfinished journal is what it is: recovery first.
    const third = spawnSync(process.execPath, [CLI, 'clean', '--agent', 'pi', '--id', `session:${m.sessions[1]!.id}`, '--yes'], {
      env: t.env,
      encoding: 'utf8',
      input: '',
      timeout: 20_000,
    });
    expect(third.stdout + third.stderr).toContain('needs recovery first');
  });

  it('recovery does not judge or close an operation whose cleanup is still running', async () => {
    const t = env();
    const m = buildPiFixture({
      agentDir: t.env.PI_CODING_AGENT_DIR!,
      projects: 1,
      sessionsPerProject: 2,
      forkRate: 0,
      bodyBytes: 200,
      cwdRoot: join(t.env.HOME!, 'src'),
    });
    const state = t.env.CLEANERX_STATE_DIR!;
    // A killed run leaves its journal (and a stale lock).
    killedRun(t.env, `session:${m.sessions[0]!.id}`);
    const holder = await holdInChild(state);
    const engine = new Engine(ADAPTERS, t.ctx);
    const [op] = await engine.recoveryList();
    expect(op!.observed).toBe('Not provable');
    expect(op!.reason).toMatch(new RegExp(`^A pi cleanup is running now \\(pid ${holder.pid}, started [^)]+\\); look again when it has finished\\.$`));
    expect(op!.canClose || op!.canAccept).toBe(false);
    await expect(engine.recoveryAction(op!.operationId, 'close')).rejects.toThrow(/^Another pi cleanup is running/);
    holder.kill('SIGKILL');
    await new Promise((res) => holder.once('exit', res));
    const [again] = await engine.recoveryList();
    expect(again!.observed).toBe('Not applied');
    expect(await engine.recoveryAction(again!.operationId, 'close')).toEqual([]);
  });
});
