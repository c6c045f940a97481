// The fleet's pure parts: a host's answer to a row (contract version,
// malformed and hostile reports), the merge's totals, the table, ssh's exit
// codes to reasons, host names and the remote commands.

import { describe, expect, it } from 'vitest';
import { checkHost, parseHostsText } from '../../src/cli/fleet/fleet-hosts.js';
import { remotePlanCommand } from '../../src/cli/fleet/fleet-plan.js';
import { remoteScanCommand } from '../../src/cli/fleet/fleet-scan.js';
import { fleetTable } from '../../src/cli/fleet/fleet-table.js';
import { sshProblem } from '../../src/cli/fleet/outcome.js';
import { remoteAppCommand } from '../../src/cli/fleet/remote-app.js';
import { type HostScan, mergeFleetScan, parseHostScan, SCAN_CONTRACT_VERSION } from '../../src/cli/fleet/scan-merge.js';
import { sshArgv, type SshResult } from '../../src/cli/fleet/ssh-runner.js';

const agent = (
  kind: string,
  o: Partial<{
    state: string;
    bytes: number;
    sessions: { bytes: number; selectable: boolean }[];
    items: { bytes: number; selectable: boolean }[];
    writers: unknown[];
  }> = {},
) => ({
  agent: kind,
  state: o.state ?? 'installed',
  totals: { bytes: o.bytes ?? 1000, items: 1, byCategory: {} },
  sessions: o.sessions ?? [
    { bytes: 300, selectable: true },
    { bytes: 200, selectable: false },
  ],
  items: o.items ?? [{ bytes: 50, selectable: true }],
  writers: o.writers ?? [],
  warnings: [],
});
const answer = (report: unknown, version = '0.1.0'): string => `${version}\n${JSON.stringify(report)}\n`;

describe('a host answer', () => {
  it('becomes rows: sessions, bytes on disk, reclaimable now (selectable sessions and items; nothing while a writer runs)', () => {
    const h = parseHostScan(
      'h1',
      answer({
        version: 1,
        agents: [
          agent('pi'),
          agent('codex', { writers: [{ pid: 1 }] }),
          agent('claude', { state: 'notFound', bytes: 0, sessions: [], items: [{ bytes: 0, selectable: false }] }),
        ],
      }),
    );
    expect(h.status).toBe('ok');
    expect(h.cleanerxVersion).toBe('0.1.0');
    expect(h.agents.map((a) => [a.agent, a.sessions, a.bytes, a.reclaimableNow])).toEqual([
      ['codex', 2, 1000, 0],
      ['claude', 0, 0, 0],
      ['pi', 2, 1000, 350],
    ]);
  });

  it('another contract version is incompatible, naming both; no version line is not cleanerx; a bad number is malformed', () => {
    expect(parseHostScan('h', answer({ version: SCAN_CONTRACT_VERSION + 1, agents: [] }, '9.0.0'))).toMatchObject({
      status: 'incompatible',
      reason: 'cleanerx 9.0.0 there writes scan contract 2, this one reads 1: install the same version',
    });
    expect(parseHostScan('h', '{"version":1,"agents":[]}\n')).toMatchObject({
      status: 'incompatible',
      reason: 'the "cleanerx" there is not cleanerx (no version line)',
    });
    for (const bad of [
      { ...agent('pi'), totals: { bytes: 'lots' } },
      { ...agent('pi'), sessions: [{ bytes: -1, selectable: true }] },
      { ...agent('pi'), totals: { bytes: Number.POSITIVE_INFINITY } },
    ]) {
      expect(parseHostScan('h', answer({ version: 1, agents: [bad] })), JSON.stringify(bad)).toMatchObject({
        status: 'failed',
        reason: 'its scan report is malformed',
        agents: [],
      });
    }
    expect(parseHostScan('h', '0.1.0\n{"version":1,"agents":[' + '['.repeat(100) + ']]}')).toMatchObject({ status: 'failed' });
    expect(parseHostScan('h', '0.1.0\nnot json')).toMatchObject({ status: 'failed' });
  });

  it('an agent this cleanerx does not know is left out, not guessed at', () => {
    const h = parseHostScan('h', answer({ version: 1, agents: [agent('pi'), agent('gemini')] }));
    expect(h.agents.map((a) => a.agent)).toEqual(['pi']);
  });
});

describe('the merge', () => {
  it('sums the hosts that answered, per agent and in all; hosts that did not are counted, not summed', () => {
    const a = parseHostScan('a', answer({ version: 1, agents: [agent('pi', { bytes: 10 }), agent('codex', { bytes: 5 })] }));
    const b = parseHostScan('b', answer({ version: 1, agents: [agent('pi', { bytes: 7 })] }));
    const down: HostScan = { host: 'c', status: 'unreachable', reason: 'x', cleanerxVersion: null, agents: [] };
    const m = mergeFleetScan([a, b, down]);
    expect(m.totals).toEqual({
      hosts: 3,
      hostsAnswered: 2,
      sessions: 6,
      bytes: 22,
      reclaimableNow: 1050,
      byAgent: { pi: { hosts: 2, sessions: 4, bytes: 17, reclaimableNow: 700 }, codex: { hosts: 1, sessions: 2, bytes: 5, reclaimableNow: 350 } },
    });
    expect(m.hosts.map((h) => h.host)).toEqual(['a', 'b', 'c']);
  });

  it('the table fits 80 columns, one row per host and agent, reasons cleaned of escapes', () => {
    const a = parseHostScan('a-very-long-host-name.example.com', answer({ version: 1, agents: [agent('pi', { bytes: 123_456_789 })] }));
    const down: HostScan = { host: 'c', status: 'failed', reason: 'bad \u001b]0;title\u0007 thing', cleanerxVersion: null, agents: [] };
    const lines = fleetTable(mergeFleetScan([a, down]));
    for (const l of lines.slice(0, 2)) expect(l.length).toBeLessThanOrEqual(80);
    expect(lines[1]).toBe('a-very-long-host-name… pi                   2     123 MB         350 B');
    expect(lines[2]).toBe('c                      failed: bad thing');
    // eslint-disable-next-line no-control-regex
    expect(lines.join('\n')).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f]/);
  });
});

describe('ssh and the hosts', () => {
  const r = (o: Partial<SshResult>): SshResult => ({ code: 0, stdout: '', stderr: '', timedOut: false, tooLarge: false, ...o });
  it("ssh's exit codes become reasons: 255 unreachable (its own line), 127 no cleanerx, a timeout, others failed", () => {
    expect(sshProblem(r({}), 10)).toBeNull();
    expect(sshProblem(r({ code: 255, stderr: 'ssh: connect to host x port 22: Connection refused\r\n' }), 10)).toEqual({
      status: 'unreachable',
      reason: 'ssh: connect to host x port 22: Connection refused',
    });
    expect(sshProblem(r({ code: 127, stderr: 'sh: 1: cleanerx: not found' }), 10)?.status).toBe('noCleanerx');
    expect(sshProblem(r({ code: null, timedOut: true }), 10)).toEqual({ status: 'timeout', reason: 'no answer within 10 s' });
    expect(sshProblem(r({ code: 3, stderr: 'boom\u001b[31m' }), 10)).toEqual({ status: 'failed', reason: 'cleanerx ended with exit 3: boom' });
  });

  it('a host is never an option: "--" before it, and a leading "-" or odd characters are refused', () => {
    const argv = sshArgv({ connectSeconds: 5, config: '/tmp/cfg' }, 'h1', 'cleanerx scan --json');
    expect(argv.slice(-3)).toEqual(['--', 'h1', 'cleanerx scan --json']);
    expect(argv).toContain('BatchMode=yes');
    expect(sshArgv({ connectSeconds: 5 }, 'h1', 'cleanerx', true)).not.toContain('BatchMode=yes');
    for (const ok of ['h1', 'user@host.example.com', '10.0.0.1', 'fe80::1%eth0', '[::1]', 'web_01']) expect(checkHost(ok)).toBe(ok);
    for (const bad of ['-oProxyCommand=x', '-p', 'a b', 'a;b', 'a\u001b', '', 'x'.repeat(300), "a'b", 'a/b', 'user@'])
      expect(() => checkHost(bad), bad).toThrow(/is not a host name/);
  });

  it('a hosts file: one a line, comments and blanks skipped', () => {
    expect(parseHostsText('# fleet\nalpha\n\n  beta  # the second\r\ngamma')).toEqual(['alpha', 'beta', 'gamma']);
  });

  it('the remote commands carry only checked words', () => {
    expect(remoteScanCommand(undefined, false)).toBe('cleanerx --version && cleanerx scan --json');
    expect(remoteScanCommand('pi', true)).toBe('cleanerx --version && cleanerx scan --agent pi --read-only --json');
    expect(remotePlanCommand('pi', { olderThanDays: 30, project: "it's; rm -rf ~" }, undefined)).toBe(
      `cleanerx plan --agent pi --older-than 30d --project 'it'\\''s; rm -rf ~' --json`,
    );
    expect(remoteAppCommand({ host: 'h', readOnly: true, agent: 'codex', lang: 'zh' })).toBe('cleanerx --read-only --agent codex --lang zh');
  });
});
