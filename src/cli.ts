#!/usr/bin/env node
// Entry point. The bare app starts without yargs (it costs ~90 ms); any
// subcommand or unusual flag loads it lazily. Exit codes: 0 ok, 1 failure,
// 2 usage error. Errors are one line unless CLEANERX_DEBUG=1.

import { rmSync } from 'node:fs';
import type { EngineApi } from './engine/api.js';
import { ownDirs, UsageError } from './engine/own-dirs.js';

const FAST_FLAGS = new Set(['--demo', '--keep', '--read-only']);

export interface AppFlags {
  demo: boolean;
  keep: boolean;
  readOnly: boolean;
}

async function main(argv: string[]): Promise<number> {
  if (argv.every((a) => FAST_FLAGS.has(a))) {
    return startApp({ demo: argv.includes('--demo'), keep: argv.includes('--keep'), readOnly: argv.includes('--read-only') });
  }
  const { runCommandLine } = await import('./commands.js');
  return runCommandLine(argv, startApp);
}

async function startApp(flags: AppFlags): Promise<number> {
  if (flags.keep && !flags.demo) throw new UsageError('--keep only applies to --demo.');
  if (!process.stdout.isTTY || !process.stdin.isTTY) {
    throw new UsageError('cleanerx needs an interactive terminal; for a report use "cleanerx scan" or "cleanerx scan --json".');
  }
  const env: Record<string, string | undefined> = { ...process.env };
  if (!flags.demo) ownDirs(env);
  let demoRoot: string | null = null;
  let demoBuild: Promise<void> | null = null;
  let engine: EngineApi | null = null;
  // The frame paints before the demo home is generated and the worker starts.
  const openEngine = async (): Promise<EngineApi> => {
    if (flags.demo) {
      const { createDemoHome } = await import('./adapters/demo-home.js');
      const demo = createDemoHome();
      demoRoot = demo.root;
      Object.assign(env, demo.env);
      // OpenCode's store needs OpenCode itself to create its schema: built in the background when it is installed here.
      const { bundledOpencodeBinDir, buildDemoOpencodeStore } = await import('./adapters/opencode/demo.js');
      const bin = bundledOpencodeBinDir();
      if (bin) {
        env.PATH = `${bin}:${env.PATH ?? '/usr/bin:/bin'}`;
        demoBuild = buildDemoOpencodeStore(demo.root, demo.env, bin, Date.now()).catch(() => undefined);
      }
    }
    const { createWorkerEngine } = await import('./engine/worker-client.js');
    engine = createWorkerEngine(new URL('./worker.js', import.meta.url), { env, opts: { readOnly: flags.readOnly, demo: flags.demo } });
    return engine;
  };
  try {
    const { runApp } = await import('./app.js');
    return await runApp(openEngine, flags, env);
  } finally {
    await (engine as EngineApi | null)?.close().catch(() => undefined);
    if (demoRoot) {
      // A quit during the background OpenCode build: let it finish (briefly) so the removal finds a still tree.
      if (demoBuild) await Promise.race([demoBuild, new Promise((r) => setTimeout(r, 5000).unref())]);
      if (flags.keep) process.stdout.write(`Demo home kept at ${demoRoot}\n`);
      else rmSync(demoRoot, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    }
  }
}

function fail(e: unknown): void {
  const err = e as Error & { usage?: boolean; request?: boolean };
  if (process.env.CLEANERX_DEBUG === '1') process.stderr.write(`${err?.stack ?? String(e)}\n`);
  // A request the engine refused (unknown id, protected item) is bad input too.
  if (err?.usage || err?.request) {
    process.stderr.write(`cleanerx: ${err.message}\n`);
    process.exitCode = 2;
  } else {
    process.stderr.write(`cleanerx: ${err?.message ?? String(e)}\n`);
    process.exitCode = 1;
  }
}

// `cleanerx scan --json | head` closes the pipe early: that is not an error.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  fail,
);
