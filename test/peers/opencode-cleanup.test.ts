// End to end through the real `cleanerx` binary and the real `opencode`
// 1.18.33: `clean --backup` of a root exports its subtree through OpenCode,
// archives and verifies it, deletes through OpenCode's own route, and proves
// by rescan; every other session row and every file outside the database
// and cleanerx's own dirs stay byte-identical; `backups restore` brings the
// same sessions back through `opencode import`; logs go through the path
// transaction and leave the database alone.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLI, TEST_PASSPHRASE } from '../helpers/constants.js';
import {
  buildStore,
  cacheDir,
  dataDir,
  deepRoot,
  expectOnlyRemoved,
  makeTemplate,
  OPENCODE_BIN,
  opencodeEnv,
  sessionRows,
  type Template,
} from '../helpers/opencode.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';
import { budget } from '../helpers/budget.js';

const PASS = TEST_PASSPHRASE;

let template: Template;
beforeAll(async () => {
  template = await makeTemplate();
}, budget(180_000));
afterAll(() => template?.cleanup());

let t: TempEnv;
afterEach(() => t?.cleanup());

/** The CLI as a user runs it: opencode on PATH, the sandboxed env, input on stdin. */
function cleanerx(args: string[], input = ''): { status: number | null; stdout: string; stderr: string } {
  const env = { ...opencodeEnv(t), PATH: `${dirname(OPENCODE_BIN)}:/usr/bin:/bin`, CLEANERX_TEST_MODE: '1', CLEANERX_SCRYPT_LOG_N: '10' };
  const r = spawnSync(process.execPath, [CLI, ...args], { env, encoding: 'utf8', input, timeout: budget(240_000), killSignal: 'SIGKILL' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Everything in the temp root except what a cleanup is allowed to change. */
function outsideTheDatabase(): Map<string, string> {
  const db = t.env.OPENCODE_DB!;
  return hashTree(t.root, [
    db,
    `${db}-wal`,
    `${db}-shm`,
    join(dataDir(t), 'log'),
    t.env.XDG_STATE_HOME!,
    join(t.env.XDG_DATA_HOME!, 'cleanerx'),
    join(t.root, 'tmp'),
  ]);
}

describe('cleanerx clean on OpenCode', () => {
  it(
    'SIGKILL right after the plaintext exports are staged: the next recovery list wipes them, and recovery close leaves none (#25)',
    async () => {
      t = makeTempEnv();
      const m = buildStore(t, template, { git: true, messagesPerSession: 2 });
      const root = deepRoot(m);
      const rows0 = sessionRows(t);
      const staging = join(t.env.XDG_DATA_HOME!, 'cleanerx', 'export-staging');
      const env = {
        ...opencodeEnv(t),
        PATH: `${dirname(OPENCODE_BIN)}:/usr/bin:/bin`,
        CLEANERX_TEST_MODE: '1',
        CLEANERX_SCRYPT_LOG_N: '10',
        CLEANERX_CRASH_AT: 'backup:exported',
      };
      const killed = spawnSync(process.execPath, [CLI, 'clean', '--agent', 'opencode', '--id', root.id, '--yes', '--backup'], {
        env,
        encoding: 'utf8',
        input: `${PASS}\n`,
        timeout: budget(240_000),
      });
      expect(killed.signal ?? killed.status).toSatisfy((x: unknown) => x === 'SIGKILL' || x === 137);
      // The kill left plaintext session exports, as an interrupted backup would.
      const left = spawnSync('find', [staging, '-type', 'f', '-name', '*.json']).stdout.toString().trim().split('\n').filter(Boolean);
      expect(left.length).toBeGreaterThan(0);
      expect(statSync(staging).mode & 0o777).toBe(0o700);
      const list = cleanerx(['recovery', 'list']);
      expect(list.status, list.stderr).toBe(0);
      expect(readdirSync(staging)).toEqual([]);
      expect(sessionRows(t)).toEqual(rows0);
      const op = /^(\S{8}-\S+)/m.exec(list.stdout)?.[1] ?? /operation ([0-9a-f-]{36})/.exec(list.stdout)?.[1];
      if (op) {
        const close = cleanerx(['recovery', 'close', op]);
        expect(close.status, close.stderr + close.stdout).toBe(0);
      }
      expect(readdirSync(staging)).toEqual([]);
    },
    budget(180_000),
  );

  it(
    'clean --backup deletes a root with its subtree through OpenCode; backups restore brings the same rows back',
    async () => {
      t = makeTempEnv();
      const m = buildStore(t, template, { git: true, messagesPerSession: 2 });
      const root = deepRoot(m);
      const rows0 = sessionRows(t);
      const files0 = outsideTheDatabase();

      const clean = cleanerx(['clean', '--agent', 'opencode', '--id', root.id, '--yes', '--backup'], `${PASS}\n`);
      expect(clean.status, clean.stderr + clean.stdout).toBe(0);
      expect(clean.stdout).toMatch(/deleted by OpenCode's own delete route \(1 root/);
      expect(clean.stdout).toMatch(/complete: Cleanup complete · 4 items · backup /);
      expectOnlyRemoved(rows0, sessionRows(t), root.scope);
      expect(treeDiff(files0, outsideTheDatabase())).toEqual([]);
      // No plaintext export is left behind.
      expect(
        existsSync(join(t.env.XDG_DATA_HOME!, 'cleanerx', 'export-staging'))
          ? spawnSync('find', [join(t.env.XDG_DATA_HOME!, 'cleanerx', 'export-staging'), '-type', 'f']).stdout.toString()
          : '',
      ).toBe('');

      const list = cleanerx(['backups', 'list']);
      const id = /^(\S+)\s+OpenCode/m.exec(list.stdout)?.[1];
      expect(id, list.stdout).toBeTruthy();
      const wrong = cleanerx(['backups', 'restore', id!, '--yes'], 'not the passphrase\n');
      expect(wrong.status).not.toBe(0);
      expectOnlyRemoved(rows0, sessionRows(t), root.scope);

      const dry = cleanerx(['backups', 'restore', id!], `${PASS}\n`);
      expect(dry.status, dry.stderr).toBe(2);
      expect(dry.stdout).toMatch(/Restore would create 4 sessions/);
      expect(dry.stdout).toContain(root.id);
      expect(sessionRows(t).has(root.id)).toBe(false);

      const restore = cleanerx(['backups', 'restore', id!, '--yes'], `${PASS}\n`);
      expect(restore.status, restore.stderr + restore.stdout).toBe(0);
      const rows2 = sessionRows(t);
      expect(rows2.size).toBe(rows0.size);
      for (const sid of root.scope) expect(rows2.get(sid), sid).toEqual(rows0.get(sid));
      expect(treeDiff(files0, outsideTheDatabase())).toEqual([]);
      // A second restore never imports over the sessions that are back.
      const again = cleanerx(['backups', 'restore', id!, '--yes'], `${PASS}\n`);
      expect(again.status).not.toBe(0);
      expect(again.stderr).toMatch(/already exists/);
      expect(sessionRows(t).size).toBe(rows0.size);
    },
    budget(600_000),
  );

  it(
    'killed right before and right after OpenCode deletes: recovery observes the truth and closes or accepts',
    async () => {
      t = makeTempEnv();
      const m = buildStore(t, template, { git: true });
      const root = deepRoot(m);
      const rows0 = sessionRows(t);
      const crash = (point: string) => {
        const env = { ...opencodeEnv(t), PATH: `${dirname(OPENCODE_BIN)}:/usr/bin:/bin`, CLEANERX_CRASH_AT: point };
        return spawnSync(process.execPath, [CLI, 'clean', '--agent', 'opencode', '--id', root.id, '--yes'], {
          env,
          encoding: 'utf8',
          timeout: budget(240_000),
        });
      };
      const opId = (out: string) => /^(\S{36})\s+OpenCode/m.exec(out)?.[1];

      expect(crash('official:0:before').signal).toBe('SIGKILL');
      expect(sessionRows(t)).toEqual(rows0);
      let list = cleanerx(['recovery', 'list']);
      expect(list.stdout).toMatch(/observed: Not applied/);
      expect(cleanerx(['clean', '--agent', 'opencode', '--id', root.id, '--yes']).stderr).toMatch(/needs recovery first/);
      expect(cleanerx(['recovery', 'close', opId(list.stdout)!]).status).toBe(0);
      expect(sessionRows(t)).toEqual(rows0);

      expect(crash('official:0:after').signal).toBe('SIGKILL');
      expectOnlyRemoved(rows0, sessionRows(t), root.scope);
      list = cleanerx(['recovery', 'list']);
      expect(list.stdout).toMatch(/observed: All applied/);
      const accept = cleanerx(['recovery', 'accept', opId(list.stdout)!]);
      expect(accept.status, accept.stderr).toBe(0);
      expect(accept.stdout).toMatch(/No interrupted cleanup/);
    },
    budget(300_000),
  );

  it(
    'killed after OpenCode deleted a backed-up subtree: recovery restore brings it back through import and marks it recovered',
    async () => {
      t = makeTempEnv();
      const m = buildStore(t, template, { git: true, messagesPerSession: 2 });
      const root = deepRoot(m);
      const rows0 = sessionRows(t);
      const env = {
        ...opencodeEnv(t),
        PATH: `${dirname(OPENCODE_BIN)}:/usr/bin:/bin`,
        CLEANERX_TEST_MODE: '1',
        CLEANERX_SCRYPT_LOG_N: '10',
        CLEANERX_CRASH_AT: 'official:0:after',
      };
      const killed = spawnSync(process.execPath, [CLI, 'clean', '--agent', 'opencode', '--id', root.id, '--yes', '--backup'], {
        env,
        encoding: 'utf8',
        input: `${PASS}\n`,
        timeout: budget(240_000),
      });
      expect(killed.signal).toBe('SIGKILL');
      expectOnlyRemoved(rows0, sessionRows(t), root.scope);
      const list = cleanerx(['recovery', 'list']);
      expect(list.stdout).toMatch(/observed: All applied/);
      expect(list.stdout).toMatch(/can: accept, close, restore/);
      const op = /^(\S{36})\s+OpenCode/m.exec(list.stdout)![1]!;
      const restore = cleanerx(['recovery', 'restore', op], `${PASS}\n`);
      expect(restore.status, restore.stderr).toBe(0);
      expect(restore.stdout).toMatch(/No interrupted cleanup/);
      const rows2 = sessionRows(t);
      for (const sid of root.scope) expect(rows2.get(sid), sid).toEqual(rows0.get(sid));
      expect(rows2.size).toBe(rows0.size);
    },
    budget(300_000),
  );

  it(
    'logs go through the path transaction: the log dir is removed, the database and every other file are untouched',
    async () => {
      t = makeTempEnv();
      buildStore(t, template, { dataDir: dataDir(t) });
      const logDir = join(dataDir(t), 'log');
      expect(existsSync(logDir)).toBe(true);
      const rows0 = sessionRows(t);
      const db = t.env.OPENCODE_DB!;
      const before = hashTree(t.root, [logDir, t.env.XDG_STATE_HOME!, join(t.root, 'tmp')]);
      const clean = cleanerx(['clean', '--agent', 'opencode', '--id', 'logs:opencode', '--yes']);
      expect(clean.status, clean.stderr + clean.stdout).toBe(0);
      expect(existsSync(logDir)).toBe(false);
      expect(sessionRows(t)).toEqual(rows0);
      expect(treeDiff(before, hashTree(t.root, [logDir, t.env.XDG_STATE_HOME!, join(t.root, 'tmp')]))).toEqual([]);
      expect(existsSync(db)).toBe(true);
      // Sessions never go through the path transaction, and logs never get a backup.
      const noBackup = cleanerx(['clean', '--agent', 'opencode', '--id', 'cache:opencode', '--yes', '--backup'], `${PASS}\n`);
      expect(noBackup.status).toBe(2);
      expect(noBackup.stderr).toMatch(/No backup possible/);

      // The cache is its root's contents: they go, the root stays with its mode, nothing else changes.
      const cache = cacheDir(t);
      mkdirSync(join(cache, 'bin'), { recursive: true });
      writeFileSync(join(cache, 'bin', 'tool'), 'x'.repeat(5000));
      writeFileSync(join(cache, 'models.json'), '{}');
      const mode = statSync(cache).mode;
      const beforeCache = hashTree(t.root, [cache, t.env.XDG_STATE_HOME!, join(t.root, 'tmp')]);
      const cleaned = cleanerx(['clean', '--agent', 'opencode', '--id', 'cache:opencode', '--yes']);
      expect(cleaned.status, cleaned.stderr + cleaned.stdout).toBe(0);
      expect(readdirSync(cache)).toEqual([]);
      expect(statSync(cache).mode).toBe(mode);
      expect(treeDiff(beforeCache, hashTree(t.root, [cache, t.env.XDG_STATE_HOME!, join(t.root, 'tmp')]))).toEqual([]);
      expect(sessionRows(t)).toEqual(rows0);
    },
    budget(300_000),
  );
});
