// The OS key ring, opt-in: every call runs in a child process that is
// killed after 3 s, because a Secret Service without a desktop can block
// forever waiting for an unlock prompt. Secrets travel over pipes only,
// never argv or the environment. The child gets the engine's environment
// (HostContext.env), never this process's own: an Engine built with a temp
// home (a test) must not reach the desktop's real key ring.

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const KEYRING_TIMEOUT_MS = 3000;
const KEYRING_SERVICE = 'cleanerx';
const CHILD = fileURLToPath(new URL('./keyring-child.js', import.meta.url));

type KeyringAnswer = { ok: true; value?: string | null } | { ok: false; reason: string };

export type KeyringEnv = Readonly<Record<string, string | undefined>>;

/** The account of this installation's backup identity: one per cleanerx data dir. */
export function identityAccount(dataDir: string): string {
  return `backup-identity:${dataDir}`;
}

export function keyringCall(
  env: KeyringEnv,
  op: 'probe' | 'get' | 'set' | 'delete',
  account: string,
  secret?: string,
  timeoutMs = KEYRING_TIMEOUT_MS,
): Promise<KeyringAnswer> {
  return new Promise((resolve) => {
    let out = '';
    let settled = false;
    const done = (a: KeyringAnswer): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(a);
    };
    const child = spawn(process.execPath, [CHILD, op, KEYRING_SERVICE, account], { stdio: ['pipe', 'pipe', 'ignore'], env: { ...env } });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      done({ ok: false, reason: `the OS key ring did not answer within ${Math.round(timeoutMs / 1000)} s` });
    }, timeoutMs);
    child.on('error', (e) => done({ ok: false, reason: e.message }));
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => {
      if (out.length < 64 * 1024) out += d;
    });
    child.on('close', () => {
      try {
        const v = JSON.parse(out.split('\n')[0] ?? '') as { ok?: unknown; value?: unknown; reason?: unknown };
        if (v.ok === true) done({ ok: true, value: typeof v.value === 'string' ? v.value : null });
        else done({ ok: false, reason: typeof v.reason === 'string' ? v.reason : 'the OS key ring failed' });
      } catch {
        done({ ok: false, reason: 'the OS key ring helper gave no answer' });
      }
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(secret ?? '');
  });
}
