// A separate process that restores one archive, so the crash tests can
// SIGKILL a real restore at a named point (CLEANERX_CRASH_AT). argv[2]: JSON
// RestoreOptions, or {"engine": {"id", "passphrase"}} to restore a catalog
// backup through the Engine as `cleanerx backups restore` does (HOME etc.
// from the environment).
import { load } from './child-modules.mjs';

const arg = JSON.parse(process.argv[2]);
const run = async () => {
  const { ADAPTERS } = await load('adapters/registry');
  if ('engine' in arg) {
    const { defaultHostContext } = await load('engine/core/adapter');
    const { Engine } = await load('engine/api/engine');
    const { backupService } = await load('backup/service');
    const ctx = defaultHostContext(process.env);
    ctx.procRoot = process.env.CLEANERX_PROC_ROOT ?? ctx.procRoot;
    const r = await new Engine(ADAPTERS, ctx, undefined, backupService(ctx.env)).backupRestore(arg.engine.id, arg.engine.passphrase);
    return { restored: r.restored };
  }
  const { restoreArchive } = await load('backup/restore');
  const r = await restoreArchive(arg);
  return { restored: r.restored.length, alreadyPresent: r.alreadyPresent.length };
};
run().then(
  (r) => process.stdout.write(`${JSON.stringify(r)}\n`),
  (e) => {
    process.stderr.write(`${e.message}\n`);
    process.exitCode = 1;
  },
);
