// The real OpenCode for tests: its platform binary (the exact-pinned
// devDependency), a store template made once per test file by
// `opencode db path` inside a throw-away sandbox, and fixture homes in a
// makeTempEnv() whose HOME, XDG_* and OPENCODE_DB all point inside it.

import Database from 'better-sqlite3';
import { expect } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isolatedEnv } from '../../src/demo/demo-home.js';
import {
  buildOpencodeFixture,
  copyOpencodeStore,
  initOpencodeStore,
  opencodeSandboxEnv,
  writeNpmGuard,
  type OpencodeFixtureManifest,
  type OpencodeFixtureOptions,
} from '../../src/adapters/opencode/fixture.js';
import type { Installation } from '../../src/engine/core/model.js';
import type { TempEnv } from './temp-env.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The platform binary; `.bin/opencode` is a hard link to it when the postinstall ran. */
export const OPENCODE_BIN = [
  join(ROOT, 'node_modules', `opencode-${process.platform}-${process.arch}`, 'bin', 'opencode'),
  join(ROOT, 'node_modules', '.bin', 'opencode'),
].find((p) => existsSync(p))!;

export interface Template {
  db: string;
  cleanup(): void;
}

/** One OpenCode-made, fully migrated, empty store to copy into each test home. */
export async function makeTemplate(): Promise<Template> {
  const root = mkdtempSync(join(tmpdir(), 'cleanerx-oc-template-'));
  const env = opencodeSandboxEnv({ ...isolatedEnv(root), PATH: '/usr/bin:/bin', LANG: 'C.UTF-8' }, join(root, 'tmp'));
  mkdirSync(env.HOME!, { recursive: true });
  writeNpmGuard(join(env.XDG_CONFIG_HOME!, 'opencode'));
  const db = join(root, 'template', 'opencode.db');
  await initOpencodeStore(OPENCODE_BIN, env, db);
  return { db, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/** The env every opencode run of a test gets: the temp env plus TMPDIR and the no-network switches. */
export function opencodeEnv(t: TempEnv): Record<string, string> {
  return opencodeSandboxEnv(t.env, join(t.root, 'tmp'));
}

export const dataDir = (t: TempEnv): string => join(t.env.XDG_DATA_HOME!, 'opencode');
export const cacheDir = (t: TempEnv): string => join(t.env.XDG_CACHE_HOME!, 'opencode');
export const configDir = (t: TempEnv): string => join(t.env.XDG_CONFIG_HOME!, 'opencode');

/** A fixture store in the temp env (data dir, cache root and config dir included). */
export function buildStore(t: TempEnv, template: Template, o: Partial<OpencodeFixtureOptions> = {}): OpencodeFixtureManifest {
  const db = t.env.OPENCODE_DB!;
  copyOpencodeStore(template.db, db);
  return buildOpencodeFixture({ db, workRoot: join(t.root, 'work'), dataDir: dataDir(t), cacheDir: cacheDir(t), configDir: configDir(t), ...o });
}

export function installation(t: TempEnv, executable: string | null = OPENCODE_BIN): Installation {
  return {
    agent: 'opencode',
    displayName: 'OpenCode',
    memoryNotice: '',
    state: executable ? 'installed' : 'dataOnly',
    home: dataDir(t),
    homeSource: 'env',
    executable,
    version: null,
    warnings: [],
  };
}

export type Row = Record<string, unknown>;
/** Every session row (metadata columns) with its message and part counts, read-only. */
export function sessionRows(t: TempEnv): Map<string, Row> {
  const d = new Database(t.env.OPENCODE_DB!, { readonly: true, fileMustExist: true });
  try {
    const out = new Map<string, Row>();
    const list = d
      .prepare(
        `SELECT s.id, s.parent_id, s.project_id, s.title, s.directory, s.time_created, s.time_updated, s.time_archived,
           (SELECT count(*) FROM message m WHERE m.session_id = s.id) AS messages,
           (SELECT count(*) FROM part p WHERE p.session_id = s.id) AS parts
         FROM session s`,
      )
      .all() as Row[];
    for (const r of list) out.set(r.id as string, r);
    return out;
  } finally {
    d.close();
  }
}

export function expectOnlyRemoved(before: Map<string, Row>, after: Map<string, Row>, removed: string[], ignore: string[] = []): void {
  for (const id of removed) expect(after.has(id), `${id} should be gone`).toBe(false);
  for (const [id, r] of before) {
    if (removed.includes(id) || ignore.includes(id)) continue;
    expect(after.get(id), `${id} must be unchanged`).toEqual(r);
  }
  expect(after.size).toBe(before.size - removed.length);
}

/** A root whose subtree holds a child and a grandchild (3+ sessions). */
export function deepRoot(m: OpencodeFixtureManifest, kind: 'root' | 'archived' = 'root'): { id: string; scope: string[] } {
  const r = m.sessions.find((s) => s.kind === kind && m.descendants.get(s.id)!.length >= 3)!;
  return { id: r.id, scope: [r.id, ...m.descendants.get(r.id)!] };
}
