// What the review shows and how its keys move it (#26 item 5: the mutants
// of src/modals/review.ts that review-confirm.test.ts let through). The
// review is painted on a headless blessed screen at a given size and its
// content read back line by line: the totals, the cost line, the backup
// line and its toggle, the blockers, the scrolled list with its range, the
// too-small box, and the typed line (backspace, Ctrl-U, the 16-character
// cap, the note a wrong word leaves).

import blessed from 'blessed';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { CleanupPlan, PlanItem } from '../../src/engine/core/model.js';
import { ReviewModal } from '../../src/modals/review.js';
import { dispatch, type KeyContext } from '../../src/widgets/bindings.js';
import { makeTheme } from '../../src/widgets/theme.js';

let screen: blessed.Widgets.Screen | null = null;
afterEach(() => {
  screen?.destroy();
  screen = null;
});

function headless(cols: number, rows: number): blessed.Widgets.Screen {
  const output = Object.assign(new PassThrough(), { isTTY: true, columns: cols, rows });
  const input = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => undefined });
  screen = blessed.screen({ input: input as never, output: output as never, terminal: 'xterm-256color', warnings: false, fullUnicode: true });
  return screen;
}

const DAY = Date.UTC(2026, 0, 15, 9, 30);

function item(n: number, over: Partial<PlanItem> = {}): PlanItem {
  return { id: `session:${n}`, label: `Session ${n}`, category: 'session', bytes: 1000 * n, paths: [], recoverable: true, depth: 0, ...over };
}

function planOf(over: Partial<CleanupPlan> = {}): CleanupPlan {
  return {
    id: 'plan-1',
    snapshotId: 'snap-1',
    agent: 'pi',
    items: [item(1)],
    operations: [],
    estimatedBytes: 2048,
    estimatedBackupBytes: 1024,
    backupEligible: true,
    irreversible: true,
    routeNotes: [],
    blockers: [],
    ...over,
  } as CleanupPlan;
}

interface Open {
  review: ReviewModal;
  ctx: KeyContext;
  confirmed: boolean[];
  /** The painted box, colours stripped, one string per line, trailing spaces cut. */
  lines(): string[];
  /** The painted box with its SGR codes (colours, bold, inverse). */
  raw(): string;
  press(...keys: string[]): void;
  type(text: string): void;
}

function open(plan: CleanupPlan, o: { cols?: number; rows?: number; blockers?: string[] } = {}): Open {
  const confirmed: boolean[] = [];
  const review = new ReviewModal(headless(o.cols ?? 100, o.rows ?? 30), makeTheme({}), plan, o.blockers ?? [], (b) => confirmed.push(b));
  const ctx = review.keyContext();
  const paint = (): string => {
    review.paint();
    return review.box.getContent();
  };
  return {
    review,
    ctx,
    confirmed,
    raw: paint,
    lines: () =>
      paint()
        .replace(/\x1b\[[0-9;]*m/g, '')
        .split('\n')
        .map((l) => l.replace(/\s+$/, '')),
    press: (...keys) => {
      for (const k of keys) dispatch([ctx], undefined, { name: k, full: k, ctrl: k.startsWith('C-') });
    },
    type: (text) => {
      for (const ch of text) dispatch([ctx], ch, { name: ch, full: ch });
    },
  };
}

const COSTLY: PlanItem[] = [
  item(1, { cost: { recoverable: 'backup', regenerable: false, needsAgentStopped: false, agentLoses: 'its history' } }),
  item(2, { cost: { recoverable: 'backup', regenerable: false, needsAgentStopped: true, agentLoses: 'its history' } }),
  item(3, { category: 'cache', cost: { recoverable: 'none', regenerable: true, needsAgentStopped: false, agentLoses: '' } }),
  item(4, { cost: { recoverable: 'reversible', regenerable: false, needsAgentStopped: false, agentLoses: 'the undo list' } }),
];

describe('the review of a deletion', () => {
  it('shows the totals, one cost line, the backup line and the irreversible warning', () => {
    const r = open(planOf({ items: COSTLY, estimatedBytes: 10_000, routeNotes: ['pi removes its own sessions.'] }));
    expect(r.lines()).toMatchInlineSnapshot(`
      [
        " pi · 4 items · estimated reclaimed 10.0 KB on disk",
        " pi removes its own sessions.",
        " 1 reversible · 2 recoverable from a backup · 1 not recoverable · 1 made again by the agent ·",
        " needs pi stopped · pi loses: its history; the undo list",
        " Items",
        " Sessions     Session 1                                                                 1.0 KB",
        " Sessions     Session 2                                                                 2.0 KB",
        " Caches       Session 3                                                                 3.0 KB",
        " Sessions     Session 4                                                                 4.0 KB",
        "",
        " Backup: off (b toggles)",
        " ⚠ Irreversible: without a backup, removed data cannot be brought back.",
        "",
        "  Cancel   Type delete and Enter to clean · Esc cancels",
        " >",
      ]
    `);
    const text = r.lines().join('\n');
    expect(text).toContain('pi · 4 items · estimated reclaimed 10.0 KB on disk');
    expect(text).toContain('pi removes its own sessions.');
    // The cost line is one sentence, word-wrapped.
    expect(r.lines().join('').replace(/ {2,}/g, ' ')).toContain(
      '1 reversible · 2 recoverable from a backup · 1 not recoverable · 1 made again by the agent · needs pi stopped · pi loses: its history; the undo list',
    );
    expect(text).toContain('Backup: off');
    expect(text).toContain('⚠ Irreversible: without a backup');
    expect(text).not.toContain(' of 4');
  });

  it('says the agent loses nothing when no item costs it anything', () => {
    const r = open(planOf({ items: [item(1, { cost: { recoverable: 'backup', regenerable: false, needsAgentStopped: false, agentLoses: '' } })] }));
    const text = r.lines().join('\n');
    expect(text).toContain('1 recoverable from a backup · pi loses nothing');
    expect(text).not.toMatch(/\breversible|not recoverable|made again|stopped/);
  });

  it('b turns the backup on and off; with it on the warning says only the backup brings it back, and Enter passes it on', () => {
    const r = open(planOf({ backupNotCovered: 'Caches are not in the backup.' }));
    expect(r.lines().join('\n')).toContain('Caches are not in the backup.');
    r.type('b');
    const on = r.lines().join('\n');
    expect(on).toContain('Backup: on');
    expect(on).toContain('these 1.0 KB on disk');
    expect(on).not.toContain('Irreversible');
    expect(on).toContain('only the backup can bring it back');
    r.type('b');
    expect(r.lines().join('\n')).toContain('Backup: off');
    r.type('bdelete');
    r.press('enter');
    expect(r.confirmed).toEqual([true]);
    expect(r.review.closed).toBe(true);
  });

  it('a plan that cannot be backed up says why, and b stays off', () => {
    const r = open(planOf({ backupEligible: false, backupWhyNot: 'the agent has no import route' }));
    const b = r.ctx.bindings.find((x) => x.keys.includes('b'))!;
    expect(b.disabled?.()).toContain('the agent has no import route');
    expect(dispatch([r.ctx], 'b', { name: 'b', full: 'b' }).kind).toBe('disabled');
    expect(r.review.backup).toBe(false);
    expect(r.lines().join('\n')).toContain('the agent has no import route');
    const plain = open(planOf({ backupEligible: false }));
    expect(plain.ctx.bindings.find((x) => x.keys.includes('b'))!.disabled?.()).toBeTruthy();
    expect(
      open(planOf())
        .ctx.bindings.find((x) => x.keys.includes('b'))!
        .disabled?.(),
    ).toBeUndefined();
  });

  it('a blocked plan lists its blockers, takes no typing, and Enter only closes it', () => {
    const r = open(planOf(), { blockers: ['pi is running (pid 42).', 'A {tag} in a blocker'] });
    r.type('delete');
    const text = r.lines().join('\n');
    expect(text).toContain('• pi is running (pid 42).');
    expect(text).toContain('• A {tag} in a blocker');
    expect(text).not.toContain('> delete');
    expect(r.lines()).toMatchInlineSnapshot(`
      [
        " pi · 1 item · estimated reclaimed 2.0 KB on disk",
        " pi loses nothing",
        " Items",
        " Sessions     Session 1                                                                 1.0 KB",
        "",
        " Blocked — nothing can run until these are resolved:",
        "  • pi is running (pid 42).",
        "  • A {tag} in a blocker",
        " Backup: off (b toggles)",
        " ⚠ Irreversible: without a backup, removed data cannot be brought back.",
        "",
        "  Cancel   Esc or Enter closes",
      ]
    `);
    r.press('enter');
    expect(r.confirmed).toEqual([]);
    expect(r.review.closed).toBe(true);
  });
});

describe('the typed line', () => {
  it('shows what is typed, backspace takes one character, Ctrl-U all, and at most 16 are kept', () => {
    const r = open(planOf());
    const typed = (): string => r.lines().find((l) => l.startsWith(' >'))!;
    expect(typed()).toBe(' >');
    r.type('delx');
    expect(typed()).toBe(' > delx');
    r.press('backspace');
    expect(typed()).toBe(' > del');
    r.press('C-u');
    expect(typed()).toBe(' >');
    r.type('acdefghijklmnopqrstuvwxyz');
    expect(typed()).toBe(' > acdefghijklmnopq');
    r.press('C-u');
    r.type('{x}');
    expect(r.raw()).toMatchInlineSnapshot(`
      " [1mpi[22m · 1 item · estimated reclaimed 2.0 KB on disk
       pi loses nothing
       Items
       Sessions     Session 1                                                                 1.0 KB

       Backup: off (b toggles)
       [33m⚠ Irreversible:[39m without a backup, removed data cannot be brought back.

       [ Cancel ]  Type [1mdelete[22m and Enter to clean · Esc cancels
       > {x}[7m [27m"
    `);
  });

  it('Cancel is highlighted until something is typed', () => {
    const r = open(planOf());
    expect(r.raw()).toMatch(/\x1b\[7m ?Cancel/);
    r.type('d');
    expect(r.raw()).not.toMatch(/\x1b\[7m ?Cancel/);
    expect(r.lines().join('\n')).toContain('[ Cancel ]');
  });

  it('a wrong word leaves a note that the next key clears; the word is taken in any case and with spaces around', () => {
    const r = open(planOf());
    r.type('remove');
    r.press('enter');
    expect(r.review.closed).toBe(false);
    expect(r.lines().find((l) => l.startsWith(' > '))).toMatch(/> remove +type delete to confirm/);
    r.press('C-u');
    r.type(' DELETE ');
    expect(r.lines().find((l) => l.startsWith(' > '))).toBe(' >  DELETE');
    r.press('enter');
    expect(r.confirmed).toEqual([false]);
  });

  it('Esc closes without running', () => {
    const r = open(planOf());
    r.type('delete');
    r.press('escape');
    expect(r.review.closed).toBe(true);
    expect(r.confirmed).toEqual([]);
  });
});

describe('a long plan', () => {
  const many = Array.from({ length: 40 }, (_, i) => item(i + 1, { sessionId: `0123456789abcdef-${String(i + 1).padStart(4, '0')}`, updatedAt: DAY }));

  it('scrolls: the range names the rows shown; up, down, page keys, Home and End move it and stop at the ends', () => {
    const r = open(planOf({ items: many }), { cols: 80, rows: 24 });
    const range = (): string => r.lines().find((l) => l.startsWith(' Items'))!;
    expect(range()).toMatch(/Items 1–(\d+) of 40/);
    const room = Number(/1–(\d+) of/.exec(range())![1]);
    expect(room).toBeGreaterThanOrEqual(3);
    r.press('down');
    expect(range()).toContain(`Items 2–${room + 1} of 40`);
    r.press('up', 'up');
    expect(range()).toContain(`Items 1–${room} of 40`);
    r.press('pagedown');
    expect(range()).toContain(`Items ${room + 1}–${2 * room} of 40`);
    r.press('pageup');
    expect(range()).toContain(`Items 1–${room} of 40`);
    r.press('end');
    expect(range()).toContain(`Items ${41 - room}–40 of 40`);
    expect(r.lines().join('\n')).toContain('Session 40');
    r.press('down');
    expect(range()).toContain(`Items ${41 - room}–40 of 40`);
    r.press('home');
    expect(range()).toContain(`Items 1–${room} of 40`);
    expect(r.lines().length).toBeLessThanOrEqual(24 - 5);
  });

  it('rows show the category, the title, the date (with the time from 90 columns on) and the id end', () => {
    const narrow = open(planOf({ items: many.slice(0, 2) }), { cols: 80, rows: 24 })
      .lines()
      .join('\n');
    expect(narrow).toMatch(/ Sessions +Session 1 +2026-01-15 · …def-0001 +1\.0 KB/);
    expect(narrow).not.toContain('09:30');
    const wide = open(planOf({ items: many.slice(0, 2) }), { cols: 120, rows: 30 })
      .lines()
      .join('\n');
    expect(wide).toMatch(/ Sessions +Session 1 +2026-01-15 09:30 · …def-0001 +1\.0 KB/);
    const child = open(planOf({ items: [item(1), item(2, { depth: 1 })] })).lines();
    expect(child).toMatchInlineSnapshot(`
      [
        " pi · 2 items · estimated reclaimed 2.0 KB on disk",
        " pi loses nothing",
        " Items",
        " Sessions     Session 1                                                                 1.0 KB",
        "   └ Sessions     Session 2                                                             2.0 KB",
        "",
        " Backup: off (b toggles)",
        " ⚠ Irreversible: without a backup, removed data cannot be brought back.",
        "",
        "  Cancel   Type delete and Enter to clean · Esc cancels",
        " >",
      ]
    `);
    expect(child.some((l) => l.startsWith('   └ Sessions') && l.includes('Session 2'))).toBe(true);
    expect(child.some((l) => l.startsWith(' Sessions') && l.includes('Session 1'))).toBe(true);
  });

  it('too many blockers and notes for the box: whole entries and a count of the rest', () => {
    const blockers = Array.from({ length: 30 }, (_, i) => `Blocker number ${i + 1}.`);
    const routeNotes = Array.from({ length: 30 }, (_, i) => `Route note number ${i + 1}.`);
    const r = open(planOf({ items: many, routeNotes }), { cols: 80, rows: 24, blockers });
    expect(r.lines()).toMatchInlineSnapshot(`
      [
        " pi · 40 items · estimated reclaimed 2.0 KB on disk",
        " Items 1–3 of 40 (↑↓ PgUp PgDn scroll)",
        " Sessions     Session 1                  2026-01-15 · …def-0001     1.0 KB",
        " Sessions     Session 2                  2026-01-15 · …def-0002     2.0 KB",
        " Sessions     Session 3                  2026-01-15 · …def-0003     3.0 KB",
        " Blocked — nothing can run until these are resolved:",
        "  • Blocker number 1.",
        "  • Blocker number 2.",
        "  • Blocker number 3.",
        "  • Blocker number 4.",
        "  • Blocker number 5.",
        "  • Blocker number 6.",
        "  • Blocker number 7.",
        "  • Blocker number 8.",
        "  • Blocker number 9.",
        "  … 21 more blockers",
        " Backup: off (b toggles)",
        " ⚠ Irreversible: without a backup, removed data cannot be brought back.",
        "  Cancel   Esc or Enter closes",
      ]
    `);
    const lines = r.lines();
    expect(lines.length).toBeLessThanOrEqual(24 - 3 - 2);
    const few = open(planOf({ items: [item(1)], routeNotes: routeNotes.slice(0, 2) }), { cols: 80, rows: 40, blockers: blockers.slice(0, 2) }).lines();
    expect(few.join('\n')).not.toMatch(/more notes|more blockers/);
    expect(few.join('\n')).toContain('Route note number 2.');
    expect(few.join('\n')).toContain('Blocker number 2.');
    expect(few).toMatchInlineSnapshot(`
      [
        " pi · 1 item · estimated reclaimed 2.0 KB on disk",
        " Route note number 1.",
        " Route note number 2.",
        " pi loses nothing",
        " Items",
        " Sessions     Session 1                                             1.0 KB",
        "",
        " Blocked — nothing can run until these are resolved:",
        "  • Blocker number 1.",
        "  • Blocker number 2.",
        " Backup: off (b toggles)",
        " ⚠ Irreversible: without a backup, removed data cannot be brought back.",
        "",
        "  Cancel   Esc or Enter closes",
      ]
    `);
  });
});

describe('a terminal below 80×24', () => {
  it('says so, and the typed word does not run', () => {
    const r = open(planOf(), { cols: 79, rows: 30 });
    expect(r.lines()).toMatchInlineSnapshot(`
      [
        " ⚠ The terminal is 79×30: enlarge the terminal to review",
        " (at least 80×24). Nothing runs until it fits.",
        " Esc cancels",
      ]
    `);
    r.type('delete');
    r.press('enter');
    expect(r.confirmed).toEqual([]);
    expect(r.review.closed).toBe(false);
    expect(r.lines().join('\n')).toContain('(at least 80×24)');
    const short = open(planOf(), { cols: 100, rows: 23 });
    expect(short.lines().join('\n')).toContain('100×23');
    short.type('delete');
    short.press('enter');
    expect(short.confirmed).toEqual([]);
    const exact = open(planOf(), { cols: 80, rows: 24 });
    exact.type('delete');
    exact.press('enter');
    expect(exact.confirmed).toEqual([false]);
  });

  it('the box keeps between the tab bar and the footer', () => {
    const r = open(planOf({ items: Array.from({ length: 40 }, (_, i) => item(i + 1)) }), { cols: 100, rows: 30 });
    r.lines();
    expect(r.review.box.width).toBe(96);
    expect(r.review.box.height as number).toBeLessThanOrEqual(27);
    expect(r.review.box.top as number).toBeGreaterThanOrEqual(1);
    const wide = open(planOf(), { cols: 200, rows: 30 });
    wide.lines();
    expect(wide.review.box.width).toBe(100);
    expect(wide.review.box.height).toBe(wide.lines().length + 2);
  });
});

describe('the review of an archive', () => {
  it('names the sessions, says no backup is needed and that the agent can undo it', () => {
    const r = open(planOf({ action: 'archive', irreversible: false, items: [item(1), item(2)] }));
    expect(r.review.box.options.label ?? '').toBeDefined();
    expect(r.lines()).toMatchInlineSnapshot(`
      [
        " pi · 2 sessions · archive — frees 0 B, reversible",
        " pi loses nothing",
        " Items",
        " Sessions     Session 1                                                                 1.0 KB",
        " Sessions     Session 2                                                                 2.0 KB",
        "",
        " Backup: not needed — nothing is removed, the sessions stay on disk.",
        " Reversible: unarchive brings them back into the list of pi.",
        "",
        "  Cancel   Type archive and Enter to archive · Esc cancels",
        " >",
      ]
    `);
    r.type('archive');
    r.press('enter');
    expect(r.confirmed).toEqual([false]);
  });

  it('unarchive says it brings them back', () => {
    expect(open(planOf({ action: 'unarchive', irreversible: false })).lines()).toMatchInlineSnapshot(`
      [
        " pi · 1 session · unarchive — frees 0 B, reversible",
        " pi loses nothing",
        " Items",
        " Sessions     Session 1                                                                 1.0 KB",
        "",
        " Backup: not needed — nothing is removed, the sessions stay on disk.",
        " Reversible: archive them again at any time.",
        "",
        "  Cancel   Type unarchive and Enter to unarchive · Esc cancels",
        " >",
      ]
    `);
  });
});

describe('the box and its keys', () => {
  it('a deletion and an archive have their own title, Enter text and typing hint; the review is modal', () => {
    const del = open(planOf());
    expect(del.review.box.options.label).toBe(' Review cleanup ');
    expect(del.ctx.modal).toBe(true);
    expect(del.ctx.bindings.find((b) => b.keys.includes('enter'))!.does).toBe('clean, once delete is typed (on an empty line: cancel)');
    expect(del.ctx.text!.does).toBe('type delete to confirm');
    const arc = open(planOf({ action: 'archive', irreversible: false }));
    expect(arc.review.box.options.label).toBe(' Review archive ');
    expect(arc.ctx.bindings.find((b) => b.keys.includes('enter'))!.does).toBe('run, once archive is typed (on an empty line: cancel)');
    expect(arc.ctx.text!.does).toBe('type archive to confirm');
  });

  it('is drawn in front, centred, with a line border and no wrapping of its own', () => {
    const r = open(planOf());
    r.lines();
    blessed.box({ parent: screen!, top: 0, left: 0, width: 10, height: 3 });
    r.lines();
    expect(screen!.children.at(-1)).toBe(r.review.box);
    expect(r.review.box.position.left).toBe('center');
    expect((r.review.box.border as { type?: string }).type).toBe('line');
    expect(r.review.box.options.wrap).toBe(false);
  });

  it('height fits the lines, top centres it below the tab bar', () => {
    const r = open(planOf(), { cols: 100, rows: 30 });
    const n = r.lines().length;
    expect(r.review.box.height).toBe(n + 2);
    expect(r.review.box.top).toBe(Math.max(1, Math.floor((30 - 2 - (n + 2)) / 2)));
    const tall = open(planOf({ items: Array.from({ length: 60 }, (_, i) => item(i + 1)) }), { cols: 100, rows: 30 });
    tall.lines();
    expect(tall.review.box.height).toBe(27);
    expect(tall.review.box.top).toBe(1);
  });

  it('no line is wider than the box; a long sentence wraps whole, a long title is cut, sizes are right-aligned', () => {
    const long = 'word '.repeat(60).trim();
    const r = open(planOf({ items: [item(1, { label: 'L'.repeat(300), bytes: 5 })], routeNotes: [long] }), { cols: 80, rows: 30 });
    const lines = r.lines();
    const inner = (r.review.box.width as number) - 2;
    // Sentences wrap one column short of the box (the margin a cut line had); item rows use it all.
    for (const l of lines) expect([...l].length, l).toBeLessThanOrEqual(l.includes('LLL') ? inner : inner - 1);
    expect(lines.filter((l) => l.includes('word')).some((l) => [...l].length >= inner - 6)).toBe(true);
    expect(
      lines
        .join(' ')
        .split(/\s+/)
        .filter((w) => w === 'word'),
    ).toHaveLength(60);
    const row = lines.find((l) => l.includes('LLL'))!;
    expect(row).toMatch(/… {6,}5 B$/);
  });

  it('the time of day shows from 90 inner columns on', () => {
    const at = (cols: number) =>
      open(planOf({ items: [item(1, { sessionId: 'abcdefgh12345678', updatedAt: DAY })] }), { cols, rows: 30 })
        .lines()
        .join('\n');
    expect(at(96)).toContain('2026-01-15 09:30');
    expect(at(95)).not.toContain('09:30');
  });

  it('the note a too-small terminal leaves is shown under its box', () => {
    const r = open(planOf(), { cols: 79, rows: 30 });
    r.type('delete');
    r.press('enter');
    expect(r.lines().at(-1)).toBe(' enlarge the terminal to review (at least 80×24)');
  });

  it('with the backup on, the warning names the agent', () => {
    const r = open(planOf({ agent: 'claude' }));
    r.type('b');
    expect(r.lines()).toContain(' ⚠ Removed from Claude Code; only the backup can bring it back.');
  });

  it('an unarchive plan is never called one-way, even marked irreversible', () => {
    const text = open(planOf({ action: 'unarchive', irreversible: true }))
      .lines()
      .join('\n');
    expect(text).toContain('Reversible: archive them again at any time.');
    expect(text).not.toContain('one-way');
  });

  it('notes that do not fit: whole notes, the count of the rest, and the gaps only when room is left', () => {
    const routeNotes = Array.from({ length: 30 }, (_, i) => `Route note number ${i + 1}.`);
    const r = open(planOf({ items: [item(1)], routeNotes }), { cols: 80, rows: 24 });
    expect(r.lines()).toMatchInlineSnapshot(`
      [
        " pi · 1 item · estimated reclaimed 2.0 KB on disk",
        " Route note number 1.",
        " Route note number 2.",
        " Route note number 3.",
        " Route note number 4.",
        " Route note number 5.",
        " Route note number 6.",
        " Route note number 7.",
        " Route note number 8.",
        " Route note number 9.",
        "  … 22 more notes",
        " Items",
        " Sessions     Session 1                                             1.0 KB",
        " Backup: off (b toggles)",
        " ⚠ Irreversible: without a backup, removed data cannot be brought back.",
        "  Cancel   Type delete and Enter to clean · Esc cancels",
        " >",
      ]
    `);
    const roomy = open(planOf({ items: [item(1)], routeNotes: routeNotes.slice(0, 3) }), { cols: 80, rows: 24 }).lines();
    expect(roomy.filter((l) => l === '')).toHaveLength(2);
    expect(roomy.join('\n')).not.toContain('more notes');
    const tight = open(planOf({ items: [item(1)], routeNotes: routeNotes.slice(0, 11) }), { cols: 80, rows: 24 }).lines();
    expect(tight.length).toBeLessThanOrEqual(19);
    expect(tight).toMatchInlineSnapshot(`
      [
        " pi · 1 item · estimated reclaimed 2.0 KB on disk",
        " Route note number 1.",
        " Route note number 2.",
        " Route note number 3.",
        " Route note number 4.",
        " Route note number 5.",
        " Route note number 6.",
        " Route note number 7.",
        " Route note number 8.",
        " Route note number 9.",
        "  … 3 more notes",
        " Items",
        " Sessions     Session 1                                             1.0 KB",
        " Backup: off (b toggles)",
        " ⚠ Irreversible: without a backup, removed data cannot be brought back.",
        "  Cancel   Type delete and Enter to clean · Esc cancels",
        " >",
      ]
    `);
  });
});

describe('the edges of the layout', () => {
  it('a plan not offered a backup, with no reason given, says only that', () => {
    const r = open(planOf({ backupEligible: false }));
    expect(r.lines()).toContain(' Backup: not offered —');
  });

  it('destroy takes the box off the screen', () => {
    const r = open(planOf());
    r.lines();
    expect(screen!.children).toContain(r.review.box);
    r.review.destroy();
    expect(screen!.children).not.toContain(r.review.box);
  });
});
