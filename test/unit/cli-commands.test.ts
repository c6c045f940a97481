// The real binary without a terminal: scan --json contract, doctor, usage
// errors (exit 2, one line), and the refusal to start the app without a TTY.

import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADAPTERS } from '../../src/adapters/registry.js';
import { buildPiFixture } from '../../src/adapters/pi/fixture.js';
import { CLI } from '../helpers/pty-screen.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

let t: TempEnv;
beforeEach(() => {
  t = makeTempEnv();
});
afterEach(() => t.cleanup());

function run(args: string[], env: Record<string, string> = t.env) {
  return spawnSync(process.execPath, [CLI, ...args], { env, encoding: 'utf8', input: '' });
}

describe('scan --json', () => {
  it('prints the documented contract for every agent', () => {
    const m = buildPiFixture({
      agentDir: t.env.PI_CODING_AGENT_DIR!,
      projects: 2,
      sessionsPerProject: 3,
      forkRate: 1,
      config: true,
      cwdRoot: join(t.env.HOME!, 'src'),
    });
    const out = execFileSync(process.execPath, [CLI, 'scan', '--json'], { env: t.env, encoding: 'utf8' });
    const report = JSON.parse(out);
    expect(report.version).toBe(1);
    expect(report.agents.map((a: { agent: string }) => a.agent)).toEqual(ADAPTERS.map((a) => a.kind));
    const pi = report.agents.find((a: { agent: string }) => a.agent === 'pi');
    expect(Object.keys(pi).sort()).toEqual(
      ['agent', 'executable', 'home', 'items', 'projects', 'sessions', 'state', 'totals', 'version', 'warnings', 'writers'].sort(),
    );
    expect(pi.state).toBe('dataOnly');
    expect(pi.home).toBe(t.env.PI_CODING_AGENT_DIR);
    expect(pi.sessions).toHaveLength(m.sessions.length);
    const s = pi.sessions[0];
    expect(Object.keys(s).sort()).toEqual(
      [
        'blockedReason',
        'bytes',
        'createdAt',
        'cwd',
        'id',
        'parentId',
        'paths',
        'projectId',
        'recordedParentId',
        'selectable',
        'source',
        'state',
        'title',
        'updatedAt',
      ].sort(),
    );
    expect(s.updatedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const forks = m.sessions.filter((x) => x.parentId);
    for (const f of forks) expect(pi.sessions.find((x: { id: string }) => x.id === f.id).parentId).toBe(f.parentId);
    expect(pi.totals.byCategory.session.items).toBe(m.sessions.length);
    expect(pi.items.find((i: { id: string }) => i.id === 'protected:pi:auth.json').selectable).toBe(false);
    const codex = report.agents.find((a: { agent: string }) => a.agent === 'codex');
    expect(codex.state).toBe('notFound');
  });

  it('--agent limits the report and rejects an unknown agent with exit 2', () => {
    const ok = run(['scan', '--agent', 'pi', '--json']);
    expect(ok.status).toBe(0);
    expect(JSON.parse(ok.stdout).agents).toHaveLength(1);
    const bad = run(['scan', '--agent', 'cursor']);
    expect(bad.status).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/cursor/);
  });
});

describe('usage errors and plain commands', () => {
  it('an unknown flag is one line and exit 2', () => {
    const r = run(['--frobnicate']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^cleanerx: .*frobnicate.*\n$/);
  });

  it('a relative cleanerx dir override is refused with what to do', () => {
    const r = run(['scan', '--json'], { ...t.env, CLEANERX_CONFIG_DIR: 'relative/dir' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/CLEANERX_CONFIG_DIR .*absolute path/);
    expect(r.stderr).not.toMatch(/at .*\.js/);
  });

  it('the app refuses to start without a terminal', () => {
    const r = run([]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/needs an interactive terminal/);
  });

  it('--version and --help answer', () => {
    const v = run(['--version']);
    expect(v.status).toBe(0);
    expect(v.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const h = run(['--help']);
    expect(h.status).toBe(0);
    expect(h.stdout).toMatch(/scan/);
    expect(h.stdout).toMatch(/doctor/);
  });

  it('doctor reports every agent of the registry and cleanerx dirs', () => {
    const r = run(['doctor']);
    expect(r.status).toBe(0);
    for (const a of ADAPTERS) expect(r.stdout).toContain(a.displayName);
    expect(r.stdout).toContain(t.env.CLEANERX_CONFIG_DIR);
    expect(r.stdout).toContain(`backup key  not created yet; the first backup creates ${t.env.CLEANERX_DATA_DIR}/identity.age`);
  });

  it('clean prints the home it will clean first, from the environment or the settings override', () => {
    buildPiFixture({ agentDir: t.env.PI_CODING_AGENT_DIR!, projects: 1, sessionsPerProject: 1, forkRate: 0, config: false, cwdRoot: join(t.env.HOME!, 'src') });
    const id = JSON.parse(run(['scan', '--agent', 'pi', '--json']).stdout).agents[0].sessions[0].id as string;
    const r = run(['clean', '--agent', 'pi', '--id', id]);
    expect(r.status).toBe(2);
    expect(r.stdout.split('\n')[0]).toBe(`pi home: ${t.env.PI_CODING_AGENT_DIR}`);
    const other = join(t.root, 'other-pi');
    buildPiFixture({ agentDir: other, projects: 1, sessionsPerProject: 1, forkRate: 0, config: false, cwdRoot: join(t.env.HOME!, 'src') });
    mkdirSync(t.env.CLEANERX_CONFIG_DIR!, { recursive: true });
    writeFileSync(join(t.env.CLEANERX_CONFIG_DIR!, 'config.json'), JSON.stringify({ version: 1, homeOverrides: { pi: other } }));
    const id2 = JSON.parse(run(['scan', '--agent', 'pi', '--json']).stdout).agents[0].sessions[0].id as string;
    const r2 = run(['clean', '--agent', 'pi', '--id', id2]);
    expect(r2.stdout.split('\n')[0]).toBe(`pi home: ${other}`);
  });

  it('scan and doctor say when the settings were invalid and the defaults are used', () => {
    mkdirSync(t.env.CLEANERX_CONFIG_DIR!, { recursive: true });
    writeFileSync(join(t.env.CLEANERX_CONFIG_DIR!, 'config.json'), '{"version": 2}');
    const scan = run(['scan']);
    expect(scan.status).toBe(0);
    expect(scan.stdout.split('\n')[0]).toMatch(/^settings +.*config\.json is invalid \(unknown version\); using defaults/);
    const json = run(['scan', '--json']);
    expect(JSON.parse(json.stdout).version).toBe(1);
    expect(json.stderr).toMatch(/^settings +.*config\.json is invalid/);
    const doctor = run(['doctor']);
    expect(doctor.stdout).toMatch(/\n  settings +.*config\.json is invalid \(unknown version\); using defaults/);
    writeFileSync(join(t.env.CLEANERX_CONFIG_DIR!, 'config.json'), '{"version": 1}');
    expect(run(['scan']).stdout).not.toMatch(/settings/);
    expect(run(['doctor']).stdout).not.toMatch(/invalid/);
  });
});
