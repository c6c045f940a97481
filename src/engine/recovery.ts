// Recovery of interrupted cleanups. Journal progress never proves success:
// each unfinished operation's agent is rescanned and every planned item is
// looked for. Accept needs everything observed gone; Safely close needs a
// successful rescan and never touches agent data.

import { JournalStore, listJournals, TERMINAL, type Journal } from './journal.js';
import { AGENT_KINDS, type AgentKind, type RecoveryOperation, type ScanSummary } from './model.js';
import type { Snapshot } from './snapshot.js';
import { RequestError } from './validate.js';

export interface RecoveryDeps {
  stateDir: string;
  rescan(agent: AgentKind): Promise<ScanSummary>;
  snapshot(id: string): Snapshot;
  /** The catalog backup bound to this operation and agent, if one exists. */
  boundBackup(operationId: string, agent: AgentKind): Promise<string | null>;
  restore(backupId: string, passphrase: string): Promise<void>;
  /** Removes an unverified or uncataloged backup candidate of a closed operation. */
  discardCandidate(backupId: string): Promise<void>;
}

interface Observed {
  observed: RecoveryOperation['observed'];
  reason: string;
}

async function observe(j: Journal, deps: RecoveryDeps, scans: Map<AgentKind, Snapshot | Error>): Promise<Observed> {
  let snap = scans.get(j.agent);
  if (!snap) {
    snap = await deps.rescan(j.agent).then(
      (s) => deps.snapshot(s.snapshotId),
      (e: Error) => e,
    );
    scans.set(j.agent, snap);
  }
  if (snap instanceof Error) return { observed: 'Not provable', reason: `The rescan failed: ${snap.message}` };
  const s = snap;
  const present = j.plan.items.filter((i) => s.session(i.id) || s.item(i.id));
  if (present.length === 0) return { observed: 'All applied', reason: 'No planned item is present any more.' };
  if (present.length === j.plan.items.length) return { observed: 'Not applied', reason: 'Every planned item is still present.' };
  return { observed: 'Partially applied', reason: `${present.length} of ${j.plan.items.length} planned items are still present.` };
}

export async function listRecovery(deps: RecoveryDeps): Promise<RecoveryOperation[]> {
  const out: RecoveryOperation[] = [];
  const scans = new Map<AgentKind, Snapshot | Error>();
  for (const e of await listJournals(deps.stateDir)) {
    if (e.kind === 'unknown') {
      out.push({
        operationId: e.path.split('/').pop()!.replace(/\.json$/, ''),
        agent: null,
        path: e.path,
        status: 'unknown',
        recorded: '—',
        observed: 'Not provable',
        reason: `${e.reason} cleanerx cannot prove what it did, so all cleanup stays blocked; inspect the file and move it out of ${e.path.slice(0, e.path.lastIndexOf('/'))} to unblock.`,
        canAccept: false,
        canRestore: false,
        restoreWhyNot: 'No verified backup is bound to this journal.',
        canClose: false,
        unknown: true,
      });
      continue;
    }
    const j = e.journal;
    if (TERMINAL.includes(j.status) || !AGENT_KINDS.includes(j.agent)) continue;
    const applied = j.mutations.filter((m) => m.status === 'applied').length;
    const o = await observe(j, deps, scans);
    // A backup the catalog binds to this operation counts even if the crash came before the journal said so.
    const bound = j.createBackup ? await deps.boundBackup(j.operationId, j.agent) : null;
    out.push({
      operationId: j.operationId,
      agent: j.agent,
      path: e.path,
      status: j.status,
      recorded: `${applied} of ${j.mutations.length} mutations recorded as applied${j.message ? ` · ${j.message}` : ''}`,
      observed: o.observed,
      reason: o.reason,
      canAccept: o.observed === 'All applied',
      canRestore: Boolean(bound) && o.observed === 'All applied',
      restoreWhyNot: !bound
        ? 'No verified backup is bound to this operation.'
        : o.observed !== 'All applied'
          ? 'Partial or conflicting data is never overwritten: restore needs every planned item absent.'
          : 'Restore the verified backup.',
      canClose: o.observed !== 'Not provable',
      unknown: false,
    });
  }
  return out;
}

export async function recoveryAction(deps: RecoveryDeps, operationId: string, action: 'accept' | 'close' | 'restore', passphrase = ''): Promise<void> {
  const entries = await listJournals(deps.stateDir);
  const e = entries.find((x) => x.kind === 'journal' && x.journal.operationId === operationId);
  if (!e || e.kind !== 'journal') throw new RequestError(`No recoverable operation ${operationId}.`);
  const j = e.journal;
  if (TERMINAL.includes(j.status)) return;
  const o = await observe(j, deps, new Map());
  const store = new JournalStore(deps.stateDir);
  if (action === 'restore') {
    const bound = j.createBackup ? await deps.boundBackup(j.operationId, j.agent) : null;
    if (!bound) throw new RequestError('No verified backup is bound to this operation.');
    if (o.observed !== 'All applied') throw new RequestError(`Cannot restore: ${o.reason} Partial data is never overwritten or merged.`);
    await deps.restore(bound, passphrase);
    const back = await observe(j, deps, new Map());
    if (back.observed !== 'Not applied') throw new RequestError(`The restore finished but the rescan does not find every planned item (${back.reason}).`);
    await store.transition(j, (x) => {
      x.status = 'recovered';
      x.message = `Recovered from backup ${bound}: every planned item is back.`;
    }, 'journal:recovered');
  } else if (action === 'accept') {
    if (o.observed !== 'All applied') throw new RequestError(`Cannot accept: ${o.reason}`);
    await store.transition(j, (x) => {
      x.status = 'complete';
      x.message = 'Accepted after recovery: the rescan shows every planned item gone.';
    }, 'journal:accepted');
  } else {
    if (o.observed === 'Not provable') throw new RequestError(`Cannot close safely: ${o.reason}`);
    if (j.backupCandidateId && !(await deps.boundBackup(j.operationId, j.agent))) await deps.discardCandidate(j.backupCandidateId);
    await store.transition(j, (x) => {
      x.status = 'terminated';
      x.message = `Safely closed after recovery (${o.observed.toLowerCase()}); agent data changes that already happened were not undone.`;
    }, 'journal:closed');
  }
}
