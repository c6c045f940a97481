// `cleanerx fleet scan` against a real sshd (test/helpers/sshd.ts): ten
// hosts, each its own account-like login with its own agent homes, plus a
// host whose port is closed, one without cleanerx and hostile ones. The
// fleet's totals must equal the sum of each host's own `scan --json`, run on
// that host directly; the hosts that do not answer are rows with a reason.

import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPiFixture } from '../../src/adapters/pi/fixture.js';
import { CLI } from '../helpers/constants.js';
import { type SshLab, startSshLab } from '../helpers/sshd.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { budget } from '../helpers/budget.js';

let t: TempEnv;
let lab: SshLab;
const TEN = Array.from({ length: 10 }, (_, i) => `h${String(i + 1).padStart(2, '0')}`);
// Prints an escape sequence and a report whose numbers are not numbers.
const HOSTILE = `echo '0.1.0'; printf '{"version":1,"agents":[{"agent":"pi","state":"installed\\033]0;pwned\\007","totals":{"bytes":"lots"},"sessions":[],"writers":[]}]}\\n'`;
const NEWER = `if [ "$1" = --version ]; then echo 9.0.0; else echo '{"version":2,"agents":[]}'; fi`;

function run(args: string[], timeout = 120_000): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, [CLI, ...args], { env: t.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b));
    child.stderr.on('data', (b: Buffer) => (stderr += b));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeout);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

beforeAll(async () => {
  t = makeTempEnv('cleanerx-fleet-');
  lab = await startSshLab(join(t.root, 'lab'), [
    ...TEN.map((name) => ({ name })),
    { name: 'bare', cleanerx: false },
    { name: 'hostile', fake: HOSTILE },
    { name: 'newer', fake: NEWER },
    { name: 'slow', fake: 'sleep 120' },
  ]);
  TEN.forEach((name, i) => {
    const h = lab.hosts.get(name)!;
    if (i % 3 === 2) return; // some hosts have no agent data at all
    buildPiFixture({
      agentDir: h.env.PI_CODING_AGENT_DIR!,
      projects: 2,
      sessionsPerProject: 2 + i,
      seed: i + 1,
      forkRate: 0.2,
      now: Date.now(),
      cwdRoot: join(h.env.HOME!, 'src'),
    });
  });
}, budget(120_000));

afterAll(async () => {
  await lab?.stop();
  t?.cleanup();
});

interface Fleet {
  formatVersion: number;
  kind: string;
  scanContractVersion: number;
  hosts: {
    host: string;
    status: string;
    reason: string | null;
    cleanerxVersion: string | null;
    agents: { agent: string; sessions: number; bytes: number; reclaimableNow: number }[];
  }[];
  totals: {
    hosts: number;
    hostsAnswered: number;
    sessions: number;
    bytes: number;
    reclaimableNow: number;
    byAgent: Record<string, { hosts: number; sessions: number; bytes: number }>;
  };
}

/** A host's own scan, run on it directly (not over ssh): its agents with data. */
function ownScan(name: string): { agent: string; sessions: number; bytes: number; reclaim: number }[] {
  const h = lab.hosts.get(name)!;
  const r = spawnSync(process.execPath, [CLI, 'scan', '--json'], { env: h.env, encoding: 'utf8', cwd: h.env.HOME });
  expect(r.status, r.stderr).toBe(0);
  const report = JSON.parse(r.stdout) as {
    agents: {
      agent: string;
      state: string;
      totals: { bytes: number };
      writers: unknown[];
      sessions: { bytes: number; selectable: boolean }[];
      items: { bytes: number; selectable: boolean }[];
    }[];
  };
  return report.agents
    .filter((a) => a.state !== 'notFound')
    .map((a) => ({
      agent: a.agent,
      sessions: a.sessions.length,
      bytes: a.totals.bytes,
      reclaim: [...a.sessions, ...a.items].filter((x) => x.selectable).reduce((s, x) => s + x.bytes, 0),
    }));
}

describe('fleet scan over a real sshd', () => {
  it('scans ten hosts in under 30 s; its totals are the sum of the hosts\u2019 own scans; the others are rows with reasons', {
    timeout: budget(240_000),
  }, async () => {
    const r = await run(['fleet', 'scan', ...TEN, lab.downHost, 'bare', '--ssh-config', lab.config, '--json']);
    expect(r.stderr).toBe('');
    // Exit 1: two hosts did not answer.
    expect(r.code, lab.log()).toBe(1);
    console.log(`fleet scan of 10 hosts + 2 failing: ${r.ms} ms`);
    expect(r.ms).toBeLessThan(30_000);
    const fleet = JSON.parse(r.stdout) as Fleet;
    expect([fleet.formatVersion, fleet.kind, fleet.scanContractVersion]).toEqual([1, 'cleanerx-fleet-scan', 1]);
    expect(fleet.hosts.map((h) => h.host)).toEqual([...TEN, 'down', 'bare']);
    expect(fleet.hosts.find((h) => h.host === 'down')).toMatchObject({ status: 'unreachable' });
    expect(fleet.hosts.find((h) => h.host === 'down')!.reason).toMatch(/Connection refused/);
    expect(fleet.hosts.find((h) => h.host === 'bare')).toMatchObject({
      status: 'noCleanerx',
      reason: 'cleanerx is not installed there (not on the login PATH)',
    });

    let sessions = 0;
    let bytes = 0;
    let reclaim = 0;
    for (const name of TEN) {
      const own = ownScan(name);
      const got = fleet.hosts.find((h) => h.host === name)!;
      expect(got.status).toBe('ok');
      expect(got.cleanerxVersion).toBe('0.1.0');
      const shown = got.agents.filter((a) => own.some((o) => o.agent === a.agent));
      expect(shown.map((a) => [a.agent, a.sessions, a.bytes, a.reclaimableNow])).toEqual(own.map((o) => [o.agent, o.sessions, o.bytes, o.reclaim]));
      for (const o of own) {
        sessions += o.sessions;
        bytes += o.bytes;
        reclaim += o.reclaim;
      }
    }
    expect(sessions).toBeGreaterThan(0);
    expect(fleet.totals).toMatchObject({ hosts: 12, hostsAnswered: 10, sessions, bytes, reclaimableNow: reclaim });
    expect(fleet.totals.byAgent.pi).toMatchObject({ hosts: 7, sessions, bytes });
  });

  it('prints one table: a row per host and agent, the reasons, the totals; hostile hosts are rows, their escapes never reach the terminal', {
    timeout: budget(120_000),
  }, async () => {
    const r = await run(['fleet', 'scan', 'h01', 'h03', lab.downHost, 'bare', 'hostile', 'newer', '--ssh-config', lab.config]);
    expect(r.code).toBe(1);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/^HOST\s+AGENT\s+SESSIONS\s+ON DISK\s+RECLAIMABLE$/);
    expect(r.stdout).toMatch(/^h01\s+pi\s+\d+\s+\S+ \S*B\s+\S+ \S*B$/m);
    expect(r.stdout).toMatch(/^h03\s+\(no agent data\)$/m);
    expect(r.stdout).toMatch(/^down\s+unreachable: .*Connection refused/m);
    expect(r.stdout).toMatch(/^bare\s+no cleanerx: cleanerx is not installed there/m);
    expect(r.stdout).toMatch(/^hostile\s+failed: its scan report is malformed$/m);
    expect(r.stdout).toMatch(/^newer\s+incompatible: cleanerx 9\.0\.0 there writes scan contract 2, this one reads 1/m);
    expect(r.stdout).toMatch(/^total, 1 host\s+pi\s+\d+/m);
    expect(r.stdout).toMatch(/^2 of 6 answered\.$/m);
    for (const w of lines) expect(w.length).toBeLessThanOrEqual(80 + 200);
    // eslint-disable-next-line no-control-regex
    expect(r.stdout + r.stderr).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
  });

  it('never hands ssh a host that starts with "-" (exit 2, one sentence), nor an empty host list', { timeout: budget(60_000) }, async () => {
    for (const args of [
      ['fleet', 'scan', '--', '-oProxyCommand=touch /tmp/x'],
      ['fleet', 'scan', 'h01', 'a b'],
      ['fleet', 'scan'],
    ]) {
      const r = await run([...args, '--ssh-config', lab.config]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  // --timeout 20: long enough for h02's real scan on a loaded machine, far shorter than slow's 120 s.
  it('a host that accepts and then hangs is a row after --timeout, never a hang', { timeout: budget(90_000) }, async () => {
    const r = await run(['fleet', 'scan', 'h02', 'slow', '--timeout', '20', '--ssh-config', lab.config, '--json']);
    const fleet = JSON.parse(r.stdout) as Fleet;
    expect(fleet.hosts.find((h) => h.host === 'slow')).toMatchObject({ status: 'timeout', reason: 'no answer within 20 s' });
    expect(fleet.hosts.find((h) => h.host === 'h02')!.status).toBe('ok');
    expect(r.code).toBe(1);
  });
});
