// Memory / Logs & caches, Backups and Settings drawn from a given state at 80
// and 120 columns, with no terminal: the rows' columns, long labels and
// paths cut, an agent's escapes made inert, every line in the width.

import '../../src/adapters/registry.js';
import { describe, expect, it } from 'vitest';
import type { BackupSummary, Installation, ItemSummary } from '../../src/engine/core/model.js';
import { DEFAULT_SETTINGS } from '../../src/engine/host/settings.js';
import { backupRow, backupsHead } from '../../src/screens/backups-render.js';
import { itemPaneLines, itemRow, itemsLayout, itemsNotice } from '../../src/screens/items-render.js';
import { selectMenuFrame } from '../../src/screens/select-menu-render.js';
import { settingsLines } from '../../src/screens/settings-render.js';
import { colour, expectDrawable, plainTheme, shown } from '../helpers/render-lines.js';

const EVIL = '\x1b[31mred\x1b]0;pwned\x07{bold}';
const WIDTHS = [80, 120];

const item = (over: Partial<ItemSummary> = {}): ItemSummary => ({
  id: 'item:log',
  category: 'log',
  label: 'agent.log',
  bytes: 2_500_000,
  risk: 'safe',
  selectable: true,
  pathLabel: '/home/me/.pi/agent/logs/agent.log',
  ...over,
});

describe('items render', () => {
  it('lays an item out as mark, kind, label, risk and size, in the width', () => {
    for (const w of WIDTHS) {
      const line = itemRow(item(), w, false, { theme: plainTheme, marked: false });
      expect(line.length).toBe(w);
      const label = w - 4 - 12 - 10 - 11;
      expect(line.slice(0, 16)).toBe('[ ] log         ');
      expect(line.slice(16, 16 + label).trimEnd()).toBe('agent.log');
      expect(line.slice(16 + label)).toBe(`${'safe'.padEnd(10)}${'2.5 MB'.padStart(11)}`);
      expect(itemRow(item(), w, false, { theme: plainTheme, marked: true })).toMatch(/^\[x\] /);
      expect(itemRow(item({ selectable: false }), w, false, { theme: plainTheme, marked: true })).toMatch(/^ - {2}/);
    }
  });

  it('cuts a long label, makes its escapes inert, dims protected rows and inverts the cursor', () => {
    for (const w of WIDTHS) {
      const line = itemRow(item({ label: `${EVIL}${'x'.repeat(300)}` }), w, false, { theme: colour, marked: false });
      expectDrawable([line], w);
      expect(line).toContain('{open}bold{close}');
      expect(line).toMatch(/…safe/);
    }
    expect(itemRow(item(), 80, true, { theme: colour, marked: false })).toMatch(/^\{inverse\}\[ \] .*\{\/inverse\}$/);
    // Dim is the terminal's own foreground (theme.ts): a protected row looks like text, not a warning.
    expect(itemRow(item({ category: 'protected', selectable: false }), 80, false, { theme: colour, marked: false })).toMatch(/^ - {2}/);
  });

  it('wraps the notice into two lines at most and gives the pane a third of the height', () => {
    const notice = itemsNotice('word '.repeat(60), 78, plainTheme);
    expect(notice).toHaveLength(2);
    expectDrawable(notice, 79);
    expect(itemsLayout(21)).toEqual({ listH: 12, paneTop: 14, paneH: 7 });
    expect(itemsLayout(37)).toEqual({ listH: 23, paneTop: 25, paneH: 12 });
  });

  it('sums an item up in the pane before p: label, prose wrapped, path cut in the middle, blocker', () => {
    for (const w of WIDTHS) {
      const it = item({
        label: `${'long label '.repeat(20)}`,
        subtitle: 'kept by the agent for its own records '.repeat(4),
        pathLabel: `/home/me/${'deep/'.repeat(40)}agent.log`,
        blockedReason: `${EVIL} the agent is running (pid 42) and holds this file open`,
      });
      const lines = itemPaneLines(it, w - 1, colour);
      expectDrawable(lines, w - 1);
      const text = lines.map(shown);
      expect(text[0]).toMatch(/^long label .*…$/);
      // The subtitle wraps at spaces into the lines between the label and the path.
      const pathAt = text.findIndex((l) => l.startsWith('Path'));
      expect(pathAt).toBeGreaterThan(2);
      expect(text.slice(1, pathAt).join(' ')).toBe('kept by the agent for its own records '.repeat(4).trim());
      const path = text.find((l) => l.startsWith('Path'))!;
      expect(path).toMatch(/^Path {10}\/home\/me\/.*….*agent\.log$/);
      expect(text).toContain(`Size          2.5 MB`);
      expect(text).toContain(`Risk          safe`);
      expect(lines.at(-1)).toMatch(/^\{yellow-fg\}/);
      expect(lines.join('')).not.toContain('\x1b');
    }
  });
});

const backup = (over: Partial<BackupSummary> = {}): BackupSummary => ({
  id: 'b1c2d3e4-0000-4000-8000-000000000000',
  agent: 'pi',
  createdAt: '2026-11-29T12:00:00.000Z',
  expiresAt: '2026-12-29T12:00:00.000Z',
  itemCount: 12,
  originalBytes: 9_000_000,
  onDiskBytes: 10_000_000,
  archiveBytes: 1_500_000,
  verifiedAt: '2026-11-29T12:00:01.000Z',
  operationId: 'op',
  path: '/x',
  ...over,
});

describe('backups render', () => {
  it('heads the list with the key, how to read an archive and the columns', () => {
    for (const w of WIDTHS) {
      const head = backupsHead({ key: { exists: true, path: `/home/me/${'config/'.repeat(30)}key.age` }, error: '' }, w - 1, plainTheme);
      expectDrawable(head, w - 1);
      const text = head.map(shown);
      expect(text[0]).toMatch(/^ Backup key \/home\/me\/.*….*key\.age$/);
      expect(text.at(-1)).toMatch(/^ {4}Created +Agent +Items +On disk +Archive {2}Id$/);
      // The command a user copies is whole, on its own line when the label does not leave room.
      expect(text.some((l) => l.includes('age -d -i <exported key> <id>.cxb | zstd -d | tar -t'))).toBe(true);
    }
    expect(backupsHead({ key: null, error: '' }, 79, plainTheme).map(shown)[0]).toBe(' Backup key …');
    expect(backupsHead({ key: { exists: false, path: '' }, error: '' }, 79, plainTheme).map(shown)[0]).toMatch(/not created yet/);
  });

  it('puts the catalog’s error in place of the how-to, wrapped and inert', () => {
    const head = backupsHead({ key: null, error: `{bold} ${'cannot read the catalog '.repeat(10)}` }, 79, colour);
    expectDrawable(head, 79);
    expect(head.length).toBeGreaterThan(3);
    expect(head.join('\n')).toContain('{open}bold{close}');
    expect(head.map(shown).some((l) => l.includes('Readable without cleanerx'))).toBe(false);
    // A control sequence in the error (it may quote a path) never reaches the terminal.
    const hostile = backupsHead({ key: null, error: 'cannot read /srv/\x1b]52;c;aGk=\x07\x1b[2Jcatalog.json' }, 79, colour).join('\n');
    expect(hostile).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
    expect(hostile).toContain('catalog.json');
  });

  it('lays a backup out in its columns and cuts the id to the room left', () => {
    for (const w of WIDTHS) {
      const line = backupRow(backup(), w, false, plainTheme);
      expect(line).toMatch(/^ {4}2026-11-29 \d\d:\d\d +pi +12 +10\.0 MB +1\.5 MB {2}b1c2d3e4/);
      // The columns before the id take 64 cells: the id gets the rest, so the row is exactly the list's width
      // (it was 2 wider, and the list's box cut the id's last two cells, its … included).
      expect(line.length).toBe(64 + Math.max(8, w - 64));
    }
    expect(backupRow(backup(), 80, false, plainTheme)).toMatch(/ {2}b1c2d3e4-0000-4…$/);
    expect(backupRow(backup(), 120, false, plainTheme)).toMatch(/ {2}b1c2d3e4-0000-4000-8000-000000000000 {20}$/);
    expect(backupRow(backup({ onDiskBytes: null }), 79, false, plainTheme)).toMatch(/ {10}— +1\.5 MB/);
    expect(backupRow(backup({ id: `${EVIL}id` }), 79, true, colour)).toMatch(/^\{inverse\}.*\{open\}bold\{close\}.*\{\/inverse\}$/);
  });
});

describe('settings render', () => {
  const pi = {
    agent: 'pi',
    displayName: 'pi',
    memoryNotice: '',
    state: 'installed',
    home: `/home/me/${'nested/'.repeat(20)}.pi/agent`,
    homeSource: 'env',
    executable: '/usr/bin/pi',
    // detect.ts keeps printable ASCII only of what --version printed.
    version: '1.6.0',
    warnings: ['PI_CODING_AGENT_DIR points at a directory that is shared with another agent and will be scanned as pi.'],
  } as unknown as Installation;
  // pi is the registry's fourth agent.
  const PI = 3;
  const state = (over: Partial<Parameters<typeof settingsLines>[0]> = {}) => ({
    cursor: PI,
    draft: null,
    settings: DEFAULT_SETTINGS,
    loaded: { path: '/home/me/.config/cleanerx/config.json' },
    installations: [pi],
    busy: false,
    keyPath: '/home/me/.local/share/cleanerx/key.age',
    keyNote: '',
    storeLine: 'the passphrase file',
    language: 'English',
    ...over,
  });

  it('draws every agent with its home, override, executable and warnings, then cleanerx’s own lines, in the width', () => {
    for (const w of WIDTHS) {
      const lines = settingsLines(state(), w - 2, colour);
      expectDrawable(lines, w - 2);
      const text = lines.map(shown);
      expect(text[0]).toBe(' Agents ');
      // The cursor row is padded to the width and inverse.
      const at = text.findIndex((l) => l.startsWith('› pi'));
      expect(lines[at]).toMatch(/^\{inverse\}› pi +Installed +1\.6\.0 *\{\/inverse\}$/);
      expect(shown(lines[at]!).length).toBe(w - 2);
      // The agents before it, not detected yet, say so.
      expect(text[1]).toMatch(/^ {2}Codex +Detecting/);
      expect(text[2]).toBe('     home        …'.padEnd(w - 2));
      expect(text[at + 1]).toMatch(/^ {5}home {8}\/home\/me\/.*….*\.pi\/agent \(environment\) *$/);
      expect(text[at + 2]).toMatch(/^ {5}executable {2}\/usr\/bin\/pi/);
      expect(text[at + 3]).toMatch(/^ {5}PI_CODING_AGENT_DIR/);
      expect(text).toContain(' cleanerx');
      expect(text.some((l) => /^ {5}language {4}English/.test(l))).toBe(true);
      expect(text.at(-1)).toMatch(/^ {5}unlocked by {1}the passphrase file/);
    }
  });

  it('pads the cursor row to the width when the version holds braces (padded before they are escaped)', () => {
    const odd = { ...pi, version: '1.6.0 {build}' } as Installation;
    for (const w of WIDTHS) {
      const lines = settingsLines(state({ installations: [odd] }), w - 2, colour);
      const at = lines.map(shown).findIndex((l) => l.startsWith('› pi'));
      expect(shown(lines[at]!)).toMatch(/1\.6\.0 \{build\} *$/);
      expect(shown(lines[at]!).length).toBe(w - 2);
    }
  });

  it('shows the override line and the unsaved notice while a draft is open', () => {
    const draft = { ...DEFAULT_SETTINGS, homeOverrides: { pi: '/srv/pi' } };
    const text = settingsLines(state({ draft, settings: draft }), 78, plainTheme).map(shown);
    const at = text.findIndex((l) => l.startsWith('› pi'));
    expect(text[at + 2]).toMatch(/^ {5}override {4}\/srv\/pi/);
    expect(text.filter((l) => l.includes('— (none)')).length).toBeGreaterThan(0);
    expect(text.at(-1)).toMatch(/^ {5}Unsaved changes/);
  });
});

describe('select-by-rules render', () => {
  const fields = [
    { label: 'Last used', choices: ['any time', 'older than 7 days', 'older than 30 days'] },
    // The form cleans the agent's labels (cleanText) where it builds its choices; braces still reach here.
    { label: 'Project', choices: ['any project', `{bold}${'a project with a very long name '.repeat(4)}`] },
    { label: 'Size', choices: ['any size', 'larger than 1 MB'] },
  ];
  const state = (over: Partial<Parameters<typeof selectMenuFrame>[0]> = {}) => ({
    fields,
    values: [0, 0, 0],
    cursor: 0,
    result: null,
    error: null,
    busy: false,
    ...over,
  });

  it('centres a box of at most 64 columns, the rules inside its border, and says what to do first', () => {
    for (const w of WIDTHS) {
      const f = selectMenuFrame(state(), w, 24, colour);
      expect(f.width).toBe(64);
      expectDrawable(f.lines, f.width - 2);
      expect(f.height).toBe(f.lines.length + 2);
      expect(f.top).toBe(Math.floor((24 - 2 - f.height) / 2));
      const text = f.lines.map(shown);
      expect(text[2]).toMatch(/^› Last used +any time +$/);
      expect(f.lines[2]).toMatch(/^\{inverse\}/);
      expect(text.at(-2)).toMatch(/^Choose a rule/);
    }
  });

  it('shows a chosen rule between arrows, cut inert in the box, and what the rules match', () => {
    const result = { ids: ['session:a', 'session:b'], bytes: 2_000_000, skipped: 1, notes: ['{x} one note'] };
    const f = selectMenuFrame(state({ values: [1, 1, 0], cursor: 2, result }), 80, 24, colour);
    expectDrawable(f.lines, 62);
    const text = f.lines.map(shown);
    expect(text[2]).toMatch(/^ {2}Last used +◂ older than 7 days ▸ *$/);
    expect(text[3]).toMatch(/^ {2}Project +◂ \{bold\}a project.*…$/);
    expect(f.lines[3]).toContain('{open}bold{close}');
    expect(text.slice(-3, -1)).toEqual(['Matches 2 sessions · 2.0 MB · 1 blocked, skipped', '{x} one note']);
    expect(shown(selectMenuFrame(state({ values: [1, 0, 0], busy: true }), 80, 24, plainTheme).lines.at(-2)!)).toMatch(/^Counting/);
  });

  it('keeps the counts and the keys on a short terminal, cutting the rules', () => {
    const result = { ids: ['session:a'], bytes: 1, skipped: 0, notes: [] };
    const tall = selectMenuFrame(state({ values: [1, 0, 0], result }), 80, 24, plainTheme);
    const short = selectMenuFrame(state({ values: [1, 0, 0], result }), 80, 10, plainTheme);
    expect(short.height).toBe(7);
    expect(short.lines).toHaveLength(5);
    expect(short.lines.slice(-3)).toEqual(tall.lines.slice(-3));
    expect(short.top).toBe(1);
  });
});
