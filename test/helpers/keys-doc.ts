// docs/keys.md, written from the key tables themselves (the same ones that
// drive dispatch, the footer and help), so the reference cannot drift from
// what the keys do.

import { setLanguage } from '../../src/engine/i18n/index.js';
import { helpSections, type KeyContext } from '../../src/widgets/bindings.js';
import { closeHeadless, everyContext } from './key-tables.js';

/** The tables in reading order, with the heading each gets (undefined: the table's own title). */
const ORDER: [name: string, heading: string][] = [
  ['always', 'Everywhere, even in a dialog'],
  ['global', 'Everywhere outside a dialog'],
  ['selector', 'The agent selector (Tab)'],
  ['screen Overview', 'Overview (1)'],
  ['screen Sessions', 'Sessions (2): the list'],
  ['screen Sessions, second focus', 'Sessions: the detail pane (Tab)'],
  ['screen Memory', 'Memory (3) and Logs & caches (4)'],
  ['screen Backups', 'Backups (5)'],
  ['screen Settings', 'Settings (6)'],
  ['review', 'Review (x)'],
  ['reviewAll', 'Review (x) of marks in several agents'],
  ['backupOnly', 'Back up only (B in the review)'],
  ['progress', 'A cleanup in progress'],
  ['busyNow', 'A long read-only operation (verify, a restore check)'],
  ['recovery', 'Recovery of an interrupted cleanup'],
  ['dialog', 'Help and other dialogs'],
  ['input', 'A text prompt (filter, home override, passphrase)'],
  ['hold', 'A status that waits for a key'],
];

const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();
const keysCell = (s: string): string =>
  s
    .split(' ')
    .map((k) => `\`${k.replace(/\|/g, '\\|')}\``)
    .join(' ');

export function renderKeysDoc(): string {
  setLanguage('en');
  const all = everyContext();
  const missing = Object.keys(all).filter((n) => !ORDER.some(([o]) => o === n) && n !== 'busyNever');
  if (missing.length) throw new Error(`key tables without a place in docs/keys.md: ${missing.join(', ')}`);
  const out = [
    '# Keys',
    '',
    '<!-- Generated from the key tables by `npm run docs:keys`; test/unit/keys-doc.test.ts fails when this file and the tables differ. Do not edit by hand. -->',
    '',
    'Every focused widget answers with one key table; the footer and help (`?`) are drawn from the same table, so they always describe what has the keys. How the screens behave is in [app.md](app.md).',
    '',
  ];
  for (const [name, heading] of ORDER) {
    const ctx: KeyContext | undefined = all[name];
    if (!ctx) continue;
    const [section] = helpSections([ctx]);
    out.push(`## ${heading}`, '', '| keys | what they do |', '|---|---|');
    for (const row of section!.rows) out.push(`| ${keysCell(cell(row.keys))} | ${cell(row.does)} |`);
    out.push('');
  }
  closeHeadless();
  return out.join('\n');
}
