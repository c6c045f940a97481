// Every test runs with HOME, all XDG_* dirs, every agent's home variable and
// cleanerx's own dirs inside a fresh temp dir: never the developer's home.

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isolatedEnv } from '../../src/demo/demo-home.js';
import { defaultHostContext, type HostContext } from '../../src/engine/core/adapter.js';

export interface TempEnv {
  root: string;
  env: Record<string, string>;
  /** An empty fake /proc, so no real process is mistaken for a writer. */
  procRoot: string;
  ctx: HostContext;
  cleanup(): void;
}

export function makeTempEnv(prefix = 'cleanerx-test-'): TempEnv {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const env = isolatedEnv(root);
  mkdirSync(env.HOME!, { recursive: true });
  const procRoot = join(root, 'proc');
  mkdirSync(procRoot, { recursive: true });
  const full: Record<string, string> = { ...env, PATH: '/usr/bin:/bin', CLEANERX_PROC_ROOT: procRoot, LANG: 'C.UTF-8' };
  const ctx = defaultHostContext(full);
  ctx.procRoot = procRoot;
  return { root, env: full, procRoot, ctx, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/** Writes a fake /proc/<pid> entry (comm, cmdline) for writer-detection tests. */
export function fakeProcess(procRoot: string, pid: number, comm: string, argv: string[]): void {
  const dir = join(procRoot, String(pid));
  mkdirSync(dir, { recursive: true });
  writeText(join(dir, 'comm'), `${comm}\n`);
  writeText(join(dir, 'cmdline'), argv.join('\0') + '\0');
}

import { chmodSync, writeFileSync } from 'node:fs';
function writeText(p: string, s: string): void {
  writeFileSync(p, s);
}

/** Puts stand-in agent executables (`<name> --version` prints the version) first on PATH. */
export function fakeAgentBins(t: TempEnv, versions: Record<string, string>): void {
  const bin = join(t.root, 'bin');
  mkdirSync(bin, { recursive: true });
  for (const [name, version] of Object.entries(versions)) {
    const p = join(bin, name);
    writeFileSync(p, `#!/bin/sh\necho '${version}'\n`);
    chmodSync(p, 0o755);
  }
  t.env.PATH = `${bin}:/usr/bin:/bin`;
}

/** Saves cleanerx settings that open the app on `agent`, as a returning user has them. */
export function targetAgent(t: TempEnv, agent: string): void {
  mkdirSync(t.env.CLEANERX_CONFIG_DIR!, { recursive: true });
  writeFileSync(join(t.env.CLEANERX_CONFIG_DIR!, 'config.json'), JSON.stringify({ version: 1, targetAgent: agent, homeOverrides: {} }));
}
