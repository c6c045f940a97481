// `cleanerx recovery [list|accept|close|restore] [operation]`: interrupted
// cleanups, each with what its journal recorded and what is there now.

import type { ItemObservation } from '../engine/cleanup/recovery.js';
import { AGENT_NAMES } from '../engine/core/model.js';
import { safe, safeText, type SafeText } from '../engine/core/text.js';
import { UsageError } from '../engine/host/own-dirs.js';
import type { EngineFactory } from './engine-factory.js';
import type { PassphraseReader } from './passphrase.js';
import type { Printer } from './printer.js';

export type RecoveryAction = 'list' | 'accept' | 'close' | 'restore';

export interface RecoveryOptions {
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
    if (!operation) throw new UsageError(`recovery ${action} needs an operation id (see cleanerx recovery list).`);
    // Restore brings back the verified backup bound to the operation (asks for the key passphrase unless the key ring unlocks it).
    const passphrase = action === 'restore' && (await engine.keyInfo()).needsPassphrase ? await reader.read(safe`Backup key passphrase: `) : undefined;
    await engine.recoveryAction(operation, action, passphrase);
  }
  const ops = await engine.recoveryList();
  if (!ops.length) io.out(safe`No interrupted cleanup.`);
  for (const o of ops) {
    io.out(
      safe`${safeText(o.operationId)}  ${o.agent ? AGENT_NAMES[o.agent] : 'unknown'}  ${safeText(o.status)}`,
      safe`  recorded: ${safeText(o.recorded)}`,
      safe`  observed: ${safeText(o.observed)} — ${safeText(o.reason)}`,
      safe`  can: ${[o.canAccept && 'accept', o.canClose && 'close', o.canRestore && 'restore'].filter(Boolean).join(', ') || 'nothing (inspect the journal)'}`,
      ...itemLines(o.items ?? []),
    );
  }
  return 0;
}

/** Paths listed per partly removed item; the rest is counted. */
const PATHS_PER_ITEM = 20;
const PATH_STATE_TEXT: Record<string, string> = { intact: 'intact', missing: 'missing', changed: 'changed', replaced: 'replaced' };

/** Each planned item's state; a partly removed one with the state of each of its paths (bounded). */
export function itemLines(items: readonly ItemObservation[]): SafeText[] {
  const out: SafeText[] = [];
  for (const i of items) {
    out.push(safe`  item ${i.state.padEnd(7)} ${safeText(i.label)} (${safeText(i.itemId)})${i.listed ? '' : ', not listed by the rescan'}`);
    if (i.state !== 'partial') continue;
    for (const p of i.paths.slice(0, PATHS_PER_ITEM)) out.push(safe`    ${(PATH_STATE_TEXT[p.state] ?? 'unknown').padEnd(8)} ${safeText(p.path)}`);
    if (i.paths.length > PATHS_PER_ITEM) out.push(safe`    … and ${i.paths.length - PATHS_PER_ITEM} more`);
  }
  return out;
}
