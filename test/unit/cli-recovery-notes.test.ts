// What the command line says about compactions and interrupted work (#27
// part 6), through the real binary: a compaction's plan says in plain words
// what happens (nothing is lost), not "1 item(s) are cleaned by OpenCode's
// own call"; a cleanup killed after its compaction completed is listed by
// `recovery list` as that compaction having completed, not as "every path is
// gone" (it has no paths); and an interrupted restore that `recovery list`
// finishes is reported, not passed over as "No interrupted cleanup".

import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { collectFiles, writeArchive } from '../../src/backup/archive.js';
import { addRecord, archivePathFor, backupsDir } from '../../src/backup/catalog.js';
import { createIdentity } from '../../src/backup/keystore.js';
import { ownDirs } from '../../src/engine/host/own-dirs.js';
import { CLI, TEST_PASSPHRASE as PASS } from '../helpers/constants.js';
import { buildStore, makeTemplate, type Template } from '../helpers/opencode.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

process.env.CLEANERX_TEST_MODE = '1';
process.env.CLEANERX_SCRYPT_LOG_N = '12';

let t: TempEnv;
afterEach(() => t?.cleanup());

function run(args: string[], input = '', env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [CLI, ...args], {
    env: { ...t.env, CLEANERX_TEST_MODE: '1', CLEANERX_SCRYPT_LOG_N: '12', ...env },
    encoding: 'utf8',
    input,
  });
}

describe('an OpenCode database compaction', () => {
  let template: Template;
  beforeAll(async () => {
    template = await makeTemplate();
  }, 180_000);
  afterAll(() => template?.cleanup());

  /** An OpenCode store with free pages: some sessions deleted as OpenCode deletes them (foreign keys), the WAL checkpointed. */
  function withFreePages(): void {
    t = makeTempEnv('cleanerx-compact-notes-');
    const m = buildStore(t, template, { messagesPerSession: 6 });
    const d = new Database(t.env.OPENCODE_DB!);
    d.pragma('foreign_keys = ON');
    for (const s of m.sessions.filter((x) => x.projectId === m.projects[0]!.id)) d.prepare('DELETE FROM session WHERE id = ?').run(s.id);
    d.pragma('wal_checkpoint(TRUNCATE)');
    d.close();
  }

  it('the plan says what the compaction does, in plain words', () => {
    withFreePages();
    const r = run(['clean', '--agent', 'opencode', '--id', 'compact:opencode-db']);
    expect(r.stdout).toContain('The database is compacted: copied without its free pages, proven equal, then swapped in. No data in it is removed.');
    expect(r.stdout).not.toMatch(/item\(s\)|own call|cannot be undone/);
    expect(r.stdout).toContain('OpenCode: 1 item, ');
  }, 120_000);

  it('killed after the compaction completed: recovery list says it completed, not that every path is gone', () => {
    withFreePages();
    const killed = run(['clean', '--agent', 'opencode', '--id', 'compact:opencode-db', '--yes'], '', { CLEANERX_CRASH_AT: 'official:0:after' });
    expect(killed.signal).toBe('SIGKILL');
    const list = run(['recovery', 'list']);
    expect(list.status, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/observed: All applied — Compact the OpenCode database completed: the rescan no longer lists it\./);
    expect(list.stdout).not.toMatch(/every path is gone/);
  }, 120_000);
});

describe('an interrupted restore', () => {
  const FILES = ['sessions/--home-u-src-api--/s1.jsonl', 'sessions/--home-u-src-api--/s2.jsonl', 'sessions/--home-u-src-web--/s3.jsonl'];

  /** A pi home whose sessions a cleanup removed, with a catalogued backup of them. */
  async function backedUp(): Promise<string> {
    t = makeTempEnv('cleanerx-restore-notes-');
    const data = ownDirs(t.env).data;
    const { recipient } = await createIdentity(data, PASS);
    mkdirSync(join(t.env.PI_CODING_AGENT_DIR!, 'sessions'), { recursive: true });
    const src = join(t.root, 'source');
    for (const rel of FILES) {
      mkdirSync(dirname(join(src, rel)), { recursive: true });
      writeFileSync(join(src, rel), `{"type":"session","rel":"${rel}"}\n`, { mode: 0o600 });
    }
    const id = randomUUID();
    mkdirSync(backupsDir(data), { recursive: true, mode: 0o700 });
    const files = await collectFiles(
      FILES.map((rel) => join(src, rel)),
      [{ label: 'pi_home', dir: src }],
    );
    const { manifest, archiveBytes } = await writeArchive({
      archivePath: archivePathFor(data, id),
      recipient,
      agent: 'pi',
      operationId: 'op-notes',
      id,
      itemCount: FILES.length,
      retentionDays: 30,
      files,
    });
    await addRecord(data, {
      id,
      createdAt: manifest.createdAt,
      expiresAt: manifest.expiresAt,
      archivePath: archivePathFor(data, id),
      archiveBytes,
      originalBytes: manifest.originalBytes,
      itemCount: FILES.length,
      operationId: 'op-notes',
      agent: 'pi',
      verifiedAt: manifest.createdAt,
    });
    return id;
  }

  it('finished by recovery list, which says so: the backup and how many files were put back', async () => {
    const id = await backedUp();
    const killed = run(['backups', 'restore', id, '--yes'], `${PASS}\n`, { CLEANERX_CRASH_AT: 'restore:committed' });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const list = run(['recovery', 'list']);
    expect(list.status, list.stderr).toBe(0);
    expect(list.stdout).toBe(`An interrupted restore of backup ${id} was finished: 3 files put back.\nNo interrupted cleanup.\n`);
    for (const rel of FILES) expect(existsSync(join(t.env.PI_CODING_AGENT_DIR!, rel)), rel).toBe(true);
    // Said once: the next look finds nothing left to settle.
    expect(run(['recovery', 'list']).stdout).toBe('No interrupted cleanup.\n');
  }, 60_000);
});
