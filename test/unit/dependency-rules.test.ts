// Layering rules, checked on the import statements of the sources:
//   src/engine/**                 never reaches the UI, the adapters or the app;
//   src/screens/**, src/widgets/** never touch the filesystem, processes or the adapters;
//   src/adapters/**               never reach the UI.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

// import x from 'm'; import {a,\n b} from 'm'; import 'm'; export * from 'm'; import type ...;
// import('m'); require('m').
const IMPORT_RE =
  /(?:^|[^\w$.])(?:import|export)\s+(?:type\s+)?(?:[^'";]+?\s+from\s*)?['"]([^'"\n]+)['"]|(?:^|[^\w$.])import\s*\(\s*['"]([^'"\n]+)['"]\s*\)|(?:^|[^\w$.])require\s*\(\s*['"]([^'"\n]+)['"]\s*\)/g;

function importsOf(source: string): string[] {
  const out: string[] = [];
  for (const m of source.matchAll(IMPORT_RE)) out.push((m[1] ?? m[2] ?? m[3])!);
  return out;
}

type Layer = 'engine' | 'screens' | 'widgets' | 'adapters' | 'app' | 'other';

/** The src layer a file (path relative to src, '/'-separated) belongs to. */
function layerOfPath(rel: string): Layer {
  const first = rel.split('/')[0]!;
  if (first === 'engine' || first === 'screens' || first === 'widgets' || first === 'adapters') return first;
  if (/^app(\.[jt]s)?$/.test(first)) return 'app';
  return 'other';
}

/** Where a specifier points: a src layer for relative imports, or the bare package name. */
function target(fromRel: string, spec: string): { layer: Layer | null; bare: string | null } {
  if (spec.startsWith('.')) {
    const abs = resolve(join(SRC, dirname(fromRel)), spec);
    const rel = relative(SRC, abs).split(sep).join('/');
    if (rel.startsWith('..')) return { layer: 'other', bare: null };
    return { layer: layerOfPath(rel), bare: null };
  }
  return { layer: null, bare: spec };
}

const FS_AND_PROCESSES = new Set(['fs', 'node:fs', 'fs/promises', 'node:fs/promises', 'child_process', 'node:child_process']);
const isBlessed = (bare: string | null): boolean => bare === 'blessed' || Boolean(bare?.startsWith('blessed/'));

/** Every rule violation of one file, as "file: spec (why)". */
function violations(fileRel: string, source: string): string[] {
  const from = layerOfPath(fileRel);
  const out: string[] = [];
  for (const spec of importsOf(source)) {
    const { layer, bare } = target(fileRel, spec);
    let why: string | null = null;
    if (from === 'engine') {
      if (isBlessed(bare)) why = 'the engine must not use blessed';
      else if (layer === 'screens' || layer === 'widgets' || layer === 'adapters' || layer === 'app') why = `the engine must not import ${layer}`;
    } else if (from === 'screens' || from === 'widgets') {
      if (bare && FS_AND_PROCESSES.has(bare)) why = `${from} must not touch the filesystem or processes`;
      else if (layer === 'adapters') why = `${from} must not import adapters`;
    } else if (from === 'adapters') {
      if (isBlessed(bare)) why = 'adapters must not use blessed';
      else if (layer === 'screens' || layer === 'widgets') why = `adapters must not import ${layer}`;
    }
    if (why) out.push(`${fileRel}: '${spec}' (${why})`);
  }
  return out;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const n of names) {
    const p = join(dir, n);
    const st = statSync(p);
    if (st.isDirectory()) out.push(...sourceFiles(p));
    else if (/\.(m|c)?[jt]sx?$/.test(n) && !n.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

describe('the import scanner', () => {
  it('finds every import form', () => {
    const src = [
      "import blessed from 'blessed';",
      "import type { A, B } from '../screens/a.js';",
      'import {\n  x, // the x\n  y as $y,\n} from "node:fs";',
      "import * as cp from 'child_process';",
      "import './side-effect.js';",
      "export { z } from '../widgets/z.js';",
      "export * from '../adapters/pi/index.js';",
      "const m = await import('../app.js');",
      "const r = require('fs/promises');",
      "const s = 'import nothing from here';",
    ].join('\n');
    expect(importsOf(src)).toEqual([
      'blessed',
      '../screens/a.js',
      'node:fs',
      'child_process',
      './side-effect.js',
      '../widgets/z.js',
      '../adapters/pi/index.js',
      '../app.js',
      'fs/promises',
    ]);
  });

  it('flags each forbidden import, and allows the permitted ones', () => {
    expect(violations('engine/x.ts', "import blessed from 'blessed';")).toHaveLength(1);
    expect(violations('engine/x.ts', "import { a } from '../screens/a.js';")).toHaveLength(1);
    expect(violations('engine/x.ts', "import { a } from '../widgets/a.js';")).toHaveLength(1);
    expect(violations('engine/x.ts', "import { a } from '../adapters/registry.js';")).toHaveLength(1);
    expect(violations('engine/x.ts', "import { a } from '../app.js';")).toHaveLength(1);
    expect(violations('engine/sub/x.ts', "import { a } from '../../adapters/pi/scan.js';")).toHaveLength(1);
    expect(violations('engine/x.ts', "import { a } from './model.js';\nimport { promises } from 'node:fs';")).toEqual([]);

    for (const layer of ['screens', 'widgets']) {
      for (const m of ['fs', 'node:fs', 'fs/promises', 'node:fs/promises', 'child_process', 'node:child_process']) {
        expect(violations(`${layer}/x.ts`, `import * as m from '${m}';`), `${layer} ${m}`).toHaveLength(1);
      }
      expect(violations(`${layer}/x.ts`, "import { piAdapter } from '../adapters/pi/index.js';")).toHaveLength(1);
      expect(violations(`${layer}/x.ts`, "import type { X } from '../adapters/registry.js';")).toHaveLength(1);
      expect(violations(`${layer}/x.ts`, "import blessed from 'blessed';\nimport { cleanText } from '../engine/text.js';")).toEqual([]);
    }

    expect(violations('adapters/pi/x.ts', "import blessed from 'blessed';")).toHaveLength(1);
    expect(violations('adapters/pi/x.ts', "import { a } from '../../screens/a.js';")).toHaveLength(1);
    expect(violations('adapters/x.ts', "import { a } from '../widgets/a.js';")).toHaveLength(1);
    expect(violations('adapters/pi/x.ts', "import { promises } from 'node:fs';\nimport { a } from '../../engine/model.js';")).toEqual([]);
  });
});

describe('dependency rules over src/', () => {
  const files = sourceFiles(SRC).map((f) => ({ abs: f, rel: relative(SRC, f).split(sep).join('/') }));

  it('sees the source tree', () => {
    const engine = files.filter((f) => f.rel.startsWith('engine/'));
    const adapters = files.filter((f) => f.rel.startsWith('adapters/'));
    expect(engine.length).toBeGreaterThan(5);
    expect(adapters.length).toBeGreaterThan(3);
    // The scanner sees real imports (guards against a regex that silently matches nothing).
    const engineTs = readFileSync(join(SRC, 'engine', 'api', 'engine.ts'), 'utf8');
    expect(importsOf(engineTs)).toContain('../inventory/snapshot.js');
  });

  for (const layer of ['engine', 'screens', 'widgets', 'adapters'] as const) {
    it(`src/${layer} follows its import rules`, () => {
      const found = files.filter((f) => f.rel.startsWith(`${layer}/`)).flatMap((f) => violations(f.rel, readFileSync(f.abs, 'utf8')));
      expect(found).toEqual([]);
    });
  }
});
