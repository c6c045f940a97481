#!/usr/bin/env node
// Entry point and the one composition root: the command line (src/cli/*)
// meets the app (src/app/*) here and nowhere else. The bare app, `scan`,
// `clean` and `recovery` in their usual spellings start without yargs (it
// costs ~30 ms of CPU, ~50 ms for a clean of 1,000 ids); any other subcommand
// or unusual flag loads it lazily. Exit codes: 0 ok, 1 failure, 2 usage error.
// Errors are one line unless CLEANERX_DEBUG=1.

// The registry first: every flag, file and message below learns the agents from it (engine/core/agents.ts).
import { ADAPTERS } from './adapters/registry.js';
import type { EngineApi } from './engine/api/api.js';
import { checkEnvDirs, ownDirs } from './engine/host/own-dirs.js';
import { printError } from './terminal/terminal-out.js';
import type { AppFlags } from './app/flags.js';
import type { DemoLifetime } from './demo/demo-lifetime.js';
import { appArgs, type AppRequest } from './cli/app-args.js';
import { asUsageError, UsageError } from './cli/usage-error.js';
import type { EngineFactory } from './cli/engine-factory.js';
import { chooseLanguage, withoutLang } from './cli/language.js';
import type { ScanOptions } from './cli/scan.js';
import { scanArgs } from './cli/scan-args.js';
import { type CleanArgs, cleanArgs } from './cli/clean-args.js';
import { type RecoveryArgs, recoveryArgs } from './cli/recovery-args.js';
import { getLanguage, LANGUAGE_ENV, t } from './engine/i18n/index.js';

const INFO_FLAGS = new Set(['--help', '-h', '--version', '-V', 'help']);

async function main(argv: string[]): Promise<number> {
  // A relative home or own-dir override is refused before anything reads it, for every command.
  const info = argv.some((a) => INFO_FLAGS.has(a));
  if (!info)
    checkEnvDirs(
      process.env,
      ADAPTERS.flatMap((a) => a.envVars),
    );
  const rest = withoutLang(argv);
  const scan = scanArgs(rest);
  const clean = scan ? null : cleanArgs(rest);
  const recovery = scan || clean ? null : recoveryArgs(rest);
  // The modules the app, the scan or the clean will need load while the settings are read for the language.
  if (scan) for (const m of [import('./cli/scan.js'), import('./cli/printer.js'), import('./cli/engine-factory.js')]) m.catch(() => undefined);
  else if (clean) for (const m of [import('./cli/clean.js'), import('./cli/printer.js'), import('./cli/engine-factory.js')]) m.catch(() => undefined);
  else if (recovery) for (const m of [import('./cli/recovery.js'), import('./cli/printer.js'), import('./cli/engine-factory.js')]) m.catch(() => undefined);
  else if (looksLikeApp(rest)) import('./app/app.js').catch(() => undefined);
  // Before anything is printed: --help, usage errors and the app all speak it.
  await chooseLanguage(argv, process.env);
  const app = appArgs(rest);
  if (app) return startApp(app);
  if (scan) return fastScan(scan);
  if (clean) return fastClean(clean);
  if (recovery) return fastRecovery(recovery);
  // The engine's modules load beside yargs (a command will want them), but not for --help or --version.
  const engineModule = info ? null : import('./cli/engine-factory.js');
  engineModule?.catch(() => undefined);
  const [{ runCommandLine }, { terminalPrinter }, { stdinPassphrase }] = await Promise.all([
    import('./cli/command-line.js'),
    import('./cli/printer.js'),
    import('./cli/passphrase.js'),
  ]);
  const engine: EngineFactory = async (opts) => (await (engineModule ?? import('./cli/engine-factory.js'))).cliEngine(process.env, opts);
  return runCommandLine(argv, {
    engine,
    io: terminalPrinter,
    passphrase: stdinPassphrase(terminalPrinter),
    env: process.env,
    startApp,
    columns: process.stdout.columns,
    fleet: {
      run: async (args) =>
        (await import('./cli/fleet/fleet-command.js')).runFleet(args, { io: terminalPrinter, passphrase: stdinPassphrase(terminalPrinter), env: process.env }),
      remoteApp: async (args) => (await import('./cli/fleet/fleet-command.js')).runRemote(args, process.env),
    },
  });
}

/** Whether argv is the bare app's (its usage errors wait for the language: this only guesses). */
function looksLikeApp(argv: readonly string[]): boolean {
  try {
    return appArgs(argv) !== null;
  } catch {
    return false;
  }
}

/** `scan` in its usual spellings, without yargs; the same run function yargs would call. */
async function fastScan(opts: ScanOptions): Promise<number> {
  const [{ runScan }, { terminalPrinter }, { cliEngine }] = await Promise.all([
    import('./cli/scan.js'),
    import('./cli/printer.js'),
    import('./cli/engine-factory.js'),
  ]);
  return runScan(opts, { engine: async (o) => cliEngine(process.env, o), io: terminalPrinter });
}

/** `clean` in its usual spellings, without yargs: the options its handler would build, the same run function. */
async function fastClean(args: CleanArgs): Promise<number> {
  const [{ cleanOptionsOf, runClean }, { terminalPrinter }, { cliEngine }, { stdinPassphrase }] = await Promise.all([
    import('./cli/clean.js'),
    import('./cli/printer.js'),
    import('./cli/engine-factory.js'),
    import('./cli/passphrase.js'),
  ]);
  return runClean(cleanOptionsOf(args), { engine: async (o) => cliEngine(process.env, o), io: terminalPrinter, passphrase: stdinPassphrase(terminalPrinter) });
}

/** `recovery` in its usual spellings, without yargs: the same run function its handler calls. */
async function fastRecovery(args: RecoveryArgs): Promise<number> {
  const [{ runRecovery }, { terminalPrinter }, { cliEngine }, { stdinPassphrase }] = await Promise.all([
    import('./cli/recovery.js'),
    import('./cli/printer.js'),
    import('./cli/engine-factory.js'),
    import('./cli/passphrase.js'),
  ]);
  return runRecovery(args, { engine: async (o) => cliEngine(process.env, o), io: terminalPrinter, passphrase: stdinPassphrase(terminalPrinter) });
}

async function startApp(request: AppRequest): Promise<number> {
  const flags: AppFlags = request;
  if (flags.keep && !flags.demo) throw new UsageError(t('cli.err.keepDemo'));
  if (!process.stdout.isTTY || !process.stdin.isTTY) {
    throw new UsageError(t('cli.err.tty'));
  }
  const env: Record<string, string | undefined> = { ...process.env };
  // The worker's engine words its statuses and errors in the app's language.
  env[LANGUAGE_ENV] = getLanguage();
  if (!flags.demo) ownDirs(env);
  // One switch for the theme: --no-color is NO_COLOR for the app (and the worker's children).
  if (flags.noColor) env.NO_COLOR = '1';
  let demo: DemoLifetime | null = null;
  let engine: EngineApi | null = null;
  let opening: Promise<EngineApi> | null = null;
  // The frame paints before the demo's modules load (the home's builders pull in every adapter: ~50 modules), the home is generated and the worker starts.
  const openEngine = (): Promise<EngineApi> => {
    opening ??= openEngineOnce();
    return opening;
  };
  const openEngineOnce = async (): Promise<EngineApi> => {
    if (flags.demo) {
      // The same demo home `scan --demo` and `doctor --demo` read (src/demo/demo-open.ts).
      const { openDemoHome } = await import('./demo/demo-open.js');
      const opened = await openDemoHome(env, flags.keep);
      demo = opened.demo;
      Object.assign(env, opened.env);
    }
    const { createWorkerEngine } = await import('./engine/api/worker-client.js');
    engine = createWorkerEngine(new URL('./worker.js', import.meta.url), { env, opts: { readOnly: flags.readOnly, demo: flags.demo } });
    if (demo) demo.engine = engine;
    return engine;
  };
  try {
    const { runApp } = await import('./app/app.js');
    return await runApp(openEngine, flags, env);
  } finally {
    // A quit before the engine opened still waits for it: the demo home it may be creating is removed, the worker closed.
    await (opening as Promise<EngineApi> | null)?.catch(() => undefined);
    if (demo) await (demo as DemoLifetime).finish();
    else await (engine as EngineApi | null)?.close().catch(() => undefined);
  }
}

function fail(e: unknown): void {
  // The one error printer: the message is sanitized (it may quote a path, a process name or settings text).
  process.exitCode = printError(asUsageError(e));
}

// `cleanerx scan --json | head` closes the pipe early: that is not an error.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
}, fail);
