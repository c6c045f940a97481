// The registry is what every command and the worker load first: its static
// import closure (the four descriptors) must stay cheap. An agent's scan,
// readers, previews, writer checks and routes, and the SQLite driver, load
// only when that agent is asked about (a dynamic import in its index.ts), so
// `clean --agent pi` or a Claude scan never loads another agent's code.

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/constants.js';

/** Static value imports of a module (`import type`, all-type specifier lists and `import()` are left out). */
function staticImports(source: string): string[] {
  const out: string[] = [];
  const re = /^\s*(?:import|export)\s+(?:([\s\S]*?)\s+from\s+)?'([^']+)';?/gm;
  for (let m = re.exec(source); m; m = re.exec(source)) {
    const clause = m[1]?.trim() ?? '';
    if (/^type\b/.test(clause)) continue;
    const braces = /^\{([\s\S]*)\}$/.exec(clause);
    const names = braces?.[1]
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (names?.length && names.every((n) => n.startsWith('type '))) continue;
    out.push(m[2]!);
  }
  return out;
}

/** Every file and package the entry loads before its first line runs, as paths relative to src/ (packages by name). */
function closure(entry: string, read: (file: string) => string | null): Set<string> {
  const seen = new Set<string>();
  const todo = [entry];
  while (todo.length) {
    const file = todo.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = read(file);
    if (source === null) continue;
    for (const spec of staticImports(source)) {
      if (spec.startsWith('node:')) continue;
      if (!spec.startsWith('.')) seen.add(spec.split('/')[0]!);
      else todo.push(join(dirname(file), spec).replace(/\.js$/, '.ts'));
    }
  }
  return seen;
}

const HEAVY = /^adapters\/[^/]+\/(scan|preview|writers|.*-reader|.*-route|.*-client|snapshots.*|compact.*)\.ts$|^better-sqlite3$/;
const heavyIn = (files: Set<string>) => [...files].filter((f) => HEAVY.test(f)).sort();

const src = join(ROOT, 'src');
const readSrc = (file: string) => {
  const p = join(src, file);
  return existsSync(p) ? readFileSync(p, 'utf8') : null;
};

describe('the registry loads descriptors only', () => {
  it('no agent scan, reader, preview, writer check, route or the SQLite driver in its static closure', () => {
    const files = closure('adapters/registry.ts', readSrc);
    expect(files.has('adapters/pi/index.ts')).toBe(true);
    expect(files.has('adapters/claude/index.ts')).toBe(true);
    expect(heavyIn(files)).toEqual([]);
  });

  it('the check sees a static import and ignores type-only and dynamic ones', () => {
    const fake: Record<string, string> = {
      'adapters/registry.ts': "import { a } from './pi/index.js';\nimport type { B } from './codex/index.js';",
      'adapters/pi/index.ts': [
        "import type { Inventory } from '../../engine/core/model.js';",
        "import { type X, type Y } from './preview.js';",
        "const scan = () => import('./writers.js');",
        'import {',
        '  scanPi,',
        '  PI_LINK_REASON,',
        "} from './scan.js';",
      ].join('\n'),
      'adapters/codex/index.ts': "import Database from 'better-sqlite3';",
    };
    expect(heavyIn(closure('adapters/registry.ts', (f) => fake[f] ?? null))).toEqual(['adapters/pi/scan.ts']);
    fake['adapters/registry.ts'] += "\nimport { c } from './codex/index.js';";
    expect(heavyIn(closure('adapters/registry.ts', (f) => fake[f] ?? null))).toEqual(['adapters/pi/scan.ts', 'better-sqlite3']);
  });
});
