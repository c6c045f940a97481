// A separate process that restores one archive, so the crash tests can
// SIGKILL a real restore at a named point (CLEANERX_CRASH_AT). Run with
// `node --import jiti/register`. argv[2]: JSON RestoreOptions.
import { restoreArchive, type RestoreOptions } from '../../src/backup/restore.js';

const o = JSON.parse(process.argv[2]!) as RestoreOptions;
restoreArchive(o).then(
  (r) => {
    process.stdout.write(JSON.stringify({ restored: r.restored.length, alreadyPresent: r.alreadyPresent.length }) + '\n');
  },
  (e: Error) => {
    process.stderr.write(`${e.message}\n`);
    process.exitCode = 1;
  },
);
