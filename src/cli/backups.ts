// `cleanerx backups [list|verify|restore|delete] [id]`: the backup catalog.
// Restore shows what it would create first; delete and restore need --yes
// (with it, the restore's one pass shows that plan before it writes).

import { agentName } from '../engine/core/agents.js';
import { formatBytes, formatCount } from '../engine/core/format.js';
import { t } from '../engine/i18n/index.js';
import { safe, safeText, type SafeText } from '../engine/core/text.js';
import { UsageError } from './usage-error.js';
import type { Engine } from '../engine/api/engine.js';
import type { RestoreSummary } from '../engine/core/model.js';
import type { EngineFactory } from './engine-factory.js';
import { runKeyStore } from './key.js';
import { NoPassphraseError, type PassphraseReader } from './passphrase.js';
import type { Printer } from './printer.js';
import { say } from './say.js';

/** How many paths a restore plan prints before "… and N more". */
export const RESTORE_LIST_MAX = 200;

/** The paths a restore would create, at most `max` of them, then one line for the rest. */
export function restoreListLines(dry: Pick<RestoreSummary, 'paths' | 'emptyDirs'>, max = RESTORE_LIST_MAX): SafeText[] {
  const out: SafeText[] = [];
  const total = dry.paths.length + dry.emptyDirs.length;
  for (let i = 0; i < dry.paths.length && out.length < max; i++) out.push(safe`  ${safeText(dry.paths[i]!)}`);
  for (let i = 0; i < dry.emptyDirs.length && out.length < max; i++) out.push(safe`  ${safeText(dry.emptyDirs[i]!)}/`);
  if (total > out.length) out.push(say('cli.backups.andMore', { n: formatCount(total - out.length) }));
  return out;
}

export type BackupsAction = 'list' | 'verify' | 'restore' | 'delete' | 'key-store';

interface BackupsOptions {
  action: BackupsAction;
  /** The backup id, or file|keyring for key-store. */
  id?: string;
  yes: boolean;
}

interface BackupsDeps {
  engine: EngineFactory;
  io: Printer;
  passphrase: PassphraseReader;
}

export async function runBackups(opts: BackupsOptions, deps: BackupsDeps): Promise<number> {
  const { action, id, yes } = opts;
  if (action === 'key-store') return runKeyStore({ to: id }, deps);
  const { io } = deps;
  const engine = await deps.engine({ readOnly: false });
  if (action === 'list') {
    const list = await engine.backupsList();
    if (!list.length) io.out(say('cli.backups.none'));
    for (const b of list) {
      io.out(
        say('cli.backups.row', {
          id: safeText(b.id),
          agent: agentName(b.agent) ?? safeText(b.agent),
          created: safeText(b.createdAt),
          items: t('count.items', { count: b.itemCount }),
          onDisk: b.onDiskBytes === null ? '—' : formatBytes(b.onDiskBytes),
          original: formatBytes(b.originalBytes),
          archive: formatBytes(b.archiveBytes),
          verified: safeText(b.verifiedAt),
        }),
      );
    }
    return 0;
  }
  if (!id) throw new UsageError(t('cli.err.backupId', { action }));
  if (action === 'delete') {
    if (!yes) throw new UsageError(t('cli.err.confirmDelete'));
    await engine.backupDelete(id);
    io.out(say('cli.backups.deleted', { id: safeText(id) }));
    return 0;
  }
  let passphrase = '';
  try {
    if ((await engine.keyInfo()).needsPassphrase) passphrase = await deps.passphrase.read(say('cli.pass.key'));
  } catch (e) {
    // Nothing on standard input and no --yes: the missing confirmation is what to say, not the missing passphrase.
    if (e instanceof NoPassphraseError && action === 'restore' && !yes) throw new UsageError(t('cli.err.confirmRestoreUnseen'));
    throw e;
  }
  if (action === 'verify') {
    const r = await engine.backupVerify(id, passphrase);
    io.out(say('cli.backups.verified', { count: r.entries, bytes: formatBytes(r.bytes) }));
    return 0;
  }
  const folders = (n: number): string => t('cli.backups.folders', { count: n });
  // "3 files", "1 session": the unit with its count, in the catalog's plural.
  const counted = (unit: RestoreSummary['unit'], n: number): string => t(unit === 'sessions' ? 'count.sessions' : 'count.files', { count: n });
  const showPlan = (dry: RestoreSummary): void => {
    io.out(
      say('cli.backups.wouldCreate', {
        what: counted(dry.unit, dry.restored),
        bytes: formatBytes(dry.bytes),
        present: dry.alreadyPresent ? t('cli.backups.wouldPresent', { count: String(dry.alreadyPresent) }) : '',
        dirs: dry.emptyDirs.length ? t('cli.backups.wouldDirs', { folders: folders(dry.emptyDirs.length) }) : '',
      }),
    );
    // Bounded, and never spread into one call: a 200k-file restore overflowed the stack.
    for (const line of restoreListLines(dry)) io.out(line);
  };
  if (!yes) {
    const dry = await engine.backupRestore(id, passphrase, true);
    showPlan(dry);
    throw new UsageError(t('cli.err.confirmRestore', { what: counted(dry.unit, dry.restored) }));
  }
  const { r, what } = await restoreConfirmed(engine, id, passphrase, showPlan);
  io.out(
    say('cli.backups.restored', {
      what: counted(what, r.restored),
      present: r.alreadyPresent ? t('cli.backups.restoredPresent', { count: String(r.alreadyPresent) }) : '',
      dirs: r.emptyDirs.length ? t('cli.backups.restoredDirs', { folders: folders(r.emptyDirs.length) }) : '',
    }),
  );
  for (const n of r.notInBackup) io.out(safeText(n));
  return 0;
}

/**
 * `--yes`: one pass. The real restore stages and hash-checks every byte and
 * preflights every destination before it writes any; it hands over the plan
 * its check would have shown right then. A refusal before that point (the
 * agent running, its lock held, a wrong passphrase, a corrupt archive, a
 * conflict) is answered as the check-then-restore did: the check's own
 * refusal, or else its plan and then this refusal.
 */
async function restoreConfirmed(
  engine: Engine,
  id: string,
  passphrase: string,
  showPlan: (planned: RestoreSummary) => void,
): Promise<{ r: RestoreSummary; what: RestoreSummary['unit'] }> {
  const seen: { planned: RestoreSummary | null } = { planned: null };
  try {
    const r = await engine.backupRestore(id, passphrase, false, undefined, (planned) => {
      seen.planned = planned;
      showPlan(planned);
    });
    return { r, what: seen.planned?.unit ?? r.unit };
  } catch (e) {
    if (seen.planned) throw e;
    showPlan(await engine.backupRestore(id, passphrase, true));
    throw e;
  }
}
