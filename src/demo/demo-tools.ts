// The demo runs the agents pinned in cleanerx's own package (Codex indexes the
// demo's rollouts, pi answers its version), found beside this install rather
// than on PATH: the installed `cleanerx` bin is started without npm, which is
// what put node_modules/.bin on PATH for `npm start`.

import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ADAPTERS } from '../adapters/registry.js';
import type { AgentKind } from '../engine/core/model.js';

/** The agents whose demo runs a pinned package, in registry order. */
const PINNED: { agent: AgentKind; pkg: string; bin: string }[] = ADAPTERS.flatMap((a) => {
  const p = a.demo?.pinned;
  return p ? [{ agent: a.kind, ...p }] : [];
});

interface DemoTools {
  /** Directories to put first on the demo's PATH. */
  dirs: string[];
  /** Agents whose pinned program is not installed beside cleanerx, with the package that would provide it. */
  missing: { agent: AgentKind; pkg: string }[];
}

function executable(p: string): boolean {
  try {
    if (!statSync(p).isFile()) return false;
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The node_modules/.bin that holds `bin` for `pkg`, looked up as Node looks
 * up a package (node_modules of each ancestor of `from`); a package's
 * "exports" may hide its package.json from require.resolve, so the
 * directories are read directly.
 */
function binDirOf(from: string, pkg: string, bin: string): string | null {
  let dir = dirname(from);
  for (;;) {
    const nm = basename(dir) === 'node_modules' ? dir : join(dir, 'node_modules');
    if (existsSync(join(nm, pkg, 'package.json'))) return executable(join(nm, '.bin', bin)) ? join(nm, '.bin') : null;
    if (dir === dirname(dir)) return null;
    dir = dirname(dir);
  }
}

export function findDemoTools(resolveFrom: string = import.meta.url): DemoTools {
  const from = fileURLToPath(resolveFrom);
  const dirs: string[] = [];
  const missing: DemoTools['missing'] = [];
  for (const p of PINNED) {
    const dir = binDirOf(from, p.pkg, p.bin);
    if (dir) dirs.push(dir);
    else missing.push({ agent: p.agent, pkg: p.pkg });
  }
  // The launchers start with `#!/usr/bin/env node`: the node running cleanerx answers them.
  if (dirs.length) dirs.push(dirname(process.execPath));
  return { dirs: [...new Set(dirs)], missing };
}

/** For detection to say why an agent's program is missing from the demo: `agent=package,…`. */
export function demoMissingValue(t: DemoTools): string {
  return t.missing.map((m) => `${m.agent}=${m.pkg}`).join(',');
}
