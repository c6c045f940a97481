// Back up only (issue #29 part 6): `clean --backup-only` writes the verified
// encrypted backup of the named sessions through the usual plan → journal →
// preflight → backup steps and removes nothing (the whole home byte for byte
// as before, the journal complete). Restored into a fresh home — as after
// Claude's own sweep took the transcripts — every file comes back byte for
// byte. A session cleanerx cannot restore (Codex: no import route) is
// refused in one sentence, before anything is written.

import { randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { listJournals } from '../../src/engine/cleanup/journal.js';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ownDirs } from '../../src/engine/host/own-dirs.js';
import { CLI } from '../helpers/pty-screen.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { hashTree } from '../helpers/tree-hash.js';

const PASS = 'correct horse battery';
let t: TempEnv;
beforeEach(() => {
  t = makeTempEnv();
  t.env.CLEANERX_TEST_MODE = '1';
  t.env.CLEANERX_SCRYPT_LOG_N = '12';
});
afterEach(() => t.cleanup());

const run = (args: string[], input = '') => spawnSync(process.execPath, [CLI, ...args], { env: t.env, encoding: 'utf8', input });

function claudeSession(home: string, project: string, lines: number): string {
  const id = randomUUID();
  const dir = join(home, 'projects', project);
  mkdirSync(join(dir, id, 'subagents'), { recursive: true });
  const rows = Array.from({ length: lines }, (_, i) =>
    JSON.stringify({
      type: i % 2 ? 'assistant' : 'user',
      sessionId: id,
      cwd: '/work/app',
      uuid: randomUUID(),
      message: { role: 'user', content: `line ${i} é` },
    }),
  );
  writeFileSync(join(dir, `${id}.jsonl`), rows.join('\n') + '\n');
  writeFileSync(join(dir, id, 'subagents', 'agent-1.jsonl'), rows.slice(0, 3).join('\n') + '\n');
  return id;
}

describe('clean --backup-only', () => {
  it('backs up without removing, and the backup restores byte for byte into a fresh home', async () => {
    const home = t.env.CLAUDE_CONFIG_DIR!;
    const keep = claudeSession(home, '-work-app', 50);
    const a = claudeSession(home, '-work-app', 200);
    const b = claudeSession(home, '-work-other', 80);
    writeFileSync(join(home, 'settings.json'), '{"cleanupPeriodDays": 7}\n');
    const before = hashTree(home);

    const r = run(['clean', '--backup-only', '--agent', 'claude', '--id', a, '--id', b, '--yes', '--json'], `${PASS}\n`);
    expect(r.stderr).not.toMatch(/failed|error/i);
    expect(r.status).toBe(0);
    const res = JSON.parse(r.stdout) as { status: string; removedItems: number; backupId: string; action: string };
    expect(res).toMatchObject({ status: 'complete', removedItems: 0, action: 'backupOnly' });
    expect(res.backupId).toMatch(/./);
    // Nothing removed, nothing changed: the whole home byte for byte.
    expect(hashTree(home)).toEqual(before);
    // The journal ended: no operation waits for recovery.
    const journals = await listJournals(ownDirs(t.env).state);
    expect(journals.length).toBe(1);
    for (const e of journals) expect(e.kind === 'unknown' ? e.reason : e.journal.status).toBe('complete');

    // Claude's sweep (or anything) takes the whole home; the backup brings the two sessions back.
    const wanted = new Map([...before].filter(([rel]) => rel.includes(a) || rel.includes(b)));
    rmSync(home, { recursive: true, force: true });
    mkdirSync(home, { recursive: true });
    const restore = run(['backups', 'restore', res.backupId, '--yes'], `${PASS}\n`);
    expect(restore.stderr).toBe('');
    expect(restore.status).toBe(0);
    const after = hashTree(home);
    for (const [rel, hash] of wanted) expect(after.get(rel), rel).toBe(hash);
    // Only the backed-up sessions came back (and the folders that hold them).
    expect([...after.keys()].filter((rel) => after.get(rel) !== 'dir').sort()).toEqual([...wanted.keys()].filter((rel) => wanted.get(rel) !== 'dir').sort());
    expect([...after.keys()].some((rel) => rel.includes(keep))).toBe(false);
  }, 180_000);

  it('refuses a session cleanerx cannot restore, before anything is written', () => {
    const home = t.env.CLAUDE_CONFIG_DIR!;
    claudeSession(home, '-work-app', 5);
    const r = run(['clean', '--backup-only', '--agent', 'claude', '--id', 'memory:claude:nope', '--yes'], `${PASS}\n`);
    expect(r.status).not.toBe(0);
    expect(ownDirs(t.env).data).toBeTruthy();
    const r2 = run(['clean', '--backup-only', '--archive', 'x', '--agent', 'claude', '--yes']);
    expect(r2.status).toBe(2);
    expect(r2.stderr.trim()).toBe('cleanerx: --backup-only goes with --id only; drop --archive, --unarchive or --plan.');
  }, 120_000);
});
