// An unreadable bucket or sessions dir hides every session in it; the scan
// must say so instead of listing fewer sessions without a word. Root passes
// every permission check, so the scan runs as nobody (setpriv) when the tests
// run as root, on a temp home handed to that user.

import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildClaudeFixture } from '../../src/adapters/claude/fixture.js';
import { buildPiFixture } from '../../src/adapters/pi/fixture.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

const REPO = join(import.meta.dirname, '..', '..');
const asRoot = process.getuid!() === 0;
const uid = asRoot ? 65534 : process.getuid!();

function chownTree(dir: string): void {
  chownSync(dir, uid, uid);
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) chownTree(p);
    else chownSync(p, uid, uid);
  }
}

function scanPi(t: TempEnv, agent = 'pi'): { sessions: number; warnings: { path: string; reason: string }[] } {
  const cmd = [process.execPath, join(REPO, 'dist', 'cli.js'), 'scan', '--agent', agent, '--json'];
  const full = asRoot ? ['setpriv', `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', ...cmd] : cmd;
  const r = spawnSync(full[0]!, full.slice(1), { cwd: t.root, env: t.env, encoding: 'utf8', timeout: 60_000 });
  expect(r.status, r.stderr).toBe(0);
  const out = JSON.parse(r.stdout) as { agents: { agent: string; sessions: unknown[]; warnings: { path: string; reason: string }[] }[] };
  const pi = out.agents.find((a) => a.agent === agent)!;
  return { sessions: pi.sessions.length, warnings: pi.warnings };
}

describe('unreadable pi dirs', () => {
  let t: TempEnv;
  beforeEach(() => {
    t = makeTempEnv();
    buildPiFixture({ agentDir: t.env.PI_CODING_AGENT_DIR!, projects: 2, sessionsPerProject: 3, seed: 5, cwdRoot: join(t.root, 'src') });
    if (asRoot) {
      chmodSync(t.root, 0o755);
      chownTree(t.root);
    }
  });
  afterEach(() => t.cleanup());

  it('a bucket that cannot be read is named in a warning, and the others are listed', () => {
    const before = scanPi(t);
    expect(before.sessions).toBeGreaterThan(3);
    const sessionsDir = join(t.env.PI_CODING_AGENT_DIR!, 'sessions');
    const bucket = readdirSync(sessionsDir).sort()[0]!;
    chmodSync(join(sessionsDir, bucket), 0o000);
    const after = scanPi(t);
    expect(after.sessions).toBeLessThan(before.sessions);
    expect(after.sessions).toBeGreaterThan(0);
    const w = after.warnings.find((x) => x.path === join(sessionsDir, bucket));
    expect(w?.reason).toMatch(/Could not read this pi session bucket \(EACCES\).*check its permissions/);
  });

  it('an unreadable sessions dir says that no session is listed', () => {
    const sessionsDir = join(t.env.PI_CODING_AGENT_DIR!, 'sessions');
    chmodSync(sessionsDir, 0o000);
    const r = scanPi(t);
    expect(r.sessions).toBe(0);
    expect(r.warnings.some((x) => x.path === sessionsDir && /no session is listed/.test(x.reason))).toBe(true);
  });
});

describe('unreadable Claude project dirs', () => {
  let t: TempEnv;
  beforeEach(() => {
    t = makeTempEnv();
    buildClaudeFixture({ configDir: t.env.CLAUDE_CONFIG_DIR!, projects: 2, sessionsPerProject: 3, cwdRoot: join(t.root, 'src') });
    if (asRoot) {
      chmodSync(t.root, 0o755);
      chownTree(t.root);
    }
  });
  afterEach(() => t.cleanup());

  it('a project dir that cannot be read is named in a warning, and the others are listed', () => {
    const before = scanPi(t, 'claude');
    expect(before.sessions).toBeGreaterThan(3);
    const projects = join(t.env.CLAUDE_CONFIG_DIR!, 'projects');
    const bucket = readdirSync(projects).sort()[0]!;
    chmodSync(join(projects, bucket), 0o000);
    const after = scanPi(t, 'claude');
    expect(after.sessions).toBeLessThan(before.sessions);
    expect(after.warnings.find((x) => x.path === join(projects, bucket))?.reason).toMatch(/Could not read this Claude project directory \(EACCES\)/);
  });

  it('an unreadable projects dir says that no session is listed', () => {
    chmodSync(join(t.env.CLAUDE_CONFIG_DIR!, 'projects'), 0o000);
    const r = scanPi(t, 'claude');
    expect(r.sessions).toBe(0);
    expect(r.warnings.some((x) => /Could not read Claude's projects directory \(EACCES\)/.test(x.reason))).toBe(true);
  });
});
