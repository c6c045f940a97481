// "Compact the OpenCode database" leaves opencode.db as OpenCode needs it in
// every outcome (#25.1): killed at each of its crash points (then settled by
// `cleanerx recovery list`, as the next start does), rolled back by a failed
// proof, refused while a process holds the file. Right after each, before
// OpenCode runs again, the file is still a WAL database, cleanerx lists every
// session with no side-file warning, and the pinned opencode's own
// `session list` shows every remaining root of the project.

import Database from 'better-sqlite3';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { COMPACT_ITEM_ID } from '../../src/adapters/opencode/compact-item.js';
import { opencodeAdapter } from '../../src/adapters/opencode/index.js';
import { COMPACT_CRASH_POINTS } from '../../src/engine/cleanup/compact.js';
import type { OpencodeFixtureManifest } from '../../src/adapters/opencode/fixture.js';
import { CLI } from '../helpers/constants.js';
import { buildStore, installation, makeTemplate, OPENCODE_BIN, opencodeEnv, type Template } from '../helpers/opencode.js';
import { fakeProcess, makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { budget } from '../helpers/budget.js';

let template: Template;
beforeAll(async () => {
  template = await makeTemplate();
}, budget(180_000));
afterAll(() => template?.cleanup());

let t: TempEnv;
let holder: ChildProcess | null = null;
afterEach(() => {
  holder?.kill('SIGKILL');
  holder = null;
  t?.cleanup();
});

function cleanerx(args: string[], extra: Record<string, string> = {}) {
  const env = { ...opencodeEnv(t), PATH: `${dirname(OPENCODE_BIN)}:/usr/bin:/bin`, CLEANERX_TEST_MODE: '1', ...extra };
  return spawnSync(process.execPath, [CLI, ...args], { env, encoding: 'utf8', timeout: budget(240_000), killSignal: 'SIGKILL' });
}

/**
 * A store with free pages, as OpenCode's own delete leaves it: two childless
 * roots deleted the way OpenCode deletes (foreign keys cascade to messages
 * and parts). Returns the sessions that remain.
 */
function storeWithFreePages(): { m: OpencodeFixtureManifest; remaining: string[] } {
  t = makeTempEnv();
  const m = buildStore(t, template, { git: true, messagesPerSession: 8 });
  const gone = m.sessions.filter((s) => s.kind === 'root' && m.descendants.get(s.id)!.length === 0).slice(0, 2);
  expect(gone.length).toBe(2);
  const d = new Database(t.env.OPENCODE_DB!);
  d.pragma('foreign_keys = ON');
  const del = d.prepare('DELETE FROM session WHERE id = ?');
  for (const s of gone) del.run(s.id);
  const remaining = (d.prepare('SELECT id FROM session').all() as { id: string }[]).map((r) => r.id).sort();
  d.close();
  return { m, remaining };
}

/** The WAL flag in the database header (bytes 18 and 19 are 2): the mode OpenCode set stays. */
const walHeader = (db: string): boolean => {
  const h = readFileSync(db).subarray(18, 20);
  return h[0] === 2 && h[1] === 2;
};

async function expectListedByBoth(m: OpencodeFixtureManifest, remaining: string[]): Promise<void> {
  const db = t.env.OPENCODE_DB!;
  expect(walHeader(db)).toBe(true);
  const inv = await opencodeAdapter.scan(installation(t), t.ctx, () => undefined);
  expect(inv.sessionsUnread).toBeUndefined();
  expect(inv.warnings.map((w) => w.reason).join('\n')).not.toMatch(/missing|not listed/);
  expect(inv.sessions.map((s) => s.id).sort()).toEqual(remaining);
  // The project with the most remaining roots, through OpenCode's own lister.
  const roots = (p: string) => m.sessions.filter((s) => s.projectId === p && s.parentId === null && s.kind === 'root' && remaining.includes(s.id));
  const project = [...m.projects].sort((a, b) => roots(b.id).length - roots(a.id).length)[0]!;
  const listed = spawnSync(OPENCODE_BIN, ['session', 'list', '--format', 'json', '-n', '1000'], {
    cwd: project.worktree,
    env: opencodeEnv(t),
    encoding: 'utf8',
    timeout: budget(120_000),
  });
  expect(listed.status, listed.stderr).toBe(0);
  const theirs = (listed.stdout.trim() ? (JSON.parse(listed.stdout) as { id: string }[]) : []).map((x) => x.id);
  expect(roots(project.id).length).toBeGreaterThan(0);
  for (const s of roots(project.id)) expect(theirs, s.id).toContain(s.id);
}

describe('opencode.db after every outcome of a compaction', () => {
  for (const point of COMPACT_CRASH_POINTS) {
    it(
      `killed at ${point}, then settled: listed by cleanerx and by OpenCode`,
      async () => {
        const { m, remaining } = storeWithFreePages();
        const r = cleanerx(['clean', '--agent', 'opencode', '--id', COMPACT_ITEM_ID, '--yes'], { CLEANERX_CRASH_AT: point });
        expect(r.signal, r.stderr + r.stdout).toBe('SIGKILL');
        const settle = cleanerx(['recovery', 'list']);
        expect(settle.status, settle.stderr + settle.stdout).toBe(0);
        await expectListedByBoth(m, remaining);
      },
      budget(240_000),
    );
  }

  it(
    'rolled back by a failed proof: listed by cleanerx and by OpenCode',
    async () => {
      const { m, remaining } = storeWithFreePages();
      const r = cleanerx(['clean', '--agent', 'opencode', '--id', COMPACT_ITEM_ID, '--yes'], { CLEANERX_FAIL_AT: 'compact:proof-mismatch' });
      expect(r.status, r.stdout).not.toBe(0);
      expect(r.stdout + r.stderr).toMatch(/injected difference/);
      await expectListedByBoth(m, remaining);
    },
    budget(240_000),
  );

  it(
    'refused while a process holds the database: listed by cleanerx and by OpenCode',
    async () => {
      const { m, remaining } = storeWithFreePages();
      const fd = openSync(t.env.OPENCODE_DB!, 'r');
      holder = spawn('sleep', ['120'], { stdio: ['ignore', fd, 'ignore'] });
      closeSync(fd);
      fakeProcess(t.procRoot, holder.pid!, 'sleep', ['sleep', '120']);
      mkdirSync(join(t.procRoot, String(holder.pid), 'fd'));
      symlinkSync(`/proc/${holder.pid}/fd/1`, join(t.procRoot, String(holder.pid), 'fd', '1'));
      const r = cleanerx(['clean', '--agent', 'opencode', '--id', COMPACT_ITEM_ID, '--yes']);
      expect(r.status, r.stdout).not.toBe(0);
      expect(r.stdout + r.stderr).toMatch(new RegExp(`pid ${holder.pid}`));
      holder.kill('SIGKILL');
      holder = null;
      await expectListedByBoth(m, remaining);
    },
    budget(240_000),
  );
});
