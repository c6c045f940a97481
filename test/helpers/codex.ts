// The real Codex for tests: its platform binary (from the exact-pinned
// @openai/codex devDependency), fixture stores generated per test in a
// makeTempEnv() whose HOME, XDG_* and CODEX_HOME point inside it, a raw
// JSON-RPC connection to a private `codex app-server` for Codex's own answers,
// and a tree picture that leaves out what Codex itself rewrites on every
// start (its databases, staging dirs and helper links).

import Database from 'better-sqlite3';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildCodexFixture, type CodexFixtureManifest, type CodexFixtureOptions } from '../../src/adapters/codex/fixture.js';
import { JsonRpcClient } from '../../src/adapters/codex/rpc-client.js';
import { stdioChannel } from '../../src/adapters/codex/stdio-transport.js';
import { ALL_SOURCE_KINDS } from '../../src/adapters/codex/thread-list.js';
import type { HostContext } from '../../src/engine/core/adapter.js';
import type { Installation } from '../../src/engine/core/model.js';
import type { TempEnv } from './temp-env.js';
import { hashTree } from './tree-hash.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export const CODEX_BIN = join(ROOT, 'node_modules', '@openai', 'codex-linux-x64', 'vendor', 'x86_64-unknown-linux-musl', 'bin', 'codex');
if (!existsSync(CODEX_BIN)) throw new Error(`The pinned Codex binary is missing at ${CODEX_BIN}; run npm ci.`);

export const codexHome = (t: TempEnv): string => t.env.CODEX_HOME!;

export function installation(t: TempEnv, executable: string | null = CODEX_BIN): Installation {
  return {
    agent: 'codex',
    displayName: 'Codex',
    memoryNotice: '',
    state: executable ? 'installed' : 'dataOnly',
    home: codexHome(t),
    homeSource: 'env',
    executable,
    version: null,
    warnings: [],
  };
}

export function buildStore(t: TempEnv, o: Partial<CodexFixtureOptions> = {}): CodexFixtureManifest {
  mkdirSync(codexHome(t), { recursive: true });
  return buildCodexFixture({ codexHome: codexHome(t), workRoot: join(t.root, 'work'), userHome: t.env.HOME!, threads: 12, seed: 5, subagentRate: 0.6, ...o });
}

/** A raw client of a private stdio app-server on the test's store (Codex's own answers). */
export async function rawClient(t: TempEnv): Promise<JsonRpcClient> {
  const env: Record<string, string> = { HOME: t.env.HOME!, PATH: '/usr/bin:/bin', CODEX_HOME: codexHome(t), LANG: 'C.UTF-8', RUST_LOG: 'error' };
  const c = new JsonRpcClient(stdioChannel(CODEX_BIN, env), 60_000);
  await c.request('initialize', { clientInfo: { name: 'cleanerx-test', title: null, version: '0' }, capabilities: { experimentalApi: true } }, 120_000);
  c.notify('initialized');
  return c;
}

export interface ServerThread {
  id: string;
  parent: string | null;
  archived: boolean;
  name: string | null;
  preview: string;
  path: string | null;
}

/** Codex's own complete listing: both archive states, every source kind and provider, every page. */
export async function serverListing(c: JsonRpcClient): Promise<ServerThread[]> {
  const out: ServerThread[] = [];
  for (const archived of [false, true]) {
    let cursor: string | null = null;
    do {
      const res = (await c.request('thread/list', {
        limit: 50,
        archived,
        modelProviders: [],
        sourceKinds: [...ALL_SOURCE_KINDS],
        ...(cursor ? { cursor } : {}),
      })) as {
        data: Record<string, unknown>[];
        nextCursor: string | null;
      };
      for (const t of res.data) {
        const spawn = ((t.source as Record<string, Record<string, Record<string, unknown>>>)?.subAgent?.thread_spawn ?? null) as Record<string, unknown> | null;
        out.push({
          id: t.id as string,
          parent: (spawn?.parent_thread_id as string | undefined) ?? null,
          archived,
          name: (t.name as string | null) ?? null,
          preview: t.preview as string,
          path: (t.path as string | null) ?? null,
        });
      }
      cursor = res.nextCursor;
    } while (cursor);
  }
  return out;
}

/** Every descendant Codex itself reports for `root` (experimental ancestor filter). */
export async function serverDescendants(c: JsonRpcClient, root: string, providers: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const archived of [false, true]) {
    let cursor: string | null = null;
    do {
      const res = (await c.request('thread/list', {
        limit: 100,
        archived,
        ancestorThreadId: root,
        modelProviders: providers,
        sourceKinds: [...ALL_SOURCE_KINDS],
        ...(cursor ? { cursor } : {}),
      })) as {
        data: { id: string }[];
        nextCursor: string | null;
      };
      ids.push(...res.data.map((d) => d.id));
      cursor = res.nextCursor;
    } while (cursor);
  }
  return ids;
}

/** What Codex rewrites on every start (databases, staging, helper links): left out of tree pictures. */
export function codexNoise(home: string): string[] {
  return ['.tmp', 'tmp', 'skills', 'installation_id', 'app-server-control', 'log', 'shell_snapshots', 'thread-writer-locks', 'session_index.jsonl.lock'].map(
    (n) => join(home, n),
  );
}

export function storePicture(t: TempEnv): Map<string, string> {
  const home = codexHome(t);
  const all = hashTree(t.root, [...codexNoise(home), join(t.root, 'proc')]);
  for (const k of [...all.keys()]) if (/\.sqlite(-wal|-shm)?$/.test(k)) all.delete(k);
  return all;
}

/** Rows of a table in a Codex database (read through a private copy-free read-only open after Codex exited). */
export function rowCount(dbPath: string, table: string, where = '1=1'): number {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare(`SELECT count(*) AS n FROM ${table} WHERE ${where}`).get() as { n: number }).n;
  } finally {
    db.close();
  }
}

export function ctxOf(t: TempEnv): HostContext {
  return t.ctx;
}
