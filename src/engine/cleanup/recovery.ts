// Recovery of interrupted cleanups. Journal progress never proves success:
// each unfinished operation's agent is rescanned and every path of every
// planned item is looked at. Accept needs everything observed gone; Safely close needs a
// successful rescan and never touches agent data. Interrupted database
// compactions are settled first (compact-recovery.ts decides from what is on
// disk), under every agent's cleanup lock; one it cannot settle is listed as
// Not provable with its reason.

import { agentKinds, agentName, isAgentKind } from '../core/agents.js';
import { acquireAgentLock, liveLockHolder, type AgentLock } from './agent-lock.js';
import { COMPACT_TERMINAL, listCompactions } from './compact-journal.js';
import { JournalStore, listJournals, TERMINAL, type Journal } from './journal.js';
import type { AgentKind, RecoveryOperation, ScanSummary } from '../core/model.js';
import { observePath, type PathState } from './path-safety.js';
import type { Snapshot } from '../inventory/snapshot.js';
import { RequestError } from '../core/validate.js';
import { t } from '../i18n/index.js';

export interface RecoveryDeps {
  stateDir: string;
  rescan(agent: AgentKind): Promise<ScanSummary>;
  snapshot(id: string): Snapshot;
  /** The catalog backup bound to this operation and agent, if one exists. */
  boundBackup(operationId: string, agent: AgentKind): Promise<string | null>;
  /**
   * Restores the backup. `scope` says, for every planned path, what is there
   * now: `missing` paths are restored whole, `changed` ones (a tree partly
   * removed) get back only their absent entries, `intact` ones are left alone.
   */
  restore(backupId: string, passphrase: string, scope: RestoreScope): Promise<void>;
  /** Removes an unverified or uncataloged backup candidate of a closed operation. */
  discardCandidate(backupId: string): Promise<void>;
}

interface RestoreScope {
  paths: { path: string; state: Exclude<PathState, 'replaced'> }[];
}

/** One planned item as observed now: each of its paths, and whether the rescan still lists it. */
export interface ItemObservation {
  itemId: string;
  label: string;
  listed: boolean;
  state: 'present' | 'gone' | 'partial';
  paths: { path: string; state: PathState }[];
}

/** A recovery entry with what was observed of every path of every item (restore uses `items`). */
export interface ObservedRecoveryOperation extends RecoveryOperation {
  items: ItemObservation[];
}

interface Observed {
  observed: RecoveryOperation['observed'];
  reason: string;
  /** A rescan succeeded and every path could be looked at: closing is safe. */
  closable: boolean;
  items: ItemObservation[];
}

async function rescanned(j: Journal, deps: RecoveryDeps, scans: Map<AgentKind, Snapshot | Error>): Promise<Snapshot | Error> {
  let snap = scans.get(j.agent);
  if (!snap) {
    snap = await deps.rescan(j.agent).then(
      (s) => deps.snapshot(s.snapshotId),
      (e: Error) => e,
    );
    scans.set(j.agent, snap);
  }
  return snap;
}

// The helpers below are declared, not assigned to consts: a mutant of a whole
// arrow function is switched at module load, which no test run repeats.

/** A count as the sentence shows it (ungrouped, as before) and the plural it picks. */
function num(n: number): { count: number; n: string } {
  return { count: n, n: String(n) };
}

/**
 * Observes every path of every planned item (against the identities the
 * journal captured before the run) and the rescan's listing. The journal's
 * progress is compared with it, never trusted: "All applied" needs every
 * path gone and no item listed, "Not applied" every path intact, every item
 * listed and no mutation recorded as applied.
 */
async function observe(j: Journal, deps: RecoveryDeps, scans: Map<AgentKind, Snapshot | Error>, identity = true): Promise<Observed> {
  const snap = await rescanned(j, deps, scans);
  if (snap instanceof Error) return { observed: 'Not provable', reason: t('rec.rescanFailed', { message: snap.message }), closable: false, items: [] };
  const pre = new Map<string, { dev: number; ino: number; revision?: string }>();
  if (identity) for (const m of j.mutations) for (const p of m.pre ?? []) pre.set(p.path, p);
  const uid = process.getuid?.() ?? -1;
  let items: ItemObservation[];
  try {
    items = j.plan.items.map((i) => {
      const listed = Boolean(snap.session(i.id) || snap.item(i.id));
      const paths = i.paths.map((p) => ({ path: p, state: observePath(p, pre.get(p), uid) }));
      const intact = paths.every((p) => p.state === 'intact');
      const missing = paths.every((p) => p.state === 'missing');
      const state = intact && listed ? 'present' : missing && !listed ? 'gone' : 'partial';
      return { itemId: i.id, label: i.label, listed, state, paths };
    });
  } catch (e) {
    return { observed: 'Not provable', reason: t('rec.cannotLook', { message: (e as Error).message }), closable: false, items: [] };
  }
  const total = items.length;
  const gone = items.filter((i) => i.state === 'gone').length;
  const present = items.filter((i) => i.state === 'present').length;
  const partial = items.filter((i) => i.state === 'partial');
  const replaced = items.flatMap((i) => i.paths.filter((p) => p.state === 'replaced'));
  const started = j.mutations.some((m) => m.status !== 'pending');
  const applied = j.mutations.filter((m) => m.status === 'applied').length;
  if (gone === total) {
    if (!started)
      return {
        observed: 'Not provable',
        reason: t('rec.goneNotStarted'),
        closable: true,
        items,
      };
    return { observed: 'All applied', reason: allGoneReason(j), closable: true, items };
  }
  if (present === total) {
    if (applied)
      return {
        observed: 'Not provable',
        reason: t('rec.appliedYetPresent', num(applied)),
        closable: true,
        items,
      };
    return { observed: 'Not applied', reason: t('rec.allPresent'), closable: true, items };
  }
  if (!started)
    return {
      observed: 'Not provable',
      reason: t('rec.changedNotStarted', num(total - present)),
      closable: true,
      items,
    };
  const first = partial[0];
  const detail = replaced.length
    ? t('rec.replaced', { path: replaced[0]!.path, more: replaced.length > 1 ? t('rec.replacedMore', { n: String(replaced.length - 1) }) : '' })
    : first
      ? t('rec.partlyGone', {
          label: first.label,
          gone: String(first.paths.filter((p) => p.state !== 'intact').length),
          total: String(first.paths.length),
          count: first.paths.length,
        })
      : '';
  return {
    observed: 'Partially applied',
    reason: t('rec.partial', { ...num(gone), present: String(present), partial: String(partial.length), total: String(total) }) + detail,
    closable: true,
    items,
  };
}

/**
 * Why "All applied": a planned item with paths is gone when every path is;
 * one without paths (a database compaction, a memory reset) when the rescan
 * no longer lists it — that step completed, and is said so, not that its
 * (absent) paths are gone.
 */
function allGoneReason(j: Journal): string {
  const steps = j.plan.items.filter((i) => !i.paths.length);
  if (!steps.length) return t('rec.allGone');
  if (steps.length === j.plan.items.length)
    return steps.length === 1 ? t('rec.stepDone', { label: steps[0]!.label }) : t('rec.stepsDone', { count: steps.length });
  return t('rec.allGoneStepsDone', { count: steps.length });
}

/** Restore fills in what is missing; it cannot work around an entry swapped in by someone else. */
function restorable(o: Observed): boolean {
  return (o.observed === 'All applied' || o.observed === 'Partially applied') && o.items.every((i) => i.paths.every((p) => p.state !== 'replaced'));
}

function scopeOf(o: Observed): RestoreScope {
  return { paths: o.items.flatMap((i) => i.paths.map((p) => ({ path: p.path, state: p.state as Exclude<PathState, 'replaced'> }))) };
}

function compactionEntry(path: string, reason: string): ObservedRecoveryOperation {
  return {
    operationId: path
      .split('/')
      .pop()!
      .replace(/\.json$/, ''),
    agent: null,
    path,
    status: 'compaction',
    recorded: 'A database compaction was interrupted.',
    observed: 'Not provable',
    reason,
    canAccept: false,
    canRestore: false,
    restoreWhyNot: 'A compaction keeps no backup: the original database or its verified copy is the only complete one.',
    canClose: false,
    unknown: false,
    items: [],
  };
}

/**
 * Settles every interrupted compaction while no cleanup can run: the
 * compaction journals do not say which agent's database they changed, so
 * every agent's lock is taken (a compaction only ever runs inside a cleanup,
 * under its agent's lock). Returns the ones that stay blocked.
 */
async function settleCompactions(stateDir: string): Promise<ObservedRecoveryOperation[]> {
  const pending = (await listCompactions(stateDir)).filter((f) => f.kind === 'unknown' || !COMPACT_TERMINAL.includes(f.entry.step));
  if (!pending.length) return [];
  const locks: AgentLock[] = [];
  try {
    for (const a of agentKinds()) {
      const h = liveLockHolder(stateDir, a);
      if (h) {
        const why = `A ${agentName(a)} cleanup is running now (pid ${h.pid}, started ${h.startedAt}); this compaction is looked at when it has finished.`;
        return pending.map((f) => compactionEntry(f.path, why));
      }
      locks.push(acquireAgentLock(stateDir, a));
    }
    // Loaded only for a compaction to settle: it brings the SQLite driver, which no other cleanup needs.
    const { recoverCompactions } = await import('./compact-recovery.js');
    const settled = await recoverCompactions(stateDir);
    return settled.filter((x) => x.result.decision === 'blocked').map((x) => compactionEntry(x.path, x.result.reason));
  } catch (e) {
    return pending.map((f) => compactionEntry(f.path, `The compaction could not be recovered: ${(e as Error).message}`));
  } finally {
    for (const l of locks.reverse()) l.release();
  }
}

export async function listRecovery(deps: RecoveryDeps): Promise<ObservedRecoveryOperation[]> {
  const out: ObservedRecoveryOperation[] = await settleCompactions(deps.stateDir);
  const scans = new Map<AgentKind, Snapshot | Error>();
  for (const e of await listJournals(deps.stateDir)) {
    if (e.kind === 'unknown') {
      out.push({
        operationId: e.path
          .split('/')
          .pop()!
          .replace(/\.json$/, ''),
        agent: null,
        path: e.path,
        status: 'unknown',
        recorded: '—',
        observed: 'Not provable',
        reason: t('rec.badJournal', { reason: e.reason, dir: e.path.slice(0, e.path.lastIndexOf('/')) }),
        canAccept: false,
        canRestore: false,
        restoreWhyNot: 'No verified backup is bound to this journal.',
        canClose: false,
        unknown: true,
        items: [],
      });
      continue;
    }
    const j = e.journal;
    if (TERMINAL.includes(j.status) || !isAgentKind(j.agent)) continue;
    const applied = j.mutations.filter((m) => m.status === 'applied').length;
    const holder = liveLockHolder(deps.stateDir, j.agent);
    const o: Observed = holder
      ? {
          observed: 'Not provable',
          reason: t('rec.running', { agent: agentName(j.agent), pid: String(holder.pid), started: String(holder.startedAt) }),
          closable: false,
          items: [],
        }
      : await observe(j, deps, scans);
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
      canRestore: Boolean(bound) && restorable(o),
      restoreWhyNot: !bound
        ? 'No verified backup is bound to this operation.'
        : !restorable(o)
          ? o.observed === 'Not applied'
            ? 'Nothing planned is missing: there is nothing to restore.'
            : 'Conflicting data is never overwritten: restore needs each planned path either gone, intact, or partly removed by this cleanup.'
          : o.observed === 'Partially applied'
            ? 'Restore what is missing from the verified backup; what is still there is kept.'
            : 'Restore the verified backup.',
      canClose: o.closable,
      unknown: false,
      items: o.items,
    });
  }
  return out;
}

export async function recoveryAction(deps: RecoveryDeps, operationId: string, action: 'accept' | 'close' | 'restore', passphrase = ''): Promise<void> {
  const entries = await listJournals(deps.stateDir);
  const e = entries.find((x) => x.kind === 'journal' && x.journal.operationId === operationId);
  if (e?.kind !== 'journal') throw new RequestError(`No recoverable operation ${operationId}.`);
  const j = e.journal;
  if (TERMINAL.includes(j.status)) return;
  // What the rescan observes must be the database after its compaction was settled, not a half-swapped one.
  await settleCompactions(deps.stateDir);
  const lock = acquireAgentLock(deps.stateDir, j.agent);
  try {
    await act(deps, j, action, passphrase);
  } finally {
    lock.release();
  }
}

async function act(deps: RecoveryDeps, j: Journal, action: 'accept' | 'close' | 'restore', passphrase: string): Promise<void> {
  const o = await observe(j, deps, new Map());
  const store = new JournalStore(deps.stateDir);
  if (action === 'restore') {
    const bound = j.createBackup ? await deps.boundBackup(j.operationId, j.agent) : null;
    if (!bound) throw new RequestError('No verified backup is bound to this operation.');
    if (!restorable(o)) throw new RequestError(`Cannot restore: ${o.reason} Data that is still there is never overwritten.`);
    await deps.restore(bound, passphrase, scopeOf(o));
    // Restored entries are new inodes: the check after a restore is presence, not the old identity.
    const back = await observe(j, deps, new Map(), false);
    if (back.items.some((i) => i.state !== 'present')) {
      const missing = back.items.find((i) => i.state !== 'present')!;
      throw new RequestError(
        `The restore finished but ${missing.label} is not entirely back (${missing.paths.filter((p) => p.state !== 'intact').length} of ${missing.paths.length} paths missing, or not listed by the rescan).`,
      );
    }
    await store.transition(
      j,
      (x) => {
        x.status = 'recovered';
        x.message = `Recovered from backup ${bound}: every planned item is back.`;
      },
      'journal:recovered',
    );
  } else if (action === 'accept') {
    if (o.observed !== 'All applied') throw new RequestError(`Cannot accept: ${o.reason}`);
    await store.transition(
      j,
      (x) => {
        x.status = 'complete';
        x.message = 'Accepted after recovery: the rescan shows every planned item gone.';
      },
      'journal:accepted',
    );
  } else {
    if (!o.closable) throw new RequestError(`Cannot close safely: ${o.reason}`);
    if (j.backupCandidateId && !(await deps.boundBackup(j.operationId, j.agent))) await deps.discardCandidate(j.backupCandidateId);
    await store.transition(
      j,
      (x) => {
        x.status = 'terminated';
        x.message = `Safely closed after recovery (${o.observed.toLowerCase()}); agent data changes that already happened were not undone.`;
      },
      'journal:closed',
    );
  }
}
