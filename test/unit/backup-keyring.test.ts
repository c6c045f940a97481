// The opt-in OS key ring, on a real Secret Service: gnome-keyring in a
// private D-Bus session (dbus-run-session), the way a desktop has it. With
// it, `clean --backup` and `backups verify` ask for no passphrase; without a
// session bus the switch is refused with the reason; a key ring that hangs
// is killed after 3 s; a configured key ring that is gone stops a backup
// cleanup before anything is removed.

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildPiFixture, type PiFixtureManifest } from '../../src/adapters/pi/fixture.js';
import { CLI } from '../helpers/pty-screen.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

const PASS = 'correct horse battery staple';

let t: TempEnv;
let m: PiFixtureManifest;
beforeEach(() => {
  t = makeTempEnv('cleanerx-keyring-');
  m = buildPiFixture({ agentDir: t.env.PI_CODING_AGENT_DIR!, projects: 1, sessionsPerProject: 3, forkRate: 0, cwdRoot: join(t.env.HOME!, 'src') });
});
afterEach(() => t.cleanup());

type Run = { status: number | null; stdout: string; stderr: string; ms: number };
const env = (extra: Record<string, string> = {}): Record<string, string> => ({ ...t.env, CLEANERX_TEST_MODE: '1', CLEANERX_SCRYPT_LOG_N: '10', ...extra });

function plain(args: string[], input = '', extra: Record<string, string> = {}): Run {
  const started = Date.now();
  const r = spawnSync(process.execPath, [CLI, ...args], { env: env(extra), encoding: 'utf8', input, timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, ms: Date.now() - started };
}

/** One cleanerx call inside a fresh D-Bus session whose gnome-keyring is unlocked (its keyring file persists in the temp XDG_DATA_HOME). */
function withKeyring(args: string[], input = ''): Run {
  for (const tool of ['dbus-run-session', 'gnome-keyring-daemon']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0)
      throw new Error(`${tool} is missing: install Debian's dbus-daemon and gnome-keyring (.ci/run does)`);
  }
  const script = 'printf %s "$KEYRING_TEST_PASSWORD" | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1; exec "$@"';
  const started = Date.now();
  const r = spawnSync('dbus-run-session', ['--', 'sh', '-c', script, 'sh', process.execPath, CLI, ...args], {
    env: env({ KEYRING_TEST_PASSWORD: 'test-keyring-password' }),
    encoding: 'utf8',
    input,
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr.replace(/^dbus-daemon\[\d+\].*\n?/gm, ''), ms: Date.now() - started };
}

const config = (): Record<string, unknown> => JSON.parse(readFileSync(join(t.env.CLEANERX_CONFIG_DIR!, 'config.json'), 'utf8'));
const journals = (): string[] => {
  const d = join(t.env.CLEANERX_STATE_DIR!, 'operations');
  return existsSync(d) ? spawnSync('ls', [d], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean) : [];
};

describe('OS key ring (opt-in)', () => {
  it('with a Secret Service: the switch stores the key, then backups and verify ask for nothing; switching back needs the passphrase again', () => {
    const on = withKeyring(['backups', 'key-store', 'keyring'], `${PASS}\n`);
    expect(on.status, on.stderr + on.stdout).toBe(0);
    expect(on.stdout).toMatch(/now unlocked by the OS key ring/);
    expect(config().backupKeyStore).toBe('keyring');
    expect(existsSync(join(t.env.CLEANERX_DATA_DIR!, 'identity.age'))).toBe(true);

    const s = m.sessions[0]!;
    const clean = withKeyring(['clean', '--agent', 'pi', '--id', s.id, '--yes', '--backup'], '');
    expect(clean.status, clean.stderr + clean.stdout).toBe(0);
    expect(existsSync(s.file)).toBe(false);
    const id = /backup ([0-9a-f-]{36})/.exec(clean.stdout)?.[1];
    expect(id, clean.stdout).toBeTruthy();
    const verify = withKeyring(['backups', 'verify', id!], '');
    expect(verify.status, verify.stderr).toBe(0);
    expect(verify.stdout).toMatch(/Verified: (all \d+ entries|its 1 entry) /);

    const off = withKeyring(['backups', 'key-store', 'file']);
    expect(off.status, off.stderr).toBe(0);
    expect(config().backupKeyStore).toBe('file');
    expect(withKeyring(['backups', 'verify', id!], 'not the passphrase\n').status).not.toBe(0);
    expect(withKeyring(['backups', 'verify', id!], `${PASS}\n`).status).toBe(0);
  }, 120_000);

  it('without a session bus the switch is refused with the reason and the file stays in use', () => {
    const r = plain(['backups', 'key-store', 'keyring'], `${PASS}\n`, { DBUS_SESSION_BUS_ADDRESS: '' });
    // A key ring that refuses is a failure, not a usage error (exit 1).
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/No usable OS key ring here \(.+\); the passphrase-protected key file stays in use\./);
    expect(existsSync(join(t.env.CLEANERX_CONFIG_DIR!, 'config.json'))).toBe(false);
    expect(plain(['backups', 'key-store']).stdout).toMatch(/unlocked by its passphrase/);
  }, 60_000);

  it('a key ring that never answers is killed after 3 s', () => {
    const r = plain(['backups', 'key-store', 'keyring'], `${PASS}\n`, { CLEANERX_TEST_KEYRING_HANG: '1' });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/did not answer within 3 s/);
    expect(r.ms).toBeGreaterThanOrEqual(2900);
    expect(r.ms).toBeLessThan(15_000);
  }, 60_000);

  it('a configured key ring that is gone stops a backup cleanup before anything is removed', () => {
    expect(withKeyring(['backups', 'key-store', 'keyring'], `${PASS}\n`).status).toBe(0);
    const s = m.sessions[1]!;
    const r = plain(['clean', '--agent', 'pi', '--id', s.id, '--yes', '--backup'], '', { DBUS_SESSION_BUS_ADDRESS: '' });
    expect(r.status).not.toBe(0);
    expect(r.stderr + r.stdout).toMatch(/OS key ring .*; switch the key store back to the file/);
    expect(existsSync(s.file)).toBe(true);
    expect(journals()).toEqual([]);
  }, 60_000);
});
