// A deliberately small HTTP client for OpenCode's loopback server: loopback
// addresses only, short timeouts, a 1 MiB response cap (more only when asked), no redirects, no
// keep-alive. Credentials are sent only to the private server cleanerx
// started itself (its random password), never taken from the environment.

import { request } from 'node:http';
import type { Endpoint } from './writers.js';

// Loopback only, but OpenCode starts an instance on the first request for a directory,
// which takes seconds on a loaded 2-core machine.
const HTTP_TIMEOUT_MS = 5000;
const MAX_BODY = 1024 * 1024;

interface HttpAnswer {
  status: number;
  /** Parsed JSON body, or undefined when the body is not JSON. */
  json: unknown;
  challenged: boolean;
  /** The body as text, when asked for (`raw`). */
  raw?: string;
}

class HttpError extends Error {}

export function httpJson(
  ep: Endpoint,
  method: 'GET' | 'DELETE' | 'PATCH',
  path: string,
  opts: { timeoutMs?: number; basicAuth?: string; body?: unknown; maxBytes?: number; raw?: boolean } = {},
): Promise<HttpAnswer> {
  if (ep.host !== '127.0.0.1' && ep.host !== '::1') return Promise.reject(new HttpError('refusing a non-loopback address'));
  if (!path.startsWith('/')) return Promise.reject(new HttpError('bad path'));
  const timeout = opts.timeoutMs ?? HTTP_TIMEOUT_MS;
  const maxBody = opts.maxBytes ?? MAX_BODY;
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { accept: 'application/json', connection: 'close' };
    if (opts.basicAuth) headers.authorization = `Basic ${Buffer.from(opts.basicAuth).toString('base64')}`;
    const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    if (body !== undefined) headers['content-type'] = 'application/json';
    const req = request({ host: ep.host, port: ep.port, method, path, headers, agent: false, timeout });
    const deadline = setTimeout(() => req.destroy(new HttpError(`no answer within ${timeout} ms`)), timeout);
    req.on('timeout', () => req.destroy(new HttpError(`no answer within ${timeout} ms`)));
    req.on('error', (e) => {
      clearTimeout(deadline);
      reject(e instanceof HttpError ? e : new HttpError((e as NodeJS.ErrnoException).code ?? e.message));
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > maxBody) {
          req.destroy(new HttpError(`answer larger than ${Math.round(maxBody / 1024 / 1024)} MiB`));
          return;
        }
        chunks.push(c);
      });
      res.on('error', (e) => {
        clearTimeout(deadline);
        reject(new HttpError(e.message));
      });
      res.on('end', () => {
        clearTimeout(deadline);
        const body = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          // A raw 200 answer is parsed once, by its reader (an export is checked from its file).
          json = body && !(opts.raw && res.statusCode === 200) ? JSON.parse(body) : undefined;
        } catch {
          json = undefined;
        }
        const challenged = res.statusCode === 401 || Boolean(res.headers['www-authenticate']);
        resolve({ status: res.statusCode ?? 0, json, challenged, ...(opts.raw ? { raw: body } : {}) });
      });
    });
    req.end(body);
  });
}

export function describeEndpoint(ep: Endpoint): string {
  return ep.host === '::1' ? `[::1]:${ep.port}` : `${ep.host}:${ep.port}`;
}
