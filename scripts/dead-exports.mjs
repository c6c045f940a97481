#!/usr/bin/env node
// Part of `npm run check`: an export of src/ that no other module of src/
// or test/ names is dead code — kept alive only by its `export`. Each
// module's exports are read with the TypeScript parser; a name counts as
// used when another file mentions it as a whole word (an import, a
// re-export, a type position). Exits 1 listing the dead ones. A type alias
// `= Assert<…>` is a compile-time check, used by the compiler itself.

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = join(fileURLToPath(import.meta.url), '..', '..');

function files(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'node_modules') out.push(...files(p));
    } else if (/\.(ts|mts|mjs)$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** The names a module exports by declaration (`export function f`, `export const a, b`, `export interface I` …). */
export function exportedNames(text, fileName = 'x.ts') {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const names = [];
  for (const st of sf.statements) {
    const exported = ts.canHaveModifiers(st) && ts.getModifiers(st)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (!exported) continue;
    if (ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations) if (ts.isIdentifier(d.name)) names.push(d.name.text);
    } else if (ts.isTypeAliasDeclaration(st) && st.type.getText(sf).startsWith('Assert<')) {
      // A compile-time assertion: the compiler is its user.
    } else if (
      (ts.isFunctionDeclaration(st) ||
        ts.isClassDeclaration(st) ||
        ts.isInterfaceDeclaration(st) ||
        ts.isTypeAliasDeclaration(st) ||
        ts.isEnumDeclaration(st)) &&
      st.name
    ) {
      names.push(st.name.text);
    }
  }
  return names;
}

export function deadExports(base = root) {
  const src = files(join(base, 'src'));
  const all = [...src, ...files(join(base, 'test')), ...files(join(base, 'bench')), ...files(join(base, 'scripts'))];
  const texts = new Map(all.map((f) => [f, readFileSync(f, 'utf8')]));
  // Every word of every file, once: a name is used when a file other than its own has it.
  const seenIn = new Map();
  for (const [f, text] of texts) {
    for (const w of new Set(text.match(/[A-Za-z_$][\w$]*/g) ?? [])) {
      const list = seenIn.get(w);
      if (list) list.push(f);
      else seenIn.set(w, [f]);
    }
  }
  const dead = [];
  for (const f of src) {
    for (const name of exportedNames(texts.get(f), f)) {
      if (!(seenIn.get(name) ?? []).some((g) => g !== f)) dead.push(`${relative(base, f)}: ${name}`);
    }
  }
  return dead;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dead = deadExports();
  if (dead.length) {
    console.error(`Exported but used by no other module (remove the export, or the code):\n  ${dead.join('\n  ')}`);
    process.exit(1);
  }
}
