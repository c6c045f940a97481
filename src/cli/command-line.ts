// The yargs definition: argv to each command's Options, then its run
// function with the dependencies the composition root (src/cli.ts) built.
// Each command's module loads only when that command runs.

import { agentKinds } from '../engine/core/agents.js';
import { readFileSync } from 'node:fs';
import type { AgentKind } from '../engine/core/model.js';
import { getLanguage, t } from '../engine/i18n/index.js';
import { UsageError } from './usage-error.js';
import type { StartApp } from './app-args.js';
import type { BackupsAction } from './backups.js';
import type { EngineFactory } from './engine-factory.js';
import type { PassphraseReader } from './passphrase.js';
import type { RuleArgs } from './plan-rules.js';
import type { Printer } from './printer.js';
import type { RecoveryAction } from './recovery.js';
import { closest, type KnownOptions, unknownFlag } from './suggest.js';

interface CommandLineDeps {
  engine: EngineFactory;
  io: Printer;
  passphrase: PassphraseReader;
  /** cleanerx's dirs and the desktop session bus (doctor). */
  env: Readonly<Record<string, string | undefined>>;
  startApp: StartApp;
  /** The terminal's width for --help (yargs wraps at it, at most 100). */
  columns?: number;
  /** `fleet` and `--host` (src/cli/fleet/, which builds on this folder's modules: handed in by the composition root). */
  fleet?: FleetEntry;
}

/** The fleet commands as the composition root hands them in: the parsed arguments in, the exit code out. */
interface FleetEntry {
  run(args: Record<string, unknown>): Promise<number>;
  remoteApp(args: Record<string, unknown>): Promise<number>;
}

/** The package.json is one level up from a bundled chunk (dist/chunk-*.js), two from dist/cli/ or src/cli/. */
function packageVersion(): string {
  for (const rel of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'cleanerx') return pkg.version ?? '0.0.0';
    } catch {
      // not at this level
    }
  }
  return '0.0.0';
}

/** Runs a command on the app's throw-away demo home (scan --demo, doctor --demo), removed when it ends. */
async function onDemoHome(
  base: Readonly<Record<string, string | undefined>>,
  run: (engine: EngineFactory, env: Readonly<Record<string, string | undefined>>) => Promise<number>,
): Promise<number> {
  const { withDemoHome } = await import('./demo-run.js');
  return withDemoHome(base, run);
}

interface DemoFlags {
  _: (string | number)[];
  demo?: unknown;
  keep?: unknown;
}

/** scan and doctor read the demo home with --demo; --keep is the app's alone (a kept home is announced on stdout, where --json goes). */
function demoAllowed(a: DemoFlags): void {
  if (a.keep) throw new UsageError(t('cli.err.keepApp'));
}

/** A command that changes or plans against the user's own homes is refused with --demo, never silently run on them. */
function ownHomesOnly(a: DemoFlags): void {
  if (a.demo) throw new UsageError(t('cli.err.demoOnly', { command: String(a._[0]) }));
  demoAllowed(a);
}

/** Unit tests of other commands build deps without it; the composition root always hands it in. */
function fleetEntry(deps: CommandLineDeps): FleetEntry {
  return deps.fleet!;
}

export async function runCommandLine(argv: string[], deps: CommandLineDeps): Promise<number> {
  const { default: yargs } = await import('yargs');
  const { engine, io, passphrase } = deps;
  let code = 0;
  const parser = yargs(argv)
    .scriptName('cleanerx')
    .locale(getLanguage() === 'zh' ? 'zh_CN' : 'en')
    .usage(t('cli.help.usage'))
    .option('read-only', { type: 'boolean', default: false, describe: t('cli.help.readOnly') })
    .option('demo', { type: 'boolean', default: false, describe: t('cli.help.demo') })
    .option('keep', { type: 'boolean', default: false, describe: t('cli.help.keep') })
    .option('lang', { type: 'string', describe: t('cli.help.lang') })
    .option('color', { type: 'boolean', default: true, describe: t('cli.help.color') })
    .command(
      'scan',
      t('cli.help.scan'),
      (y) =>
        y
          .option('agent', { choices: agentKinds(), describe: t('cli.help.scanAgent') })
          .option('json', { type: 'boolean', default: false, describe: t('cli.help.scanJson') }),
      async (a) => {
        demoAllowed(a);
        const { runScan } = await import('./scan.js');
        const opts = { agent: a.agent as AgentKind | undefined, json: a.json, readOnly: a['read-only'] };
        code = a.demo ? await onDemoHome(deps.env, (demoEngine) => runScan(opts, { engine: demoEngine, io })) : await runScan(opts, { engine, io });
      },
    )
    .command(
      'plan',
      t('cli.help.plan'),
      (y) =>
        y
          .option('agent', { choices: [...agentKinds(), 'all'], demandOption: true, describe: t('cli.help.planAgent') })
          .option('older-than', { type: 'string', describe: t('cli.help.olderThan') })
          .option('larger-than', { type: 'string', describe: t('cli.help.largerThan') })
          .option('keep-latest', { type: 'string', describe: t('cli.help.keepLatest') })
          .option('empty', { type: 'boolean', describe: t('cli.help.empty') })
          .option('orphans', { type: 'boolean', describe: t('cli.help.orphans') })
          .option('project', { type: 'string', describe: t('cli.help.project') })
          .option('source', { type: 'string', describe: t('cli.help.source') })
          .option('state', { choices: ['current', 'archived'], describe: t('cli.help.state') })
          .option('items', { type: 'string', describe: t('cli.help.items') })
          .option('suggested', { type: 'boolean', describe: t('cli.help.suggested') })
          .option('json', { type: 'boolean', default: false, describe: t('cli.help.planJson') })
          .option('archive', { type: 'boolean', describe: t('cli.help.planArchive') })
          .option('unarchive', { type: 'boolean', describe: t('cli.help.planUnarchive') })
          .conflicts('archive', 'unarchive'),
      async (a) => {
        ownHomesOnly(a);
        const [{ runPlan }, { rulesFromArgs }] = await Promise.all([import('./plan.js'), import('./plan-rules.js')]);
        const rules = rulesFromArgs(a as RuleArgs);
        const action = a.archive ? 'archive' : a.unarchive ? 'unarchive' : undefined;
        code = await runPlan({ agent: a.agent as AgentKind | 'all', rules, json: a.json, readOnly: Boolean(a['read-only']), action }, { engine, io });
      },
    )
    .command(
      'clean',
      t('cli.help.clean'),
      (y) =>
        y
          .option('agent', { choices: agentKinds(), describe: t('cli.help.cleanAgent') })
          .option('id', { type: 'string', array: true, describe: t('cli.help.cleanId') })
          .option('archive', { type: 'string', array: true, describe: t('cli.help.cleanArchive') })
          .option('unarchive', { type: 'string', array: true, describe: t('cli.help.cleanUnarchive') })
          .option('plan', { type: 'string', describe: t('cli.help.cleanPlan') })
          .option('yes', { type: 'boolean', default: false, describe: t('cli.help.cleanYes') })
          .option('backup', { type: 'boolean', default: false, describe: t('cli.help.cleanBackup') })
          .option('backup-only', { type: 'boolean', default: false, describe: t('cli.help.cleanBackupOnly') })
          .option('json', { type: 'boolean', default: false, describe: t('cli.help.cleanJson') }),
      async (a) => {
        ownHomesOnly(a);
        const { archiveIds, cleanTarget, runClean } = await import('./clean.js');
        const agent = a.agent as AgentKind | undefined;
        const { ids, action: given } = archiveIds(a.id as string[] | undefined, a.archive as string[] | undefined, a.unarchive as string[] | undefined);
        const what = cleanTarget(ids, a.plan === undefined ? undefined : String(a.plan), agent);
        // Back up only: the usual plan of the ids, its backup step alone (nothing removed).
        const backupOnly = Boolean(a['backup-only']);
        if (backupOnly && (given !== 'delete' || a.plan !== undefined)) throw new UsageError(t('cli.err.backupOnlyWith'));
        const action = backupOnly ? 'backupOnly' : given;
        code = await runClean(
          { agent, what, action, yes: a.yes, readOnly: Boolean(a['read-only']), backup: a.backup || backupOnly, json: a.json },
          { engine, io, passphrase },
        );
      },
    )
    .command(
      'explain <id>',
      t('cli.help.explain'),
      (y) =>
        y
          .positional('id', { type: 'string', describe: t('cli.help.explainId') })
          .option('agent', { choices: agentKinds(), demandOption: true, describe: t('cli.help.explainAgent') })
          .option('json', { type: 'boolean', default: false, describe: t('cli.help.explainJson') }),
      async (a) => {
        ownHomesOnly(a);
        const { runExplain } = await import('./explain.js');
        code = await runExplain({ agent: a.agent as AgentKind, id: String(a.id), json: a.json }, { engine, io });
      },
    )
    .command(
      'recovery [action] [operation]',
      t('cli.help.recovery'),
      (y) =>
        y
          .positional('action', { choices: ['list', 'accept', 'close', 'restore'], default: 'list' })
          .positional('operation', { type: 'string', describe: t('cli.help.recoveryOperation') }),
      async (a) => {
        ownHomesOnly(a);
        const { runRecovery } = await import('./recovery.js');
        code = await runRecovery(
          { action: String(a.action) as RecoveryAction, operation: a.operation ? String(a.operation) : undefined },
          { engine, io, passphrase },
        );
      },
    )
    .command(
      'backups [action] [id]',
      t('cli.help.backups'),
      (y) =>
        y
          .positional('action', { choices: ['list', 'verify', 'restore', 'delete', 'key-store'], default: 'list' })
          .positional('id', { type: 'string', describe: t('cli.help.backupsId') })
          .option('yes', { type: 'boolean', default: false, describe: t('cli.help.backupsYes') }),
      async (a) => {
        ownHomesOnly(a);
        const { runBackups } = await import('./backups.js');
        code = await runBackups({ action: String(a.action) as BackupsAction, id: a.id ? String(a.id) : undefined, yes: a.yes }, { engine, io, passphrase });
      },
    )
    .command(
      'fleet <action> [hosts..]',
      t('fleet.help.command'),
      (y) =>
        y
          .positional('action', { choices: ['scan', 'plan', 'clean'], describe: t('fleet.help.action') })
          .positional('hosts', { type: 'string', array: true, describe: t('fleet.help.hosts') })
          .option('hosts-file', { type: 'string', describe: t('fleet.help.hostsFile') })
          .option('agent', { choices: agentKinds(), describe: t('fleet.help.agent') })
          .option('json', { type: 'boolean', default: false, describe: t('fleet.help.json') })
          .option('out', { type: 'string', describe: t('fleet.help.out') })
          .option('plans', { type: 'string', describe: t('fleet.help.plans') })
          .option('yes', { type: 'boolean', default: false, describe: t('fleet.help.yes') })
          .option('backup', { type: 'boolean', default: false, describe: t('fleet.help.backup') })
          .option('ssh-config', { type: 'string', describe: t('fleet.help.sshConfig') })
          .option('timeout', { type: 'string', describe: t('fleet.help.timeout') })
          .option('parallel', { type: 'string', describe: t('fleet.help.parallel') })
          .option('older-than', { type: 'string', describe: t('cli.help.olderThan') })
          .option('larger-than', { type: 'string', describe: t('cli.help.largerThan') })
          .option('keep-latest', { type: 'string', describe: t('cli.help.keepLatest') })
          .option('empty', { type: 'boolean', describe: t('cli.help.empty') })
          .option('orphans', { type: 'boolean', describe: t('cli.help.orphans') })
          .option('project', { type: 'string', describe: t('cli.help.project') })
          .option('source', { type: 'string', describe: t('cli.help.source') })
          .option('state', { choices: ['current', 'archived'], describe: t('cli.help.state') })
          .option('archive', { type: 'boolean', describe: t('cli.help.planArchive') })
          .option('unarchive', { type: 'boolean', describe: t('cli.help.planUnarchive') })
          .conflicts('archive', 'unarchive'),
      async (a) => {
        ownHomesOnly(a);
        // Words after `--` are hosts too, checked like the rest (a leading '-' is refused, never passed to ssh).
        const hosts = [...((a.hosts as unknown[] | undefined) ?? []), ...a._.slice(1)];
        code = await fleetEntry(deps).run({ ...a, hosts });
      },
    )
    .command('doctor', t('cli.help.doctor'), {}, async (a) => {
      demoAllowed(a);
      const { runDoctor } = await import('./doctor.js');
      const opts = { readOnly: Boolean(a['read-only']) };
      code = a.demo
        ? await onDemoHome(deps.env, (demoEngine, env) => runDoctor(opts, { engine: demoEngine, io, env }))
        : await runDoctor(opts, { engine, io, env: deps.env });
    })
    .command(
      '$0',
      false,
      (y) =>
        y
          .option('agent', { choices: agentKinds(), describe: t('cli.help.appAgent') })
          .option('host', { type: 'string', describe: t('fleet.help.host') })
          .option('ssh-config', { type: 'string', describe: t('fleet.help.sshConfig') }),
      async (a) => {
        if (a.host !== undefined) {
          // `cleanerx --host H`: H's own app through ssh -t; --demo and --keep stay local (refused).
          if (a._.length) throw new UsageError(t('fleet.err.hostWithCommand'));
          ownHomesOnly(a);
          code = await fleetEntry(deps).remoteApp(a);
          return;
        }
        code = await deps.startApp({
          demo: Boolean(a.demo),
          keep: Boolean(a.keep),
          readOnly: Boolean(a['read-only']),
          noColor: a.color === false,
          initialAgent: a.agent as AgentKind | undefined,
        });
      },
    )
    // Before yargs' own checks: a mistyped flag or command is named as typed, with the nearest known one.
    .middleware(
      ((a: { _: (string | number)[] }, y: { getOptions(): KnownOptions }) => {
        const bad = unknownFlag(argv, y.getOptions());
        if (bad?.suggestion) throw new UsageError(t('cli.err.didYouMean', { got: bad.flag, suggestion: bad.suggestion }));
        if (bad) throw new UsageError(t('cli.help.seeHelp', { message: t('cli.err.unknownFlag', { got: bad.flag }) }));
        const first = a._[0];
        if (typeof first === 'string' && !commands.includes(first)) {
          const near = closest(first, commands);
          if (near) throw new UsageError(t('cli.err.didYouMeanCommand', { got: first.replace(/[^\x20-\x7e]/g, '?').slice(0, 40), suggestion: near }));
        }
        // yargs passes its instance as the second argument; its types declare only the first.
      }) as unknown as (a: unknown) => void,
      true,
    )
    .strict()
    .help()
    .alias('h', 'help')
    .version(packageVersion())
    .alias('V', 'version')
    .wrap(Math.min(100, deps.columns || 80))
    .fail((msg, err) => {
      if (err) throw err;
      throw new UsageError(t('cli.help.seeHelp', { message: String(msg).replace(/\s+/g, ' ').trim() }));
    });
  const commands = (parser as unknown as { getInternalMethods(): { getCommandInstance(): { getCommands(): string[] } } })
    .getInternalMethods()
    .getCommandInstance()
    .getCommands()
    .filter((c) => c !== '$0');
  await parser.parseAsync();
  return code;
}
