// The non-interactive commands (scan, doctor) and the yargs definition.
// Loaded only when the command line has more than the bare app's flags.

import { readFileSync } from 'node:fs';
import type { AppFlags } from './app/flags.js';
import type { Engine } from './engine/api/engine.js';
import { cliEngine } from './cli/engine-factory.js';
import { formatBytes, formatCount } from './engine/core/format.js';
import { AGENT_KINDS, AGENT_NAMES, CATEGORY_LABELS, type AgentKind, type Category, type CleanupPlan } from './engine/core/model.js';
import { ownDirs, UsageError } from './engine/host/own-dirs.js';
import { buildScanReport } from './engine/api/scan-report.js';
import type { ItemObservation } from './engine/cleanup/recovery.js';
import type { LoadedSettings } from './engine/host/settings.js';
import { joinSafe, safe, safeJson, safeText, type SafeText } from './engine/core/text.js';
import type { RuleArgs } from './plan-command.js';
import { printErr, printOut, printProgress, printPrompt } from './terminal-out.js';

export function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

export async function runCommandLine(argv: string[], startApp: (f: AppFlags) => Promise<number>): Promise<number> {
  const { default: yargs } = await import('yargs');
  let code = 0;
  const parser = yargs(argv)
    .scriptName('cleanerx')
    .usage('$0 [--demo [--keep]] [--read-only] [--agent A]\n\nInventory and safely clean the local data of Codex, Claude Code, OpenCode and pi.')
    .option('read-only', { type: 'boolean', default: false, describe: 'Never offer any mutation route' })
    .option('demo', { type: 'boolean', default: false, describe: 'Open the app on a generated throw-away home' })
    .option('keep', { type: 'boolean', default: false, describe: 'With --demo: keep the demo home on exit' })
    .command(
      'scan',
      'Print an inventory of the agents\u2019 local data',
      (y) =>
        y
          .option('agent', { choices: [...AGENT_KINDS], describe: 'Only this agent' })
          .option('json', { type: 'boolean', default: false, describe: 'Machine-readable output (see README)' }),
      async (a) => {
        code = await scanCommand(a.agent as AgentKind | undefined, a.json, a['read-only']);
      },
    )
    .command(
      'plan',
      'Print the cleanup that retention rules select (nothing is removed; --json for clean --plan)',
      (y) =>
        y
          .option('agent', { choices: [...AGENT_KINDS], demandOption: true, describe: 'The agent whose sessions the rules select' })
          .option('older-than', { type: 'string', describe: 'Whole trees last used longer ago than D (30d, 2w, 48h)' })
          .option('larger-than', { type: 'string', describe: 'Sessions freeing more than SIZE (500M, 1.5G)' })
          .option('keep-latest', { type: 'string', describe: 'Keep the N most recently used trees of each project' })
          .option('empty', { type: 'boolean', describe: 'Sessions without a user message (where the agent records it)' })
          .option('orphans', { type: 'boolean', describe: 'Sessions whose parent is gone' })
          .option('project', { type: 'string', describe: 'Only this project (its id or root path)' })
          .option('source', { type: 'string', describe: 'Only this source (cli, vscode, exec, …)' })
          .option('state', { choices: ['current', 'archived'], describe: 'Only current or archived sessions' })
          .option('json', { type: 'boolean', default: false, describe: 'The versioned plan file (see README)' }),
      async (a) => {
        const { planCommand, rulesFromArgs } = await import('./plan-command.js');
        const rules = rulesFromArgs(a as RuleArgs);
        code = await planCommand(engineForCli(Boolean(a['read-only'])), a.agent as AgentKind, rules, a.json);
      },
    )
    .command(
      'clean',
      'Remove items without the UI (review with scan --json or plan first)',
      (y) =>
        y
          .option('agent', { choices: [...AGENT_KINDS], describe: 'The agent whose items are removed (with --plan: taken from the file)' })
          .option('id', { type: 'string', array: true, describe: 'Item id from scan --json (session:<id>, cache:…); repeatable' })
          .option('plan', { type: 'string', describe: 'Run exactly this plan file from cleanerx plan --json (refused when anything in it changed)' })
          .option('yes', { type: 'boolean', default: false, describe: 'Confirm: without it nothing is removed' })
          .option('backup', { type: 'boolean', default: false, describe: 'Take an encrypted, verified backup first (asks for the key passphrase)' }),
      async (a) => {
        const ids = ((a.id as string[] | undefined) ?? []).map(String);
        if (a.plan !== undefined && ids.length) throw new UsageError('clean takes either --id or --plan, not both.');
        if (a.plan === undefined && !ids.length) throw new UsageError('clean needs --id ITEM (repeatable) or --plan FILE.');
        if (a.plan === undefined && !a.agent) throw new UsageError('clean --id needs --agent.');
        code = await cleanCommand(a.agent as AgentKind | undefined, a.plan === undefined ? { ids } : { file: String(a.plan) }, a.yes, Boolean(a['read-only']), a.backup);
      },
    )
    .command(
      'recovery [action] [operation]',
      'List interrupted cleanups, or accept / close / restore one',
      (y) =>
        y
          .positional('action', { choices: ['list', 'accept', 'close', 'restore'], default: 'list' })
          .positional('operation', { type: 'string', describe: 'Operation id (for accept, close and restore)' }),
      async (a) => {
        code = await recoveryCommand(String(a.action), a.operation ? String(a.operation) : undefined);
      },
    )
    .command(
      'backups [action] [id]',
      'The backup catalog: list, verify ID, restore ID, delete ID; key-store file|keyring',
      (y) =>
        y
          .positional('action', { choices: ['list', 'verify', 'restore', 'delete', 'key-store'], default: 'list' })
          .positional('id', { type: 'string', describe: 'Backup id (see cleanerx backups list), or file|keyring for key-store' })
          .option('yes', { type: 'boolean', default: false, describe: 'Confirm restore or delete' }),
      async (a) => {
        code = await backupsCommand(String(a.action), a.id ? String(a.id) : undefined, a.yes);
      },
    )
    .command('doctor', 'Report what was detected for each agent', {}, async (a) => {
      code = await doctorCommand(Boolean(a['read-only']));
    })
    .command('$0', false, (y) => y.option('agent', { choices: [...AGENT_KINDS], describe: 'Open the app on this agent' }), async (a) => {
      code = await startApp({ demo: Boolean(a.demo), keep: Boolean(a.keep), readOnly: Boolean(a['read-only']), initialAgent: a.agent as AgentKind | undefined });
    })
    .strict()
    .help()
    .alias('h', 'help')
    .version(packageVersion())
    .alias('V', 'version')
    .wrap(Math.min(100, process.stdout.columns || 80))
    .fail((msg, err) => {
      if (err) throw err;
      throw new UsageError(`${String(msg).replace(/\s+/g, " ").trim()} (see cleanerx --help)`);
    });
  await parser.parseAsync();
  return code;
}

function engineForCli(readOnly: boolean): Engine {
  return cliEngine(process.env, { readOnly });
}

async function scanCommand(agent: AgentKind | undefined, json: boolean, readOnly: boolean): Promise<number> {
  const engine = engineForCli(readOnly);
  const settings = await engine.loadSettings();
  const report = await buildScanReport(engine, agent ? [agent] : [...AGENT_KINDS]);
  if (json) {
    // Compact: 100k sessions would be megabytes of indentation for a machine reader.
    printOut(safeJson(report));
    // stdout stays the contract; the settings problem goes beside it.
    if (settings.warning) printErr(settingsLine(settings));
    return 0;
  }
  const out: SafeText[] = [];
  if (settings.warning) out.push(settingsLine(settings), safe``);
  for (const a of report.agents) {
    out.push(safe`${AGENT_NAMES[a.agent]} — ${stateLabel(a.state)}${a.version ? safe` ${safeText(a.version)}` : ''}`);
    out.push(safe`  home      ${safeText(a.home)}`);
    if (a.state === 'notFound') {
      out.push(safe``);
      continue;
    }
    out.push(safe`  total     ${formatBytes(a.totals.bytes)} in ${formatCount(a.totals.items)} items, ${formatCount(a.sessions.length)} sessions`);
    for (const [cat, t] of Object.entries(a.totals.byCategory)) {
      out.push(safe`    ${CATEGORY_LABELS[cat as Category].padEnd(18)} ${formatBytes(t.bytes).padStart(9)}  ${formatCount(t.items)}`);
    }
    if (a.writers.length) out.push(safe`  running   ${writerList(a.writers)}`);
    const top = a.projects.slice(0, 10);
    if (top.length) out.push(safe`  largest projects`);
    for (const p of top) out.push(safe`    ${formatBytes(p.bytes).padStart(9)}  ${String(p.sessions).padStart(5)} sessions  ${safeText(p.label)}`);
    if (a.warnings.length) out.push(safe`  warnings  ${a.warnings.length} (see --json)`);
    out.push(safe``);
  }
  // The last agent's blank line ends the output.
  printOut(joinSafe(out.slice(0, -1), safe`\n`));
  return 0;
}

/** Writers as "name (pid N)", names cleaned (another user's process names its own comm). */
function writerList(writers: readonly { pid: number; name: string }[]): SafeText {
  return joinSafe(
    writers.map((w) => safe`${safeText(w.name, 64)} (pid ${w.pid})`),
    safe`, `,
  );
}

/** The settings file was unusable: say so, and that the defaults are in use. */
function settingsLine(s: LoadedSettings): SafeText {
  return safe`settings    ${safeText(s.warning)}`;
}

async function doctorCommand(readOnly: boolean): Promise<number> {
  const engine = engineForCli(readOnly);
  const settings = await engine.loadSettings();
  const installs = await engine.detect({ versions: true });
  const dirs = ownDirs(process.env);
  const lines: SafeText[] = [];
  for (const i of installs) {
    lines.push(safe`${AGENT_NAMES[i.agent].padEnd(12)} ${stateLabel(i.state)}`);
    lines.push(safe`  home        ${safeText(i.home)} (${i.homeSource === 'override' ? 'settings override' : i.homeSource === 'env' ? 'environment' : 'default'})`);
    lines.push(safe`  executable  ${safeText(i.executable ?? 'not found')}`);
    lines.push(safe`  version     ${safeText(i.version ?? '—')}`);
    if (i.state !== 'notFound') {
      const s = await engine.scan(i.agent);
      lines.push(safe`  writers     ${s.writers.length ? writerList(s.writers) : 'none running'}`);
    }
    for (const w of i.warnings) lines.push(safe`  warning     ${safeText(w)}`);
  }
  lines.push(safe`cleanerx`);
  lines.push(safe`  config      ${safeText(dirs.config)}`);
  if (settings.warning) lines.push(safe`  ${settingsLine(settings)}`);
  lines.push(safe`  state       ${safeText(dirs.state)}`);
  lines.push(safe`  data        ${safeText(dirs.data)}`);
  const key = await engine.keyInfo();
  lines.push(
    key.exists
      ? safe`  backup key  ${safeText(key.path)}${key.problem ? safe` — ${safeText(key.problem)}` : ' (passphrase-protected age identity)'}`
      : safe`  backup key  not created yet; the first backup creates ${safeText(key.path)}`,
  );
  lines.push(safe`  key store   ${key.store === 'keyring' ? 'the OS key ring unlocks the backup key (the file stays the recovery path)' : `the passphrase-protected file${process.env.DBUS_SESSION_BUS_ADDRESS ? '; a desktop session bus is present: `cleanerx backups key-store keyring` (or Settings → K) can hand the unlock to the OS key ring' : ' (no desktop session bus here)'}`}`);
  printOut(...lines);
  return 0;
}

async function cleanCommand(agentArg: AgentKind | undefined, what: { ids: string[] } | { file: string }, yes: boolean, readOnly: boolean, backup: boolean): Promise<number> {
  const engine = engineForCli(readOnly);
  let plan: CleanupPlan;
  if ('file' in what) {
    const { planFromFileCommand, printRefusal } = await import('./plan-command.js');
    try {
      plan = await planFromFileCommand(engine, what.file, agentArg);
    } catch (e) {
      if ((e as { refused?: boolean }).refused) return printRefusal(e as Error);
      throw e;
    }
  } else {
    const summary = await engine.scan(agentArg!);
    // Bare session ids are accepted as well as item ids.
    const known = new Set([...summary.selection.map((s) => s.id), ...summary.items.map((i) => i.id)]);
    const itemIds = what.ids.map((id) => (known.has(id) || id.includes(':') ? id : `session:${id}`));
    plan = await engine.plan(summary.snapshotId, itemIds);
  }
  const agent = plan.agent;
  const summary = { installation: engine.snapshot(plan.snapshotId).installation };
  // The home comes from the environment or a settings override: say which tree this is before anything else.
  printOut(safe`${AGENT_NAMES[agent]} home: ${safeText(summary.installation.home)}`);
  printOut(safe`${AGENT_NAMES[agent]}: ${formatCount(plan.items.length)} items, ${formatBytes(plan.estimatedBytes)}`);
  for (const i of plan.items) {
    printOut(safe`  ${i.depth ? '  └ ' : ''}${safeText(i.id)}  ${formatBytes(i.bytes)}  ${safeText(i.label)}${i.includedBecause ? safe` (${safeText(i.includedBecause)})` : ''}`);
  }
  for (const n of plan.routeNotes) printOut(safeText(n));
  const blockers = [...plan.blockers, ...plan.operations.flatMap((o) => o.blockers)];
  if (blockers.length) {
    for (const b of blockers) printErr(safe`blocked: ${safeText(b)}`);
    return 1;
  }
  if (backup && !plan.backupEligible) throw new UsageError(`No backup possible: ${plan.backupWhyNot}`);
  if (!yes) throw new UsageError(`Nothing was removed: add --yes to confirm this ${backup ? '' : 'irreversible '}cleanup.`);
  let passphrase: string | undefined;
  if (backup && (await engine.keyInfo()).needsPassphrase) {
    const key = await engine.keyInfo();
    passphrase = await readPassphrase(key.exists ? safe`Backup key passphrase: ` : safe`New backup key passphrase (8+ characters): `);
    if (!key.exists && process.stdin.isTTY && (await readPassphrase(safe`Repeat the passphrase: `)) !== passphrase) throw new UsageError('The passphrases differ; nothing was removed.');
  }
  const r = await engine.execute(plan.id, { backup, passphrase }, (p) => {
    if (p.phase === 'deleting' && p.current) printProgress(safe`removing ${p.done + 1}/${p.total} `);
  });
  for (const w of r.warnings ?? []) printOut(safe`warning: ${safeText(w)}`);
  printOut(safe`${r.status === 'complete' ? 'complete' : 'failed'}: ${safeText(r.message)} (operation ${safeText(r.operationId)})`);
  return r.status === 'complete' ? 0 : 1;
}

async function recoveryCommand(action: string, operation: string | undefined): Promise<number> {
  const engine = engineForCli(false);
  if (action !== 'list') {
    if (!operation) throw new UsageError(`recovery ${action} needs an operation id (see cleanerx recovery list).`);
    // Restore brings back the verified backup bound to the operation (asks for the key passphrase unless the key ring unlocks it).
    const passphrase = action === 'restore' && (await engine.keyInfo()).needsPassphrase ? await readPassphrase(safe`Backup key passphrase: `) : undefined;
    await engine.recoveryAction(operation, action as 'accept' | 'close' | 'restore', passphrase);
  }
  const ops = await engine.recoveryList();
  if (!ops.length) printOut(safe`No interrupted cleanup.`);
  for (const o of ops) {
    printOut(
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

/** The passphrase from the terminal without echo, or the first line of standard input. Never from argv or env. */
async function readPassphrase(prompt: SafeText): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) {
    let data = '';
    for await (const chunk of stdin) {
      data += String(chunk);
      if (data.includes('\n')) break;
    }
    return data.split('\n')[0]!.replace(/\r$/, '');
  }
  printPrompt(prompt);
  stdin.setRawMode(true);
  stdin.resume();
  return new Promise((resolve, reject) => {
    let value = '';
    const onData = (buf: Buffer): void => {
      for (const ch of buf.toString('utf8')) {
        if (ch === '\r' || ch === '\n') {
          done();
          return resolve(value);
        }
        if (ch === '\u0003') {
          done();
          return reject(new UsageError('Cancelled.'));
        }
        if (ch === '\u007f') value = value.slice(0, -1);
        else if (ch >= ' ') value += ch;
      }
    };
    const done = (): void => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      printErr(safe``);
    };
    stdin.on('data', onData);
  });
}

/** Shows or switches where the backup key is unlocked from. */
async function keyStoreCommand(engine: ReturnType<typeof engineForCli>, to: string | undefined): Promise<number> {
  const k = await engine.keyInfo();
  if (to === undefined) {
    printOut(k.store === 'keyring' ? safe`The OS key ring unlocks the backup key.` : safe`The backup key is unlocked by its passphrase (the file).`);
    return 0;
  }
  if (to !== 'file' && to !== 'keyring') throw new UsageError('backups key-store takes "file" or "keyring".');
  let passphrase = '';
  if (to === 'keyring') {
    passphrase = await readPassphrase(k.exists ? safe`Backup key passphrase: ` : safe`New backup key passphrase (8+ characters): `);
    if (!k.exists && process.stdin.isTTY && (await readPassphrase(safe`Repeat the passphrase: `)) !== passphrase) throw new UsageError('The passphrases differ; nothing changed.');
  }
  await engine.keyStoreSet(to, passphrase);
  printOut(to === 'keyring' ? safe`The backup key is now unlocked by the OS key ring.` : safe`The backup key is unlocked by its passphrase again.`);
  return 0;
}

async function backupsCommand(action: string, id: string | undefined, yes: boolean): Promise<number> {
  const engine = engineForCli(false);
  if (action === 'list') {
    const list = await engine.backupsList();
    if (!list.length) printOut(safe`No backups.`);
    for (const b of list) {
      printOut(safe`${safeText(b.id)}  ${AGENT_NAMES[b.agent] ?? safeText(b.agent)}  ${safeText(b.createdAt)}  ${b.itemCount} items  ${formatBytes(b.originalBytes)} → ${formatBytes(b.archiveBytes)}  verified ${safeText(b.verifiedAt)}`);
    }
    return 0;
  }
  if (action === 'key-store') return keyStoreCommand(engine, id);
  if (!id) throw new UsageError(`backups ${action} needs a backup id (see cleanerx backups list).`);
  if (action === 'delete') {
    if (!yes) throw new UsageError('Nothing was deleted: add --yes to delete this backup forever.');
    await engine.backupDelete(id);
    printOut(safe`Deleted backup ${safeText(id)}.`);
    return 0;
  }
  const passphrase = (await engine.keyInfo()).needsPassphrase ? await readPassphrase(safe`Backup key passphrase: `) : '';
  if (action === 'verify') {
    const r = await engine.backupVerify(id, passphrase);
    printOut(safe`Verified: all ${r.entries} entries (${formatBytes(r.bytes)}) match the manifest.`);
    return 0;
  }
  const dry = await engine.backupRestore(id, passphrase, true);
  const what = dry.unit;
  const folders = (n: number): string => `${n} empty ${n === 1 ? 'folder' : 'folders'}`;
  printOut(
    safe`Restore would create ${dry.restored} ${safeText(what)} (${formatBytes(dry.bytes)})${dry.alreadyPresent ? safe`, ${dry.alreadyPresent} of them already in place` : ''}${dry.emptyDirs.length ? safe` and ${folders(dry.emptyDirs.length)}` : ''}:`,
    ...dry.paths.map((p) => safe`  ${safeText(p)}`),
    ...dry.emptyDirs.map((p) => safe`  ${safeText(p)}/`),
  );
  if (!yes) throw new UsageError(`Nothing was restored: add --yes to restore these ${what}.`);
  const r = await engine.backupRestore(id, passphrase);
  const dirs = r.emptyDirs.length ? safe`, ${folders(r.emptyDirs.length)} recreated` : '';
  printOut(safe`Restored ${r.restored} ${safeText(what)}${r.alreadyPresent ? safe` (${r.alreadyPresent} already in place)` : ''}${dirs}.`);
  for (const n of r.notInBackup) printOut(safeText(n));
  return 0;
}

export function stateLabel(s: string): string {
  return s === 'installed' ? 'Installed' : s === 'dataOnly' ? 'Local data only' : 'Not detected';
}
