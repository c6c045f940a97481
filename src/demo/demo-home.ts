// The throw-away home behind `cleanerx --demo`: every agent of the registry,
// generated deterministically in a temp dir, and the environment that points
// at it (also every test's isolated home, test/helpers/temp-env.ts).

import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ADAPTERS } from '../adapters/registry.js';
import { DEMO_PREFIX, writeOwner } from './demo-owner.js';
import { systemTempDir } from '../engine/host/host-context.js';

export interface DemoHome {
  root: string;
  env: Record<string, string>;
}

/** Every variable that moves an agent's home (each descriptor names its own) or cleanerx's own state. */
export function isolatedEnv(root: string): Record<string, string> {
  const home = join(root, 'home');
  return {
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_RUNTIME_DIR: join(root, 'run'),
    ...Object.assign({}, ...ADAPTERS.map((a) => a.isolatedEnv(home))),
    CLEANERX_CONFIG_DIR: join(home, '.config', 'cleanerx'),
    CLEANERX_STATE_DIR: join(home, '.local', 'state', 'cleanerx'),
    CLEANERX_DATA_DIR: join(home, '.local', 'share', 'cleanerx'),
  };
}

/**
 * `onRoot` hears the root as soon as it exists (before the fixtures are
 * written), so the caller's exit handlers can remove a half-built home too.
 */
export async function createDemoHome(now = Date.now(), onRoot?: (root: string) => void, tmp = systemTempDir()): Promise<DemoHome> {
  const root = mkdtempSync(join(tmp, DEMO_PREFIX));
  writeOwner(root);
  onRoot?.(root);
  // The agents' own temp files (OpenCode makes $TMPDIR/opencode even for --version) go with the home.
  const env: Record<string, string> = { ...isolatedEnv(root), TMPDIR: join(root, 'tmp') };
  mkdirSync(env.XDG_RUNTIME_DIR!, { recursive: true, mode: 0o700 });
  mkdirSync(env.TMPDIR!, { recursive: true, mode: 0o700 });
  // Each descriptor brings its own demo data (AgentDemo); one without gets its isolated home empty.
  for (const a of ADAPTERS) await a.demo?.build(env, now);
  // A demo user who last looked at pi: the one agent whose inventory is complete today.
  mkdirSync(env.CLEANERX_CONFIG_DIR!, { recursive: true, mode: 0o700 });
  writeFileSync(join(env.CLEANERX_CONFIG_DIR!, 'config.json'), JSON.stringify({ version: 1, targetAgent: 'pi', homeOverrides: {} }) + '\n', { mode: 0o600 });
  return { root, env };
}
