// Layering rules over src/, read from the import graph (the TypeScript parser,
// so comments and strings never count as imports):
//   engine rooms     i18n → nothing (no other room, no package, no node builtin); every room and every layer may import it.
//                    core → i18n only; host → core; inventory → host, core;
//                    cleanup → inventory, host, core; api → every room.
//                    The engine reaches nothing outside src/engine (no UI, adapters, app, cli, backup, demo) and no blessed.
//   backup/          engine/core, engine/host, engine/cleanup only; never engine/api (nor inventory), UI, app, cli, adapters, demo.
//   adapters/        never the UI (screens, widgets, modals, app, blessed), the cli or the demo.
//   demo/            imported by neither the engine nor the adapters (the engine rule above and the adapters rule say so).
//   screens/, widgets/, modals/  no fs, no child_process, no adapters.
//   the UI (app/, modals/, screens/, widgets/) uses only engine/core, engine/i18n and the types of engine/api:
//                    no run-time import of engine/api, nothing at all of engine/host, inventory or cleanup.
//   app/             never cli.ts or src/cli/**;  src/cli/** never app/.
//   no import cycle, neither between files nor between folders (a folder = the directory a file sits in).
//   homedir() / tmpdir() of node:os only in src/engine/host/** (every other place takes the home and temp dir from there).
// Every edge counts: static imports, re-exports, literal import() and require(),
// and type-only imports too: a type-only cycle is still two modules that cannot be
// understood, moved or tested apart, and "type-only" is one edit away from a runtime cycle.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

interface Imp {
  spec: string;
  /** The names bound from the module ('*' for a namespace or default binding, whose uses are checked by name). */
  names: string[];
  /** For '*' bindings: the local name. */
  local?: string;
  /** Erased at compile time: `import type`, `export type`, or every named binding marked `type`. */
  typeOnly: boolean;
}

/** Every module a source names: import/export … from, import x = require(), literal import() and require(). */
function importsOf(source: string): Imp[] {
  const sf = ts.createSourceFile('x.ts', source, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const out: Imp[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isImportDeclaration(n) && ts.isStringLiteral(n.moduleSpecifier)) {
      const c = n.importClause;
      const names: string[] = [];
      let local: string | undefined;
      if (c?.name) {
        names.push('*');
        local = c.name.text;
      }
      const b = c?.namedBindings;
      if (b && ts.isNamespaceImport(b)) {
        names.push('*');
        local = b.name.text;
      } else if (b) for (const e of b.elements) names.push((e.propertyName ?? e.name).text);
      const everyNamedIsType = !c?.name && !!b && ts.isNamedImports(b) && b.elements.length > 0 && b.elements.every((e) => e.isTypeOnly);
      out.push({ spec: n.moduleSpecifier.text, names, local, typeOnly: !!c?.isTypeOnly || everyNamedIsType });
    } else if (ts.isExportDeclaration(n) && n.moduleSpecifier && ts.isStringLiteral(n.moduleSpecifier)) {
      const e = n.exportClause;
      const everyNamedIsType = !!e && ts.isNamedExports(e) && e.elements.length > 0 && e.elements.every((x) => x.isTypeOnly);
      out.push({ spec: n.moduleSpecifier.text, names: [], typeOnly: n.isTypeOnly || everyNamedIsType });
    } else if (ts.isImportEqualsDeclaration(n) && ts.isExternalModuleReference(n.moduleReference) && ts.isStringLiteral(n.moduleReference.expression)) {
      out.push({ spec: n.moduleReference.expression.text, names: ['*'], local: n.name.text, typeOnly: n.isTypeOnly });
    } else if (ts.isCallExpression(n) && n.arguments.length >= 1 && ts.isStringLiteralLike(n.arguments[0]!)) {
      const isImport = n.expression.kind === ts.SyntaxKind.ImportKeyword;
      const isRequire = ts.isIdentifier(n.expression) && n.expression.text === 'require';
      if (isImport || isRequire) out.push({ spec: (n.arguments[0] as ts.StringLiteralLike).text, names: ['*'], typeOnly: false });
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

/** The folder rule a file falls under (path relative to src, '/'-separated). */
type Area =
  | 'engine/i18n'
  | 'engine/core'
  | 'engine/host'
  | 'engine/inventory'
  | 'engine/cleanup'
  | 'engine/api'
  | 'engine/?'
  | 'backup'
  | 'adapters'
  | 'demo'
  | 'screens'
  | 'widgets'
  | 'modals'
  | 'app'
  | 'cli'
  | 'cli.ts'
  | 'other';

function areaOf(rel: string): Area {
  const [first, second] = rel.split('/');
  if (first === 'engine') {
    if (second === 'i18n' || second === 'core' || second === 'host' || second === 'inventory' || second === 'cleanup' || second === 'api')
      return `engine/${second}`;
    return 'engine/?';
  }
  if (rel === 'cli.ts') return 'cli.ts';
  if (
    first === 'backup' ||
    first === 'adapters' ||
    first === 'demo' ||
    first === 'screens' ||
    first === 'widgets' ||
    first === 'modals' ||
    first === 'app' ||
    first === 'cli'
  )
    return first;
  return 'other';
}

const ROOMS = ['engine/i18n', 'engine/core', 'engine/host', 'engine/inventory', 'engine/cleanup', 'engine/api'] as const;
/** Which rooms each room may import (itself included). */
const ROOM_MAY: Record<string, readonly string[]> = {
  'engine/i18n': ['engine/i18n'],
  'engine/core': ['engine/core', 'engine/i18n'],
  'engine/host': ['engine/host', 'engine/core', 'engine/i18n'],
  'engine/inventory': ['engine/inventory', 'engine/host', 'engine/core', 'engine/i18n'],
  'engine/cleanup': ['engine/cleanup', 'engine/inventory', 'engine/host', 'engine/core', 'engine/i18n'],
  'engine/api': ROOMS,
};
const BACKUP_MAY = ['backup', 'engine/core', 'engine/host', 'engine/cleanup', 'engine/i18n'];
const UI: readonly Area[] = ['screens', 'widgets', 'modals', 'app'];
/** The engine rooms the UI may import at run time; of engine/api, only types. */
const UI_MAY_RUN = ['engine/core', 'engine/i18n'];
const FS_AND_PROCESSES = new Set(['fs', 'node:fs', 'fs/promises', 'node:fs/promises', 'child_process', 'node:child_process']);
const OS = new Set(['os', 'node:os']);
const isBlessed = (bare: string): boolean => bare === 'blessed' || bare.startsWith('blessed/');

/** A relative specifier resolved against the tree: the file it names (x.js → x.ts, a folder → its index), or the bare path when none exists. */
function resolveIn(files: ReadonlySet<string>, fromRel: string, spec: string): string {
  const joined = posix.normalize(posix.join(posix.dirname(fromRel), spec));
  const stem = joined.replace(/\.(m|c)?js$/, '');
  for (const c of [joined, `${stem}.ts`, `${stem}.mts`, `${stem}.tsx`, `${joined}.ts`, `${joined}/index.ts`]) if (files.has(c)) return c;
  return joined;
}

interface Edge {
  from: string;
  to: string;
  spec: string;
}

/** Every rule break in a tree of sources (path relative to src → text), as plain sentences. */
function checkTree(tree: ReadonlyMap<string, string>): string[] {
  const files = new Set(tree.keys());
  const out: string[] = [];
  const edges: Edge[] = [];
  for (const [rel, source] of tree) {
    const from = areaOf(rel);
    for (const imp of importsOf(source)) {
      const { spec } = imp;
      const say = (why: string): void => void out.push(`${rel}: '${spec}' (${why})`);
      if (!spec.startsWith('.')) {
        if (from === 'engine/i18n') say('engine/i18n imports nothing outside itself (no package, no node builtin)');
        if (from.startsWith('engine/') && isBlessed(spec)) say('the engine must not use blessed');
        if (from === 'adapters' && isBlessed(spec)) say('adapters must not use blessed');
        if ((from === 'screens' || from === 'widgets' || from === 'modals') && FS_AND_PROCESSES.has(spec))
          say(`${from} must not touch the filesystem or processes`);
        if (OS.has(spec) && !rel.startsWith('engine/host/')) {
          const direct = imp.names.filter((n) => n === 'homedir' || n === 'tmpdir');
          const viaNs = imp.local ? [...source.matchAll(new RegExp(`\\b${imp.local}\\s*\\.\\s*(homedir|tmpdir)\\b`, 'g'))].map((m) => m[1]!) : [];
          for (const n of new Set([...direct, ...viaNs])) say(`${n}() is read only in src/engine/host (take it from the HostContext)`);
        }
        continue;
      }
      const to = resolveIn(files, rel, spec);
      if (to.startsWith('..')) continue;
      edges.push({ from: rel, to, spec });
      const dest = areaOf(to);
      if (UI.includes(from) && dest.startsWith('engine/') && !UI_MAY_RUN.includes(dest) && !(dest === 'engine/api' && imp.typeOnly))
        say(`the UI uses only engine/core, engine/i18n and the types of engine/api, not ${dest === 'engine/api' ? 'engine/api at run time' : dest}`);
      if (from.startsWith('engine/')) {
        if (!dest.startsWith('engine/')) say(`the engine must not import ${dest === 'other' ? to : dest}`);
        else if (from === 'engine/?') say(`${rel.split('/').slice(0, 2).join('/')} is not an engine room (i18n, core, host, inventory, cleanup, api)`);
        else if (dest !== 'engine/?' && !ROOM_MAY[from]!.includes(dest)) say(`${from} must not import ${dest} (rooms import only the rooms below them)`);
      } else if (from === 'backup') {
        if (!BACKUP_MAY.includes(dest)) say(`backup may import only engine/core, engine/host and engine/cleanup, not ${dest === 'other' ? to : dest}`);
      } else if (from === 'adapters') {
        if (UI.includes(dest) || dest === 'cli' || dest === 'cli.ts') say(`adapters must not import ${dest}`);
        else if (dest === 'demo') say('adapters must not import the demo');
        else if (dest === 'backup') say('adapters must not import backup');
      } else if (from === 'screens' || from === 'widgets' || from === 'modals') {
        if (dest === 'adapters') say(`${from} must not import adapters`);
      } else if (from === 'app') {
        if (dest === 'cli' || dest === 'cli.ts') say('the app must not import the CLI');
      } else if (from === 'cli') {
        if (dest === 'app') say('src/cli must not import the app');
      }
    }
  }
  for (const { path, members } of cycles(edges.map((e) => [e.from, e.to]))) {
    const more = members.length > path.length - 1 ? ` (one loop of ${members.length} files tied together)` : '';
    out.push(`file cycle: ${path.join(' → ')}${more}`);
  }
  const dir = (f: string): string => posix.dirname(f);
  const folderEdges = edges.filter((e) => dir(e.from) !== dir(e.to)).map((e): [string, string] => [dir(e.from), dir(e.to)]);
  for (const { path: c, members } of cycles(folderEdges)) {
    // Name one import per step so the fix has somewhere to start.
    const steps = c.slice(0, -1).map((d, i) => {
      const e = edges.find((x) => dir(x.from) === d && dir(x.to) === c[i + 1])!;
      return `${d}/ → ${c[i + 1]}/ (${e.from} imports '${e.spec}')`;
    });
    const more = members.length > c.length - 1 ? ` (one loop of ${members.length} folders tied together: ${[...members].sort().join(', ')})` : '';
    out.push(`folder cycle: ${steps.join('; ')}${more}`);
  }
  return out;
}

/** One cycle per strongly connected component with more than one node (or a self loop): a shortest closed path, and all the members. */
function cycles(edgeList: readonly (readonly [string, string])[]): { path: string[]; members: string[] }[] {
  const next = new Map<string, Set<string>>();
  for (const [a, b] of edgeList) {
    if (!next.has(a)) next.set(a, new Set());
    if (!next.has(b)) next.set(b, new Set());
    next.get(a)!.add(b);
  }
  // Tarjan, iterative (src has hundreds of files; recursion depth is no concern, but clarity of order is).
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const comps: string[][] = [];
  const strong = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of next.get(v)!) {
      if (!idx.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1 || next.get(v)!.has(v)) comps.push(comp);
    }
  };
  for (const v of [...next.keys()].sort()) if (!idx.has(v)) strong(v);
  // A shortest closed path through the component's first node (BFS inside the component).
  return comps.map((comp) => {
    const inComp = new Set(comp);
    const start = [...comp].sort()[0]!;
    const prev = new Map<string, string>();
    const queue = [start];
    while (queue.length) {
      const v = queue.shift()!;
      for (const w of next.get(v)!) {
        if (!inComp.has(w)) continue;
        if (w === start) {
          const path = [start];
          for (let x = v; x !== start; x = prev.get(x)!) path.splice(1, 0, x);
          return { path: [...path, start], members: comp };
        }
        if (!prev.has(w)) {
          prev.set(w, v);
          queue.push(w);
        }
      }
    }
    return { path: [start, start], members: comp };
  });
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const n of readdirSync(dir)) {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) out.push(...sourceFiles(p));
    else if (/\.(m|c)?tsx?$/.test(n) && !n.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

const tree = (o: Record<string, string>): Map<string, string> => new Map(Object.entries(o));
/** The rule breaks of one file in a tree where every file it names exists (empty). */
function breaks(rel: string, source: string, others: string[] = []): string[] {
  const t = tree({ [rel]: source });
  for (const f of others) t.set(f, '');
  return checkTree(t);
}

describe('the import scanner', () => {
  it('finds every import form, and none in comments or strings', () => {
    const src = [
      "import blessed from 'blessed';",
      "import type { A, B } from '../screens/a.js';",
      'import {\n  x, // the x\n  y as $y,\n} from "node:fs";',
      "import * as cp from 'child_process';",
      "import './side-effect.js';",
      "export { z } from '../widgets/z.js';",
      "export * from '../adapters/pi/index.js';",
      "export type { T } from './t.js';",
      "const m = await import('../app.js');",
      'const n = await import(`../tpl.js`);',
      "const r = require('fs/promises');",
      "import q = require('./q.js');",
      'const s = \'import nothing from "here"\';',
      "// import { c } from './commented.js';",
      "/* export * from './block.js'; */",
    ].join('\n');
    expect(importsOf(src).map((i) => i.spec)).toEqual([
      'blessed',
      '../screens/a.js',
      'node:fs',
      'child_process',
      './side-effect.js',
      '../widgets/z.js',
      '../adapters/pi/index.js',
      './t.js',
      '../app.js',
      '../tpl.js',
      'fs/promises',
      './q.js',
    ]);
  });

  it('resolves x.js to x.ts and a folder to its index', () => {
    const t = tree({
      'engine/api/a.ts': "import { b } from '../core/b.js';\nimport { c } from '../core/c';",
      'engine/core/b.ts': "import { a } from '../api/a.js';",
      'engine/core/c/index.ts': '',
    });
    expect(checkTree(t).filter((v) => v.startsWith('file cycle'))).toEqual(['file cycle: engine/api/a.ts → engine/core/b.ts → engine/api/a.ts']);
    expect(checkTree(t).some((v) => v.includes("'../core/c'"))).toBe(false);
  });
});

describe('each rule can fail (synthetic trees)', () => {
  it('engine rooms import only the rooms below them', () => {
    const rooms = ['i18n', 'core', 'host', 'inventory', 'cleanup', 'api'];
    for (const [i, room] of rooms.entries()) {
      for (const [j, other] of rooms.entries()) {
        const found = breaks(`engine/${room}/x.ts`, `import { y } from '../${other}/y.js';`, [`engine/${other}/y.ts`]);
        const allowed = room === 'api' || j <= i;
        expect(found, `${room} → ${other}`).toHaveLength(allowed ? 0 : 1);
      }
    }
    expect(breaks('engine/core/x.ts', "import type { Y } from '../host/y.js';", ['engine/host/y.ts'])).toHaveLength(1);
    expect(breaks('engine/core/x.ts', "const y = await import('../inventory/y.js');", ['engine/inventory/y.ts'])).toHaveLength(1);
    expect(breaks('engine/newroom/x.ts', "import { y } from '../core/y.js';", ['engine/core/y.ts'])[0]).toMatch(/not an engine room/);
  });

  it('engine/i18n imports nothing outside itself, and every layer may import it', () => {
    expect(breaks('engine/i18n/x.ts', "import { en } from './en.js';", ['engine/i18n/en.ts'])).toEqual([]);
    expect(breaks('engine/i18n/x.ts', "import type { AgentKind } from '../core/model.js';", ['engine/core/model.ts'])).toHaveLength(1);
    for (const bare of ['node:fs', 'node:os', 'string-width']) expect(breaks('engine/i18n/x.ts', `import * as m from '${bare}';`), bare).toHaveLength(1);
    for (const from of ['engine/core/x.ts', 'engine/host/x.ts', 'engine/inventory/retention/x.ts', 'engine/cleanup/x.ts', 'engine/api/x.ts']) {
      const up = '../'.repeat(from.split('/').length - 2);
      expect(breaks(from, `import { t } from '${up}i18n/index.js';`, ['engine/i18n/index.ts']), from).toEqual([]);
    }
    for (const from of ['backup/x.ts', 'adapters/pi/x.ts', 'screens/x.ts', 'widgets/x.ts', 'modals/x.ts', 'app/x.ts', 'cli/x.ts', 'demo/x.ts']) {
      const up = '../'.repeat(from.split('/').length - 1);
      expect(breaks(from, `import { t } from '${up}engine/i18n/index.js';`, ['engine/i18n/index.ts']), from).toEqual([]);
    }
  });

  it('the UI uses only engine/core, engine/i18n and the types of engine/api', () => {
    for (const layer of ['app', 'modals', 'screens', 'widgets']) {
      const ok = [
        ["import { cleanText } from '../engine/core/text.js';", 'engine/core/text.ts'],
        ["import { t } from '../engine/i18n/index.js';", 'engine/i18n/index.ts'],
        ["import type { EngineApi } from '../engine/api/api.js';", 'engine/api/api.ts'],
        ["import { type EngineApi, type Settings } from '../engine/api/api.js';", 'engine/api/api.ts'],
        ["export type { Settings } from '../engine/api/api.js';", 'engine/api/api.ts'],
      ];
      for (const [src, file] of ok) expect(breaks(`${layer}/x.ts`, src!, [file!]), `${layer}: ${src}`).toEqual([]);
      const bad = [
        // Run-time code of engine/api, even beside a type.
        ["import { ENGINE_METHODS } from '../engine/api/api.js';", 'engine/api/api.ts'],
        ["import { ENGINE_METHODS, type EngineApi } from '../engine/api/api.js';", 'engine/api/api.ts'],
        ["const w = await import('../engine/api/worker-client.js');", 'engine/api/worker-client.ts'],
        ["export { ENGINE_METHODS } from '../engine/api/api.js';", 'engine/api/api.ts'],
        // The rooms below api, even for a type (marks.ts's selection index, the settings and retention types).
        ["import { compactSelection } from '../engine/inventory/selection.js';", 'engine/inventory/selection.ts'],
        ["import type { LoadedSettings } from '../engine/host/settings.js';", 'engine/host/settings.ts'],
        ["import type { RetentionRules } from '../engine/inventory/retention/rules.js';", 'engine/inventory/retention/rules.ts'],
        ["import type { CleanupPlan } from '../engine/cleanup/planner.js';", 'engine/cleanup/planner.ts'],
      ];
      for (const [src, file] of bad) {
        const found = breaks(`${layer}/x.ts`, src!, [file!]);
        expect(found, `${layer}: ${src}`).toHaveLength(1);
        expect(found[0]).toMatch(/the UI uses only engine\/core, engine\/i18n and the types of engine\/api/);
      }
    }
    // The CLI and the composition roots are not the UI: they build engines.
    expect(breaks('cli/x.ts', "import { cliEngine } from '../engine/api/engine.js';", ['engine/api/engine.ts'])).toEqual([]);
    expect(breaks('cli.ts', "import { ownDirs } from './engine/host/own-dirs.js';", ['engine/host/own-dirs.ts'])).toEqual([]);
  });

  it('the engine reaches nothing outside src/engine, nor blessed', () => {
    for (const dest of [
      'screens/a.ts',
      'widgets/a.ts',
      'app/app.ts',
      'adapters/registry.ts',
      'adapters/pi/scan.ts',
      'cli/scan.ts',
      'cli.ts',
      'backup/take.ts',
      'demo/demo-home.ts',
      'terminal-out.ts',
    ]) {
      const spec = `../../${dest.replace(/\.ts$/, '.js')}`;
      expect(breaks('engine/api/x.ts', `import { a } from '${spec}';`, [dest]), dest).toHaveLength(1);
    }
    expect(breaks('engine/cleanup/x.ts', "const b = await import('../../backup/take.js');", ['backup/take.ts'])).toHaveLength(1);
    expect(breaks('engine/host/x.ts', "import blessed from 'blessed';")).toHaveLength(1);
    expect(breaks('engine/host/x.ts', "import { promises } from 'node:fs';\nimport { a } from '../core/model.js';", ['engine/core/model.ts'])).toEqual([]);
  });

  it('backup imports engine/core, engine/host and engine/cleanup only', () => {
    for (const ok of ['engine/core/a.ts', 'engine/host/a.ts', 'engine/cleanup/a.ts', 'backup/b.ts']) {
      const spec = ok.startsWith('backup/') ? './b.js' : `../${ok.replace(/\.ts$/, '.js')}`;
      expect(breaks('backup/x.ts', `import { a } from '${spec}';`, [ok]), ok).toEqual([]);
    }
    for (const bad of [
      'engine/api/api.ts',
      'engine/inventory/snapshot.ts',
      'screens/a.ts',
      'app/app.ts',
      'adapters/pi/index.ts',
      'demo/demo-home.ts',
      'cli/key.ts',
    ]) {
      expect(breaks('backup/x.ts', `import type { a } from '../${bad.replace(/\.ts$/, '.js')}';`, [bad]), bad).toHaveLength(1);
    }
  });

  it('adapters never reach the UI, the CLI, backup or the demo', () => {
    for (const bad of ['screens/a.ts', 'widgets/a.ts', 'modals/a.ts', 'app/app.ts', 'cli/scan.ts', 'demo/demo-home.ts', 'backup/take.ts']) {
      expect(breaks('adapters/pi/x.ts', `import { a } from '../../${bad.replace(/\.ts$/, '.js')}';`, [bad]), bad).toHaveLength(1);
    }
    expect(breaks('adapters/x.ts', "import blessed from 'blessed';")).toHaveLength(1);
    expect(
      breaks('adapters/pi/x.ts', "import { promises } from 'node:fs';\nimport { a } from '../../engine/core/model.js';", ['engine/core/model.ts']),
    ).toEqual([]);
  });

  it('screens, widgets and modals touch no files, processes or adapters', () => {
    for (const layer of ['screens', 'widgets', 'modals']) {
      for (const m of FS_AND_PROCESSES) expect(breaks(`${layer}/x.ts`, `import * as m from '${m}';`), `${layer} ${m}`).toHaveLength(1);
      expect(breaks(`${layer}/x.ts`, "import type { X } from '../adapters/registry.js';", ['adapters/registry.ts'])).toHaveLength(1);
      expect(breaks(`${layer}/x.ts`, "import blessed from 'blessed';\nimport { cleanText } from '../engine/core/text.js';", ['engine/core/text.ts'])).toEqual(
        [],
      );
    }
  });

  it('the app never imports the CLI, and the CLI never the app', () => {
    expect(breaks('app/x.ts', "import { main } from '../cli.js';", ['cli.ts'])).toHaveLength(1);
    expect(breaks('app/x.ts', "import { scan } from '../cli/scan.js';", ['cli/scan.ts'])).toHaveLength(1);
    expect(breaks('cli/x.ts', "const { runApp } = await import('../app/app.js');", ['app/app.ts'])).toHaveLength(1);
    expect(breaks('cli.ts', "const { runApp } = await import('./app/app.js');", ['app/app.ts'])).toEqual([]);
    expect(breaks('app/x.ts', "import type { AppFlags } from './flags.js';", ['app/flags.ts'])).toEqual([]);
  });

  it('homedir() and tmpdir() are read in src/engine/host only', () => {
    expect(breaks('demo/x.ts', "import { tmpdir } from 'node:os';")).toHaveLength(1);
    expect(breaks('adapters/x.ts', "import { homedir as h } from 'os';")).toHaveLength(1);
    expect(breaks('cli/x.ts', "import * as os from 'node:os';\nconst d = os.tmpdir();")).toHaveLength(1);
    expect(breaks('cli/x.ts', "import os from 'node:os';\nconst d = os.homedir();")).toHaveLength(1);
    expect(breaks('cli/x.ts', "import { cpus, EOL } from 'node:os';")).toEqual([]);
    expect(breaks('engine/host/x.ts', "import { homedir, tmpdir } from 'node:os';")).toEqual([]);
  });

  it('no cycle between files, type-only and import() included', () => {
    expect(checkTree(tree({ 'a/x.ts': "import { y } from './y.js';", 'a/y.ts': "import { x } from './x.js';" }))).toEqual([
      'file cycle: a/x.ts → a/y.ts → a/x.ts',
    ]);
    expect(checkTree(tree({ 'a/x.ts': "import type { Y } from './y.js';", 'a/y.ts': "import type { X } from './x.js';" }))).toHaveLength(1);
    expect(checkTree(tree({ 'a/x.ts': "const y = await import('./y.js');", 'a/y.ts': "import './z.js';", 'a/z.ts': "export * from './x.js';" }))).toEqual([
      'file cycle: a/x.ts → a/y.ts → a/z.ts → a/x.ts',
    ]);
    expect(checkTree(tree({ 'a/x.ts': "import { y } from './y.js';", 'a/y.ts': "import { z } from './z.js';", 'a/z.ts': '' }))).toEqual([]);
  });

  it('no cycle between folders', () => {
    const found = checkTree(tree({ 'a/x.ts': "import { y } from '../b/y.js';", 'b/y.ts': "import { z } from '../a/z.js';", 'a/z.ts': '' }));
    expect(found).toEqual(["folder cycle: a/ → b/ (a/x.ts imports '../b/y.js'); b/ → a/ (b/y.ts imports '../a/z.js')"]);
    expect(checkTree(tree({ 'a/x.ts': "import { y } from '../b/y.js';", 'b/y.ts': "import { z } from '../c/z.js';", 'c/z.ts': '' }))).toEqual([]);
  });
});

describe('dependency rules over src/', () => {
  const real = new Map(sourceFiles(SRC).map((f) => [relative(SRC, f).split(sep).join('/'), readFileSync(f, 'utf8')]));
  const found = checkTree(real);
  const rulesOf = (pred: (v: string) => boolean): string[] => found.filter(pred);
  // The whole list, once, for whoever fixes them.
  if (found.length) console.log(`dependency rules: ${found.length} violation(s)\n  ${found.join('\n  ')}`);

  it('sees the source tree and its imports', () => {
    expect([...real.keys()].filter((f) => f.startsWith('engine/')).length).toBeGreaterThan(20);
    expect([...real.keys()].filter((f) => f.startsWith('adapters/')).length).toBeGreaterThan(10);
    expect(importsOf(real.get('engine/api/engine.ts')!).map((i) => i.spec)).toContain('../inventory/snapshot.js');
  });

  const groups: [string, (v: string) => boolean][] = [
    ['src/engine rooms and their reach', (v) => v.startsWith('engine/') && !/\(\w+\(\) is read only/.test(v)],
    ['src/backup', (v) => v.startsWith('backup/') && !/\(\w+\(\) is read only/.test(v)],
    ['src/adapters', (v) => v.startsWith('adapters/') && !/\(\w+\(\) is read only/.test(v)],
    ['src/screens, src/widgets, src/modals', (v) => /^(screens|widgets|modals)\//.test(v)],
    ['the UI (app, modals, screens, widgets): engine/core, engine/i18n and the types of engine/api only', (v) => v.includes('the UI uses only')],
    ['src/app and src/cli', (v) => /^(app|cli)\//.test(v) && !/\(\w+\(\) is read only/.test(v)],
    ['homedir() and tmpdir() only in src/engine/host', (v) => /\(\w+\(\) is read only/.test(v)],
    ['no file cycles', (v) => v.startsWith('file cycle')],
    ['no folder cycles', (v) => v.startsWith('folder cycle')],
  ];
  for (const [name, pred] of groups) it(`${name} follow the rules`, () => expect(rulesOf(pred)).toEqual([]));

  it('every violation is in one of the groups above', () => {
    expect(found.filter((v) => !groups.some(([, p]) => p(v)))).toEqual([]);
  });
});
