// `scan` in its usual spellings runs without yargs (src/cli/scan-args.ts);
// everything else still goes through yargs, and both give the same output.

import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scanArgs } from '../../src/cli/scan-args.js';
import { buildPiFixture } from '../../src/adapters/pi/fixture.js';
import { CLI } from '../helpers/pty-screen.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

describe('scanArgs', () => {
  it('reads the usual spellings', () => {
    expect(scanArgs(['scan'])).toEqual({ json: false, readOnly: false });
    expect(scanArgs(['scan', '--json', '--agent', 'pi'])).toEqual({ json: true, readOnly: false, agent: 'pi' });
    expect(scanArgs(['scan', '--agent=claude', '--read-only'])).toEqual({ json: false, readOnly: true, agent: 'claude' });
  });

  it('leaves everything else to yargs', () => {
    for (const argv of [
      [],
      ['doctor'],
      ['scan', '--help'],
      ['scan', '--agent'],
      ['scan', '--agent', 'nope'],
      ['scan', '--agent='],
      ['scan', '--json=true'],
      ['scan', '--json', '--json'],
      ['scan', '--agent', 'pi', '--agent=codex'],
      ['scan', '--no-json'],
      ['scan', '--', 'x'],
      ['scan', 'extra'],
      ['--json', 'scan'],
    ])
      expect(scanArgs(argv), argv.join(' ')).toBeNull();
  });
});

describe('scan through the fast path and through yargs', () => {
  let t: TempEnv;
  beforeAll(() => {
    t = makeTempEnv();
    buildPiFixture({ agentDir: t.env.PI_CODING_AGENT_DIR!, projects: 2, sessionsPerProject: 3, forkRate: 1, config: true, cwdRoot: join(t.env.HOME!, 'src') });
  });
  afterAll(() => t.cleanup());
  const run = (args: string[]) => spawnSync(process.execPath, [CLI, ...args], { env: t.env, encoding: 'utf8', input: '' });

  it('prints the same report, text and JSON, in both languages', () => {
    const pairs: [string[], string[]][] = [
      [
        ['scan', '--agent', 'pi', '--json'],
        ['scan', '--agent', 'pi', '--json=true'],
      ],
      [
        ['scan', '--agent=pi', '--read-only'],
        ['scan', '--agent', 'pi', '--read-only=true'],
      ],
      [
        ['scan', '--agent', 'pi', '--lang', 'zh'],
        ['scan', '--agent', 'pi', '--lang', 'zh', '--json=false'],
      ],
    ];
    for (const [fast, slow] of pairs) {
      expect(scanArgs(fast.filter((a, i) => a !== '--lang' && fast[i - 1] !== '--lang'))).not.toBeNull();
      expect(scanArgs(slow.filter((a, i) => a !== '--lang' && slow[i - 1] !== '--lang'))).toBeNull();
      const a = run(fast);
      const b = run(slow);
      expect(a.status, a.stderr).toBe(0);
      expect(b.status, b.stderr).toBe(0);
      expect(a.stdout.length).toBeGreaterThan(50);
      expect(a.stdout).toBe(b.stdout);
      expect(a.stderr).toBe(b.stderr);
    }
  });

  it('a bad agent is still yargs usage error (exit 2)', () => {
    const r = run(['scan', '--agent', 'nope', '--json']);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
  });
});
