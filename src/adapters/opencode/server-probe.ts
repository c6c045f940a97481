// Whether sessions may be deleted while OpenCode runs. Only a server that
// every running writer exposes on an explicit loopback --port, that answers
// its public health route, that serves sessions of *this* database (checked
// by id, directory and creation time), and whose /session/status answers for
// every directory in scope, is trusted. Anything else fails closed.

import { describeEndpoint, httpJson } from './http.js';
import type { Endpoint, OpencodeWriter } from './writers.js';

export const UNVERIFIED_REASON =
  'OpenCode is running without a verified loopback Server API; quit it or relaunch it with an explicit loopback --port before deleting sessions';
const MAX_DIRECTORIES = 128;
const MAX_ENDPOINTS = 8;
const PROBE_BUDGET_MS = 15_000;

export type Access =
  | { kind: 'offline' }
  | { kind: 'unavailable'; reason: string }
  | { kind: 'verified'; endpoints: Endpoint[]; active: Map<string, 'busy' | 'retry'> };

interface SessionRef {
  id: string;
  directory: string | null;
  createdAt: number | null;
}

/** Distinct endpoints of the writers, or why there can be none. */
function writerEndpoints(writers: readonly OpencodeWriter[]): { endpoints: Endpoint[] } | { reason: string } {
  const blind = writers.find((w) => !w.endpoint);
  if (blind) return { reason: `${UNVERIFIED_REASON} (${blind.name} pid ${blind.pid}: ${blind.noEndpoint ?? 'no endpoint'}).` };
  const seen = new Map<string, Endpoint>();
  for (const w of writers) seen.set(describeEndpoint(w.endpoint!), w.endpoint!);
  if (seen.size > MAX_ENDPOINTS) return { reason: `${UNVERIFIED_REASON} (more than ${MAX_ENDPOINTS} OpenCode servers).` };
  return { endpoints: [...seen.values()] };
}

/** GET /global/health → {healthy:true}. */
async function checkHealth(ep: Endpoint): Promise<string | null> {
  try {
    const r = await httpJson(ep, 'GET', '/global/health');
    if (r.challenged) return `the server at ${describeEndpoint(ep)} asks for authentication, and cleanerx never sends credentials`;
    if (r.status !== 200 || (r.json as { healthy?: unknown } | undefined)?.healthy !== true)
      return `the server at ${describeEndpoint(ep)} is not healthy (HTTP ${r.status})`;
    return null;
  } catch (e) {
    return `the server at ${describeEndpoint(ep)} did not answer its health route (${(e as Error).message})`;
  }
}

/** GET /session/<id>?directory= must return the same id, directory and creation time as the database. */
export async function verifySession(ep: Endpoint, s: SessionRef): Promise<string | null> {
  const q = s.directory ? `?directory=${encodeURIComponent(s.directory)}` : '';
  try {
    const r = await httpJson(ep, 'GET', `/session/${encodeURIComponent(s.id)}${q}`);
    if (r.challenged) return `the server at ${describeEndpoint(ep)} asks for authentication, and cleanerx never sends credentials`;
    const j = r.json as { id?: unknown; directory?: unknown; time?: { created?: unknown } } | undefined;
    if (r.status !== 200 || !j) return `the server at ${describeEndpoint(ep)} does not know session ${s.id} of this database (HTTP ${r.status})`;
    if (j.id !== s.id || (s.directory !== null && j.directory !== s.directory) || (s.createdAt !== null && j.time?.created !== s.createdAt)) {
      return `the server at ${describeEndpoint(ep)} serves a different database (session ${s.id} does not match)`;
    }
    return null;
  } catch (e) {
    return `the server at ${describeEndpoint(ep)} did not answer its session route (${(e as Error).message})`;
  }
}

/** GET /session/status?directory= on every endpoint; busy or retrying sessions are active. */
async function readStatus(
  endpoints: readonly Endpoint[],
  directories: readonly string[],
  active: Map<string, 'busy' | 'retry'>,
  deadline = Date.now() + PROBE_BUDGET_MS,
): Promise<string | null> {
  for (const ep of endpoints) {
    for (const d of directories) {
      if (Date.now() > deadline) return 'the servers did not answer in time';
      try {
        const r = await httpJson(ep, 'GET', `/session/status?directory=${encodeURIComponent(d)}`);
        if (r.challenged) return `the server at ${describeEndpoint(ep)} asks for authentication, and cleanerx never sends credentials`;
        if (r.status !== 200 || !r.json || typeof r.json !== 'object' || Array.isArray(r.json)) {
          return `the server at ${describeEndpoint(ep)} did not report session status (HTTP ${r.status})`;
        }
        for (const [id, v] of Object.entries(r.json as Record<string, { type?: unknown }>)) {
          const type = v && typeof v === 'object' ? v.type : undefined;
          if (type === 'busy' || type === 'retry') active.set(id, type);
        }
      } catch (e) {
        return `the server at ${describeEndpoint(ep)} did not answer its status route (${(e as Error).message})`;
      }
    }
  }
  return null;
}

/**
 * The access state for deleting sessions now: offline (no writer), verified
 * (every writer's server checked against `samples`, status read for every
 * directory), or unavailable with the reason.
 */
export async function probeAccess(writers: readonly OpencodeWriter[], samples: readonly SessionRef[], directories: readonly string[]): Promise<Access> {
  if (!writers.length) return { kind: 'offline' };
  const eps = writerEndpoints(writers);
  if ('reason' in eps) return { kind: 'unavailable', reason: eps.reason };
  const dirs = [...new Set(directories)];
  if (dirs.length > MAX_DIRECTORIES) {
    return { kind: 'unavailable', reason: `${UNVERIFIED_REASON} (sessions span more than ${MAX_DIRECTORIES} directories).` };
  }
  const started = Date.now();
  const over = (): boolean => Date.now() - started > PROBE_BUDGET_MS;
  for (const ep of eps.endpoints) {
    const bad =
      (await checkHealth(ep)) ??
      (await firstFailure(
        samples.map((s) => () => verifySession(ep, s)),
        over,
      ));
    if (bad) return { kind: 'unavailable', reason: `${UNVERIFIED_REASON} (${bad}).` };
  }
  const active = new Map<string, 'busy' | 'retry'>();
  const bad = await readStatus(eps.endpoints, dirs, active, started + PROBE_BUDGET_MS);
  if (bad) return { kind: 'unavailable', reason: `${UNVERIFIED_REASON} (${bad}).` };
  if (over()) return { kind: 'unavailable', reason: `${UNVERIFIED_REASON} (the servers did not answer in time).` };
  return { kind: 'verified', endpoints: eps.endpoints, active };
}

async function firstFailure(checks: (() => Promise<string | null>)[], over: () => boolean): Promise<string | null> {
  for (const c of checks) {
    if (over()) return 'the servers did not answer in time';
    const r = await c();
    if (r) return r;
  }
  return null;
}
