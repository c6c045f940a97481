// A separate process that restores one archive, so the crash tests can
// SIGKILL a real restore at a named point (CLEANERX_CRASH_AT). Run with
// `node --import jiti/register`. argv[2]: JSON RestoreOptions, or
// {"engine": {"id", "passphrase"}} to restore a catalog backup through the
// Engine as `cleanerx backups restore` does (HOME etc. from the environment).
import { ADAPTERS } from '../../src/adapters/registry.js';
import { restoreArchive, type RestoreOptions } from '../../src/backup/restore.js';
import { defaultHostContext } from '../../src/engine/core/adapter.js';
import { Engine } from '../../src/engine/api/engine.js';
import { backupService } from '../../src/backup/service.js';

const arg = JSON.parse(process.argv[2]!) as RestoreOptions | { engine: { id: string; passphrase: string } };
const run = async (): Promise<{ restored: number; alreadyPresent?: number }> => {
  if ('engine' in arg) {
    const ctx = defaultHostContext(process.env);
    ctx.procRoot = process.env.CLEANERX_PROC_ROOT ?? ctx.procRoot;
    const r = await new Engine(ADAPTERS, ctx, undefined, backupService(ctx.env)).backupRestore(arg.engine.id, arg.engine.passphrase);
    return { restored: r.restored };
  }
  const r = await restoreArchive(arg);
  return { restored: r.restored.length, alreadyPresent: r.alreadyPresent.length };
};
run().then(
  (r) => process.stdout.write(JSON.stringify(r) + '\n'),
  (e: Error) => {
    process.stderr.write(`${e.message}\n`);
    process.exitCode = 1;
  },
);
