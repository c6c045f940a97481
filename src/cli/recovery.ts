// `cleanerx recovery [list|accept|close|restore] [operation]`: interrupted
// cleanups, each with what its journal recorded and what is there now.

import { agentName } from '../engine/core/agents.js';
import type { SettledRestore } from '../engine/cleanup/backup-service.js';
import type { ItemObservation } from '../engine/cleanup/recovery.js';
import { t } from '../engine/i18n/index.js';
import { padWidth, safe, safeText, type SafeText } from '../engine/core/text.js';
import { UsageError } from './usage-error.js';
import type { EngineFactory } from './engine-factory.js';
import type { PassphraseReader } from './passphrase.js';
import type { Printer } from './printer.js';
import { say } from './say.js';

export type RecoveryAction = 'list' | 'accept' | 'close' | 'restore';

interface RecoveryOptions {
  action: RecoveryAction;
  /** The operation id (for accept, close and restore). */
  operation?: string;
}

export interface RecoveryDeps {
  engine: EngineFactory;
  io: Printer;
  passphrase: PassphraseReader;
}

export async function runRecovery(opts: RecoveryOptions, { engine: makeEngine, io, passphrase: reader }: RecoveryDeps): Promise<number> {
  const engine = await makeEngine({ readOnly: false });
  const { action, operation } = opts;
  if (action !== 'list') {
    if (!operation) throw new UsageError(t('cli.err.operationId', { action }));
    // Restore brings back the verified backup bound to the operation (asks for the key passphrase unless the key ring unlocks it).
    const passphrase = action === 'restore' && (await engine.keyInfo()).needsPassphrase ? await reader.read(say('cli.pass.key')) : undefined;
    await engine.recoveryAction(operation, action, passphrase);
  }
  const ops = await engine.recoveryList();
  // An interrupted restore is settled first (finished or rolled back): what happened to it is said, not only that no cleanup is interrupted.
  for (const s of engine.takeSettledRestores()) io.out(settledLine(s));
  if (!ops.length) io.out(say('cli.recovery.none'));
  for (const o of ops) {
    io.out(
      safe`${safeText(o.operationId)}  ${o.agent ? agentName(o.agent) : t('cli.recovery.unknownAgent')}  ${safeText(o.status)}`,
      say('cli.recovery.recorded', { recorded: safeText(o.recorded) }),
      say('cli.recovery.observed', { observed: safeText(o.observed), reason: safeText(o.reason) }),
      // The actions are the words recovery takes on its command line: the same in every language.
      say('cli.recovery.can', {
        actions:
          RECOVERY_ACTIONS.filter((a) => o[a.can])
            .map((a) => a.action)
            .join(', ') || t('cli.recovery.canNothing'),
      }),
      ...itemLines(o.items ?? []),
    );
  }
  return 0;
}

/** What settling one interrupted restore did, in one line. */
function settledLine(s: SettledRestore): SafeText {
  const backup = safeText(s.backupId ?? s.restoreId);
  if (s.outcome === 'completed') return say('cli.recovery.restoreCompleted', { backup, files: t('count.files', { count: s.restored.length }) });
  if (s.outcome === 'rolledBack') return say('cli.recovery.restoreRolledBack', { backup });
  if (s.outcome === 'discarded') return say('cli.recovery.restoreDiscarded', { backup });
  return say('cli.recovery.restorePending', { message: safeText(s.message) });
}

/** Paths listed per partly removed item; the rest is counted. */
const PATHS_PER_ITEM = 20;
const PATH_STATES = new Set(['intact', 'missing', 'changed', 'replaced']);
const RECOVERY_ACTIONS = [
  { can: 'canAccept', action: 'accept' },
  { can: 'canClose', action: 'close' },
  { can: 'canRestore', action: 'restore' },
] as const;

/** Each planned item's state; a partly removed one with the state of each of its paths (bounded). */
export function itemLines(items: readonly ItemObservation[]): SafeText[] {
  const out: SafeText[] = [];
  for (const i of items) {
    out.push(
      say('cli.recovery.item', {
        state: i.state.padEnd(7),
        label: safeText(i.label),
        id: safeText(i.itemId),
        unlisted: i.listed ? '' : t('cli.recovery.unlisted'),
      }),
    );
    if (i.state !== 'partial') continue;
    // A path's state is the journal's code (intact, missing, changed, replaced), shown as it is.
    for (const p of i.paths.slice(0, PATHS_PER_ITEM))
      out.push(safe`    ${padWidth(PATH_STATES.has(p.state) ? p.state : t('cli.recovery.pathUnknown'), 8)} ${safeText(p.path)}`);
    if (i.paths.length > PATHS_PER_ITEM) out.push(say('cli.recovery.more', { count: String(i.paths.length - PATHS_PER_ITEM) }));
  }
  return out;
}
