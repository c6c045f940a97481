// The backup phase's record of itself (#26 item 5: mutants of
// backup/take.ts): each journal transition in order with its state, the
// journal's end state, the catalog entry (what the review showed: recoverable
// items only, their bytes), and the progress lines. A real key, archive and
// catalog in a temp home; the plan names one recoverable pi session (two
// files) and one item that is not. Beside it: an official export staged and
// archived (and one that fails), a write that fails, a reopened archive that
// differs from the written one in one field only, and the reopen's progress
// throttle.

import { generateX25519Identity, identityToRecipient } from 'age-encryption';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import { collectEntries, newBackupId, readArchive, writeArchive } from '../../src/backup/archive.js';
import { archivePathFor, backupsDir, loadCatalog } from '../../src/backup/catalog.js';
import { takeBackup } from '../../src/backup/take.js';
import type { TakeBackupOptions } from '../../src/engine/cleanup/backup-step.js';
import { type Journal, JournalStore } from '../../src/engine/cleanup/journal.js';
import type { SessionExportEntry } from '../../src/engine/core/adapter.js';
import { agentName } from '../../src/engine/core/agents.js';
import type { CleanupPlan } from '../../src/engine/core/model.js';
import { atCrashPoints } from '../../src/engine/core/faults.js';
import { exportStagingParent } from '../../src/engine/host/export-staging.js';
import { ownDirs } from '../../src/engine/host/own-dirs.js';
import { t as tr } from '../../src/engine/i18n/index.js';
import { makeTempEnv, type TempEnv } from '../helpers/temp-env.js';
import { backupJournal } from '../helpers/pi-backup.js';

let t: TempEnv | undefined;
afterEach(() => {
  vi.useRealTimers();
  atCrashPoints(null);
  t?.cleanup();
});

interface Setup {
  root: string;
  session: string;
  dataDir: string;
  journal: Journal;
  store: JournalStore;
  options: TakeBackupOptions;
  progress: string[];
}

/** A pi home (session `a` of two files, one other file), its plan and journal, and the options of a takeBackup that records its progress lines. */
async function setUp(): Promise<Setup> {
  t = makeTempEnv('cleanerx-take-');
  const root = t.env.PI_CODING_AGENT_DIR!;
  const session = join(root, 'sessions', 'a');
  mkdirSync(session, { recursive: true });
  writeFileSync(join(session, 's.jsonl'), 'x'.repeat(100));
  writeFileSync(join(session, 't.jsonl'), 'z'.repeat(50));
  writeFileSync(join(root, 'other.jsonl'), 'y');
  const identity = await generateX25519Identity();
  const now = new Date().toISOString();
  const items = [
    { id: 'session:a', label: 'a', category: 'sessions', bytes: 5, paths: [session], recoverable: true, depth: 0 },
    { id: 'cache:b', label: 'b', category: 'caches', bytes: 7, paths: [join(root, 'other.jsonl')], recoverable: false, depth: 0 },
  ];
  const plan = { id: 'p', snapshotId: 's', agent: 'pi', createdAt: now, items, operations: [], blockers: [] } as unknown as CleanupPlan;
  const journal = backupJournal(plan, 's', now);
  const store = new JournalStore(ownDirs(t.env).state);
  await store.create(journal);
  const progress: string[] = [];
  const dataDir = ownDirs(t.env).data;
  const options: TakeBackupOptions = {
    plan,
    journal,
    store,
    dataDir,
    key: { identity, recipient: await identityToRecipient(identity) },
    roots: [{ label: 'pi_home', dir: root }],
    retentionDays: 1,
    progress: (p) => progress.push(`${p.phase} ${p.current}${p.bytesTotal === undefined ? '' : ' bytes'}`),
  };
  return { root, session, dataDir, journal, store, options, progress };
}

const archivesIn = (dataDir: string): string[] => readdirSync(backupsDir(dataDir)).filter((n) => n.endsWith('.cxb') || n.endsWith('.partial'));

it('journals every step in order, ends committed, and catalogs the recoverable items with their bytes', async () => {
  const s = await setUp();
  const steps: string[] = [];
  atCrashPoints((p) => {
    if (p.startsWith('backup:')) steps.push(`${p} ${s.journal.backupStatus}`);
  });
  const taken = await takeBackup(s.options);
  expect(steps).toEqual([
    'backup:writing writing',
    'backup:archiveCommitted archiveCommitted',
    'backup:verifying verifying',
    'backup:verified verified',
    'backup:catalogWriting catalogWriting',
    'backup:committed committed',
  ]);
  expect([s.journal.status, s.journal.backupId, s.journal.backupCandidateId]).toEqual(['backupWritten', taken.id, taken.id]);
  const [record, ...more] = await loadCatalog(s.dataDir);
  expect(more).toEqual([]);
  expect(record).toMatchObject({
    id: taken.id,
    archivePath: join(backupsDir(s.dataDir), `${taken.id}.cxb`),
    itemCount: 1,
    onDiskBytes: 5,
    operationId: s.journal.operationId,
    agent: 'pi',
  });
  // The manifest counts the same items as the catalog: the recoverable ones.
  const m = await readArchive(archivePathFor(s.dataDir, taken.id), s.options.key.identity, {}, 'pi');
  expect([m.itemCount, m.entries.map((e) => e.relativePath).sort()]).toEqual([1, ['sessions/a/s.jsonl', 'sessions/a/t.jsonl']]);
  expect(s.progress).toContain('backup 2 files');
  expect(s.progress).toContain('backup writing the encrypted archive bytes');
  expect(s.progress).toContain('backup reopening and verifying the archive');
  expect(taken.warnings).toEqual([]);
  expect(taken.revisionAfterExport).toBeUndefined();
});

/** An official export of two sessions into the staging dir, reporting each; the staging dir it was handed is kept in `dirs`. */
function exporter(dirs: string[]): NonNullable<TakeBackupOptions['exportSessions']> {
  return async (staging, onProgress) => {
    // Not recursive: the backup must have made the staging parent.
    mkdirSync(staging, { mode: 0o700 });
    dirs.push(staging);
    const exports: SessionExportEntry[] = [];
    for (const [n, body] of [
      ['s1', '{"one":1}'],
      ['s2', '{"two":22}'],
    ] as const) {
      const file = join(staging, `${n}.json`);
      writeFileSync(file, body, { mode: 0o600 });
      exports.push({
        id: n,
        file,
        directory: `/w/${n}`,
        parentId: n === 's2' ? 's1' : null,
        title: `T ${n}`,
        bytes: body.length,
        sha256: createHash('sha256').update(body).digest('hex'),
      });
      onProgress?.(exports.length, 2, n);
    }
    return { exports, revision: 'rev-after-export' };
  };
}

it('archives the official exports with their index under <agent>_session_export, reports their count, and removes the staging dir', async () => {
  // The export's step clock repeats its report every second until stopped: fake the interval to see that it is.
  vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'] });
  const s = await setUp();
  const dirs: string[] = [];
  const steps: string[] = [];
  atCrashPoints((p) => {
    if (p.startsWith('backup:')) steps.push(p);
  });
  const taken = await takeBackup({ ...s.options, exportSessions: exporter(dirs) });
  expect(taken.revisionAfterExport).toBe('rev-after-export');
  expect(steps.slice(0, 3)).toEqual(['backup:writing', 'backup:exported', 'backup:archiveCommitted']);
  const agent = agentName('pi');
  for (const [done, total] of [
    [0, '…'],
    [1, 2],
    [2, 2],
  ] as const)
    expect(s.progress).toContain(`backup ${tr('pg.exporting', { agent, done, total })}`);
  expect(s.progress).toContain('backup 5 files');
  const n = s.progress.length;
  vi.advanceTimersByTime(5000);
  expect(s.progress.length).toBe(n);
  // The staging dir was under the staging parent, and nothing of it is left.
  expect(dirs.map((d) => d.startsWith(exportStagingParent(s.dataDir) + '/'))).toEqual([true]);
  expect(readdirSync(exportStagingParent(s.dataDir))).toEqual([]);
  const bodies = new Map<string, string>();
  const m = await readArchive(
    archivePathFor(s.dataDir, taken.id),
    s.options.key.identity,
    { payload: async (e, st) => void bodies.set(`${e.root}/${e.relativePath}`, Buffer.concat(await st.toArray()).toString()) },
    'pi',
  );
  const exported = m.entries.filter((e) => e.root === 'pi_session_export');
  expect(exported.map((e) => [e.relativePath, e.mode])).toEqual([
    ['index.json', 0o600],
    ['s1.json', 0o600],
    ['s2.json', 0o600],
  ]);
  expect(bodies.get('pi_session_export/s2.json')).toBe('{"two":22}');
  const index = bodies.get('pi_session_export/index.json')!;
  expect(index.endsWith('\n')).toBe(true);
  expect(JSON.parse(index)).toEqual([
    { id: 's1', name: 's1.json', directory: '/w/s1', parentId: null, title: 'T s1', bytes: 9, sha256: createHash('sha256').update('{"one":1}').digest('hex') },
    {
      id: 's2',
      name: 's2.json',
      directory: '/w/s2',
      parentId: 's1',
      title: 'T s2',
      bytes: 10,
      sha256: createHash('sha256').update('{"two":22}').digest('hex'),
    },
  ]);
});

it('stops with the export’s error when the official export fails, before any archive', async () => {
  const s = await setUp();
  // It fails before it made the staging dir or reported any session: nothing to stop, nothing to remove.
  const exportSessions: TakeBackupOptions['exportSessions'] = async () => {
    throw new Error('opencode export exited 1');
  };
  await expect(takeBackup({ ...s.options, exportSessions })).rejects.toThrow(/^The sessions could not be exported for the backup: opencode export exited 1$/);
  expect([s.journal.backupStatus, archivesIn(s.dataDir), await loadCatalog(s.dataDir)]).toEqual(['writing', [], []]);
});

it('never writes the export index over an export of the same name', async () => {
  const s = await setUp();
  const body = '{"one":1}';
  let clash = '';
  const exportSessions: TakeBackupOptions['exportSessions'] = async (staging) => {
    mkdirSync(staging, { mode: 0o700 });
    clash = join(staging, 'index.json');
    writeFileSync(clash, body, { mode: 0o600 });
    return {
      exports: [
        { id: 's1', file: clash, directory: '/w', parentId: null, title: 'T', bytes: body.length, sha256: createHash('sha256').update(body).digest('hex') },
      ],
      revision: 'r',
    };
  };
  await expect(takeBackup({ ...s.options, exportSessions })).rejects.toThrow(/EEXIST/);
  expect([readdirSync(exportStagingParent(s.dataDir)), archivesIn(s.dataDir), await loadCatalog(s.dataDir)]).toEqual([[], [], []]);
});

it('stops with the write’s error when the archive cannot be written', async () => {
  const s = await setUp();
  await expect(takeBackup({ ...s.options, key: { ...s.options.key, recipient: 'age1notarecipient' } })).rejects.toThrow(/^The backup could not be written: /);
  expect([s.journal.backupStatus, archivesIn(s.dataDir), await loadCatalog(s.dataDir)]).toEqual(['writing', [], []]);
});

type Swap = 'id' | 'operationId' | 'entries';

it.each<Swap>(['id', 'operationId', 'entries'])('refuses and removes a reopened archive that differs from the written one in its %s only', async (swap) => {
  const s = await setUp();
  // At the verifying transition the archive is replaced by one of the same key written from the same files, one field changed.
  const store = Object.create(s.store) as JournalStore;
  store.transition = async (j, change, point) => {
    await s.store.transition(j, change, point);
    if (point !== 'backup:verifying') return;
    const { files, emptyDirs, skipped, dirs } = await collectEntries([s.session], s.options.roots);
    await writeArchive({
      archivePath: archivePathFor(s.dataDir, j.backupCandidateId!),
      recipient: s.options.key.recipient,
      agent: 'pi',
      operationId: swap === 'operationId' ? randomUUID() : j.operationId,
      id: swap === 'id' ? newBackupId() : j.backupCandidateId!,
      itemCount: 1,
      retentionDays: 1,
      files: swap === 'entries' ? files.slice(1) : files,
      emptyDirs,
      skipped,
      dirs,
    });
  };
  await expect(takeBackup({ ...s.options, store })).rejects.toThrow(
    /^The backup failed its verification and was removed: the archive does not match what was written$/,
  );
  expect([existsSync(archivePathFor(s.dataDir, s.journal.backupCandidateId!)), archivesIn(s.dataDir), await loadCatalog(s.dataDir)]).toEqual([false, [], []]);
});

it('passes on the reopen’s byte progress at most every 100 ms', async () => {
  // Only the clock is faked: the reads run for real, the time moves only when a report moves it.
  vi.useFakeTimers({ toFake: ['Date'] });
  const s = await setUp();
  const reports: { bytesDone?: number; bytesTotal?: number }[] = [];
  const taken = await takeBackup({
    ...s.options,
    progress: (p) => {
      if (p.phase !== 'backup' || p.current !== 'reopening and verifying the archive' || p.bytesTotal === undefined) return;
      reports.push({ bytesDone: p.bytesDone, bytesTotal: p.bytesTotal });
      // 100 ms after the first report the next read is passed on; 99 ms after the second, none of the others is.
      if (reports.length <= 2) vi.setSystemTime(Date.now() + (reports.length === 1 ? 100 : 99));
    },
  });
  expect(reports.length).toBe(2);
  expect(reports.map((r) => r.bytesTotal)).toEqual([150, 150]);
  expect(reports[1]!.bytesDone).toBeGreaterThan(0);
  expect((await loadCatalog(s.dataDir)).map((r) => r.id)).toEqual([taken.id]);
});
