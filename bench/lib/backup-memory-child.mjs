// Child process for the backup-memory bench: one of backup, verify or
// restore through cleanerx's real code in dist/, printing its own peak RSS
// (and its wall time) as JSON. One process per step, so that each maxRSS is
// that step's alone.
//
//   node backup-memory-child.mjs backup  <agentDir> <archive> <key.txt>
//   node backup-memory-child.mjs verify  <archive> <key.txt>
//   node backup-memory-child.mjs restore <archive> <key.txt> <emptyRoot> <stagingParent>
//
// The identity is read from key.txt (never from argv or the environment).

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './util.mjs';

const dist = (p) => import(pathToFileURL(join(ROOT, 'dist', p)).href);
const { collectEntries, readArchiveTable, writeArchive, newBackupId } = await dist('backup/archive.js');
const { restoreArchive } = await dist('backup/restore.js');
const { identityToRecipient } = await import('age-encryption');

const [mode, ...args] = process.argv.slice(2);
const identityOf = (keyFile) =>
  readFileSync(keyFile, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('AGE-SECRET-KEY-1'));

const t0 = process.hrtime.bigint();
let out;
if (mode === 'backup') {
  const [agentDir, archivePath, keyFile] = args;
  const recipient = await identityToRecipient(identityOf(keyFile));
  // What takeBackup does before its verify: every session folder collected, then one archive written.
  const sessions = join(agentDir, 'sessions');
  const paths = readdirSync(sessions)
    .sort()
    .map((d) => join(sessions, d));
  const { files, emptyDirs, skipped, dirs } = await collectEntries(paths, [{ label: 'pi_home', dir: agentDir }]);
  const w = await writeArchive({
    archivePath,
    recipient,
    agent: 'pi',
    operationId: 'bench',
    id: newBackupId(),
    itemCount: paths.length,
    retentionDays: 30,
    files,
    emptyDirs,
    skipped,
    dirs,
  });
  out = { files: w.manifest.entries.length, bytes: w.manifest.originalBytes, archiveBytes: w.archiveBytes };
} else if (mode === 'verify') {
  const [archivePath, keyFile] = args;
  // What `backups verify` and the backup's own check do: the manifest packed, every payload hashed.
  const m = await readArchiveTable(archivePath, identityOf(keyFile), {}, 'pi');
  out = { files: m.entries.length, bytes: m.originalBytes };
} else if (mode === 'restore') {
  const [archivePath, keyFile, root, stagingParent] = args;
  // What `backups restore ID --yes` does: one restore that stages, hash-checks and preflights everything first.
  const r = await restoreArchive({ archivePath, identity: identityOf(keyFile), agent: 'pi', roots: { pi_home: root }, uid: process.getuid(), stagingParent });
  out = { files: r.restored.length, bytes: r.manifest.originalBytes };
} else {
  process.stderr.write('usage: backup-memory-child.mjs backup|verify|restore …\n');
  process.exit(2);
}
const ms = Number(process.hrtime.bigint() - t0) / 1e6;
// maxRSS is in KiB.
process.stdout.write(JSON.stringify({ ...out, ms, maxRssBytes: process.resourceUsage().maxRSS * 1024 }) + '\n');
