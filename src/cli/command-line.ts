// The yargs definition: argv to each command's Options, then its run
// function with the dependencies the composition root (src/cli.ts) built.
// Each command's module loads only when that command runs.

import { readFileSync } from 'node:fs';
import { AGENT_KINDS, type AgentKind } from '../engine/core/model.js';
import { UsageError } from '../engine/host/own-dirs.js';
import type { StartApp } from './app-args.js';
import type { BackupsAction } from './backups.js';
import type { EngineFactory } from './engine-factory.js';
import type { PassphraseReader } from './passphrase.js';
import type { RuleArgs } from './plan-rules.js';
import type { Printer } from './printer.js';
import type { RecoveryAction } from './recovery.js';

export interface CommandLineDeps {
  engine: EngineFactory;
  io: Printer;
  passphrase: PassphraseReader;
  /** cleanerx's dirs and the desktop session bus (doctor). */
  env: Readonly<Record<string, string | undefined>>;
  startApp: StartApp;
  /** The terminal's width for --help (yargs wraps at it, at most 100). */
  columns?: number;
}

export function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

export async function runCommandLine(argv: string[], deps: CommandLineDeps): Promise<number> {
  const { default: yargs } = await import('yargs');
  const { engine, io, passphrase } = deps;
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
        const { runScan } = await import('./scan.js');
        code = await runScan({ agent: a.agent as AgentKind | undefined, json: a.json, readOnly: a['read-only'] }, { engine, io });
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
        const [{ runPlan }, { rulesFromArgs }] = await Promise.all([import('./plan.js'), import('./plan-rules.js')]);
        const rules = rulesFromArgs(a as RuleArgs);
        code = await runPlan({ agent: a.agent as AgentKind, rules, json: a.json, readOnly: Boolean(a['read-only']) }, { engine, io });
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
        const { cleanTarget, runClean } = await import('./clean.js');
        const agent = a.agent as AgentKind | undefined;
        const what = cleanTarget(((a.id as string[] | undefined) ?? []).map(String), a.plan === undefined ? undefined : String(a.plan), agent);
        code = await runClean({ agent, what, yes: a.yes, readOnly: Boolean(a['read-only']), backup: a.backup }, { engine, io, passphrase });
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
        const { runRecovery } = await import('./recovery.js');
        code = await runRecovery(
          { action: String(a.action) as RecoveryAction, operation: a.operation ? String(a.operation) : undefined },
          { engine, io, passphrase },
        );
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
        const { runBackups } = await import('./backups.js');
        code = await runBackups({ action: String(a.action) as BackupsAction, id: a.id ? String(a.id) : undefined, yes: a.yes }, { engine, io, passphrase });
      },
    )
    .command('doctor', 'Report what was detected for each agent', {}, async (a) => {
      const { runDoctor } = await import('./doctor.js');
      code = await runDoctor({ readOnly: Boolean(a['read-only']) }, { engine, io, env: deps.env });
    })
    .command(
      '$0',
      false,
      (y) => y.option('agent', { choices: [...AGENT_KINDS], describe: 'Open the app on this agent' }),
      async (a) => {
        code = await deps.startApp({
          demo: Boolean(a.demo),
          keep: Boolean(a.keep),
          readOnly: Boolean(a['read-only']),
          initialAgent: a.agent as AgentKind | undefined,
        });
      },
    )
    .strict()
    .help()
    .alias('h', 'help')
    .version(packageVersion())
    .alias('V', 'version')
    .wrap(Math.min(100, deps.columns || 80))
    .fail((msg, err) => {
      if (err) throw err;
      throw new UsageError(`${String(msg).replace(/\s+/g, ' ').trim()} (see cleanerx --help)`);
    });
  await parser.parseAsync();
  return code;
}
