// Child process for the backup-1g bench: runs cleanerx's real backup or
// restore path from dist/ and prints timings and its own peak RSS as JSON.
// A child of its own so that maxRSS is this operation's, not the runner's.
//
//   node backup-child.mjs backup  <agentDir> <archive> <key.txt>
//   node backup-child.mjs restore|restore-checked <archive> <key.txt> <emptyRoot> <stagingParent>
//
// The identity is read from key.txt (never from argv or the environment).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './util.mjs';

const dist = (p) => import(pathToFileURL(join(ROOT, 'dist', p)).href);
const { collectFiles, readArchive, writeArchive, newBackupId } = await dist('backup/archive.js');
const { restoreArchive } = await dist('backup/restore.js');
const { identityToRecipient } = await import('age-encryption');

const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
const [mode, ...args] = process.argv.slice(2);
const identityOf = (keyFile) =>
  readFileSync(keyFile, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('AGE-SECRET-KEY-1'));

let out;
if (mode === 'backup') {
  const [agentDir, archivePath, keyFile] = args;
  const identity = identityOf(keyFile);
  const recipient = await identityToRecipient(identity);
  const t0 = process.hrtime.bigint();
  // What takeBackup does: collect, write (hash, pack, compress, encrypt, rename), reopen and verify.
  const files = await collectFiles([join(agentDir, 'sessions')], [{ label: 'pi_home', dir: agentDir }]);
  const id = newBackupId();
  const written = await writeArchive({ archivePath, recipient, agent: 'pi', operationId: 'bench', id, itemCount: files.length, retentionDays: 30, files });
  const writeMs = ms(t0);
  const t1 = process.hrtime.bigint();
  const m = await readArchive(archivePath, identity, {}, 'pi');
  if (m.id !== id || m.entries.length !== files.length) throw new Error('verification does not match what was written');
  const verifyMs = ms(t1);
  out = { files: files.length, bytes: written.manifest.originalBytes, archiveBytes: written.archiveBytes, writeMs, verifyMs, totalMs: writeMs + verifyMs };
} else if (mode === 'restore') {
  const [archivePath, keyFile, root, stagingParent] = args;
  const identity = identityOf(keyFile);
  // What `backups restore --yes` does: one all-or-nothing restore that hands over its plan (what the
  // dry run would print) once every byte is staged and hash-checked and the destinations preflighted.
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  let planMs = null;
  const r = await restoreArchive({
    archivePath,
    identity,
    agent: 'pi',
    roots: { pi_home: root },
    uid: process.getuid(),
    stagingParent,
    onPlanned: (p) => {
      if (p.restored.length !== p.manifest.entries.length) throw new Error('the plan does not hold every entry');
      planMs = ms(t0);
    },
  });
  const totalMs = ms(t0);
  if (planMs === null) throw new Error('the restore never handed over its plan');
  // User + system CPU of every thread (zstd and the writes run on libuv's pool), beside the wall time.
  const c = process.cpuUsage(c0);
  out = { files: r.restored.length, bytes: r.manifest.originalBytes, planMs, totalMs, cpuMs: (c.user + c.system) / 1000 };
} else if (mode === 'restore-checked') {
  const [archivePath, keyFile, root, stagingParent] = args;
  const identity = identityOf(keyFile);
  // What the Backups screen does: a dry run (the whole archive decrypted and hash-checked, the
  // destinations preflighted, nothing written), the user's confirmation, then the restore.
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  const dry = await restoreArchive({ archivePath, identity, agent: 'pi', roots: { pi_home: root }, uid: process.getuid(), stagingParent, dryRun: true });
  if (dry.restored.length !== dry.manifest.entries.length) throw new Error('the dry run does not plan every entry');
  const checkMs = ms(t0);
  const t1 = process.hrtime.bigint();
  const r = await restoreArchive({ archivePath, identity, agent: 'pi', roots: { pi_home: root }, uid: process.getuid(), stagingParent });
  const restoreMs = ms(t1);
  const c = process.cpuUsage(c0);
  out = { files: r.restored.length, bytes: r.manifest.originalBytes, checkMs, restoreMs, totalMs: checkMs + restoreMs, cpuMs: (c.user + c.system) / 1000 };
} else {
  process.stderr.write('usage: backup-child.mjs backup|restore|restore-checked …\n');
  process.exit(2);
}
// maxRSS is in KiB.
process.stdout.write(JSON.stringify({ ...out, maxRssBytes: process.resourceUsage().maxRSS * 1024 }) + '\n');
