// The throw-away home behind `cleanerx --demo`: all four agents, generated
// deterministically in a temp dir, and the environment that points at it.

import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildClaudeFixture } from './fixtures/claude.js';
import { DEMO_PREFIX, writeOwner } from './demo-owner.js';
import { buildCodexFixture } from './fixtures/codex.js';
import { buildPiFixture } from './fixtures/pi.js';

export interface DemoHome {
  root: string;
  env: Record<string, string>;
}

/** Every variable that moves an agent's home or cleanerx's own state. */
export function isolatedEnv(root: string): Record<string, string> {
  const home = join(root, 'home');
  return {
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_RUNTIME_DIR: join(root, 'run'),
    CODEX_HOME: join(home, '.codex'),
    CLAUDE_CONFIG_DIR: join(home, '.claude'),
    PI_CODING_AGENT_DIR: join(home, '.pi', 'agent'),
    OPENCODE_DB: join(home, '.local', 'share', 'opencode', 'opencode.db'),
    CLEANERX_CONFIG_DIR: join(home, '.config', 'cleanerx'),
    CLEANERX_STATE_DIR: join(home, '.local', 'state', 'cleanerx'),
    CLEANERX_DATA_DIR: join(home, '.local', 'share', 'cleanerx'),
  };
}

/**
 * `onRoot` hears the root as soon as it exists (before the fixtures are
 * written), so the caller's exit handlers can remove a half-built home too.
 */
export function createDemoHome(now = Date.now(), onRoot?: (root: string) => void, tmp = tmpdir()): DemoHome {
  const root = mkdtempSync(join(tmp, DEMO_PREFIX));
  writeOwner(root);
  onRoot?.(root);
  // The agents' own temp files (OpenCode makes $TMPDIR/opencode even for --version) go with the home.
  const env: Record<string, string> = { ...isolatedEnv(root), TMPDIR: join(root, 'tmp') };
  mkdirSync(env.XDG_RUNTIME_DIR!, { recursive: true, mode: 0o700 });
  mkdirSync(env.TMPDIR!, { recursive: true, mode: 0o700 });
  buildPiFixture({
    agentDir: env.PI_CODING_AGENT_DIR!,
    projects: 24,
    sessionsPerProject: 14,
    seed: 7,
    now,
    cwdRoot: join(env.HOME!, 'src'),
    forkRate: 0.2,
    hostile: true,
    config: true,
    bodyBytes: 6000,
  });
  buildClaudeFixture({
    configDir: env.CLAUDE_CONFIG_DIR!,
    projects: 10,
    sessionsPerProject: 8,
    seed: 11,
    now,
    cwdRoot: join(env.HOME!, 'code'),
    hostile: true,
  });
  mkdirSync(env.CODEX_HOME!, { recursive: true });
  // Codex's own App Server indexes these rollouts on the first scan (no database is written here).
  buildCodexFixture({ codexHome: env.CODEX_HOME!, workRoot: join(env.HOME!, 'work'), userHome: env.HOME!, threads: 60, seed: 13, now, memories: true, subagentRate: 0.4 });
  writeOpencode(join(env.XDG_DATA_HOME!, 'opencode'));
  // A demo user who last looked at pi: the one agent whose inventory is complete today.
  mkdirSync(env.CLEANERX_CONFIG_DIR!, { recursive: true, mode: 0o700 });
  writeFileSync(join(env.CLEANERX_CONFIG_DIR!, 'config.json'), JSON.stringify({ version: 1, targetAgent: 'pi', homeOverrides: {} }) + '\n', { mode: 0o600 });
  return { root, env };
}

function writeOpencode(dir: string): void {
  mkdirSync(join(dir, 'log'), { recursive: true });
  mkdirSync(join(dir, 'storage'), { recursive: true });
  writeFileSync(join(dir, 'log', '2026-11-20T100000.log'), 'INFO service=server started\n');
  writeFileSync(join(dir, 'auth.json'), '{}\n', { mode: 0o600 });
}
