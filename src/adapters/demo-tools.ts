// The demo runs the agents pinned in cleanerx's own package (Codex indexes the
// demo's rollouts, pi answers its version), found beside this install rather
// than on PATH: the installed `cleanerx` bin is started without npm, which is
// what put node_modules/.bin on PATH for `npm start`.

import { accessSync, constants, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import type { AgentKind } from '../engine/model.js';

const PINNED: { agent: AgentKind; pkg: string; bin: string }[] = [
  { agent: 'codex', pkg: '@openai/codex', bin: 'codex' },
  { agent: 'pi', pkg: '@mariozechner/pi-coding-agent', bin: 'pi' },
];

export interface DemoTools {
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

/** The node_modules/.bin that holds `bin` for the package whose package.json is `pkgJson`. */
function binDirOf(pkgJson: string, bin: string): string | null {
  let dir = dirname(pkgJson);
  while (dir !== dirname(dir)) {
    if (dir.endsWith(`${sep}node_modules`)) return executable(join(dir, '.bin', bin)) ? join(dir, '.bin') : null;
    dir = dirname(dir);
  }
  return null;
}

export function findDemoTools(resolveFrom: string = import.meta.url): DemoTools {
  const req = createRequire(resolveFrom);
  const dirs: string[] = [];
  const missing: DemoTools['missing'] = [];
  for (const p of PINNED) {
    let dir: string | null = null;
    try {
      dir = binDirOf(req.resolve(`${p.pkg}/package.json`), p.bin);
    } catch {
      dir = null;
    }
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
