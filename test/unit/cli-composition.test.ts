// src/cli.ts is the one place where the command line and the app meet: it
// imports both; nothing imports it; the command units (src/cli/*) import no
// app code and the app no command-line code; the CLI's in-process Engine is
// built only by src/cli/engine-factory.ts. Read from the sources' import
// statements (static, type-only and dynamic alike).

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

function sources(dir = ''): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(SRC, dir), { withFileTypes: true })) {
    const rel = dir ? `${dir}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...sources(rel));
    else if (rel.endsWith('.ts')) out.push(rel);
  }
  return out;
}

/** The src-relative .ts files a source imports by a relative specifier. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(SRC, file), 'utf8');
  const specs = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm)].map((m) => m[1]!);
  return specs.map((s) => relative(SRC, resolve(dirname(join(SRC, file)), s)).replace(/\.js$/, '.ts'));
}

const ALL = sources();
const GRAPH = new Map(ALL.map((f) => [f, importsOf(f)]));
const isCliUnit = (f: string): boolean => f.startsWith('cli/');
const isApp = (f: string): boolean => f.startsWith('app/');

describe('the composition root', () => {
  it('the import reader sees static, type-only and dynamic imports (it can fail)', () => {
    const root = GRAPH.get('cli.ts')!;
    expect(root).toContain('cli/app-args.ts');
    expect(root).toContain('app/flags.ts');
    expect(root).toContain('app/app.ts');
    expect(root).toContain('cli/command-line.ts');
  });

  it('nothing imports src/cli.ts', () => {
    expect([...GRAPH].filter(([, deps]) => deps.includes('cli.ts')).map(([f]) => f)).toEqual([]);
  });

  it('src/cli/* imports nothing of src/app/*', () => {
    const offenders = [...GRAPH].filter(([f]) => isCliUnit(f)).flatMap(([f, deps]) => deps.filter(isApp).map((d) => `${f} → ${d}`));
    expect(offenders).toEqual([]);
  });

  it('src/app/* imports neither src/cli.ts nor src/cli/* (nor the old commands modules)', () => {
    const offenders = [...GRAPH]
      .filter(([f]) => isApp(f))
      .flatMap(([f, deps]) => deps.filter((d) => d === 'cli.ts' || isCliUnit(d) || d === 'commands.ts' || d === 'plan-command.ts').map((d) => `${f} → ${d}`));
    expect(offenders).toEqual([]);
  });

  it('the CLI builds its Engine in one place', () => {
    const builders = ALL.filter((f) => f === 'cli.ts' || isCliUnit(f)).filter((f) => /\bnew Engine\(/.test(readFileSync(join(SRC, f), 'utf8')));
    expect(builders).toEqual(['cli/engine-factory.ts']);
  });
});
