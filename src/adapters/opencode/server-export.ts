// The backup's session exports through one private `opencode serve` instead
// of one `opencode export` process per session (each a whole OpenCode start,
// 1–8 s on 2 cores). The server's own routes give what `opencode export`
// prints: GET /session/{id} is its `info`, GET /session/{id}/message its
// `messages` (the same objects; the peer test compares them with the CLI's
// output). Up to `parallel` sessions are in flight at once; each file is
// written whole and only then handed to the caller's check, and the first
// failure stops new requests and is thrown.

import { closeSync, constants, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { httpJson } from './http.js';
import { startPrivateServer } from './private-server.js';
import { RouteRefused } from '../shared/official-delete.js';

const EXPORT_TIMEOUT_MS = 120_000;

interface ServerExportOptions {
  exe: string;
  env: Record<string, string>;
  stagingDir: string;
  /** Sessions in the order their files are reported (parents first). */
  order: readonly string[];
  parallel: number;
  maxBytes: number;
  timeoutMs?: number;
  /** Called as each file is complete; throws when the file is not the session's export. */
  check(id: string, file: string): void;
  /** The files created so far (the caller removes them on failure). */
  written: string[];
  onProgress?: (done: number, total: number, currentId: string) => void;
}

export async function exportThroughServer(o: ServerExportOptions): Promise<void> {
  let server;
  try {
    server = await startPrivateServer(o.exe, o.env);
  } catch (e) {
    throw new RouteRefused(`OpenCode could not be started for the backup's exports (${(e as Error).message}); nothing was removed.`);
  }
  try {
    let next = 0;
    let done = 0;
    let failure: Error | null = null;
    const one = async (id: string): Promise<void> => {
      const file = join(o.stagingDir, `${id}.json`);
      const get = async (path: string): Promise<string> => {
        const r = await httpJson(server.endpoint, 'GET', path, {
          basicAuth: server.auth,
          timeoutMs: o.timeoutMs ?? EXPORT_TIMEOUT_MS,
          maxBytes: o.maxBytes,
          raw: true,
        });
        if (r.status !== 200 || r.raw === undefined) {
          const msg = (r.json as { data?: { message?: unknown } } | undefined)?.data?.message;
          throw new RouteRefused(`OpenCode export of ${id} failed: ${typeof msg === 'string' ? msg.slice(0, 300) : `HTTP ${r.status}`}.`);
        }
        return r.raw;
      };
      let info: string;
      let messages: string;
      try {
        [info, messages] = await Promise.all([get(`/session/${id}`), get(`/session/${id}/message`)]);
      } catch (e) {
        if (e instanceof RouteRefused) throw e;
        throw new RouteRefused(`OpenCode export of ${id} did not finish: ${(e as Error).message}.`);
      }
      let fd: number;
      try {
        fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
      } catch (e) {
        throw new RouteRefused(`Cannot create ${file} (${(e as NodeJS.ErrnoException).code}).`);
      }
      o.written.push(file);
      try {
        writeSync(fd, `{"info":${info},"messages":${messages}}\n`);
      } finally {
        closeSync(fd);
      }
      o.check(id, file);
      done++;
      o.onProgress?.(done, o.order.length, id);
    };
    const worker = async (): Promise<void> => {
      while (!failure && next < o.order.length) {
        const id = o.order[next++]!;
        try {
          await one(id);
        } catch (e) {
          failure ??= e as Error;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(o.parallel, o.order.length)) }, worker));
    if (failure) throw failure;
  } finally {
    await server.stop();
  }
}
