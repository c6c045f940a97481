// `cleanerx clean`: the items named by --id, or exactly a reviewed plan file,
// through the usual transaction. Prints the home and the plan first; without
// --yes nothing is removed and the exit is 2 (a usage error: the confirmation
// is missing), whatever the preview found — a plan that would run, one that
// is blocked, a plan file that is out of date.

import { agentName } from '../engine/core/agents.js';
import { formatBytes } from '../engine/core/format.js';
import type { AgentKind, CleanupPlan, ExecuteResult, PlanAction } from '../engine/core/model.js';
import { residueSentences } from '../engine/core/residue-text.js';
import { safe, safeJson, safeText } from '../engine/core/text.js';
import { t } from '../engine/i18n/index.js';
import { UsageError } from './usage-error.js';
import type { CleanArgs } from './clean-args.js';
import type { Engine } from '../engine/api/engine.js';
import type { EngineFactory } from './engine-factory.js';
import { readNewPassphrase, type PassphraseReader } from './passphrase.js';
import type { Printer } from './printer.js';
import { say } from './say.js';

type CleanTarget = { ids: string[] } | { file: string };

interface CleanOptions {
  /** Required with ids; with a plan file it must match the file's agent. */
  agent?: AgentKind;
  what: CleanTarget;
  yes: boolean;
  readOnly: boolean;
  backup: boolean;
  /** The result as JSON on stdout (the plan and the progress go to stderr). */
  json?: boolean;
  /** --archive / --unarchive: the ids are archived or unarchived through the agent's route (default: delete). */
  action?: PlanAction;
}

/** --id, --archive and --unarchive as given: one of them at most, its ids and the action. */
export function archiveIds(
  id: readonly unknown[] = [],
  archive: readonly unknown[] = [],
  unarchive: readonly unknown[] = [],
): { ids: string[]; action: PlanAction } {
  const given = [id, archive, unarchive].filter((x) => x.length);
  if (given.length > 1) throw new UsageError(t('cli.err.oneTarget'));
  if (archive.length) return { ids: archive.map(String), action: 'archive' };
  if (unarchive.length) return { ids: unarchive.map(String), action: 'unarchive' };
  return { ids: id.map(String), action: 'delete' };
}

interface CleanDeps {
  engine: EngineFactory;
  io: Printer;
  passphrase: PassphraseReader;
}

/** --id and --plan as given on the command line, or the usage error saying what is missing. */
export function cleanTarget(ids: readonly string[], plan: string | undefined, agent: AgentKind | undefined): CleanTarget {
  if (plan !== undefined && ids.length) throw new UsageError(t('cli.err.idOrPlan'));
  if (plan === undefined && !ids.length) throw new UsageError(t('cli.err.needIdOrPlan'));
  if (plan === undefined && !agent) throw new UsageError(t('cli.err.idNeedsAgent'));
  return plan === undefined ? { ids: [...ids] } : { file: plan };
}

/** The options yargs's `clean` handler builds, from the fast path's reading of the same words (clean-args.ts): the same calls, the same usage errors. */
export function cleanOptionsOf(a: CleanArgs): CleanOptions {
  const { ids, action } = archiveIds(a.ids, undefined, undefined);
  const what = cleanTarget(ids, a.plan, a.agent);
  return { agent: a.agent, what, action, yes: a.yes, readOnly: a.readOnly, backup: a.backup, json: a.json };
}

export async function runClean(opts: CleanOptions, { engine: makeEngine, io, passphrase: reader }: CleanDeps): Promise<number> {
  const json = io.out;
  const engine = await makeEngine({ readOnly: opts.readOnly });
  const { what, backup } = opts;
  let plans: CleanupPlan[];
  if ('file' in what) {
    const { plansFromFile, printRefusal } = await import('./plan-from-file.js');
    try {
      plans = await plansFromFile(engine, what.file, opts.agent);
    } catch (e) {
      if ((e as { refused?: boolean }).refused) return printRefusal(io, e as Error, opts.yes ? 1 : 2);
      throw e;
    }
  } else {
    if (!opts.agent) throw new UsageError(t('cli.err.idNeedsAgent'));
    // An action the agent has no route for (pi archives nothing) is refused before anything is read.
    if (opts.action === 'archive' || opts.action === 'unarchive') engine.assertActionRoute(opts.agent, opts.action);
    const summary = await engine.scan(opts.agent);
    // Bare session ids are accepted as well as item ids; an id that names nothing is passed on (and refused) as it was given.
    const snap = engine.snapshot(summary.snapshotId);
    const listed = (id: string): boolean => Boolean(snap.item(id) || snap.session(id));
    const itemIds = what.ids.map((id) => (!listed(id) && listed(`session:${id}`) ? `session:${id}` : id));
    plans = [await engine.plan(summary.snapshotId, itemIds, opts.action)];
  }
  // With --json stdout is the result alone: the human lines go beside it.
  if (opts.json) io = { ...io, out: io.err };
  // Every agent's plan is shown and checked before any of them runs: a blocked one stops them all.
  let blocked = false;
  for (const plan of plans) if (printPlan(engine, plan, io)) blocked = true;
  if (blocked) return opts.yes ? 1 : 2;
  for (const plan of plans) if (backup && !plan.backupEligible) throw new UsageError(t('cli.err.noBackup', { why: plan.backupWhyNot ?? '' }));
  const archive = plans[0]!.action === 'archive' || plans[0]!.action === 'unarchive' ? (plans[0]!.action as 'archive' | 'unarchive') : null;
  const oneWay = archive === 'archive' && plans.some((p) => p.irreversible);
  if (!opts.yes && archive)
    throw new UsageError(
      t(oneWay ? 'cli.err.confirmArchiveOneWay' : 'cli.err.confirmArchive', {
        action: t(`cli.action.${archive}`),
        agent: plans.map((p) => agentName(p.agent)).join(', '),
      }),
    );
  if (!opts.yes) throw new UsageError(t(backup ? 'cli.err.confirmClean' : 'cli.err.confirmCleanIrreversible'));
  let passphrase: string | undefined;
  if (backup && (await engine.keyInfo()).needsPassphrase) {
    const key = await engine.keyInfo();
    passphrase = await readNewPassphrase(reader, key.exists, t('cli.err.differRemoved'));
  }
  // One transaction per agent in turn, each journaled and recoverable on its own; a failed one stops the rest.
  const results: Record<string, unknown>[] = [];
  let code = 0;
  for (const plan of plans) {
    const r = await engine.execute(plan.id, { backup, passphrase }, (p) => {
      if (p.phase === 'deleting' && p.current) io.progress(say('cli.clean.removing', { n: String(p.done + 1), total: String(p.total) }));
    });
    for (const w of r.warnings ?? []) io.out(say('cli.clean.warning', { warning: safeText(w) }));
    // The verdict line stays last: scripts read it.
    for (const line of residueSentences(r.residue)) io.out(safeText(line));
    io.out(say(r.status === 'complete' ? 'cli.clean.complete' : 'cli.clean.failed', { message: safeText(r.message), id: safeText(r.operationId) }));
    results.push({ ...cleanReport(r), action: plan.action ?? 'delete', ...(plans.length > 1 ? { agent: plan.agent } : {}) });
    if (r.status !== 'complete') {
      code = 1;
      break;
    }
  }
  // A single agent's result is the object it always was; a plan set's is one per agent that ran.
  if (opts.json) json(safeJson(plans.length > 1 ? { formatVersion: 1, results } : results[0]!));
  return code;
}

/** The home, the plan's summary, its items and notes; true when it is blocked (the reasons went to stderr). */
function printPlan(engine: Engine, plan: CleanupPlan, io: Printer): boolean {
  const agent = plan.agent;
  const installation = engine.snapshot(plan.snapshotId).installation;
  // The home comes from the environment or a settings override: say which tree this is before anything else.
  io.out(say('cli.home', { agent: agentName(agent), home: safeText(installation.home) }));
  const archive = plan.action === 'archive' || plan.action === 'unarchive' ? plan.action : null;
  // An archive the agent cannot take back (OpenCode 1.18 has no unarchive) is never called reversible.
  const oneWay = archive === 'archive' && plan.irreversible;
  if (archive)
    io.out(
      say(oneWay ? 'cli.clean.archiveSummaryOneWay' : 'cli.clean.archiveSummary', {
        agent: agentName(agent),
        action: t(`cli.action.${archive}`),
        sessions: t('count.sessions', { count: plan.items.length }),
      }),
    );
  else
    io.out(
      say('cli.clean.summary', { agent: agentName(agent), items: t('count.items', { count: plan.items.length }), bytes: formatBytes(plan.estimatedBytes) }),
    );
  // The list in writes of up to 1,000 lines: a pipe or a file takes each write as a system call (and a spread of 100k arguments would overflow the stack).
  const lines = plan.items.map(
    (i) =>
      safe`  ${i.depth ? '  └ ' : ''}${safeText(i.id)}  ${formatBytes(i.bytes)}  ${safeText(i.label)}${i.includedBecause ? safe` (${safeText(i.includedBecause)})` : ''}`,
  );
  for (let at = 0; at < lines.length; at += 1000) io.out(...lines.slice(at, at + 1000));
  for (const n of plan.routeNotes) io.out(safeText(n));
  const blockers = [...plan.blockers, ...plan.operations.flatMap((o) => o.blockers)];
  for (const b of blockers) io.err(say('cli.clean.blocked', { reason: safeText(b) }));
  return blockers.length > 0;
}

/** `clean --json`: ids, counts and codes only (language-neutral); `freed` as engine/cleanup/freed-bytes.ts measured it. */
function cleanReport(r: ExecuteResult): Record<string, unknown> {
  return {
    formatVersion: 1,
    operationId: r.operationId,
    status: r.status,
    removedItems: r.removedItems,
    removedBytes: r.removedBytes,
    backupId: r.backupId ?? null,
    freed: r.freed ?? null,
    // docs/residue.md: per removed item, complete or the surfaces where something of it survives.
    residue: r.residue?.map(({ id, verdict, surfaces }) => ({ id, verdict, surfaces })) ?? null,
  };
}
