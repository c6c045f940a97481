// No user-visible text bypasses the catalog in the files migrated so far: a
// static scan of every string literal in them: the screens and widgets, the
// app, its dialogs, and the command line (--help, usage errors, human output).

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { en } from '../../src/engine/i18n/en.js';

const ROOT = join(import.meta.dirname, '../..');
const tsIn = (dir: string): string[] =>
  readdirSync(join(ROOT, dir))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `${dir}/${f}`);
const MIGRATED = [
  ...tsIn('src/app'),
  ...tsIn('src/cli'),
  'src/cli.ts',
  ...tsIn('src/terminal'),
  ...tsIn('src/modals'),
  'src/app/app-keys.ts',
  // The engine's files whose every sentence is migrated (detail-text, the planner and recovery still hold English request errors and row reasons).
  ...['src/engine/core/item-cost.ts', 'src/engine/core/passphrase-rule.ts'],
  ...['backups', 'items', 'marks', 'overview', 'sessions', 'settings', 'select-menu', 'warnings'].map((f) => `src/screens/${f}.ts`),
  ...readdirSync(join(ROOT, 'src/widgets'))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `src/widgets/${f}`),
];

/**
 * Literals that are not prose, each with why. Anything else with a word in
 * it (two letters in a row, or any CJK character) must come from t().
 */
const ALLOWED = new Set([
  // Key names as keyId() writes them and as the keycaps print them (the same in every language).
  ...['up', 'down', 'left', 'right', 'pageup', 'pagedown', 'home', 'end', 'enter', 'escape', 'space', 'tab', 'S-tab', 'backspace', 'delete', 'C-u'],
  ...['PgUp', 'PgDn', 'Home', 'End', 'Enter', 'Esc', 'Space', 'Tab', 'Shift-Tab', 'Backspace', 'Del', 'Ctrl', 'Alt'],
  // Binding labels: key names only.
  '→ l Space',
  // blessed option values, tag names and colours.
  ...['line', 'center', 'cyan', 'bold', 'cyan-fg', 'yellow-fg', 'red-fg', 'green-fg', 'inverse', 'grapheme'],
  // Where package.json lies relative to a module (bundled chunk or tsc tree).
  ...['../package.json', '../../package.json'],
  // The words a typed confirmation compares with: typed as they are in every language.
  'restore',
  'delete',
  // Engine enum values and ids compared or passed on (never shown).
  ...['tree', 'flat', 'list', 'detail', 'default', 'allOpen', 'allClosed', 'updated', 'size', 'title', 'all', 'within7', 'within30', 'older30', 'older90'],
  ...[
    'current',
    'archived',
    'file',
    'keyring',
    'error',
    'info',
    'auto',
    'none',
    'protected',
    'override',
    'env',
    'session',
    'project',
    'message',
    'text',
    'notice',
    'files',
    'sessions',
    'backup',
  ],
  ...[
    'piSession.readOnly',
    'claudeTranscript.readOnly',
    'claudeMemoryMarkdown.readOnly',
    'appServer.threadRead',
    'rollout.readOnlyFallback',
    'codexLogs.readOnly',
    'codexDb.readOnly',
    'opencodeDb.readOnly',
    'opencodeLogs.readOnly',
  ],
  // Language codes (Settings' language cycle) and dispatch result kinds; a passphrase's verdict (the prompt asks again).
  ...['en', 'zh', 'ran', 'disabled', 'unbound', 'wrong'],
  // The busy state's Esc rules (busy.ts): cancel now, ask first, never.
  ...['now', 'ask', 'never'],
  // The product's own name, a heading in Settings.
  'cleanerx',
  // plan actions and filter values: identifiers, never shown
  'backupOnly',
  'agentSweep',
  // Category codes the Logs & caches tab filters on, an id prefix, the internal scan phase before the first progress.
  ...['memory', 'log', 'cache', 'temporary', 'session:', 'starting', 'preflight'],
  // Timing marks of the perf log and the settled signal's lines (read by tests and the bench, never shown).
  ...['engineReady', 'detected', 'scanStart', 'provisional', 'scanDone', 'key', 'firstRows', 'settled ', 'changed '],
  // Encodings, yargs' own locale name and option names, a default PATH, the error line's prefix (the product's name).
  ...['utf8', 'zh_CN', 'help', 'version', '/usr/bin:/bin', 'cleanerx: '],
  // Cleanup actions (archive is typed to confirm), recovery's actions and the journal's path states: the words its command line takes and prints, in every language.
  ...['archive', 'unarchive', 'accept', 'close', 'restore', 'rescan', 'intact', 'missing', 'changed', 'replaced', 'canAccept', 'canClose', 'canRestore'],
  // Copy (osc52.ts, sessions.ts): the clipboard's routes, the encoding, tmux's passthrough prefix, what c and y copy.
  ...['tmux', 'screen', 'terminal', 'base64', 'Ptmux;', 'resume', 'reference'],
]);

/** Methods whose first argument is a name in code: yargs' option and command specs, events, perf marks. */
const NAME_METHODS = new Set(['option', 'positional', 'command', 'alias', 'scriptName', 'on', 'off', 'once', 'emit', 'mark']);
/** Object properties whose value is a code: yargs' option types and choices. */
const CODE_PROPS = new Set(['type', 'choices']);

/** A literal that names a catalog key (a key table, t(cond ? 'a' : 'b')) is code: its text is in the catalog. */
const KEYS = new Set(Object.keys(en));

interface Hit {
  file: string;
  line: number;
  text: string;
}

function isWordy(s: string): boolean {
  // Blessed tags ({bold}, {/}, {|}, {open}) are markup, not words.
  const bare = s.replace(/\{\/?[a-z-]*\}|\{\|\}/g, '');
  return /[A-Za-z]{2,}/.test(bare) || /[\u3000-\u9fff\uff00-\uffef]/.test(bare);
}

/** A command-line flag as it is typed (--demo, --agent=, `--older-than ${d}`): the same in every language. */
const FLAG = /^--?[a-z][\w-]*[= ]?$/i;

const CATALOG_CALLS = new Set(['t', 'tr', 'say', 'label']);

function hasKeys(o: ts.ObjectLiteralExpression): boolean {
  return o.properties.some((q) => ts.isPropertyAssignment(q) && q.name.getText() === 'keys');
}

/** Positions where a literal is code, not text: module names, types, keys, comparisons, catalog keys. */
function isCode(node: ts.Node): boolean {
  const p = node.parent;
  if (!p) return false;
  if (ts.isImportDeclaration(p) || ts.isExportDeclaration(p) || ts.isExternalModuleReference(p)) return true;
  if (ts.isLiteralTypeNode(p)) return true;
  if (ts.isPropertyAssignment(p) && p.name === node) return true;
  if (ts.isElementAccessExpression(p) && p.argumentExpression === node) return true;
  if (ts.isCaseClause(p)) return true;
  if (
    ts.isBinaryExpression(p) &&
    [ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken, ts.SyntaxKind.InKeyword].includes(p.operatorToken.kind)
  )
    return true;
  // t('key') / tr('key') / say('key') / label('key', w): the argument is a catalog key.
  if (ts.isCallExpression(p) && ts.isIdentifier(p.expression) && CATALOG_CALLS.has(p.expression.text) && p.arguments[0] === node) return true;
  // import('./x.js'), and a command-line flag as it is typed (--demo, --agent=).
  if (ts.isCallExpression(p) && p.expression.kind === ts.SyntaxKind.ImportKeyword) return true;
  if (ts.isCallExpression(p) && ts.isPropertyAccessExpression(p.expression) && NAME_METHODS.has(p.expression.name.text) && p.arguments[0] === node) return true;
  if (ts.isPropertyAssignment(p) && p.initializer === node && CODE_PROPS.has(p.name.getText())) return true;
  if (ts.isArrayLiteralExpression(p) && ts.isPropertyAssignment(p.parent) && CODE_PROPS.has(p.parent.name.getText())) return true;
  // 'older-than'?: string — a property's name; an environment variable's name.
  if (ts.isPropertySignature(p) && p.name === node) return true;
  if (ts.isStringLiteralLike(node) && /^[A-Z][A-Z0-9]*_[A-Z0-9_]+$/.test(node.text)) return true;
  // new URL('../../package.json', import.meta.url): a module-relative path.
  if (ts.isNewExpression(p) && ts.isIdentifier(p.expression) && p.expression.text === 'URL') return true;
  // A binding's keycap label (label: 'Esc Enter') names keys, the same in every language.
  if (ts.isPropertyAssignment(p) && p.initializer === node && p.name.getText() === 'label' && ts.isObjectLiteralExpression(p.parent) && hasKeys(p.parent))
    return true;
  // keys: [...] in a binding table.
  if (ts.isArrayLiteralExpression(p) && ts.isPropertyAssignment(p.parent) && p.parent.name.getText() === 'keys') return true;
  return false;
}

function scan(file: string): Hit[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const hits: Hit[] = [];
  const report = (node: ts.Node, s: string): void => {
    if (!isWordy(s) || ALLOWED.has(s) || KEYS.has(s) || FLAG.test(s)) return;
    // A catalog key written as a template (`risk.${x}`) is code too.
    if (/^[a-z]+\.$/.test(s) && ts.isTemplateHead(node) && isCode(node.parent)) return;
    hits.push({ file, line: sf.getLineAndCharacterOfPosition(node.getStart()).line + 1, text: s });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      if (!isCode(node)) report(node, node.text);
    } else if (ts.isTemplateExpression(node)) {
      if (!isCode(node)) {
        report(node.head, node.head.text);
        for (const span of node.templateSpans) report(span.literal, span.literal.text);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return hits;
}

describe('no user-visible string bypasses the catalog', () => {
  it('covers the migrated files', () => {
    expect(MIGRATED.length).toBeGreaterThan(15);
  });

  it.each(MIGRATED)('%s', (file) => {
    expect(scan(file).map((h) => `${h.file}:${h.line}: ${JSON.stringify(h.text)}`)).toEqual([]);
  });

  it('the scan catches prose, in English or Chinese, and passes code', () => {
    const probe = (src: string): string[] => {
      const sf = ts.createSourceFile('probe.ts', src, ts.ScriptTarget.Latest, true);
      const out: string[] = [];
      const visit = (n: ts.Node): void => {
        if (
          (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) &&
          !isCode(n) &&
          isWordy(n.text) &&
          !ALLOWED.has(n.text) &&
          !KEYS.has(n.text) &&
          !FLAG.test(n.text)
        )
          out.push(n.text);
        ts.forEachChild(n, visit);
      };
      visit(sf);
      return out;
    };
    expect(
      probe(
        `app.message('Backup deleted.'); f('已删除'); g({ keys: ['up'], label: 'Esc' }); if (x === 'tree') t('tab.sessions'); tr(a ? 'detail.yes' : 'detail.no');` +
          `y.option('json', { type: 'boolean', describe: 'Machine-readable' }); await import('./scan.js'); h('--agent='); throw new UsageError('--lang takes zh or en.'); say('cli.scan.home');`,
      ),
    ).toEqual(['Backup deleted.', '已删除', 'Machine-readable', '--lang takes zh or en.']);
  });
});
