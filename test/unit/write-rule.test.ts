// One rule for every write (#26): a module of src/ may call a path-based
// filesystem write of node:fs or node:fs/promises (writeFile, mkdir, rename,
// rm, unlink, chmod, symlink, copyFile, an open with write flags,
// createWriteStream, …) only if it is listed below with the reason its
// writes are safe. Everything else writes through the helpers that are:
// src/engine/host/anchored-fs.ts (directory handles opened without
// following links) and src/engine/host/atomic.ts (cleanerx's own state,
// replaced atomically). Writes through a descriptor (writeSync(fd),
// fchmod, ftruncate, fsync) name no path and are not counted. Read from
// the TypeScript parser: comments and strings never count, and every way of
// reaching the functions does (named imports, renamed ones, `fs.x`,
// `fs.promises.x`, `promises as fsp` then `fsp.x`, literal import()).

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

/** The path-based writes (each also as …Sync, and in the promises API where it has one). */
const WRITES = new Set([
  'writeFile',
  'appendFile',
  'mkdir',
  'mkdtemp',
  'rename',
  'rm',
  'rmdir',
  'unlink',
  'chmod',
  'lchmod',
  'chown',
  'lchown',
  'symlink',
  'link',
  'copyFile',
  'cp',
  'truncate',
  'utimes',
  'lutimes',
  'createWriteStream',
]);
/** Writes only with write flags: the flags are the second argument. */
const OPENS = new Set(['open', 'openSync']);
const FS = new Set(['fs', 'node:fs']);
const FS_PROMISES = new Set(['fs/promises', 'node:fs/promises']);

const baseName = (fn: string): string => (fn.endsWith('Sync') ? fn.slice(0, -4) : fn);

/**
 * Is this open's flags argument a write? Absent: 'r'. A string: w, a or +.
 * An expression (a module constant is read through to its value): any write
 * constant in it is a write, O_RDONLY with only harmless extras is not, and
 * anything the rule cannot read counts as a write.
 */
function openWrites(flags: ts.Expression | undefined, sf: ts.SourceFile, consts: ReadonlyMap<string, ts.Expression>): boolean {
  if (!flags) return false;
  if (ts.isIdentifier(flags) && consts.has(flags.text)) return openWrites(consts.get(flags.text), sf, consts);
  if (ts.isStringLiteralLike(flags)) return /[wa+]/.test(flags.text);
  const text = flags.getText(sf).replace(/\s+/g, ' ').trim();
  if (/O_(WRONLY|RDWR|CREAT|TRUNC|APPEND)\b/.test(text)) return true;
  return !/^(?:[\w.]+\.)?O_RDONLY(?: \| (?:[\w.]+\.)?O_(?:NOFOLLOW|NONBLOCK|CLOEXEC|DIRECTORY|NOATIME|NOCTTY))*$/.test(text);
}

interface WriteCall {
  /** The function as the module calls it (fs.promises.rm, writeFileSync…). */
  call: string;
  line: number;
}

/** Every path-based fs write call of one source file. */
function writeCalls(source: string): WriteCall[] {
  const sf = ts.createSourceFile('x.ts', source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  // local name → the fs function it is bound to
  const fns = new Map<string, string>();
  // local names bound to the whole node:fs module, and to its promises API
  const fsNs = new Set<string>();
  const promisesNs = new Set<string>();
  const bindNamed = (spec: string, imported: string, local: string): void => {
    if (FS.has(spec) && imported === 'promises') promisesNs.add(local);
    else fns.set(local, imported);
  };
  const visitBindings = (n: ts.Node): void => {
    if (ts.isImportDeclaration(n) && ts.isStringLiteral(n.moduleSpecifier)) {
      const spec = n.moduleSpecifier.text;
      if (!FS.has(spec) && !FS_PROMISES.has(spec)) return;
      const ns = FS.has(spec) ? fsNs : promisesNs;
      const c = n.importClause;
      if (c?.name) ns.add(c.name.text);
      const b = c?.namedBindings;
      if (b && ts.isNamespaceImport(b)) ns.add(b.name.text);
      else if (b) for (const e of b.elements) bindNamed(spec, (e.propertyName ?? e.name).text, e.name.text);
    }
    // const { a, b: c } = await import('node:fs') / require('node:fs'); const fs = require('node:fs')
    if (ts.isVariableDeclaration(n) && n.initializer) {
      let init: ts.Expression = n.initializer;
      if (ts.isAwaitExpression(init)) init = init.expression;
      if (
        ts.isCallExpression(init) &&
        init.arguments.length === 1 &&
        ts.isStringLiteralLike(init.arguments[0]!) &&
        (init.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(init.expression) && init.expression.text === 'require'))
      ) {
        const spec = (init.arguments[0] as ts.StringLiteralLike).text;
        if (FS.has(spec) || FS_PROMISES.has(spec)) {
          if (ts.isIdentifier(n.name)) (FS.has(spec) ? fsNs : promisesNs).add(n.name.text);
          else if (ts.isObjectBindingPattern(n.name))
            for (const el of n.name.elements) {
              if (!ts.isIdentifier(el.name)) continue;
              const imported = el.propertyName && ts.isIdentifier(el.propertyName) ? el.propertyName.text : el.name.text;
              if (FS_PROMISES.has(spec)) fns.set(el.name.text, `promises.${imported}`);
              else bindNamed(spec, imported, el.name.text);
            }
        }
      }
    }
    ts.forEachChild(n, visitBindings);
  };
  visitBindings(sf);

  // Module-level `const X = <expr>`: what an open's flags name.
  const consts = new Map<string, ts.Expression>();
  for (const st of sf.statements)
    if (ts.isVariableStatement(st) && st.declarationList.flags & ts.NodeFlags.Const)
      for (const d of st.declarationList.declarations) if (ts.isIdentifier(d.name) && d.initializer) consts.set(d.name.text, d.initializer);

  const out: WriteCall[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isCallExpression(n)) {
      const e = n.expression;
      let fn: string | undefined;
      let shown = '';
      if (ts.isIdentifier(e) && fns.has(e.text)) {
        fn = fns.get(e.text)!.replace(/^promises\./, '');
        shown = e.text;
      } else if (ts.isPropertyAccessExpression(e)) {
        const obj = e.expression;
        const name = e.name.text;
        if (ts.isIdentifier(obj) && (fsNs.has(obj.text) || promisesNs.has(obj.text))) fn = name;
        else if (ts.isPropertyAccessExpression(obj) && obj.name.text === 'promises' && ts.isIdentifier(obj.expression) && fsNs.has(obj.expression.text))
          fn = name;
        shown = e.getText(sf);
      }
      if (fn !== undefined) {
        const write = OPENS.has(fn) ? openWrites(n.arguments[1], sf, consts) : WRITES.has(baseName(fn));
        if (write) out.push({ call: shown, line: sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1 });
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

/**
 * The modules allowed to write by path, each with why that is safe. A new
 * entry needs a reason of the same kind: the module is one of the helpers,
 * or writes only inside a private 0700 directory it created, or only
 * cleanerx's own files in cleanerx's own 0700 dirs, or only the demo's and
 * the tests' fake homes. Where a reason says "by path", the write is not
 * anchored to a directory handle (docs/testing.md lists them as the rule's
 * known gaps).
 */
const ALLOWED: Record<string, string> = {
  // The helpers every other write goes through.
  'engine/host/anchored-fs.ts':
    'anchored-fs itself: every call names one entry of a directory handle (/proc/self/fd/<fd>/<name>), opened without following links',
  'engine/host/atomic.ts':
    "the atomic helper itself: cleanerx's own state, only into a directory this user owns and no one else may write (checked by fstat of its descriptor), a partial created O_EXCL|O_NOFOLLOW beside the target, fsync'd, renamed over it (a link at the target is refused; by path)",

  // Private directories a module made for itself.
  'engine/host/sqlite-quiet.ts':
    'writes only inside the private 0700 mkdtemp dir it created for a read-only view of a database (a hard link or an O_EXCL|O_NOFOLLOW copy)',
  'engine/host/probe-home.ts':
    'makes one private 0700 mkdtemp dir for a --version probe and removes it (links inside removed, never followed) once the probe has exited',
  'engine/host/export-staging.ts': 'removes only its own <data>/export-staging/<pid>-<start>-<uuid> dirs (0700) whose run is gone',
  'adapters/opencode/backup-route.ts':
    'writes only the session exports into the 0700 staging dir it checks (not a link, this user, mode 0700), each file O_EXCL|O_NOFOLLOW; removes only those',
  'adapters/opencode/server-export.ts':
    'writes each session export O_EXCL|O_NOFOLLOW (0600) into the staging dir backup-route.ts checked; the caller removes them on failure',
  'backup/restore-staging.ts': "stages restored payloads O_EXCL|O_NOFOLLOW inside the restore's private 0700 staging dir",
  'backup/take.ts': "writes the export index O_EXCL into the backup's private 0700 staging dir and removes that dir; unlinks only its own unverified archive",

  // cleanerx's own files, in cleanerx's own 0700 dirs.
  'backup/archive.ts':
    "writes the archive as <id>.cxb.partial created O_EXCL ('wx') in cleanerx's 0700 backups dir, renames it to <id>.cxb; unlinks only that partial",
  'backup/keystore.ts': "creates the identity file O_EXCL in cleanerx's 0700 data dir (never replaced)",
  'backup/catalog.ts': "deletes one catalogued archive in cleanerx's backups dir, after checking it is a regular file (by path)",
  'backup/service.ts': "discards an uncommitted backup candidate (<id>.cxb, its .partial) in cleanerx's backups dir, regular files only (by path)",
  'backup/restore-journal.ts': "removes a finished restore's journal in cleanerx's state dir (by path)",
  'backup/restore.ts':
    "creates and removes the restore's own 0700 journal and staging dirs in cleanerx's dirs; agent files are written by restore-commit.ts through anchored-fs",
  'engine/cleanup/journal.ts': "unlinks an obsolete cleanup journal in cleanerx's state dir (by path); every journal write goes through the atomic helper",
  'engine/cleanup/agent-lock.ts':
    "creates the agent's lock file O_EXCL|O_NOFOLLOW in cleanerx's 0700 locks dir and removes only a lock it took over or holds (by path)",
  'engine/api/engine.ts': "makes cleanerx's 0700 locks dir for a restore and removes it again only while empty (rmdir; by path)",

  // Test and demo modes only.
  'app/perf-log.ts': 'appends timing lines to the file CLEANERX_PERF_LOG names (benches only; unset, nothing is written)',
  'app/settled-signal.ts': 'appends "settled <n>" and "changed <k>" to the file CLEANERX_SETTLED_FILE names (PTY tests only; unset, nothing is written)',
  'demo/demo-home.ts': 'creates the demo home with mkdtemp in the temp dir and writes only inside it',
  'demo/demo-owner.ts': 'writes, and on exit removes, only demo homes it can prove are its own (owner file of this pid, this user, not a link)',
  'demo/opencode-demo.ts': "builds the demo's opencode.db inside the demo home and moves it into place there",
  'demo/codex-demo-logs.ts': "builds the demo's Codex logs database beside the demo home (codex makes it) and moves it into the demo's CODEX_HOME",
  'adapters/claude/fixture.ts': "builds a Claude Code store in the (temp) home it is given: the demo home or a test's temp dir",
  'adapters/codex/fixture.ts': "builds a Codex store in the (temp) home it is given: the demo home or a test's temp dir",
  'adapters/opencode/fixture.ts': "builds an OpenCode store in the (temp) home it is given: the demo home or a test's temp dir",
  'adapters/claude/fixture-temp.ts': "builds Claude's temp root in the (temp) home it is given: the demo home or a test's temp dir",
  'adapters/opencode/fixture-snapshots.ts': "builds OpenCode snapshot repositories in the (temp) home it is given: the demo home or a test's temp dir",
  'adapters/pi/fixture.ts': "builds a pi store in the (temp) home it is given: the demo home or a test's temp dir",
  'adapters/codex/fixture-demo.ts': "creates CODEX_HOME inside the demo home's isolated env for Codex's demo rollouts",
  'adapters/opencode/fixture-demo.ts': "writes OpenCode's minimal demo store inside the demo home's isolated env",
};

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const n of readdirSync(dir)) {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) out.push(...sourceFiles(p));
    else if (/\.(m|c)?tsx?$/.test(n) && !n.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

const rel = (p: string): string => relative(SRC, p).split(sep).join('/');

/** Every module of the tree that writes by path without being allowed to, with its calls. */
function strays(tree: ReadonlyMap<string, string>, allowed: Record<string, string>): string[] {
  const out: string[] = [];
  for (const [file, source] of tree) {
    if (file in allowed) continue;
    const calls = writeCalls(source);
    if (calls.length) out.push(`${file}: ${calls.map((c) => `${c.call} (line ${c.line})`).join(', ')}`);
  }
  return out;
}

const srcTree = (): Map<string, string> => new Map(sourceFiles(SRC).map((p) => [rel(p), readFileSync(p, 'utf8')]));

describe('path-based fs writes', () => {
  it('only the listed modules write by path', () => {
    expect(strays(srcTree(), ALLOWED)).toEqual([]);
  });

  it('every listed module exists, still writes by path, and says why in one line', () => {
    const tree = srcTree();
    for (const [file, why] of Object.entries(ALLOWED)) {
      expect(tree.has(file), `${file} is listed but does not exist`).toBe(true);
      expect(writeCalls(tree.get(file)!).length, `${file} is listed but no longer writes by path: take it off the list`).toBeGreaterThan(0);
      expect(why.length, file).toBeGreaterThan(20);
      expect(why, file).not.toMatch(/\n/);
    }
  });
});

describe('the write scanner (each form can fail)', () => {
  const one = (source: string): string[] => writeCalls(source).map((c) => c.call);
  const stray = (source: string, file = 'engine/inventory/x.ts'): string[] => strays(new Map([[file, source]]), ALLOWED);

  it('finds named, renamed, namespace, default, promises and dynamic-import forms', () => {
    expect(one("import { writeFileSync } from 'node:fs';\nwriteFileSync(p, 'x');")).toEqual(['writeFileSync']);
    expect(one("import { rmSync as zap } from 'fs';\nzap(p, { recursive: true });")).toEqual(['zap']);
    expect(one("import * as fs from 'node:fs';\nfs.renameSync(a, b); fs.promises.unlink(a);")).toEqual(['fs.renameSync', 'fs.promises.unlink']);
    expect(one("import fs from 'node:fs';\nfs.symlinkSync(a, b);")).toEqual(['fs.symlinkSync']);
    expect(one("import { promises as fsp } from 'node:fs';\nawait fsp.mkdir(d); await fsp.chmod(d, 0o700);")).toEqual(['fsp.mkdir', 'fsp.chmod']);
    expect(one("import { copyFile } from 'node:fs/promises';\nawait copyFile(a, b);")).toEqual(['copyFile']);
    expect(one("import * as p from 'fs/promises';\nawait p.writeFile(a, 'x'); await p.truncate(a);")).toEqual(['p.writeFile', 'p.truncate']);
    expect(one("const { chmodSync } = await import('node:fs');\nchmodSync(a, 0o600);")).toEqual(['chmodSync']);
    expect(one("const { appendFile } = await import('node:fs/promises');\nawait appendFile(a, 'x');")).toEqual(['appendFile']);
    expect(one("import { createWriteStream, cpSync, utimesSync } from 'node:fs';\ncreateWriteStream(a); cpSync(a, b); utimesSync(a, 1, 1);")).toEqual([
      'createWriteStream',
      'cpSync',
      'utimesSync',
    ]);
  });

  it('counts an open only with write flags, read through a module constant', () => {
    expect(one("import { openSync } from 'node:fs';\nopenSync(a); openSync(a, 'r'); openSync(a, 'wx'); openSync(a, 'r+'); openSync(a, 'a');")).toEqual([
      'openSync',
      'openSync',
      'openSync',
    ]);
    expect(
      one(
        "import { constants as C, openSync, promises as fsp } from 'node:fs';\nconst R = C.O_RDONLY | C.O_NOFOLLOW;\nconst W = C.O_WRONLY | C.O_CREAT;\nopenSync(a, R); openSync(a, C.O_RDONLY | C.O_DIRECTORY); fsp.open(a, W); openSync(a, flags);",
      ),
    ).toEqual(['fsp.open', 'openSync']);
  });

  it('ignores comments, strings, reads, descriptor writes and functions of the same name from elsewhere', () => {
    expect(
      one(
        [
          "import { readFileSync, writeSync, fchmodSync, ftruncateSync, promises as fsp } from 'node:fs';",
          "import { rm } from './own-helpers.js';",
          "// writeFileSync(p, 'x'); fs.rmSync(p)",
          'const s = "fsp.unlink(p)";',
          'readFileSync(p); writeSync(fd, b); fchmodSync(fd, 0o600); ftruncateSync(fd, 0); await fsp.readFile(p); await fsp.lstat(p);',
          'await rm(p); other.unlink(p);',
        ].join('\n'),
      ),
    ).toEqual([]);
  });

  it('a stray write in a module off the list fails the rule; the same file on the list passes', () => {
    const src = "import { promises as fsp } from 'node:fs';\nexport async function save(p: string): Promise<void> {\n  await fsp.writeFile(p, 'x');\n}";
    expect(stray(src)).toEqual(['engine/inventory/x.ts: fsp.writeFile (line 3)']);
    expect(stray(src, 'engine/host/atomic.ts')).toEqual([]);
  });
});
