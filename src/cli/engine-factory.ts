// The one place the CLI's in-process Engine is built: the adapter registry,
// the host context from the environment, and (engine-split) the backup service.
// Its own dirs are resolved first, so a bad override is a usage error before
// any agent is read.

import { ADAPTERS } from '../adapters/registry.js';
import { backupService } from '../backup/service.js';
import { Engine } from '../engine/api/engine.js';
import { hostContextFromEnv } from '../engine/host/host-context.js';
import { ownDirs } from '../engine/host/own-dirs.js';

interface CliEngineOptions {
  readOnly: boolean;
}

/** What a command is handed instead of an Engine: it builds one when (and if) it needs it. */
export type EngineFactory = (opts: CliEngineOptions) => Promise<Engine>;

export function cliEngine(env: Record<string, string | undefined>, opts: CliEngineOptions): Engine {
  ownDirs(env);
  // The backup service (engine-split) is injected here: the engine itself never imports src/backup.
  const ctx = hostContextFromEnv(env);
  return new Engine(ADAPTERS, ctx, { readOnly: opts.readOnly, demo: false }, backupService(ctx.env));
}
