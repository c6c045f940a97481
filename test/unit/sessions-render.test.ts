// The Sessions screen drawn from a given state at 80 and 120 columns, with
// no terminal: the layout, the header (what gives way at 80), the rows'
// columns and marks, long titles cut, an agent's escapes made inert; and the
// view's key changes as pure steps.

import { describe, expect, it } from 'vitest';
import type { Detail, Row } from '../../src/engine/core/model.js';
import { pendingPaneLines, sessionRow, sessionsEmptyText, sessionsHeader, sessionsLayout } from '../../src/screens/sessions-render.js';
import {
  clearFilterLayer,
  defaultView,
  expandAll,
  nextSort,
  nextState,
  nextUpdated,
  pageRequest,
  reversed,
  toggleRow,
  treeOrList,
  withText,
} from '../../src/screens/sessions-state.js';
import { colour, expectDrawable, plainTheme, shown } from '../helpers/render-lines.js';
import { viewRow } from '../helpers/sessions.js';

const NOW = Date.UTC(2026, 10, 30);
const DAY = 86_400_000;

const row = (over: Partial<Row> = {}): Row =>
  viewRow({ depth: 1, title: 'Fix the parser', projectLabel: 'proj', updatedAt: NOW - 3 * DAY, bytes: 12_345, ...over });
const noMarks = { has: (_id: string): boolean => false, projectCounts: (_id: string) => ({ marked: 0, selectable: 0 }) };
const look = (marks = noMarks) => ({ theme: plainTheme, now: NOW, marks });
const summary = { provisional: false, sweepForecast: undefined, sessionCount: 1234 };

describe('sessions layout', () => {
  it('puts the pane under the list at 80 columns, with a line of ─ between', () => {
    const at = sessionsLayout(80, 21, plainTheme);
    expect(at.listW).toBe(80);
    expect(at.list).toEqual({ width: 80, height: 11 });
    expect(at.sep).toEqual({ top: 13, left: 0, width: 80, height: 1 });
    expect(at.sepText).toBe('─'.repeat(80));
    expect(at.pane).toEqual({ top: 14, left: 0, width: 80, height: 7 });
    // The header's two lines, the list, the separator and the pane fill the height exactly.
    expect(2 + at.list.height + 1 + at.pane.height).toBe(21);
  });

  it('puts the pane beside the list at 120 columns, with a column of │ between', () => {
    const at = sessionsLayout(120, 37, plainTheme);
    expect(at.pane).toEqual({ top: 2, left: 75, width: 45, height: 35 });
    expect(at.sep).toEqual({ top: 2, left: 74, width: 1, height: 35 });
    expect(at.listW).toBe(74);
    expect(at.list).toEqual({ width: 74, height: 35 });
    expect(at.sepText.split('\n')).toEqual(Array(35).fill('│'));
    // The pane is never wider than 60.
    expect(sessionsLayout(200, 37, plainTheme).pane.width).toBe(60);
  });
});

describe('sessions header', () => {
  const header = (over: Partial<Parameters<typeof sessionsHeader>[0]> = {}, width = 80) =>
    sessionsHeader({ view: defaultView(), summary, matched: 1234, matchedBytes: 5_000_000, ...over }, width, plainTheme).map(shown);

  it('names the view, the sort and the age filter at the left and the counts at the right, in the width', () => {
    for (const width of [80, 120]) {
      const [line1, head] = header({}, width);
      expectDrawable([line1!, head!], width);
      expect(line1).toMatch(/^Tree · newest first · any time +1,234 sessions · 5\.0 MB$/);
      expect(line1!.length).toBe(width - 1);
      expect(head).toMatch(/^ {4}Project \/ session +Source +Updated +Size +Kids$/);
      expect(head!.length).toBe(width);
    }
  });

  it('says List and Session in the flat view, and oldest first when reversed', () => {
    const [line1, head] = header({ view: reversed(treeOrList(defaultView())) }, 120);
    expect(line1).toMatch(/^List · oldest first · any time/);
    expect(head).toMatch(/^ {4}Session {2,}Source/);
  });

  it('at 80 columns a long filter drops the view name, then the size, before the filter is cut', () => {
    const v = withText(nextState(nextUpdated(defaultView(), false)), 'parser');
    const [wide] = header({ view: v, matched: 12 }, 120);
    expect(wide).toMatch(/^Tree · newest first · .* · archived only · “parser” +12 of 1,234 sessions · 5\.0 MB$/);
    const [narrow] = header({ view: v, matched: 12 }, 80);
    expect(narrow!.length).toBeLessThanOrEqual(79);
    expect(narrow).not.toMatch(/^Tree/);
    expect(narrow).toMatch(/^newest first · last 7 d · archived only · “parser” +12 of 1,234 sessions$/);
  });

  it('cuts a typed filter too long for the line with an ellipsis, and makes its braces inert', () => {
    const v = withText(defaultView(), `{bold}${'x'.repeat(200)}`);
    const [raw] = sessionsHeader({ view: v, summary, matched: 1, matchedBytes: 1 }, 80, colour);
    expectDrawable([raw!], 80);
    expect(raw).toContain('{open}bold{close}');
    expect(shown(raw!)).toContain('…');
  });

  it('says a running scan is partial first', () => {
    const [line1] = header({ summary: { ...summary, provisional: true } }, 120);
    expect(line1).toMatch(/^Scanning… partial, read-only · Tree/);
  });

  it('has no counts before a scan', () => {
    const [line1] = header({ summary: null }, 80);
    expect(line1!.trimEnd()).toBe('Tree · newest first · any time');
  });
});

describe('sessions rows', () => {
  it('lays a session out in its columns at 80 and 120 columns', () => {
    for (const width of [80, 120]) {
      const line = sessionRow(row(), width, false, look());
      expectDrawable([line], width);
      expect(line.length).toBe(width);
      // [mark][indent+glyph][title][source][age →][size →][kids →]: 4, the title's room, 8 or 9, 8, 10, 6.
      const source = width >= 90 ? 9 : 8;
      const title = width - 4 - source - 8 - 10 - 6;
      expect(line.slice(0, 8)).toBe('[ ]     ');
      expect(line.slice(8, 4 + title).trimEnd()).toBe('Fix the parser');
      expect(line.slice(4 + title, 4 + title + source)).toBe('cli'.padEnd(source));
      expect(line.slice(width - 24)).toBe(`${'3d'.padStart(8)}${'12.3 KB'.padStart(10)}${''.padStart(6)}`);
    }
  });

  it('marks a marked session, a blocked one and a context row differently', () => {
    const marks = { ...noMarks, has: (id: string) => id === 'session:a' };
    expect(sessionRow(row(), 80, false, look(marks))).toMatch(/^\[x\] /);
    expect(sessionRow(row({ selectable: false }), 80, false, look())).toMatch(/^ - {2}/);
    expect(sessionRow(row({ selectable: false, context: true }), 80, false, look())).toMatch(/^ {4}/);
  });

  it('shows a project with its glyph, its path cut in the middle, its mark from its sessions and its count', () => {
    const project = row({
      kind: 'project',
      id: 'project:p',
      depth: 0,
      title: 'cleanerx',
      source: `/home/me/${'deep/'.repeat(20)}cleanerx`,
      expandable: true,
      expanded: true,
      childCount: 42,
    });
    const some = { ...noMarks, projectCounts: () => ({ marked: 1, selectable: 3 }) };
    const all = { ...noMarks, projectCounts: () => ({ marked: 3, selectable: 3 }) };
    for (const width of [80, 120]) {
      const line = sessionRow(project, width, false, look(some));
      expect(line.startsWith('{bold}')).toBe(true);
      const text = shown(line);
      expectDrawable([line], width);
      expect(text).toMatch(/^\[~\] ▾ cleanerx \/home\/me\/.*….*\/cleanerx +3d +12\.3 KB +42$/);
      expect(sessionRow(project, width, false, look(all))).toMatch(/^\{bold\}\[x\] ▾ /);
    }
    expect(shown(sessionRow({ ...project, expanded: false }, 80, false, look()))).toMatch(/^ {4}▸ cleanerx/);
  });

  it('cuts a long title with an ellipsis and keeps the other columns where they are', () => {
    const long = row({ title: 'A very long session title '.repeat(10) });
    for (const width of [80, 120]) {
      const line = sessionRow(long, width, false, look());
      expect(line.length).toBe(width);
      expect(line).toContain('…');
      expect(line).toMatch(/ +cli +3d +12\.3 KB +$/);
    }
  });

  it('makes an agent-supplied title inert: no escape sequence, braces escaped', () => {
    const evil = row({ title: '\x1b[31mred\x1b]0;pwned\x07 {bold}x{/bold}', source: '\x1b[2Jcli' });
    for (const width of [80, 120]) {
      const line = sessionRow(evil, width, false, look());
      expectDrawable([line], width);
      expect(line).not.toContain('\x1b');
      expect(line).toContain('{open}bold{close}');
      expect(line).not.toMatch(/\{bold\}/);
    }
  });

  it('draws the cursor row inverse and an archived session as archived', () => {
    const line = sessionRow(row({ state: 'archived' }), 80, true, look());
    expect(line).toMatch(/^\{inverse\}.*\{\/inverse\}$/);
    expect(shown(line)).toMatch(/Fix the parser +archived +3d/);
  });
});

describe('sessions empty list and pending pane', () => {
  it('says why the list is empty', () => {
    const e = { error: null, summary: { sessionCount: 3 }, scanning: false, stale: false };
    expect(shown(sessionsEmptyText(e, plainTheme))).toBe('  Nothing matches this filter (Esc clears it)');
    expect(shown(sessionsEmptyText({ ...e, stale: true }, plainTheme))).toBe('  Loading sessions…');
    expect(shown(sessionsEmptyText({ ...e, summary: { sessionCount: 0 } }, plainTheme))).toMatch(/^ {2}\S/);
    expect(shown(sessionsEmptyText({ ...e, summary: null, scanning: true }, plainTheme))).toMatch(/^ {2}Scanning/);
    expect(sessionsEmptyText({ ...e, error: 'bad {x}' }, colour)).toBe('{red-fg}bad {open}x{close}{/red-fg}');
  });

  it('shows the row title while its details load, and nothing of its own once they are the cursor row’s', () => {
    const r = row();
    expect(pendingPaneLines(undefined, null, false, plainTheme)!.map(shown)).toEqual(['Select an agent with [ or ] (or Tab to the deck).']);
    expect(pendingPaneLines(undefined, null, true, plainTheme)).toEqual(['']);
    expect(pendingPaneLines(r, null, true, plainTheme)!.map(shown)).toEqual(['Fix the parser', 'Loading details…']);
    expect(pendingPaneLines(r, { id: r.id, detail: null, error: 'gone' }, true, plainTheme)!.map(shown)).toEqual(['Fix the parser', 'gone']);
    const detail = { id: r.id } as Detail;
    expect(pendingPaneLines(r, { id: 'session:other', detail }, true, plainTheme)).not.toBeNull();
    expect(pendingPaneLines(r, { id: r.id, detail }, true, plainTheme)).toBeNull();
  });
});

describe('sessions view changes', () => {
  it('cycles the age filter, with the agent’s sweep only where it has one', () => {
    const walk = (hasSweep: boolean): (string | undefined)[] => {
      const out: (string | undefined)[] = [];
      let v = defaultView();
      for (let i = 0; i < 7; i++) {
        v = nextUpdated(v, hasSweep);
        out.push(v.filter.updated);
      }
      return out;
    };
    expect(walk(false)).toEqual(['within7', 'within30', 'older30', 'older90', undefined, 'within7', 'within30']);
    expect(walk(true)).toEqual(['within7', 'within30', 'older30', 'older90', 'agentSweep', undefined, 'within7']);
  });

  it('cycles the state filter and the sort, and clears the typed filter before the rest', () => {
    const v = nextState(defaultView());
    expect(v.filter.state).toBe('archived');
    expect(nextState(v).filter.state).toBe('current');
    expect(nextState(nextState(v)).filter.state).toBeUndefined();
    expect(nextSort(defaultView()).sort).toBe('size');
    expect(nextSort(nextSort(nextSort(defaultView()))).sort).toBe('updated');
    const typed = withText(v, 'x');
    expect(clearFilterLayer(typed).filter).toEqual({ state: 'archived', text: undefined });
    expect(clearFilterLayer(clearFilterLayer(typed)).filter).toEqual({});
  });

  it('toggles rows without touching the view it came from, and e starts the toggles over', () => {
    const v = defaultView();
    const open = toggleRow(v, 'project:p');
    expect([...open.expansion.toggled]).toEqual(['project:p']);
    expect(v.expansion.toggled.size).toBe(0);
    expect(toggleRow(open, 'project:p').expansion.toggled.size).toBe(0);
    const all = expandAll(open);
    expect(all.expansion).toEqual({ base: 'allOpen', toggled: new Set() });
    expect(expandAll(all).expansion.base).toBe('allClosed');
    expect(pageRequest(open, 'snap', 50, 50)).toEqual({
      snapshotId: 'snap',
      scope: { view: 'tree', expansion: { base: 'default', toggled: ['project:p'] } },
      filter: {},
      sort: 'updated',
      reverse: false,
      offset: 50,
      limit: 50,
    });
  });
});
