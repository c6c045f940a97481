// SessionRoute.deleteSessions for OpenCode. Sessions are rows; cleanerx never
// writes SQL. With no OpenCode running, each root goes through the official
// `opencode session delete <id>` (or, for many roots, one private loopback
// `opencode serve` and its DELETE /session/:id, falling back to the CLI);
// with OpenCode running, only through DELETE /session/:id on a verified
// server whose status shows the whole scope idle. Exit codes and HTTP answers
// are not trusted alone: after each root a read-only re-read proves the root
// and its descendants are gone.

import type { HostContext, SessionRoute } from '../../engine/core/adapter.js';
import type { Installation } from '../../engine/core/model.js';
import { closeQuietly, type Db } from './db-open.js';
import type { SessionLink } from './db-reader.js';
import { describeEndpoint, httpJson } from './http.js';
import { descendantsOf, minimalRoots } from './lineage.js';
import { opencodeEnv, plainMessage, runOpencode } from './official-cli.js';
import { startPrivateServer, type PrivateServer } from './private-server.js';
import { probeAccess, verifySession } from './server-probe.js';
import { RouteRefused, runOfficialDeletes } from '../shared/official-delete.js';
import { loadStore, openForCheck, requireKnown, requireRevision, stillPresent, validateIds, type StoreView } from './store.js';
import { findOpencodeWriters, type Endpoint } from './writers.js';

type DeleteOpts = NonNullable<Parameters<SessionRoute['deleteSessions']>[3]>;
type DeleteResult = Awaited<ReturnType<SessionRoute['deleteSessions']>>;

const DEFAULT_BULK_THRESHOLD = 4;
export const NO_EXECUTABLE =
  'The opencode executable was not found; OpenCode sessions are deleted only through its official command. Install OpenCode (npm i -g opencode-ai) and rescan.';

type Mutator = (root: string) => Promise<string | null>;

export async function deleteOpencodeSessions(inst: Installation, ctx: HostContext, rootIds: readonly string[], opts: DeleteOpts = {}): Promise<DeleteResult> {
  const started = Date.now();
  const ids = validateIds(rootIds);
  const exe = inst.executable;
  if (!exe) throw new RouteRefused(NO_EXECUTABLE);
  const store = loadStore(inst, ctx);
  requireRevision(store, opts.expectedRevision);
  requireKnown(store, ids);
  const roots = minimalRoots(store.lineage, ids);
  const scopes = new Map(roots.map((r) => [r, [r, ...descendantsOf(store.lineage, r)]]));
  for (const scope of scopes.values()) requireKnown(store, scope);

  const writers = await findOpencodeWriters(ctx, store.db, inst.home);
  const env = opencodeEnv(inst, ctx, store.db);
  let route = 'cli';
  let fallbackReason: string | undefined;
  let server: PrivateServer | null = null;
  let mutate: Mutator = (root) => deleteWithCli(exe, env, root, opts.timeoutMs);
  if (writers.length) {
    const endpoint = await verifiedEndpoint(store, writers, scopes);
    route = 'verifiedServer';
    mutate = (root) => deleteOverHttp(endpoint, store.sessions.get(root)!, undefined, opts.timeoutMs);
  } else if (roots.length >= (opts.bulkThreshold ?? DEFAULT_BULK_THRESHOLD)) {
    try {
      const s = await startPrivateServer(exe, env);
      server = s;
      route = 'privateServer';
      mutate = (root) => deleteOverHttp(s.endpoint, store.sessions.get(root)!, s.auth, opts.timeoutMs);
    } catch (e) {
      fallbackReason = `The private OpenCode server did not start (${(e as Error).message}); deleted one process per root instead.`;
    }
  }

  const result: DeleteResult = { route, ...(fallbackReason ? { fallbackReason } : {}), roots, deleted: [], failed: [], stopped: false, durationMs: 0 };
  let check: Db | null = null;
  try {
    check = openForCheck(store.db);
    const db = check;
    await runOfficialDeletes(
      {
        roots,
        scopes,
        deleteRoot: mutate,
        stillPresent: (scope) => stillPresent(db, scope),
        stillThere: (n) => `OpenCode reported success, but ${n} session(s) of this scope are still in its database.`,
        shouldStop: opts.shouldStop,
        onProgress: opts.onProgress,
      },
      result,
    );
  } finally {
    closeQuietly(check);
    await server?.stop();
  }
  result.durationMs = Date.now() - started;
  return result;
}

/** The endpoint to delete through while OpenCode runs, or a refusal with the reason. */
async function verifiedEndpoint(store: StoreView, writers: Awaited<ReturnType<typeof findOpencodeWriters>>, scopes: Map<string, string[]>): Promise<Endpoint> {
  const all = [...scopes.values()].flat();
  const dirs = all.map((id) => store.sessions.get(id)?.directory).filter((d): d is string => typeof d === 'string');
  // Every root is checked on every server (same id, directory and creation time as this database).
  const samples = [...scopes.keys()].map((id) => store.sessions.get(id)!);
  const access = await probeAccess(writers, samples, dirs);
  if (access.kind === 'unavailable') throw new RouteRefused(access.reason);
  if (access.kind !== 'verified') throw new RouteRefused('OpenCode stopped while cleanerx checked it; review again.');
  const busy = all.filter((id) => access.active.has(id));
  if (busy.length)
    throw new RouteRefused(
      `OpenCode reports active session data in this deletion scope: ${busy.slice(0, 10).join(', ')}; wait for it to become idle and review again.`,
    );
  return access.endpoints[0]!;
}

async function deleteWithCli(exe: string, env: Record<string, string>, root: string, timeoutMs?: number): Promise<string | null> {
  // cwd "/": no project of the user's (and no .git of theirs) is touched by the run.
  const r = await runOpencode(exe, ['session', 'delete', root], { cwd: '/', env, timeoutMs });
  if (r.timedOut) return `OpenCode session deletion did not finish within ${Math.round((timeoutMs ?? 120_000) / 1000)} s.`;
  if (r.code !== 0) return `OpenCode session deletion failed: ${plainMessage(r.stderr) || `exit ${r.code ?? r.signal}`}`;
  return null;
}

async function deleteOverHttp(ep: Endpoint, s: SessionLink, auth: string | undefined, timeoutMs?: number): Promise<string | null> {
  const q = s.directory && !auth ? `?directory=${encodeURIComponent(s.directory)}` : '';
  try {
    if (!auth) {
      // Right before the delete: the server still serves this session of this database.
      const bad = await verifySession(ep, s);
      if (bad) return `OpenCode server check failed: ${bad}.`;
    }
    const r = await httpJson(ep, 'DELETE', `/session/${encodeURIComponent(s.id)}${q}`, { basicAuth: auth, timeoutMs: timeoutMs ?? 30_000 });
    if (r.status !== 200 || r.json !== true) return `OpenCode server at ${describeEndpoint(ep)} did not delete ${s.id} (HTTP ${r.status}).`;
    return null;
  } catch (e) {
    return `OpenCode server at ${describeEndpoint(ep)} did not answer the delete (${(e as Error).message}).`;
  }
}
