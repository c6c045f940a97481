// One private `opencode serve` for bulk deletion while OpenCode is not
// running: bound to 127.0.0.1 on a port that was free a moment ago, behind a
// random password that only this process knows, started on the same
// database (OPENCODE_DB), and stopped (TERM, then KILL) when the route ends.

import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { httpJson } from './http.js';
import { killGroup, plainMessage } from './official-cli.js';
import type { Endpoint } from './writers.js';
import { spawnTracked } from '../../engine/host/own-children.js';

const SERVER_START_TIMEOUT_MS = 60_000;
const USERNAME = 'cleanerx';

export interface PrivateServer {
  endpoint: Endpoint;
  /** `user:password` for HTTP Basic; never leaves this process except to this server. */
  auth: string;
  pid: number;
  startMs: number;
  stop(): Promise<void>;
}

export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => (port ? resolve(port) : reject(new Error('no free loopback port'))));
    });
  });
}

export async function startPrivateServer(exe: string, env: Record<string, string>, timeoutMs = SERVER_START_TIMEOUT_MS): Promise<PrivateServer> {
  const started = Date.now();
  const port = await freeLoopbackPort();
  const password = randomBytes(24).toString('hex');
  const child = spawnTracked(exe, ['--pure', 'serve', '--hostname', '127.0.0.1', '--port', String(port)], {
    cwd: '/',
    env: { ...env, OPENCODE_SERVER_USERNAME: USERNAME, OPENCODE_SERVER_PASSWORD: password },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
    windowsHide: true,
  });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => {
    if (stderr.length < 8192) stderr += c.toString('utf8');
  });
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  let gone = false;
  void exited.then(() => (gone = true));
  const endpoint: Endpoint = { host: '127.0.0.1', port };
  const auth = `${USERNAME}:${password}`;
  const stop = (): Promise<void> => stopChild(child, exited);
  try {
    for (;;) {
      if (gone) throw new Error(`opencode serve exited before it was ready: ${plainMessage(stderr) || 'no output'}`);
      if (Date.now() - started > timeoutMs) throw new Error(`opencode serve was not ready within ${Math.round(timeoutMs / 1000)} s`);
      try {
        const r = await httpJson(endpoint, 'GET', '/global/health', { basicAuth: auth, timeoutMs: 1000 });
        if (r.status === 200 && (r.json as { healthy?: unknown } | undefined)?.healthy === true) break;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 150));
    }
  } catch (e) {
    await stop();
    throw e;
  }
  return { endpoint, auth, pid: child.pid!, startMs: Date.now() - started, stop };
}

async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  killGroup(child.pid, 'SIGTERM');
  const term = await Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 3000))]);
  if (term) return;
  killGroup(child.pid, 'SIGKILL');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
}
