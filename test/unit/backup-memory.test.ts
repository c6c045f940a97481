// Backup and verify stream in bounded memory whatever the file size: a 1 GiB
// sparse transcript (a few real bytes, the rest a hole) is backed up (the
// backup phase of a cleanup: write, reopen and verify, catalog) and verified again, each
// in a child process whose peak RSS (VmHWM) must stay ≤ 300 MB. A bound, not
// a timing. (Before the fix: 630 MB for 512 MiB, 2.05 GB for 4 GiB — the zstd
// reader inflated every frame of a chunk at once, and a few KiB of frames of
// zeros are gigabytes.)
// 1 GiB (CLEANERX_MEMORY_TEST_MIB overrides it) is twice the size that already
// broke the bound, at a quarter of the 4 GiB run's CPU; the 4 GiB and 200k-file
// figures are `node bench/run.mjs backup-memory`'s (docs/backups.md).
// The child runs the built dist/ (the global setup builds it).

import { generateX25519Identity, identityToRecipient } from 'age-encryption';
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, statSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { archivePathFor, loadCatalog } from '../../src/backup/catalog.js';
import { ownDirs } from '../../src/engine/host/own-dirs.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ARCHIVE_JS = join(ROOT, 'dist', 'backup', 'archive.js');
const SIZE = Number(process.env.CLEANERX_MEMORY_TEST_MIB ?? 1024) * 1024 * 1024;
const LIMIT_MB = 300;

let t: TempEnv;
afterEach(() => t?.cleanup());

// The child: one phase, then its peak RSS and what it saw, as JSON on stdout.
// 'backup' is the backup phase of a cleanup as the executor runs it
// (takeBackup: journal transitions, write, reopen and verify, catalog);
// 'verify' is `backups verify` (readArchive of the catalogued archive).
const CHILD = `
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
const { readArchive } = await import(process.env.DIST + '/backup/archive.js');
const { takeBackup } = await import(process.env.DIST + '/backup/take.js');
const { archivePathFor } = await import(process.env.DIST + '/backup/catalog.js');
const { JournalStore } = await import(process.env.DIST + '/engine/cleanup/journal.js');
const o = JSON.parse(process.env.JOB);
const peak = () => Number(/VmHWM:\\s+(\\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))[1]) * 1024;
let id = o.id;
if (o.phase === 'backup') {
  const now = new Date().toISOString();
  const plan = { id: 'plan', snapshotId: 'snap', agent: 'pi', createdAt: now, selectedItemIds: ['session:big'], expandedSessionIds: [], items: [{ id: 'session:big', label: 'big', category: 'sessions', bytes: 1, paths: [o.file], recoverable: true, depth: 0 }], operations: [], estimatedBytes: 1, estimatedBackupBytes: 1, backupEligible: true, irreversible: false, routeNotes: [], blockers: [] };
  const journal = { formatVersion: 2, operationId: randomUUID(), agent: 'pi', snapshotId: 'snap', createdAt: now, updatedAt: now, createBackup: true, plan, itemCategories: {}, status: 'planned', backupStatus: 'none', mutations: [] };
  const store = new JournalStore(o.stateDir);
  await store.create(journal);
  ({ id } = await takeBackup({ plan, journal, store, dataDir: o.dataDir, key: { identity: o.identity, recipient: o.recipient }, roots: [{ label: 'pi_home', dir: o.rootDir }], retentionDays: 1, progress: () => undefined }));
}
const manifest = await readArchive(archivePathFor(o.dataDir, id), o.identity, {}, 'pi');
process.stdout.write(JSON.stringify({ peak: peak(), id, entries: manifest.entries }));
`;

function runChild(job: Record<string, string>): { peak: number; id: string; entries: { sizeBytes: number; sha256: string; sparse?: boolean }[] } {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', CHILD], {
    env: { ...t.env, PATH: process.env.PATH ?? '/usr/bin:/bin', DIST: pathToFileURL(join(ROOT, 'dist')).href, JOB: JSON.stringify(job) },
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
  if (r.status !== 0) throw new Error(`child failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout);
}

describe('backup memory', () => {
  it(`backs up and verifies a ${SIZE / 2 ** 20} MiB sparse file with peak RSS ≤ ${LIMIT_MB} MB, recording it as sparse`, { timeout: 240_000 }, async () => {
    expect(existsSync(ARCHIVE_JS), 'dist/ is built').toBe(true);
    t = makeTempEnv('cleanerx-memory-');
    const rootDir = t.env.PI_CODING_AGENT_DIR!;
    mkdirSync(join(rootDir, 'sessions', '--home-u-src--'), { recursive: true });
    const file = join(rootDir, 'sessions', '--home-u-src--', 'big.jsonl');
    writeFileSync(file, '{"type":"session","id":"big"}\n', { mode: 0o600 });
    truncateSync(file, SIZE);
    const fd = openSync(file, 'r+');
    writeSync(fd, '{"type":"message"}\n', SIZE / 2);
    writeSync(fd, 'tail\n', SIZE - 5);
    closeSync(fd);
    const identity = await generateX25519Identity();
    const dirs = ownDirs(t.env);
    const job = { rootDir, file, dataDir: dirs.data, stateDir: dirs.state, identity, recipient: await identityToRecipient(identity) };

    const backup = runChild({ ...job, phase: 'backup' });
    expect(backup.entries).toHaveLength(1);
    expect(backup.entries[0]!.sizeBytes).toBe(SIZE);
    expect(backup.entries[0]!.sparse).toBe(true);
    expect(statSync(archivePathFor(dirs.data, backup.id)).size).toBeLessThan(SIZE / 1000);
    expect((await loadCatalog(dirs.data)).map((r) => r.id)).toEqual([backup.id]);
    expect(backup.peak / 1e6, 'backup peak RSS (MB)').toBeLessThanOrEqual(LIMIT_MB);

    const verify = runChild({ ...job, id: backup.id, phase: 'verify' });
    expect(verify.entries[0]!.sha256).toBe(backup.entries[0]!.sha256);
    expect(verify.peak / 1e6, 'verify peak RSS (MB)').toBeLessThanOrEqual(LIMIT_MB);
    console.log(`peak RSS for ${SIZE / 2 ** 20} MiB sparse: backup+verify ${(backup.peak / 1e6).toFixed(0)} MB, verify ${(verify.peak / 1e6).toFixed(0)} MB`);
  });
});
